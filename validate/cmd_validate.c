/* cmd_validate.c: fusim validate: run fusion plans on the GPU and compare with predictions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_cmd.h"
#include "fu_common.h"
#include "fu_options.h"
#include "fu_plan.h"
#include "fu_validate.h"

static const char fu__head[] =
    "usage: fusim validate --workload W[,W2..] [options]\n"
    "       fusim validate --fusion-table [--reps N] [--format table|csv|json]\n"
    "       fusim validate --from-csv FILE [--format table|csv|json] [--plot FILE]\n"
    "\n"
    "Runs every workload under every plan for real on the GPU(s) and prints the simulator's\n"
    "prediction beside the measured iteration time, with the error of each row and a\n"
    "summary (median and max |error|). With one GPU the communication is gradient offload\n"
    "to pinned host memory over PCIe; with two or more, NCCL all-reduce across them.\n";

static const char fu__foot[] =
    "\n"
    "--workload takes bundled workload names (resnet50, bert_large, ...) or files, comma-separated.\n"
    "--plan FILE: a JSON plan object or an array of them ({\"fusion\": \"cap:25MiB\", \"overlap\":\n"
    "\"on\", \"pack\": \"copy\", \"comm_streams\": 1}); default: none, single, cap:25MiB,first:1MiB,\n"
    "cap:4MiB, cap:100MiB and optimal, each with overlap on and off. Or one plan by flags, as\n"
    "predict spells them: --fusion, --overlap, --pack, --comm-streams (--framework ideal).\n"
    "--comm auto (default: offload on one GPU, NCCL all-reduce on several), offload, allreduce\n"
    "(NCCL even on one GPU), or allreduce:N[:LINK] as predict spells it (N GPUs).\n";

/* --comm: auto | offload | allreduce | allreduce:N[:LINK] (predict's spelling). */
static int fu__comm(fu_validate_opts *o, const char *s, long *gpus) {
  if (strcmp(s, "auto") == 0) return FU_OK;
  if (strcmp(s, "allreduce") == 0) return o->allreduce = 1, FU_OK;
  fu_comm c;
  if (fu_comm_parse_as("validate: --comm", s, &c) != FU_OK) return FU_EUSAGE;
  if (c.kind == FU_COMM_OFFLOAD) {
    if (*gpus > 1) {
      fu_error("validate: --comm offload runs on one GPU; --gpus %ld asks for more", *gpus);
      return FU_EUSAGE;
    }
    *gpus = 1;
    return FU_OK;
  }
  if (c.kind != FU_COMM_ALLREDUCE || c.nodes != 1 || c.link != FU_LINK_NVLINK) {
    fu_error("validate: --comm '%s': the executor runs all-reduce over one node's GPUs "
             "(allreduce:N[:nvlink]), or offload",
             s);
    return FU_EUSAGE;
  }
  if (*gpus && *gpus != c.ranks) {
    fu_error("validate: --comm '%s' names %d GPUs, --gpus %ld", s, c.ranks, *gpus);
    return FU_EUSAGE;
  }
  o->allreduce = 1;
  *gpus = c.ranks;
  return FU_OK;
}

