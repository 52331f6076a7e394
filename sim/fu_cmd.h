/* fu_cmd.h: what the commands that predict (predict, plan, validate) share above the option
 * parser (model/fu_options.h): the plan and target from their option groups, the workload and
 * profile from --workload / --profile, and storing predictions (one transaction per command). */
#ifndef FU_CMD_H
#define FU_CMD_H

#include <stddef.h>

#include "fu_options.h"
#include "fu_plan.h"
#include "fu_predict.h"
#include "fu_profile.h"
#include "fu_workload.h"

#define FU_CMD_DEFAULT_COMM "allreduce:8"

/* The plan: fu_plan_init, then --plan FILE, then the flags given over it (each message names
 * `cmd` and its flag). *p is finished by the caller (fu_plan_finish) whatever the status. */
int fu_cmd_get_plan(const char *cmd, const fu_opt_plan *o, fu_plan *p);
/* One warning line each where the plan asks --framework ddp for what no run of real DDP does
 * (--overlap off, several streams): predict and plan price it all the same. */
void fu_cmd_warn_framework(const fu_plan *p);
/* --comm (NULL: FU_CMD_DEFAULT_COMM); a bad value's line names `cmd`. */
int fu_cmd_get_comm(const char *cmd, const fu_opt_target *t, fu_comm *c);

/* --gpus-per-process N (0: not given, one process per GPU) as the layout prof's cost model prices
 * (fu_cluster.job_gpus_per_proc), and where --comm names no LINK, the link inside a node of the
 * profile's machine (its cluster's intra_link; NVLink where it names none); FU_EUSAGE (one line
 * naming `cmd`) where N does not divide the GPUs of a node of c. */
int fu_cmd_layout(const char *cmd, long gpus_per_proc, fu_comm *c, fu_profile *prof);
/* --nccl-version X.Y.Z[+...] as prof's cost model prices it (fu_cluster.job_nccl_version,
 * NCCL_VERSION_CODE; and job_compcap from the profile's GPU, which NCCL's tuning reads); NULL (not given): the profile's nccl_version, the NCCL its logs ran, where it
 * has one, else unknown. *src (fu_nccl_source) says which. FU_EUSAGE (one line naming `cmd`)
 * where the version given is not an NCCL 2 version. */
int fu_cmd_nccl_version(const char *cmd, const char *version, fu_profile *prof, int *src);

/* --workload (a file or a bundled name; `cmd` names the command in messages) and --profile
 * (NULL: the bundled default). w is initialised here and finished by the caller, as is *prof
 * (malloc'd: a profile is large; free it). Either may be NULL when not wanted. */
int fu_cmd_inputs(const char *cmd, const fu_opt_inputs *in, int strict, fu_workload *w,
                  fu_profile **prof);

/* Stores n predictions in the database of o (fu_db_path_default) in one transaction, each row
 * built by fu_result_db_row with the command line argv. Nothing when o->no_store. */
/* Every row keeps what was simulated (w, prof and its buckets) and one run (kind "plan" when
 * argv[0] is plan, else "predict") holds them all, with host, fusim version and commit. */
int fu_cmd_store(const fu_opt_output *o, const fu_result *const *r, size_t n,
                 const fu_workload *w, const fu_profile *prof, int argc, char **argv);

#endif
