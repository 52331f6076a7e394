/* cmd_predict.c: fusim predict: one workload under one fusion plan -> the predicted iteration,
 * its 95% interval (fu_result.interval_from says from what), where the time goes, a per-bucket table,
 * optionally a Chrome trace; the prediction is stored in the results database. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_builder.h"
#include "fu_memcheck.h"
#include "fu_cmd.h"
#include "fu_common.h"
#include "fu_options.h"
#include "fu_resolve.h"
#include "fu_result.h"
#include "fu_trace.h"

static const char fu__head[] =
    "usage: fusim predict --workload FILE|NAME [options]\n"
    "\n"
    "Simulates one training iteration of the workload under a fusion plan and prints the\n"
    "iteration time with its 95% interval (every operation at the 95% CI bounds of its fit;\n"
    "an estimate's compute at its compute_rel; with a host block, the measured run-to-run\n"
    "spreads and the framework costs' bounds it gives),\n"
    "compute, communication, exposed communication (with a host block, split into the host's\n"
    "overhead, the plan run again with every operation free less compute, and communication),\n"
    "overlap fraction, bus utilisation (achieved\n"
    "bus bandwidth of the operations over the best the fitted curve reaches at any size, and at\n"
    "least its measured peak: never above 100%), operations, fusion buffer bytes (for each\n"
    "communication stream the largest packed bucket, Horovod's whole threshold; with\n"
    "--framework ddp all its buckets, which DDP keeps through the step, and so with --framework\n"
    "hooks and --pack copy, a buffer per bucket), events\n"
    "simulated, and a table of buckets. A plan that does not fit the GPU's memory (the step's\n"
    "peak from the workload's memory block plus the fusion buffer, against the profile's\n"
    "gpu_mem_bytes, as fusim plan checks it) is predicted all the same, with a warning.\n";

static const char fu__foot[] =
    "\n"
    "--comm: OP:RANKS[:LINK], OP allreduce|reducescatter|allgather, RANKS N or NODESxGPUS, LINK\n"
    "nvlink|pcie|net (default: the profile's machine's, else nvlink); or offload (D2H copies over\n"
    "PCIe). Default " FU_CMD_DEFAULT_COMM ".\n"
    "--fusion sizes take a unit (B, KiB, MiB, GiB, TiB); horovod:SIZE,CYCLE's cycle is in ms unless it\n"
    "says us, ms or s. A --plan file's buckets:FILE is read beside the plan file when it is there.\n"
    "buckets:FILE: a JSON list of buckets, each a list of tensor names, sent in the order they fill;\n"
    "{\"order\": \"listed\", \"buckets\": [...]} sends them as listed (plan --save-buckets writes it).\n";

/* The memory check (fu_mem_check, as plan ranks): into the result (its JSON), and one warning
 * line when the plan does not fit the GPU's memory. */
static void fu__check_memory(const fu_workload *w, fu_result *r, const fu_comm *c, const fu_profile *prof) {
  if (!(w->mem.peak > 0)) return; /* no memory block: nothing to check, nothing in the JSON */
  fu_result_mem(r, &w->mem, fu_mem_nccl_for(c, prof), prof->gpu_mem_bytes);
  if (r->mem_fits != 0) return;
  char dev[32], need[32], buf[32], gpu[32], ov[32];
  fu_warn("predict: the plan does not fit one GPU's memory: it needs %s (PyTorch's %s with a %s fusion "
          "buffer, the allocator's reserve, the CUDA context, NCCL's buffers) of %s, %s over",
          fu_format_size((uint64_t)r->mem_device_bytes, dev, sizeof dev),
          fu_format_size((uint64_t)r->mem_need_bytes, need, sizeof need),
          fu_format_size(r->fusion_buffer_bytes, buf, sizeof buf), fu_format_size((uint64_t)prof->gpu_mem_bytes, gpu, sizeof gpu),
          fu_format_size((uint64_t)r->mem_over_bytes, ov, sizeof ov));
}

