/* cmd_workload.c: fusim workload (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_workload(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("workload: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
