/* fu_content.c (owner: db, issue 11): a prediction's inputs as JSON for the results database. */
#include "fu_content.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

void fu_content_finish(fu_content *c) {
  if (!c) return;
  free(c->workload_json);
  free(c->profile_json);
  free(c->buckets_json);
  memset(c, 0, sizeof *c);
}

int fu_content_init(fu_content *c, const fu_workload *w, const fu_profile *p, const fu_result *r) {
  memset(c, 0, sizeof *c);
  json_t *wj = NULL, *pj = fu_profile_to_json(p), *bj = json_array();
  /* a what-if priced again is stored as the user gave it (report rerun prices it again) */
  int st = w->as_given ? ((wj = json_incref(w->as_given)) ? FU_OK : FU_ENOMEM) : fu_workload_to_json(w, &wj);
  for (size_t i = 0; st == FU_OK && bj && r && i < r->nbuckets; i++)
    if (json_array_append_new(bj, json_pack("[II]", (json_int_t)r->buckets[i].first,
                                            (json_int_t)r->buckets[i].last)))
      st = FU_ENOMEM;
  /* JSON_REAL_PRECISION(17): every double read back is the one simulated */
  const size_t fl = JSON_COMPACT | JSON_REAL_PRECISION(17);
  if (st == FU_OK && wj && pj && bj) {
    c->workload_json = json_dumps(wj, fl);
    c->profile_json = json_dumps(pj, fl);
    c->buckets_json = json_dumps(bj, fl);
  }
  json_decref(wj);
  json_decref(pj);
  json_decref(bj);
  if (st == FU_OK && (!c->workload_json || !c->profile_json || !c->buckets_json)) st = FU_ENOMEM;
  if (st != FU_OK) fu_content_finish(c);
  return st;
}
