/* test_result.c: predict's JSON printer streams the bucket array (one reused object per bucket,
 * the punctuation between Jansson's pieces written by fu_result.c); what it prints must parse to
 * exactly the object fu_result_json builds as one tree (plan's and the database's JSON): same
 * keys in the same order, same values. Cases: no bucket, one, names that need escaping, a name
 * longer than the printer's 64 KiB buffer, a missing name, and enough buckets to flush the
 * buffer many times. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_result.h"
#include "fu_test.h"

/* A result with nb buckets of made-up but distinct values. */
static void make(fu_result *r, size_t nb, const char *const *names) {
  memset(r, 0, sizeof *r);
  snprintf(r->workload, sizeof r->workload, "w \"quoted\" \xc3\xa9");
  snprintf(r->plan, sizeof r->plan, "cap:1000B overlap=on pack=copy streams=1");
  snprintf(r->comm, sizeof r->comm, "allreduce:8:nvlink");
  snprintf(r->profile, sizeof r->profile, "test");
  r->iter_us = 6172208.1633128645;
  r->iter_lo_us = 1.0 / 3;
  r->iter_hi_us = 1e-300;
  r->compute_us = 150010.0;
  r->comm_us = 0.1 + 0.2;
  r->exposed_comm_us = 12345678.9;
  r->overlap_frac = 0.016335320454896274;
  r->bus_util = 0;
  r->pack_us = 2.5;
  r->n_ops = nb;
  r->fusion_buffer_bytes = 9007199254740992ULL;
  r->sim_events = 808566;
  r->estimated = 1;
  r->nbuckets = nb;
  r->buckets = calloc(nb ? nb : 1, sizeof *r->buckets);
  for (size_t k = 0; k < nb; k++) {
    fu_bucket *b = &r->buckets[k];
    b->first = 2 * k;
    b->last = 2 * k + 1;
    b->bytes = 4096 * (k + 1);
    b->ready_us = 50000.5 + 0.1 * (double)k;
    b->start_us = b->ready_us + 1.0 / 7;
    b->end_us = b->start_us + 30.591858764572;
    b->pack_us = k % 2 ? 0.0 : 1e-9;
    b->comm_us = 30.591858764572;
    b->busbw_gbps = 1.2345678901234 * (double)k;
    b->last_tensor = names ? names[k % 3] : NULL;
  }
}

/* Prints r with fu_result_print_json, reads it back; 1 when it equals fu_result_json(r) key for
 * key in the same order (compact dumps compared as text) and as values (json_equal). */
static int same(const fu_result *r) {
  FILE *f = tmpfile();
  if (!f) return 0;
  int st = fu_result_print_json(f, r);
  rewind(f);
  json_error_t err;
  json_t *printed = json_loadf(f, 0, &err), *tree = fu_result_json(r);
  fclose(f);
  int ok = st == FU_OK && printed && tree && json_equal(printed, tree);
  if (!printed) fprintf(stderr, "printed JSON does not parse: %d:%d: %s\n", err.line, err.column, err.text);
  char *a = ok ? json_dumps(printed, JSON_COMPACT) : NULL, *b = ok ? json_dumps(tree, JSON_COMPACT) : NULL;
  ok = ok && a && b && strcmp(a, b) == 0;
  free(a);
  free(b);
  json_decref(printed);
  json_decref(tree);
  return ok;
}

int main(void) {
  static const char *const plain[3] = {"layer1.weight", "layer1.bias", "fc.weight"};
  static const char *const odd[3] = {"a\"b\\c\nd\te", "\xe2\x82\xac/\x01", ""};
  fu_result r;
  make(&r, 0, plain);
  EXPECT(same(&r));
  fu_result_finish(&r);
  make(&r, 1, plain);
  EXPECT(same(&r));
  fu_result_finish(&r);
  make(&r, 3, odd);
  EXPECT(same(&r));
  fu_result_finish(&r);
  make(&r, 3, NULL); /* no last tensor: "" */
  EXPECT(same(&r));
  json_t *j = fu_result_json(&r);
  EXPECT_STR_EQ(json_string_value(json_object_get(json_array_get(json_object_get(j, "buckets"), 2), "last_tensor")), "");
  json_decref(j);
  fu_result_finish(&r);
  size_t nlong = 100000; /* longer than the 64 KiB buffer: written past it */
  char *lng = malloc(nlong + 1);
  memset(lng, 'x', nlong);
  lng[nlong] = '\0';
  const char *const longn[3] = {"short", lng, "tail"};
  make(&r, 5, longn);
  EXPECT(same(&r));
  fu_result_finish(&r);
  free(lng);
  make(&r, 5000, plain); /* about 1.4 MB: many flushes */
  EXPECT(same(&r));
  j = fu_result_json(&r);
  EXPECT_INT_EQ(json_array_size(json_object_get(j, "buckets")), 5000);
  json_decref(j);
  fu_result_finish(&r);
  return fu_test_report("test_result");
}
