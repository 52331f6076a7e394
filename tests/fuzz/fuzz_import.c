/* fuzz_import.c: libFuzzer harness over the three parsers of data/fu_import.h.
 *
 * The first input byte picks the mode: bits 0-1 the format (auto, text, json, csv), bit 2
 * --lenient, bit 3 a given --link, bit 4 a given --op, bit 5 a given --ranks; the rest is the
 * file. The input is passed without a terminating NUL, so AddressSanitizer catches any read
 * past its end. Besides crashes, the harness checks what a successful parse promises (samples
 * with a known op and link, ranks >= 1, positive finite times, sizes that fit SQLite's
 * integers) and aborts when a promise is broken. Build and run: tests/fuzz/run.sh. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_import.h"

static void fu__check(const fu_import_result *r) {
  if (r->n == 0) abort();
  for (size_t i = 0; i < r->n; i++) {
    const fu_sample *s = &r->samples[i];
    char op[24];
    if (fu_import_op_name(s->op, op, sizeof op) != FU_OK || strcmp(op, s->op)) abort();
    if (!fu_import_link_ok(s->link)) abort();
    if (s->ranks < 1 || s->ranks > 1048576) abort();
    if (!(s->t_median_us > 0) || !isfinite(s->t_median_us)) abort();
    if (!isnan(s->t_min_us) && !(s->t_min_us > 0 && isfinite(s->t_min_us))) abort();
    if (!isnan(s->t_p95_us) && !(s->t_p95_us > 0 && isfinite(s->t_p95_us))) abort();
    if (!isnan(s->busbw_gbps) && !(s->busbw_gbps >= 0 && isfinite(s->busbw_gbps))) abort();
    if (s->bytes > (uint64_t)INT64_MAX) abort();
    if (s->in_place != 0 && s->in_place != 1) abort();
    if (s->count < 0 || s->n_wrong < -1) abort();
    if (memchr(s->dtype, '\0', sizeof s->dtype) == NULL) abort();
  }
  if (memchr(r->prov.notes, '\0', sizeof r->prov.notes) == NULL) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  static const fu_import_format fmts[4] = {FU_IMPORT_AUTO, FU_IMPORT_TEXT, FU_IMPORT_JSON,
                                           FU_IMPORT_CSV};
  o.format = fmts[mode & 3];
  o.lenient = (mode >> 2) & 1;
  if (mode & 8) strcpy(o.link, "nvlink");
  if (mode & 16) strcpy(o.op, "allreduce");
  if (mode & 32) o.ranks = 8;
  /* an exact-size copy, so that reading one byte past the end is caught */
  size_t len = size - 1;
  char *text = malloc(len ? len : 1);
  if (!text) return 0;
  memcpy(text, data + 1, len);
  fu_import_result r;
  fu_import_result_init(&r);
  int st = fu_import_parse(mode & 64 ? "fuzz-nvlink-allreduce.txt" : "fuzz.txt", text, len, &o, &r);
  if (st == FU_OK) fu__check(&r);
  else if (!r.error[0]) abort(); /* a failure always has a message */
  fu_import_result_finish(&r);
  free(text);
  return 0;
}
