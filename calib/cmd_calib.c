/* cmd_calib.c: fusim calib. Options are checked in full, and the database's folder or file is
 * checked writable, before any GPU work; the measuring itself is fu_calib_run (CUDA builds: the
 * GPU half, fusim-gpu). */
#include "fu_calib.h"
#include "fu_paths.h"

int fu_cmd_calib(int argc, char **argv) {
  fu_calib_opts o;
  int help = 0;
  int st = fu_calib_parse(argc, argv, &o, &help);
  if (st != FU_OK || help) return fu_exit_code(st);
  st = fu_calib_db_writable(fu_db_path_default(o.db_arg));
  if (st != FU_OK) return fu_exit_code(st);
#ifdef FU_HAVE_CUDA
  return fu_exit_code(fu_calib_run(&o, argc, argv));
#else
  /* the light fusim (fusim.c hands calib to fusim-gpu when it is installed) */
  return fu_exit_code(fu_paths_no_gpu_half("calib"));
#endif
}
