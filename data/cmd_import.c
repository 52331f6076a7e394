/* cmd_import.c: fusim import (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_import(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("import: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
