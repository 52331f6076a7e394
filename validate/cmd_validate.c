/* cmd_validate.c: fusim validate (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_validate(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("validate: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
