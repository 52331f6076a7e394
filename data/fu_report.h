/* fu_report.h: shared by fusim report's files (cmd_report.c, cmd_rerun.c). */
#ifndef FU_REPORT_H
#define FU_REPORT_H

#include <stddef.h>

#include "fu_common.h"

/* d as the shortest decimal that reads back as exactly d ("inf", "nan" where not finite). */
void fu_report_number(double d, char *buf, size_t cap);

/* fusim report rerun [ID...]: re-simulates stored predictions from the database alone (see
 * cmd_rerun.c). db: --db value (NULL: default). Returns FU_EDATA when one does not reproduce. */
int fu_report_rerun(const char *db, fu_format fmt, int nids, char **ids);

#endif
