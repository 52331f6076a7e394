/* cmd_fit.c: fusim fit (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_fit(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("fit: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
