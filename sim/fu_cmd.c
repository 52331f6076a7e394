/* fu_cmd.c: shared command support for predict, plan and validate (see fu_cmd.h). */
#include "fu_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_reprice.h"
#include "fu_result_db.h"

int fu_cmd_get_plan(const char *cmd, const fu_opt_plan *o, fu_plan *p) {
  char what[64];
  fu_plan_init(p);
  if (o->plan_file) FU_CHECK(fu_plan_load(o->plan_file, p));
#define FU__WHAT(flag) (snprintf(what, sizeof what, "%s: " flag, cmd), what)
  if (o->fusion) FU_CHECK(fu_plan_parse_fusion_as(FU__WHAT("--fusion"), o->fusion, p));
  if (o->overlap) FU_CHECK(fu_plan_parse_overlap_as(FU__WHAT("--overlap"), o->overlap, p));
  if (o->pack) FU_CHECK(fu_plan_parse_pack_as(FU__WHAT("--pack"), o->pack, p));
  if (o->comm_streams) FU_CHECK(fu_plan_parse_streams_as(FU__WHAT("--comm-streams"), o->comm_streams, p));
  if (o->framework) FU_CHECK(fu_plan_parse_framework_as(FU__WHAT("--framework"), o->framework, p));
#undef FU__WHAT
  return FU_OK;
}

void fu_cmd_warn_framework(const fu_plan *p) {
  /* priced all the same, as what-ifs: no run of real DDP does either */
  if (p->framework == FU_FRAMEWORK_DDP && !p->overlap)
    fu_warn("--framework ddp with --overlap off: DDP's reducer issues each bucket as it fills, "
            "never all at backward's end; this plan is a what-if real DDP does not run");
  if (p->framework == FU_FRAMEWORK_DDP && p->comm_streams > 1)
    fu_warn("--framework ddp with --comm-streams %d: DDP issues every bucket on its process "
            "group's one NCCL stream; this plan is a what-if real DDP does not run", p->comm_streams);
}

int fu_cmd_get_comm(const char *cmd, const fu_opt_target *t, fu_comm *c) {
  char what[64];
  snprintf(what, sizeof what, "%s: --comm", cmd);
  return fu_comm_parse_as(what, t->comm ? t->comm : FU_CMD_DEFAULT_COMM, c);
}

int fu_cmd_layout(const char *cmd, long gpus_per_proc, fu_comm *c, fu_profile *prof) {
  int gpn = c->ranks / (c->nodes > 0 ? c->nodes : 1);
  if (gpus_per_proc > 0 && (gpn < 1 || gpn % gpus_per_proc != 0)) {
    fu_error("%s: --gpus-per-process %ld does not divide the %d GPUs of a node", cmd, gpus_per_proc, gpn);
    return FU_EUSAGE;
  }
  prof->cluster.job_gpus_per_proc = gpus_per_proc > 0 ? (int)gpus_per_proc : 1;
  /* a PCIe machine's profile prices allreduce:8 over PCIe, its measured curves included */
  fu_link l;
  if (!c->link_given && c->kind != FU_COMM_OFFLOAD && prof->cluster.intra_link[0] &&
      fu_link_parse(prof->cluster.intra_link, &l) == FU_OK)
    c->link = l;
  /* N ranks is one node: more GPUs on one node than the profile ever measured on one is
     likely N GPUs meant over several nodes (it is priced as one node all the same) */
  int most = prof->cluster.gpus_per_node;
  for (int i = 0; i < prof->ncurves; i++) {
    const fu_curve *cv = &prof->curves[i];
    int per = cv->ranks / (cv->nodes > 0 ? cv->nodes : 1);
    if (per > most) most = per;
  }
  int per = c->nodes > 0 ? c->ranks / c->nodes : c->ranks;
  if (c->kind != FU_COMM_OFFLOAD && c->nodes == 1 && most > 1 && c->ranks > most)
    fu_warn("%s: --comm: %d ranks on ONE node, priced as one node of %d GPUs, but the profile "
            "measured at most %d GPUs on a node; for %d nodes of %d say %dx%d", cmd, c->ranks,
            c->ranks, most, (c->ranks + most - 1) / most, most, (c->ranks + most - 1) / most, most);
  else if (c->kind != FU_COMM_OFFLOAD && c->nodes > 1 && most > 1 && per > most)
    fu_warn("%s: --comm: %d GPUs on each node, priced so, but the profile measured at most %d GPUs "
            "on a node", cmd, per, most);
  return FU_OK;
}

