/* fu_reprice.h: a what-if priced on one machine is never planned on another unsaid.
 *
 * fusim workload --transformer/--cnn records in the workload what priced it ("priced_with": the
 * profile's name, its content hash as the results database computes it, its GPU, and the
 * builder's own arguments). predict and plan, given such a workload with a profile of another
 * hash, build it again from those arguments with the profile in use, so that compute and
 * communication come from one machine; where the profile in use has no compute tables and the
 * what-if is priced from them (not the roofline), the recorded times are kept with a warning. A capture (measured times) is kept; where it names the
 * GPU it ran on (meta.gpu) and that is not the profile's, the output says so. */
#ifndef FU_REPRICE_H
#define FU_REPRICE_H

#include "fu_hash.h"
#include "fu_profile.h"
#include "fu_workload.h"

struct json_t;

/* How the notes name the embedded profile (no --profile given). */
#define FU_PROFILE_EMBEDDED_LABEL "h200-default (embedded)"

/* The profile's content hash: SHA-256 of its JSON in canonical form, the hash the results
 * database stores it by (fu_db_profile_store). FU_ENOMEM. */
int fu_profile_hash(const fu_profile *p, char hex[FU_HASH_HEX]);

/* Sets w->priced_with from prof and the builder's arguments args (a JSON array of strings; a
 * reference is taken). With `tables` (the what-if was priced from prof's compute tables, not the
 * roofline) and tables of another GPU than prof's (fu_profile_compute_other_gpu), also
 * "compute_gpu", that GPU: what the outputs name. */
int fu_reprice_record(fu_workload *w, const fu_profile *prof, struct json_t *args, int tables);

/* Where w's compute comes from against prof (w->from; with tables_gpu where the tables that
 * priced the times used were measured on another GPU than prof's links), and an estimate priced with a profile of
 * another hash built again from its builder_args with prof (prof_arg: --profile as given, which
 * the notes name, NULL the embedded profile;
 * the workload keeps its name and source). One warning line (`cmd` names the command) where the
 * times are kept although they are not prof's. A builder that refuses the profile in use (a table
 * it lacks) is its one line and status. prof_hash: prof's fu_profile_hash where the caller has it
 * (report rerun: the database's, which stores the profile by that hash), NULL: computed here
 * (about 50 ms). */
int fu_reprice(const char *cmd, fu_workload *w, const fu_profile *prof, const char *prof_arg,
               const char *prof_hash);

/* fusim workload's builder (sim/cmd_workload.c) run on args as recorded, priced with prof. With
 * no_tables given: *no_tables set, and nothing built (w empty, FU_OK), where the what-if is priced
 * from compute tables (not the roofline) and prof has none. */
int fu_workload_build_args(const struct json_t *args, const fu_profile *prof, const char *pname,
                           fu_workload *w, int *no_tables);

#endif
