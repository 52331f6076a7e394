/* cmd_report.c: fusim report (placeholder until the module lands). */
#include "fu_common.h"

int fu_cmd_report(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fu_error("report: not built yet");
  return fu_exit_code(FU_EINTERNAL);
}
