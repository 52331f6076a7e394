/* fu_report.h: shared by fusim report's files (cmd_report.c, cmd_rerun.c). */
#ifndef FU_REPORT_H
#define FU_REPORT_H

#include <stddef.h>

#include "fu_common.h"

/* d as the shortest decimal that reads back as exactly d ("inf", "nan" where not finite). */
void fu_report_number(double d, char *buf, size_t cap);

/* Steps through st and prints every row as a table (columns sized to the rows, so every row is
 * held: O(rows x columns)), CSV or JSON (row by row). what names the report in messages; a
 * query that fails while running is the query's fault (FU_EDATA) when is_sql, else the
 * database's (FU_EDB); FU_ENOMEM when a table cannot hold its rows. */
struct sqlite3_stmt;
int fu_report_print_rows(struct sqlite3_stmt *st, fu_format fmt, const char *what, int is_sql);

/* fusim report rerun [ID...]: re-simulates stored predictions from the database alone (see
 * cmd_rerun.c). db: --db value (NULL: default). Returns FU_EDATA when one does not reproduce. */
int fu_report_rerun(const char *db, fu_format fmt, int nids, char **ids);

#endif