int fu_cmd_predict(int argc, char **argv) {
  fu_opt_inputs in = {0};
  fu_opt_target tg = {0};
  long gpp = 0;
  const char *nccl = NULL;
  fu_opt_plan po = {0};
  fu_opt_output out;
  fu_opt_output_init(&out);
  const char *trace = NULL;
  int strict = 0, buckets_csv = 0;
  const fu_option rows[] = {
      FU_OPT_HEADER("inputs"), FU_OPTS_INPUTS(&in), FU_OPTS_TARGET(&tg), FU_OPT_ROW_LAYOUT(&gpp), FU_OPT_ROW_NCCL(&nccl),
      {FU_OPT_FLAG(0, "strict", &strict, "ready times out of order in the workload are an error")},
      FU_OPT_HEADER("plan"), FU_OPTS_PLAN(&po),
      FU_OPT_HEADER("output"), FU_OPTS_OUTPUT(&out),
      {FU_OPT_OUT(0, "trace", &trace, "FILE",
                  "write Chrome trace JSON (ui.perfetto.dev): a track per stream, copy engine\n"
                  "and the host thread, link counters, flows from gradients to their bucket")},
      {FU_OPT_FLAG(0, "buckets", &buckets_csv, "with --format csv: the bucket table, not the summary")},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"predict", fu__head, fu__foot, rows, 0};
  int first, done, st = fu_opt_parse(&cmd, argc, argv, &first, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  if (!in.workload) {
    fu_opt_usage_error(&cmd, "--workload FILE|NAME is required");
    return fu_exit_code(FU_EUSAGE);
  }
  fu_plan p;
  fu_comm c;
  fu_workload w;
  fu_workload_init(&w);
  fu_profile *prof = NULL;
  fu_trace *tr = NULL;
  fu_result r = {0};
  st = fu_cmd_get_plan("predict", &po, &p);
  if (st == FU_OK) fu_cmd_warn_framework(&p);
  if (st == FU_OK) st = fu_cmd_get_comm("predict", &tg, &c);
  if (st == FU_OK) st = fu_cmd_inputs("predict", &in, strict, &w, &prof);
  if (st == FU_OK) st = fu_cmd_layout("predict", gpp, &c, prof);
  int nsrc = FU_NCCL_UNKNOWN;
  if (st == FU_OK) st = fu_cmd_nccl_version("predict", nccl, prof, &nsrc);
  if (st == FU_OK && trace) st = fu_trace_create(trace, &tr);
  if (st == FU_OK) st = fu_predict_plan(&w, &p, &c, prof, tr, NULL, &r);
  if (st == FU_OK) fu__check_memory(&w, &r, &c, prof);
  if (st == FU_OK) r.layout_given = gpp > 0;
  if (st == FU_OK) r.nccl_source = nsrc;
  if (st == FU_OK && tr) st = fu_trace_write(tr);
  const fu_result *rp = &r;
  if (st == FU_OK) st = fu_cmd_store(&out, &rp, 1, &w, prof, argc, argv);
  if (st == FU_OK) {
    if (out.format == FU_FORMAT_JSON) st = fu_result_print_json(stdout, &r);
    else if (out.format == FU_FORMAT_CSV && buckets_csv) st = fu_result_print_buckets_csv(stdout, &r);
    else if (out.format == FU_FORMAT_CSV) st = fu_result_print_csv(stdout, &r);
    else st = fu_result_print_table(stdout, &r);
    if (st == FU_EIO)
      fu_error("predict: cannot write the output: %s%s", strerror(errno ? errno : EIO),
               out.no_store ? "" : "; the prediction is stored");
    if (tr) fprintf(stderr, "fusim: trace written to %s (%zu events)\n", fu_trace_path(tr),
                    fu_trace_nevents(tr));
  }
  fu_result_finish(&r);
  fu_trace_destroy(tr);
  free(prof);
  fu_workload_finish(&w);
  fu_plan_finish(&p);
  return fu_exit_code(st);
}
