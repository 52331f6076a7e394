/* cmd_plan.c: fusim plan (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_plan(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("plan: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
