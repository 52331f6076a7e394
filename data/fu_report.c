/* fu_report.c: printing query results for fusim report (see fu_report.h): every row of a
 * statement as a table, CSV or JSON, and numbers in their shortest exact form. */
#include "fu_report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FU__TABLE_COL_MAX 60 /* widest table column; longer values are cut with "..." */

/* The shortest decimal that reads back as exactly d (%.1g .. %.17g, the first):
 * 3654600.123456789 stays whole where %.6g printed 3.6546e+06. At most 17 tries per number. */
void fu_report_number(double d, char *buf, size_t cap) {
  if (!isfinite(d)) {
    snprintf(buf, cap, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
    return;
  }
  int p = 1;
  for (; p < 17; p++) {
    snprintf(buf, cap, "%.*g", p, d);
    if (strtod(buf, NULL) == d) break;
  }
  /* %g writes 11650 with 4 digits as 1.165e+04: between 1e-4 and 1e17 write the same digits
   * without an exponent (11650, 0.00125) */
  double a = fabs(d);
  if (a >= 1e-4 && a < 1e17) {
    int decimals = p - 1 - (int)floor(log10(a));
    snprintf(buf, cap, "%.*f", decimals > 0 ? decimals : 0, d);
    if (strtod(buf, NULL) == d) return;
  }
  snprintf(buf, cap, "%.*g", p, d);
}

static void fu__cell_text(sqlite3_stmt *st, int i, char *buf, size_t cap) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: buf[0] = '\0'; break;
    case SQLITE_INTEGER: snprintf(buf, cap, "%lld", (long long)sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: fu_report_number(sqlite3_column_double(st, i), buf, cap); break;
    case SQLITE_BLOB: snprintf(buf, cap, "<blob %d bytes>", sqlite3_column_bytes(st, i)); break;
    default: snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(st, i)); break;
  }
}


static json_t *fu__cell_json(sqlite3_stmt *st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(st, i);
      return isfinite(d) ? json_real(d) : json_null(); /* JSON has no infinity */
    }
    case SQLITE_TEXT: {
      json_t *s = json_string((const char *)sqlite3_column_text(st, i));
      return s ? s : json_null(); /* not UTF-8 */
    }
    default: return json_null();
  }
}

/* One line for a row that could not be built or printed for want of memory. */
static int fu__oom(const char *what, size_t nrows) {
  fu_error("report %s: out of memory after %zu rows (a table holds every row to size its "
           "columns: try --format csv or json, which print as they go)", what, nrows);
  return FU_ENOMEM;
}

/* Step through st and print every row. CSV and JSON print row by row in O(columns) memory; the
 * table holds all rows to size the columns: O(rows x columns). A query that fails while running
 * (a missing ATTACH file, a disallowed function) is the query's fault for `report sql` (65) and
 * the database's for the named reports (70); running out of memory says so (70). */
int fu_report_print_rows(sqlite3_stmt *st, fu_format fmt, const char *what, int is_sql) {
  int nc = sqlite3_column_count(st);
  int rc;
  size_t nrows = 0;
  if (fmt == FU_FORMAT_CSV) {
    for (int i = 0; i < nc; i++) {
      if (i) putchar(',');
      fu_csv_field(stdout, sqlite3_column_name(st, i));
    }
    putchar('\n');
    char cell[8192];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      for (int i = 0; i < nc; i++) {
        if (i) putchar(',');
        if (sqlite3_column_type(st, i) == SQLITE_TEXT) { /* whole: a workload's JSON is long */
          fu_csv_field(stdout, (const char *)sqlite3_column_text(st, i));
          continue;
        }
        fu__cell_text(st, i, cell, sizeof cell);
        fu_csv_field(stdout, cell);
      }
      putchar('\n');
      nrows++;
    }
  } else if (fmt == FU_FORMAT_JSON) {
    /* an array printed one object at a time, as the indented dump of the whole array would */
    fputs("[", stdout);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      json_t *o = json_object();
      int bad = !o;
      for (int i = 0; i < nc && !bad; i++)
        bad = json_object_set_new(o, sqlite3_column_name(st, i), fu__cell_json(st, i)) != 0;
      char *text = bad ? NULL : json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
      json_decref(o);
      if (!text) {
        fputs("\n", stdout);
        return fu__oom(what, nrows);
      }
      fputs(nrows ? ",\n  " : "\n  ", stdout);
      for (const char *c = text; *c; c++) { /* nested one level: indent each line by 2 */
        putchar(*c);
        if (*c == '\n') fputs("  ", stdout);
      }
      free(text);
      nrows++;
    }
    if (rc == SQLITE_DONE) fputs(nrows ? "\n]\n" : "]\n", stdout);
  } else {
    size_t cap = 0;
    char **cells = NULL;
    int *width = calloc((size_t)nc + 1, sizeof *width);
    if (!width) return fu__oom(what, 0);
    for (int i = 0; i < nc; i++) {
      int w = (int)strlen(sqlite3_column_name(st, i));
      width[i] = w < FU__TABLE_COL_MAX ? w : FU__TABLE_COL_MAX;
    }
    char cell[8192];
    int oom = 0;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (nrows == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        char **nv = realloc(cells, ncap * (size_t)nc * sizeof *nv);
        if (!nv) {
          oom = 1;
          break;
        }
        cells = nv;
        cap = ncap;
      }
      for (int i = 0; i < nc; i++) {
        fu__cell_text(st, i, cell, sizeof cell);
        if (strlen(cell) > FU__TABLE_COL_MAX) strcpy(cell + FU__TABLE_COL_MAX - 3, "...");
        for (char *p = cell; *p; p++)
          if (*p == '\n' || *p == '\t') *p = ' ';
        cells[nrows * (size_t)nc + (size_t)i] = strdup(cell);
        if (!cells[nrows * (size_t)nc + (size_t)i]) oom = 1;
        int w = (int)strlen(cell);
        if (w > width[i]) width[i] = w;
      }
      nrows++;
    }
    if (!oom && rc == SQLITE_DONE) {
      for (int i = 0; i < nc; i++)
        printf("%s%-*.*s", i ? "  " : "", width[i], FU__TABLE_COL_MAX, sqlite3_column_name(st, i));
      putchar('\n');
      for (int i = 0; i < nc; i++) {
        printf("%s", i ? "  " : "");
        for (int k = 0; k < width[i]; k++) putchar('-');
      }
      putchar('\n');
      for (size_t r = 0; r < nrows; r++) {
        for (int i = 0; i < nc; i++) {
          const char *v = cells[r * (size_t)nc + (size_t)i];
          printf("%s%-*s", i ? "  " : "", width[i], v ? v : "");
        }
        putchar('\n');
      }
      fprintf(stderr, "(%zu row%s)\n", nrows, nrows == 1 ? "" : "s");
    }
    for (size_t k = 0; k < nrows * (size_t)nc; k++) free(cells[k]);
    free(cells);
    free(width);
    if (oom) return fu__oom(what, nrows);
  }
  if (rc == SQLITE_NOMEM) return fu__oom(what, nrows);
  if (rc != SQLITE_DONE) {
    fu_error("report %s: %s", what, sqlite3_errmsg(sqlite3_db_handle(st)));
    return is_sql ? FU_EDATA : FU_EDB;
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fu_error("report %s: cannot write the output: %s", what, strerror(errno ? errno : EIO));
    return FU_EIO;
  }
  return FU_OK;
}