int fu_cmd_nccl_version(const char *cmd, const char *version, fu_profile *prof, int *src) {
  prof->cluster.job_compcap = fu_gpu_compcap(prof->gpu); /* NCCL's tuning reads the GPU's */
  prof->cluster.job_nccl_version = version ? 0 : fu_nccl_version_code(prof->nccl_version);
  *src = prof->cluster.job_nccl_version ? FU_NCCL_PROFILE : FU_NCCL_UNKNOWN;
  if (!version) return FU_OK;
  int code = fu_nccl_version_code(version);
  if (!code) {
    fu_error("%s: --nccl-version '%s': say an NCCL 2 version as NCCL prints it, e.g. 2.29.2", cmd, version);
    return FU_EUSAGE;
  }
  prof->cluster.job_nccl_version = code;
  *src = FU_NCCL_GIVEN;
  return FU_OK;
}

int fu_cmd_inputs(const char *cmd, const fu_opt_inputs *in, int strict, fu_workload *w,
                  fu_profile **prof) {
  if (w) fu_workload_init(w);
  if (prof) *prof = NULL;
  if (w) {
    char *path = fu_workload_resolve(in->workload);
    if (!path) {
      fu_error("%s: --workload %s: no such file or bundled workload (fusim workload --list)", cmd,
               in->workload);
      return FU_ENOINPUT;
    }
    int st = fu_workload_load(path, strict, w);
    free(path);
    FU_CHECK(st);
  }
  if (prof) {
    if (!(*prof = malloc(sizeof **prof))) return FU_ENOMEM;
    FU_CHECK(fu_profile_load_arg("--profile", in->profile, *prof));
  }
  /* compute and links from one machine: a what-if priced with another profile is priced again */
  if (w && prof) FU_CHECK(fu_reprice(cmd, w, *prof, in->profile, NULL));
  return FU_OK;
}

int fu_cmd_store(const fu_opt_output *o, const fu_result *const *r, size_t n,
                 const fu_workload *w, const fu_profile *prof, int argc, char **argv) {
  if (o->no_store) return FU_OK;
  char *cmd = fu_join_argv(argc, argv);
  if (!cmd) return FU_ENOMEM;
  fu_db *db = NULL;
  int64_t run_id = 0;
  int st = fu_db_open(fu_db_path_default(o->db), FU_DB_READWRITE, &db);
  if (st == FU_OK) st = fu_db_begin(db);
  if (st == FU_OK) {
    fu_provenance pv;
    fu_provenance_local(&pv, "fusim", argc, argv);
    st = fu_db_run_begin(db, argc > 0 && !strcmp(argv[0], "plan") ? "plan" : "predict", &pv,
                         &run_id);
  }
  for (size_t k = 0; k < n && st == FU_OK; k++) {
    fu_prediction_row row;
    fu_content ct;
    char *json = NULL;
    int64_t id;
    st = fu_content_init(&ct, w, prof, r[k]);
    if (st == FU_OK) st = fu_result_db_row(r[k], cmd, &ct, run_id, &row, &json);
    if (st == FU_OK) st = fu_db_prediction_store(db, &row, &id);
    free(json);
    fu_content_finish(&ct);
  }
  if (db && st == FU_OK) st = fu_db_commit(db);
  else if (db) fu_db_rollback(db);
  fu_db_close(db);
  free(cmd);
  return st;
}
