/* fu_measured.c: the measured-iteration-time CSV (see fu_measured.h). */
#include "fu_measured.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fu_common.h"

enum { FU__M_WORKLOAD, FU__M_PLAN, FU__M_MEASURED, FU__M_SPREAD, FU__M_GPUS, FU__M_FRAMEWORK,
       FU__M_NOTES, FU__M_NCOLS };
static const char *const fu__m_names[FU__M_NCOLS] = {"workload", "plan", "measured_us",
                                                     "spread_us", "gpus", "framework", "notes"};

#define FU__M_MAXF 32 /* columns in a row, at most */

/* Splits one line (NUL-terminated, no newline) into fields in place, RFC 4180 quoting; blanks
 * around an unquoted field are trimmed. Returns the field count, or -1 for an unterminated
 * quote, -2 for too many fields. */
static int fu__fields(char *s, char **f) {
  int n = 0;
  char *p = s;
  for (;;) {
    if (n == FU__M_MAXF) return -2;
    while (*p == ' ' || *p == '\t') p++;
    char *out = p;
    f[n++] = out;
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == '\0') return -1;
        if (*p == '"' && p[1] == '"') *out++ = '"', p += 2;
        else if (*p == '"') { p++; break; }
        else *out++ = *p++;
      }
      while (*p == ' ' || *p == '\t') p++;
      if (*p != ',' && *p != '\0') return -1;
    } else {
      while (*p && *p != ',') *out++ = *p++;
      while (out > f[n - 1] && isspace((unsigned char)out[-1])) out--;
    }
    int more = *p == ',';
    *out = '\0';
    if (!more) return n;
    p++;
  }
}

/* The next line of [*p, end) copied into buf (CR stripped); 0 at the end. */
static int fu__line(const char **p, const char *end, char *buf, size_t cap, int *too_long) {
  if (*p >= end) return 0;
  const char *e = memchr(*p, '\n', (size_t)(end - *p));
  if (!e) e = end;
  size_t n = (size_t)(e - *p);
  if (n && (*p)[n - 1] == '\r') n--;
  *too_long = n >= cap;
  if (n >= cap) n = cap - 1;
  memcpy(buf, *p, n);
  buf[n] = '\0';
  *p = e < end ? e + 1 : end;
  return 1;
}

static const char *fu__skip_bom(const char *text, size_t *len) {
  if (*len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
    *len -= 3;
    return text + 3;
  }
  return text;
}

static int fu__is_blank_or_comment(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return *s == '\0' || *s == '#';
}

int fu_measured_sniff(const char *text, size_t len) {
  text = fu__skip_bom(text, &len);
  const char *p = text, *end = text + len;
  char buf[1024];
  int too_long;
  while (fu__line(&p, end, buf, sizeof buf, &too_long)) {
    if (fu__is_blank_or_comment(buf)) continue;
    char *f[FU__M_MAXF];
    int n = fu__fields(buf, f);
    for (int i = 0; i < n; i++)
      if (!strcasecmp(f[i], "measured_us")) return 1;
    return 0;
  }
  return 0;
}

static int fu__copy_field(const char *name, long line, const char *col, const char *v, char *dst,
                          size_t cap) {
  if (strlen(v) >= cap) {
    fu_error("%s:%ld: %s is longer than %zu characters", name, line, col, cap - 1);
    return FU_EDATA;
  }
  snprintf(dst, cap, "%s", v);
  return FU_OK;
}

