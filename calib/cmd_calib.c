/* cmd_calib.c: fusim calib (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_calib(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("calib: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