int fu_cmd_validate(int argc, char **argv) {
  fu_validate_opts o;
  fu_validate_opts_init(&o);
  fu_opt_inputs in = {0};
  fu_opt_target tg = {0};
  fu_opt_output out;
  fu_opt_output_init(&out);
  fu_opt_gpus gp = {0};
  fu_opt_plan pf = {0}; /* one plan by flags, as predict spells it (its --plan is a list here) */
  const char *plans = NULL, *from = NULL;
  int table = 0, no_host = 0;
  long iters = 20, warmup = 3, reps = 20;
  int iters_seen = 0, warmup_seen = 0, reps_seen = 0;
  const fu_option rows[] = {
      FU_OPT_HEADER("inputs"), FU_OPTS_INPUTS(&in), FU_OPTS_TARGET(&tg), FU_OPTS_GPUS(&gp),
      {FU_OPT_STR(0, "plan", &plans, "FILE|default", "plans to run (see below)"), .aliases = "plans"},
      FU_OPT_ROW_FUSION(&pf), FU_OPTS_PLAN_SHAPE(&pf), FU_OPT_ROW_FRAMEWORK(&pf),
      {FU_OPT_FLAG(0, "no-host", &no_host, "do not emulate the workload's host costs (hook_us, issue_us)")},
      FU_OPT_HEADER("runs"),
      {FU_OPT_INT(0, "iters", &iters, 1, 100000, "N", "timed iterations per plan, interleaved across plans (20)"),
       .seen = &iters_seen},
      {FU_OPT_INT(0, "warmup", &warmup, 0, 100000, "N", "untimed rounds first (3)"), .seen = &warmup_seen},
      {FU_OPT_FLAG(0, "fusion-table", &table,
                   "the classic table: 4 separate messages vs one fused message at 1, 8 and\n"
                   "128 MiB each (and 64 x 4 KiB, 64 x 64 KiB) over PCIe")},
      {FU_OPT_INT(0, "reps", &reps, 1, 100000, "N", "timed runs per fusion-table cell (20)"), .seen = &reps_seen},
      {FU_OPT_STR(0, "from-csv", &from, "FILE", "print (and --plot) results a run stored with --format csv; no GPU")},
      FU_OPT_HEADER("output"), FU_OPTS_OUTPUT(&out),
      {FU_OPT_PLOT(0, "plot", &o.plot, "predicted vs measured through gnuplot (.png or .svg)")},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"validate", fu__head, fu__foot, rows, 0};
  int first, done, st = fu_opt_parse(&cmd, argc, argv, &first, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  o.workloads = in.workload;
  o.profile = in.profile;
  o.format = out.format;
  o.iters = (int)iters;
  o.warmup = (int)warmup;
  o.emulate_host = !no_host;
  if (plans) o.plans = plans;
  if (tg.comm && (st = fu__comm(&o, tg.comm, &gp.gpus)) != FU_OK) return fu_exit_code(st);
  o.ndev = (int)gp.gpus;
  if ((from != NULL) + table + (o.workloads != NULL) > 1) {
    fu_opt_usage_error(&cmd, "--workload, --fusion-table and --from-csv are separate runs; give one");
    return fu_exit_code(FU_EUSAGE);
  }
  /* the runs' options of one mode given to another were ignored in silence */
  if (table && (iters_seen || warmup_seen || tg.comm || in.profile || no_host || gp.gpus)) {
    fu_opt_usage_error(&cmd, "--fusion-table takes --reps and the output options; --iters, --warmup, "
                             "--comm, --profile, --no-host and -g are the matrix's (--workload)");
    return fu_exit_code(FU_EUSAGE);
  }
  if (!table && reps_seen) {
    fu_opt_usage_error(&cmd, "--reps is --fusion-table's; the matrix takes --iters and --warmup");
    return fu_exit_code(FU_EUSAGE);
  }
  if (table && o.plot) {
    fu_opt_usage_error(&cmd, "--plot draws the matrix (--workload or --from-csv), not --fusion-table");
    return fu_exit_code(FU_EUSAGE);
  }
  fu_plan one;
  if (pf.fusion || pf.overlap || pf.pack || pf.comm_streams || pf.framework) {
    if (plans || !o.workloads) {
      fu_opt_usage_error(&cmd, "--fusion, --overlap, --pack, --comm-streams and --framework make one "
                               "plan for --workload; give them or --plan, not both");
      return fu_exit_code(FU_EUSAGE);
    }
    st = fu_cmd_get_plan("validate", &pf, &one);
    fu_framework fw = one.framework; /* finish resets it */
    if (st != FU_OK || fw != FU_FRAMEWORK_IDEAL) fu_plan_finish(&one);
    if (st != FU_OK) return fu_exit_code(st);
    if (fw != FU_FRAMEWORK_IDEAL) { /* the executor issues from C: no framework */
      fu_error("validate: --framework %s: fusim's executor issues every operation from C, with no "
               "framework's host costs (ideal); real PyTorch DDP and the hook pattern are measured "
               "by tools/validate_torch.py", pf.framework);
      return fu_exit_code(FU_EUSAGE);
    }
    o.plan = &one;
  }
  char *cmdline = fu_join_argv(argc, argv);
  o.cmdline = cmdline;
  if (from) st = fu_validate_from_csv(&o, from);
  else if (table) st = fu_validate_fusion_table(&o, (int)reps);
  else {
    if (!out.no_store) o.db_path = fu_db_path_default(out.db);
    st = fu_validate_run(&o);
  }
  free(cmdline);
  if (o.plan) fu_plan_finish(&one);
  return fu_exit_code(st);
}
