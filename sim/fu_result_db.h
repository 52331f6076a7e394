/* fu_result_db.h: the one place a prediction becomes a database row (data/fu_db.h's
 * fu_prediction_row). predict, plan and validate all store through it. */
#ifndef FU_RESULT_DB_H
#define FU_RESULT_DB_H

#include "fu_content.h"
#include "fu_db.h"
#include "fu_predict.h"

/* Fills *row from r: names (workload, plan, comm, profile) and numbers, the full JSON object
 * (fu_result_json, compact; *json_text is malloc'd, row->json points at it: free it after
 * storing), and the command line ("fusim " + cmdline; cut with "..." where it is longer than
 * the row holds: it is provenance, not identity). A name longer than its column is refused in
 * one line (FU_EDATA) rather than stored cut. */
/* Also (db, issue 11): the run (run_id, 0: fu_db_prediction_store makes one of kind "predict"),
 * ranks (from r->comm), framework (from r->plan; "ideal" when it names none) and, with ct, what
 * was simulated (workload and profile JSON, resolved buckets: sim/fu_content.h; ct must
 * outlive the row). */
int fu_result_db_row(const fu_result *r, const char *cmdline, const fu_content *ct,
                     int64_t run_id, fu_prediction_row *row, char **json_text);

#endif
