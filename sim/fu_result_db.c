/* fu_result_db.c: a prediction -> its database row (see fu_result_db.h). */
#include "fu_result_db.h"

#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_result.h"

/* Copies src into dst[n]; FU_EDATA (with a message) when it does not fit. */
static int fu__copy(char *dst, size_t n, const char *src, const char *what) {
  size_t len = strlen(src);
  if (len >= n) {
    fu_error("the %s is too long to store (%zu characters, at most %zu): '%.40s...'", what, len,
             n - 1, src);
    return FU_EDATA;
  }
  memcpy(dst, src, len + 1);
  return FU_OK;
}

int fu_result_db_row(const fu_result *r, const char *cmdline, const fu_content *ct,
                     int64_t run_id, fu_prediction_row *row, char **json_text) {
  memset(row, 0, sizeof *row);
  *json_text = NULL;
  FU_CHECK(fu__copy(row->workload, sizeof row->workload, r->workload, "workload name"));
  FU_CHECK(fu__copy(row->plan, sizeof row->plan, r->plan, "plan string"));
  FU_CHECK(fu__copy(row->comm, sizeof row->comm, r->comm, "comm target"));
  FU_CHECK(fu__copy(row->profile, sizeof row->profile, r->profile, "profile name"));
  row->iter_us = r->iter_us;
  row->iter_lo_us = r->iter_lo_us;
  row->iter_hi_us = r->iter_hi_us;
  row->compute_us = r->compute_us;
  row->comm_us = r->comm_us;
  row->exposed_comm_us = r->exposed_comm_us;
  row->n_ops = (int)r->n_ops;
  row->fusion_buffer_bytes = r->fusion_buffer_bytes;
  row->run_id = run_id;
  fu_comm c;
  if (fu_comm_parse(r->comm, &c) == FU_OK) row->ranks = c.ranks;
  const char *fw = strstr(r->plan, " framework="); /* fu_plan_string names all but ideal */
  snprintf(row->framework, sizeof row->framework, "%.*s", fw ? (int)strcspn(fw + 11, " ") : 5,
           fw ? fw + 11 : "ideal");
  if (ct) {
    row->workload_json = ct->workload_json;
    row->profile_json = ct->profile_json;
    row->buckets_json = ct->buckets_json;
  }
  int n = snprintf(row->cmdline, sizeof row->cmdline, "fusim %s", cmdline ? cmdline : "");
  if (n < 0 || (size_t)n >= sizeof row->cmdline) memcpy(row->cmdline + sizeof row->cmdline - 4, "...", 4);
  json_t *j = fu_result_json(r);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  if (!text) { /* Jansson refuses only when memory runs out or a value is not finite */
    fu_error("the prediction's JSON for the database could not be built (out of memory or a "
             "non-finite value)");
    return FU_ENOMEM;
  }
  row->json = *json_text = text;
  return FU_OK;
}
