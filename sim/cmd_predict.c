/* cmd_predict.c: fusim predict (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_predict(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("predict: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