int fu_measured_parse(const char *name, const char *text, size_t len, fu_measured_csv_row **rows,
                      size_t *n) {
  *rows = NULL;
  *n = 0;
  if (memchr(text, '\0', len)) {
    fu_error("%s: binary data (NUL bytes), not a text file", name);
    return FU_EDATA;
  }
  text = fu__skip_bom(text, &len);
  const char *p = text, *end = text + len;
  char buf[4096];
  int col[FU__M_NCOLS], have_header = 0, ncols = 0, too_long, st = FU_OK;
  for (int k = 0; k < FU__M_NCOLS; k++) col[k] = -1; /* set by the header; GCC -O3 cannot see that */
  size_t cap = 0;
  long line = 0;
  fu_measured_csv_row *v = NULL;
  while (st == FU_OK && fu__line(&p, end, buf, sizeof buf, &too_long)) {
    line++;
    if (too_long) {
      fu_error("%s:%ld: line longer than %zu characters", name, line, sizeof buf - 1);
      st = FU_EDATA;
      break;
    }
    if (fu__is_blank_or_comment(buf)) continue;
    char *f[FU__M_MAXF];
    int nf = fu__fields(buf, f);
    if (nf < 0) {
      fu_error("%s:%ld: %s", name, line,
               nf == -1 ? "unterminated quoted field" : "more than 32 columns");
      st = FU_EDATA;
      break;
    }
    if (!have_header) {
      for (int k = 0; k < FU__M_NCOLS; k++) col[k] = -1;
      for (int i = 0; i < nf; i++)
        for (int k = 0; k < FU__M_NCOLS; k++)
          if (!strcasecmp(f[i], fu__m_names[k])) {
            if (col[k] >= 0) {
              fu_error("%s:%ld: column %s appears twice in the header", name, line, fu__m_names[k]);
              st = FU_EDATA;
            }
            col[k] = i;
          }
      for (int k = 0; st == FU_OK && k <= FU__M_MEASURED; k++)
        if (col[k] < 0) {
          fu_error("%s:%ld: measured-times CSV has no %s column (header needs workload, plan, "
                   "measured_us)", name, line, fu__m_names[k]);
          st = FU_EDATA;
        }
      have_header = 1;
      ncols = nf;
      continue;
    }
    /* a row misaligned with its header would give its gpus or framework to another column, and
     * so join other predictions: refused, as in the samples CSV */
    if (nf != ncols) {
      fu_error("%s:%ld: row has %d fields, the header has %d", name, line, nf, ncols);
      st = FU_EDATA;
      break;
    }
    if (*n == cap) {
      size_t nc = cap ? 2 * cap : 16;
      fu_measured_csv_row *nv = realloc(v, nc * sizeof *nv);
      if (!nv) {
        st = FU_ENOMEM;
        break;
      }
      v = nv;
      cap = nc;
    }
    fu_measured_csv_row *r = &v[*n];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->spread_us = NAN;
    const char *val[FU__M_NCOLS];
    for (int k = 0; k < FU__M_NCOLS; k++) val[k] = col[k] >= 0 && col[k] < nf ? f[col[k]] : "";
    if (!*val[FU__M_WORKLOAD] || !*val[FU__M_PLAN] || !*val[FU__M_MEASURED]) {
      fu_error("%s:%ld: workload, plan and measured_us must all be given", name, line);
      st = FU_EDATA;
      break;
    }
    st = fu__copy_field(name, line, "workload", val[FU__M_WORKLOAD], r->workload, sizeof r->workload);
    if (st == FU_OK) st = fu__copy_field(name, line, "plan", val[FU__M_PLAN], r->plan, sizeof r->plan);
    if (st == FU_OK)
      st = fu__copy_field(name, line, "framework", val[FU__M_FRAMEWORK], r->framework,
                          sizeof r->framework);
    if (st == FU_OK) st = fu__copy_field(name, line, "notes", val[FU__M_NOTES], r->notes, sizeof r->notes);
    if (st != FU_OK) break;
    if (fu_parse_double(val[FU__M_MEASURED], &r->measured_us) != FU_OK || !(r->measured_us > 0)) {
      fu_error("%s:%ld: measured_us '%s' is not a time in microseconds above 0", name, line,
               val[FU__M_MEASURED]);
      st = FU_EDATA;
      break;
    }
    if (*val[FU__M_SPREAD] &&
        (fu_parse_double(val[FU__M_SPREAD], &r->spread_us) != FU_OK || r->spread_us < 0)) {
      fu_error("%s:%ld: spread_us '%s' is not a time in microseconds >= 0", name, line,
               val[FU__M_SPREAD]);
      st = FU_EDATA;
      break;
    }
    long g;
    if (*val[FU__M_GPUS]) {
      if (fu_parse_long(val[FU__M_GPUS], 1, 1048576, &g) != FU_OK) {
        fu_error("%s:%ld: gpus '%s' is not a GPU count (1 .. 1048576)", name, line, val[FU__M_GPUS]);
        st = FU_EDATA;
        break;
      }
      r->gpus = (int)g;
    }
    (*n)++;
  }
  if (st == FU_OK && !have_header) {
    fu_error("%s: empty: no header line", name);
    st = FU_EDATA;
  }
  if (st == FU_OK && *n == 0) {
    fu_error("%s: no measurements below the header", name);
    st = FU_EDATA;
  }
  if (st != FU_OK) {
    free(v);
    *n = 0;
    return st;
  }
  *rows = v;
  return FU_OK;
}
