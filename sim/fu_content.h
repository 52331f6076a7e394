/* fu_content.h (owner: db, issue 11): what a prediction simulated, as the JSON texts the results
 * database stores by content (data/fu_db.h, fu_prediction_row): the workload and the profile as
 * the simulator held them (not the files they came from, so a re-run from the database sees
 * exactly these numbers) and the resolved buckets. */
#ifndef FU_CONTENT_H
#define FU_CONTENT_H

#include <stddef.h>

#include "fu_profile.h"
#include "fu_predict.h"
#include "fu_workload.h"

typedef struct fu_content {
  char *workload_json;       /* fusim-workload-1 (malloc'd, compact) */
  char *profile_json;        /* fusim-profile-1 (malloc'd, compact) */
  char *buckets_json;        /* [[first, last], ...] in ready order (malloc'd) */
} fu_content;

/* Fills c from the workload, profile and result's buckets (r may be NULL: no buckets).
 * FU_ENOMEM; on failure c holds nothing. */
int fu_content_init(fu_content *c, const fu_workload *w, const fu_profile *p, const fu_result *r);
void fu_content_finish(fu_content *c); /* frees; accepts a zeroed one */

#endif
