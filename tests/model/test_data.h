/* test_data.h: test-only readers for the reference files (CSV with a header naming
 * op,bytes,time_us columns; nccl-tests text tables), so the model tests do not depend on the
 * data module. Out-of-place times are read from nccl-tests tables. */
#ifndef FU_TEST_DATA_H
#define FU_TEST_DATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_fit.h"

typedef struct td_set {
  char op[24];               /* op of the rows read */
  fu_fit_point pts[256];     /* samples */
  size_t n;                  /* samples read */
} td_set;

static const char *td_shared(void) {
  const char *s = getenv("FUSIM_SHARED");
  return s && *s ? s : "/work/shared";
}

/* Rows of a CSV file whose op column equals op (NULL: all). Returns samples read, -1 on error. */
static long td_read_csv(const char *path, const char *op, td_set *out) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return -1;
  }
  char line[1024];
  int c_op = -1, c_bytes = -1, c_time = -1, have_header = 0;
  out->n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char *fields[32];
    int nf = 0;
    for (char *tok = strtok(line, ",\r\n"); tok && nf < 32; tok = strtok(NULL, ",\r\n")) fields[nf++] = tok;
    if (!have_header) {
      for (int i = 0; i < nf; i++) {
        if (!strcmp(fields[i], "op")) c_op = i;
        if (!strcmp(fields[i], "bytes")) c_bytes = i;
        if (!strcmp(fields[i], "time_us")) c_time = i;
      }
      have_header = 1;
      continue;
    }
    if (c_op < 0 || c_bytes < 0 || c_time < 0 || nf <= c_time || nf <= c_bytes) break;
    if (op && strcmp(fields[c_op], op) != 0) continue;
    if (out->n >= sizeof out->pts / sizeof out->pts[0]) break;
    snprintf(out->op, sizeof out->op, "%s", fields[c_op]);
    out->pts[out->n].bytes = atof(fields[c_bytes]);
    out->pts[out->n].t_us = atof(fields[c_time]);
    out->n++;
  }
  fclose(f);
  return (long)out->n;
}

/* Out-of-place (column 6) or in-place (column 10) times of an nccl-tests table; size-0 rows skipped. */
static long td_read_nccl(const char *path, int in_place, td_set *out) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return -1;
  }
  char line[1024];
  out->n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char *fields[16];
    int nf = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && nf < 16; tok = strtok(NULL, " \t\r\n")) fields[nf++] = tok;
    if (nf < 13) continue;
    double bytes = atof(fields[0]), t = atof(fields[in_place ? 9 : 5]);
    if (bytes <= 0 || t <= 0) continue;
    if (out->n >= sizeof out->pts / sizeof out->pts[0]) break;
    out->pts[out->n].bytes = bytes;
    out->pts[out->n].t_us = t;
    out->n++;
  }
  fclose(f);
  return (long)out->n;
}

#endif
