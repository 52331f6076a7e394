/* fu_measured.h: CSV of iteration times measured outside fusim (your own training runs), the
 * input of `fusim import` that joins predictions in v_prediction_error.
 *
 * Header (names in any order, case-insensitive; lines starting with # are comments):
 *   workload     a workload's name or content hash (a hash prefix of >= 8 hex digits will do)
 *   plan         the fusion plan in predict's grammar: a --fusion value optionally followed by
 *                overlap=on|off pack=copy|view streams=N ("cap:25MiB,first:1MiB overlap=on");
 *                quote it ("...") when it holds a comma
 *   measured_us  the measured iteration time, microseconds (> 0)
 * and optionally spread_us (>= 0), gpus (>= 1), framework (ideal, ddp, hooks) and notes.
 * Fields follow RFC 4180: a field in double quotes may hold commas and "" for a quote. */
#ifndef FU_MEASURED_H
#define FU_MEASURED_H

#include <stddef.h>

typedef struct fu_measured_csv_row {
  long line;                 /* line number in the file (for messages) */
  char workload[160];        /* name or hash as written */
  char plan[300];            /* plan as written */
  double measured_us;        /* > 0 */
  double spread_us;          /* NaN when absent */
  int gpus;                  /* 0 when absent */
  char framework[16];        /* "" when absent */
  char notes[512];           /* "" when absent */
} fu_measured_csv_row;

/* 1 when the first line that is neither blank nor a comment is a header with a measured_us
 * column (after a UTF-8 byte order mark). */
int fu_measured_sniff(const char *text, size_t len);

/* Parses the whole file; FU_EDATA with one line "NAME:LINE: what" on stderr for the first bad
 * row (the file is then not stored at all). *rows is malloc'd. */
int fu_measured_parse(const char *name, const char *text, size_t len, fu_measured_csv_row **rows,
                      size_t *n);

#endif
