/* cmd_plan.c: fusim plan: compares the fusion plans people use (none, single, PyTorch DDP's
 * default, Horovod's default, MG-WFBP) with the optimal contiguous bucketing, each simulated,
 * ranked by iteration time with the speed-up over DDP's default; --sweep runs the bucket cap
 * from 64 KiB to 1 GiB; --fusion-table reproduces the classic fusion table by simulation.
 * Predictions are stored in the results database, one transaction for the command. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_cmd.h"
#include "fu_builder.h"
#include "fu_memcheck.h"
#include "fu_common.h"
#include "fu_options.h"
#include "fu_output.h"
#include "fu_resolve.h"
#include "fu_result.h"

static const char fu__head[] =
    "usage: fusim plan --workload FILE|NAME [options]\n"
    "       fusim plan --workload W --sweep [--plot FILE.png|svg] [options]\n"
    "       fusim plan --fusion-table [--profile P.json] [--comm SPEC] [--format F]\n"
    "\n"
    "Simulates the workload under each of these fusion plans and ranks them by iteration time,\n"
    "with the speed-up over PyTorch DDP's default:\n"
    "  none             one operation per tensor\n"
    "  single           one operation for all gradients\n"
    "  DDP default      cap:25MiB,first:1MiB (bucket_cap_mb = 25, first bucket 1 MiB)\n"
    "  Horovod default  horovod:128MiB,1ms (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME since\n"
    "                   Horovod 0.21)\n"
    "  MG-WFBP          merge a gradient into the next bucket when the start-up time saved\n"
    "                   outweighs the wait (Shi, Chu, Li, INFOCOM 2019)\n"
    "  optimal          the best contiguous bucketing of the ready order, by dynamic programming\n"
    "                   (exact for the simulator with one stream and no contention; polished by\n"
    "                   simulation otherwise)\n"
    "\n"
    "Memory: a plan needs the step's peak (the workload's \"memory\" block: parameters, gradients,\n"
    "optimizer states, activations; fusim workload --transformer and --cnn write it) plus its\n"
    "fusion buffers (0 with --pack view; else one for each communication stream, of the largest\n"
    "packed bucket, Horovod's of its whole threshold; with --framework ddp every bucket, which\n"
    "DDP's reducer keeps through the step: the gradients' bytes again, and so with --framework hooks\n"
    "and --pack copy, a fusion buffer per bucket; with --framework ddp --pack view the buckets are\n"
    "the gradients, alive through forward: max(peak, memory.forward_peak_bytes + them), or peak +\n"
    "them where the workload gives no forward peak). That is what max_memory_allocated reports;\n"
    "the device needs the caching allocator's reserve, the CUDA context and NCCL's buffers too\n"
    "(sim/fu_memcheck.h). A plan whose device need is above the profile's GPU memory\n"
    "(gpu_mem_bytes) is marked '!' and ranked below every plan that fits, and the table says by\n"
    "how much it is over (json and csv: fits, mem_need_bytes, mem_device_bytes; json also\n"
    "mem_reserve_bytes, mem_context_bytes, mem_nccl_bytes, mem_over_bytes). Without\n"
    "--mem-cap, an optimal plan whose buffer does not fit (where the step alone does) is planned\n"
    "again with its buffer capped at the memory left (shared by its streams), in whole MiB\n"
    "(optimal:SIZE). A workload without a memory block, or a profile without the GPU's memory,\n"
    "is not checked.\n";

static const char fu__foot[] =
    "\n"
    "--comm default " FU_CMD_DEFAULT_COMM ". --format json: an array of predict objects, each\n"
    "with its plan string, label, rank and speedup_vs_ddp. --fusion-table: bus utilisation of 4\n"
    "separate messages against 1 fused message of 4x the size, at 1, 8 and 128 MiB per message\n"
    "(pack=view); utilisation is the achieved bus bandwidth over the peak, so at most 100%.\n"
    "--gpus-per-process and --nccl-version price a job across nodes as fusim predict does (the\n"
    "process layout, default one process per GPU; the NCCL, default the profile's logs' one, else\n"
    "unknown: the model's fastest line); the comm line and the JSON name both.\n";

typedef struct fu__opts {
  fu_opt_output out;         /* --format, --db, --no-store */
  int mem_cap;               /* --mem-cap was given */
  const char *plot;          /* --plot or NULL */
  const char *save_buckets;  /* --save-buckets or NULL */
  int argc;                  /* the command line, for the database */
  char **argv;
  int layout_given;          /* --gpus-per-process was given (fu_result.layout_given) */
  int nccl_source;           /* where the NCCL priced came from (fu_nccl_source) */
} fu__opts;

/* One simulated plan. */
typedef struct fu__row {
  const char *label;         /* what the row is ("DDP default", ...) */
  fu_plan plan;              /* the plan (a copy of the base: borrows, never finished) */
  fu_result r;               /* simulated iteration */
  double speedup;            /* DDP default's iteration / this one's */
  int rank;                  /* 1 = fastest */
  int over_cap;              /* --mem-cap given and this plan's largest fusion buffer is above it
                                (the cap binds only the optimal plan) */
  uint64_t uncapped_buffer;  /* the optimal plan re-planned to fit (fu__fit_optimal): the largest
                                fusion buffer of its best plan without a cap, which did not fit */
} fu__row;

/* Sets row's fusion from spec over base (the optimal plan keeps base's memory cap) and
 * simulates it. */
static int fu__row_run(const fu__opts *o, fu__row *row, const char *label, const char *spec,
                       const fu_plan *base, const fu_workload *w, const fu_comm *c, const fu_profile *prof,
                       fu_search_stats *stats) {
  row->label = label;
  row->plan = *base;
  row->plan.bucket_list = NULL;
  FU_CHECK(fu_plan_parse_fusion(spec, &row->plan));
  if (row->plan.kind == FU_FUSION_OPTIMAL) row->plan.mem_cap_bytes = base->mem_cap_bytes;
  FU_CHECK(fu_predict_plan(w, &row->plan, c, prof, NULL, stats, &row->r));
  row->r.layout_given = o->layout_given;
  row->r.nccl_source = o->nccl_source;
  /* the cap binds a bucket of several tensors (fu_search.c), never the plan's buffers in all:
     under DDP those are every bucket, which starred every plan, the capped optimal one too */
  row->over_cap = base->mem_cap_bytes && fu_buckets_largest_fused(row->r.buckets, row->r.nbuckets) > base->mem_cap_bytes;
  fu_result_mem(&row->r, &w->mem, fu_mem_nccl_for(c, prof), prof->gpu_mem_bytes);
  return FU_OK;
}

static int fu__store(const fu__opts *o, fu__row *rows, size_t n, const fu_workload *w,
                     const fu_profile *prof) {
  const fu_result *r[32];
  for (size_t k = 0; k < n && k < 32; k++) r[k] = &rows[k].r;
  return fu_cmd_store(&o->out, r, n < 32 ? n : 32, w, prof, o->argc, o->argv);
}

/* Plans that fit the GPU's memory (or where that is unknown) first, then by iteration time;
 * on a tie the optimal plan first, then fewer operations. */
static int fu__row_cmp(const void *a, const void *b) {
  const fu__row *x = a, *y = b;
  int xf = x->r.mem_fits != 0, yf = y->r.mem_fits != 0;
  if (xf != yf) return yf - xf;
  if (x->r.iter_us != y->r.iter_us) return x->r.iter_us < y->r.iter_us ? -1 : 1;
  int xo = x->plan.kind == FU_FUSION_OPTIMAL, yo = y->plan.kind == FU_FUSION_OPTIMAL;
  if (xo != yo) return yo - xo;
  return (x->r.n_ops > y->r.n_ops) - (x->r.n_ops < y->r.n_ops);
}

/* An array of the rows' JSON objects, each with extra keys set by add(row, object). */
static int fu__print_json(fu__row *rows, size_t n, void (*add)(const fu__row *, json_t *, const void *),
                          const void *arg) {
  json_t *arr = json_array();
  for (size_t k = 0; k < n && arr; k++) {
    json_t *j = fu_result_json(&rows[k].r);
    if (!j || json_array_append_new(arr, j) != 0) {
      json_decref(arr);
      return FU_ENOMEM;
    }
    add(&rows[k], j, arg);
  }
  if (!arr) return FU_ENOMEM;
  json_dumpf(arr, stdout, JSON_INDENT(2));
  putchar('\n');
  json_decref(arr);
  return FU_OK;
}

static void fu__add_rank(const fu__row *row, json_t *j, const void *mem_cap) {
  json_object_set_new(j, "label", json_string(row->label));
  json_object_set_new(j, "rank", json_integer(row->rank));
  json_object_set_new(j, "speedup_vs_ddp", json_real(row->speedup));
  if (mem_cap) json_object_set_new(j, "over_mem_cap", json_boolean(row->over_cap));
}

static void fu__print_rows(const fu__opts *o, fu__row *rows, size_t n, const fu_profile *prof,
                           const fu_search_stats *stats, double opt_sim_us) {
  char sz[32];
  if (o->out.format == FU_FORMAT_JSON) {
    fu__print_json(rows, n, fu__add_rank, o->mem_cap ? o : NULL);
    return;
  }
  if (o->out.format == FU_FORMAT_CSV) {
    printf("rank,label," FU_RESULT_CSV_HEADER ",mem_need_bytes,fits,speedup_vs_ddp%s,mem_device_bytes\n",
           o->mem_cap ? ",over_mem_cap" : "");
    for (size_t k = 0; k < n; k++) {
      printf("%d,", rows[k].rank);
      fu_csv_field(stdout, rows[k].label);
      putchar(',');
      fu_result_csv_fields(stdout, &rows[k].r);
      printf(",%.0f,%s,%.6f", rows[k].r.mem_need_bytes, rows[k].r.mem_fits < 0 ? "" : rows[k].r.mem_fits ? "1" : "0",
             rows[k].speedup);
      if (o->mem_cap) printf(",%d", rows[k].over_cap);
      printf(",%.0f\n", rows[k].r.mem_device_bytes); /* what fits is decided on */
    }
    return;
  }
  const fu_result *r0 = &rows[0].r;
  printf("workload  %s (%zu tensors, %s%s)\n", r0->workload, r0->ngrads,
         fu_format_size(r0->grad_bytes, sz, sizeof sz), r0->estimated ? "; times are estimates" : "");
  char note[192];
  printf("comm      %s  (%s)   compute %.1f us\n", r0->comm, fu_result_comm_note(r0, note, sizeof note),
         r0->compute_us);
  char from[512];
  if (fu_compute_note(&r0->compute_from, from, sizeof from)) printf("compute   %s\n", from);
  printf("\n");
  printf("%4s  %-16s %-24s %11s %23s %11s %6s %10s %7s %7s\n", "rank", "plan", "fusion",
         "iter_us", "95% interval", "exposed_us", "ops", "buffer", "busutil", "vs DDP");
  int n_over = 0;
  char gpubuf[32];
  for (size_t k = 0; k < n; k++) {
    const fu_result *r = &rows[k].r;
    char iv[48], fusion[64], buf[40];
    snprintf(iv, sizeof iv, "[%.1f, %.1f]", r->iter_lo_us, r->iter_hi_us);
    snprintf(buf, sizeof buf, "%s%s%s", fu_format_size(r->fusion_buffer_bytes, sz, sizeof sz),
             rows[k].over_cap ? "*" : "", rows[k].r.mem_fits == 0 ? "!" : "");
    snprintf(fusion, sizeof fusion, "%.*s", (int)strcspn(r->plan, " "), r->plan);
    printf("%4d  %-16s %-24s %11.1f %23s %11.1f %6zu %10s %6.1f%% %6.3fx\n", rows[k].rank,
           rows[k].label, fusion, r->iter_us, iv, r->exposed_comm_us, r->n_ops, buf,
           100 * r->bus_util, rows[k].speedup);
    n_over += rows[k].over_cap;
  }
  /* memory: every plan that does not fit is ranked below those that do */
  for (size_t k = 0; k < n; k++) {
    if (rows[k].r.mem_fits != 0) continue;
    char dev[32], need[32], gpu[32], over[32];
    printf("%s rank %d %s (!) does not fit: needs %s (PyTorch's %s with a %s fusion buffer, and the "
           "allocator's reserve, the CUDA context and NCCL's buffers) of %s, %s over\n",
           k == 0 || rows[k - 1].r.mem_fits != 0 ? "\nmemory:" : "       ", rows[k].rank, rows[k].label,
           fu_format_size((uint64_t)rows[k].r.mem_device_bytes, dev, sizeof dev),
           fu_format_size((uint64_t)rows[k].r.mem_need_bytes, need, sizeof need),
           fu_format_size(rows[k].r.fusion_buffer_bytes, sz, sizeof sz),
           fu_format_size((uint64_t)prof->gpu_mem_bytes, gpu, sizeof gpu),
           fu_format_size((uint64_t)rows[k].r.mem_over_bytes, over, sizeof over));
  }
  /* the step alone on the device: PyTorch's tensors without the plan's own buffers (under DDP's
     views, the gradients alive through forward stay: they are the step's) */
  fu_mem_need alone;
  fu_mem_need_set(&alone, rows[0].r.mem_need_bytes - (double)(rows[0].r.fusion_buffer_bytes - rows[0].r.view_buffer_bytes),
                  rows[0].r.mem_nccl_bytes);
  if (rows[0].r.mem_fits == 0) {
    double step = alone.device;
    if (step > prof->gpu_mem_bytes) { /* no bucketing helps: say what would, which fusim does not model */
      char over[32];
      printf("memory: no plan fits in one GPU's memory (the step alone needs %s of %s, %s over): "
             "fusim prices data parallelism with a whole replica on every GPU; ZeRO/FSDP sharding, "
             "tensor or pipeline parallelism, activation checkpointing and optimizer-state offload are not modelled\n",
             fu_format_size((uint64_t)step, sz, sizeof sz),
             fu_format_size((uint64_t)prof->gpu_mem_bytes, gpubuf, sizeof gpubuf),
             fu_format_size((uint64_t)(step - prof->gpu_mem_bytes), over, sizeof over));
    }
    else /* the step fits; every plan's buffers (under DDP, all of its buckets) do not */
      printf("memory: no plan fits in one GPU's memory: the step alone needs %s of %s, and every plan's "
             "fusion buffers need more than the rest\n",
             fu_format_size((uint64_t)step, sz, sizeof sz), fu_format_size((uint64_t)prof->gpu_mem_bytes, gpubuf, sizeof gpubuf));
  }
  else if (rows[0].r.mem_fits < 0) /* said, so that silence is never read as "fits" */
    printf("\nmemory: not checked: %s\n",
           prof->gpu_mem_bytes > 0 ? "the workload has no memory block (fusim workload --transformer or --cnn writes "
                                     "one; a capture records its peak)"
                                   : "the profile gives no GPU memory (gpu_mem_bytes)");
  else if (rows[0].r.mem_fits > 0) {
    char a[32], rs[32], cx[32], nc[32];
    printf("\nmemory: %s per GPU without fusion buffers (PyTorch's peak %s, the allocator's reserve %s, "
           "the CUDA context %s, NCCL's buffers %s), %s available\n",
           fu_format_size((uint64_t)alone.device, sz, sizeof sz), fu_format_size((uint64_t)alone.allocated, a, sizeof a),
           fu_format_size((uint64_t)alone.reserve, rs, sizeof rs), fu_format_size((uint64_t)alone.context, cx, sizeof cx),
           fu_format_size((uint64_t)alone.nccl, nc, sizeof nc), fu_format_size((uint64_t)prof->gpu_mem_bytes, gpubuf, sizeof gpubuf));
  }
  for (size_t k = 0; k < n; k++)
    if (rows[k].uncapped_buffer) {
      char cap[32], unc[32];
      printf("memory: the optimal plan's buffer capped at %s, the memory left beside the step's peak%s "
             "(its best plan without a cap needs %s of buffers, which does not fit)%s\n",
             fu_format_size(rows[k].plan.mem_cap_bytes, cap, sizeof cap),
             rows[k].plan.framework == FU_FRAMEWORK_IDEAL && rows[k].plan.comm_streams > 1
                 ? " over its communication streams (a buffer each)" : "",
             fu_format_size(rows[k].uncapped_buffer, unc, sizeof unc),
             rows[k].r.mem_fits == 0 ? "; capped, it still does not fit (its buffers in all are what counts: "
                                 "under DDP, every bucket)" : "");
    }
  for (size_t k = 0; k < n && n_over; k++)
    if (rows[k].plan.kind == FU_FUSION_OPTIMAL)
      printf("\n* largest fusion buffer above --mem-cap %s, which binds only the optimal plan: "
             "a starred plan does not fit in that memory\n",
             fu_format_size(rows[k].plan.mem_cap_bytes, sz, sizeof sz));
  const char *rest = strchr(r0->plan, ' ');
  printf("\nevery plan: %s\n", rest ? rest + 1 : "");
  if (stats->dtypes > 1)
    printf("optimal: %zu tensors of %u element types, one type a bucket: each type's DP on its own "
           "gradients (%llu candidates) and the other plans seeded a simulated search (%llu "
           "simulations): %.1f us, %.2f ms in all\n",
           r0->ngrads, stats->dtypes, (unsigned long long)stats->candidates,
           (unsigned long long)stats->sims, stats->simulated_us, stats->elapsed_ms);
  else if (stats->polished)
    printf("optimal: DP over %zu tensors (%llu candidates); %s the DP leaves out "
           "(comm_slowdown %.4g, copy_slowdown %.4g, %d stream%s), so its "
           "buckets (DP model %.1f us, simulated %.1f us) were checked against %llu simulated "
           "alternatives: %.1f us, %.2f ms in all\n",
           r0->ngrads, (unsigned long long)stats->candidates,
           stats->host_timeline ? "the workload's host timeline and framework costs, and the profile's "
                                  "or plan's contention,"
                                : "the profile or plan has contention", prof->comm_slowdown,
           prof->copy_slowdown, rows[0].plan.comm_streams,
           rows[0].plan.comm_streams == 1 ? "" : "s", stats->predicted_us, stats->dp_simulated_us,
           (unsigned long long)stats->sims - 1, stats->simulated_us, stats->elapsed_ms);
  else
    printf("optimal: DP over %zu tensors (%llu candidates, %.2f ms%s); its own model %.3f us, "
           "simulated %.3f us (gap %.2g us)\n",
           r0->ngrads, (unsigned long long)stats->candidates, stats->elapsed_ms,
           stats->exact ? ", exact" : "", stats->predicted_us, opt_sim_us,
           fabs(stats->predicted_us - opt_sim_us));
}

/* Without --mem-cap, an optimal plan whose fusion buffer does not fit beside the step's peak
 * (where the step alone fits) is planned again with its buffer capped at the memory left: the
 * best plan one can run, where the uncapped one would only be ranked below the rest. */
static int fu__fit_optimal(const fu__opts *o, fu__row *row, const fu_plan *base, const fu_workload *w,
                           const fu_comm *c, const fu_profile *prof, fu_search_stats *stats) {
  /* what PyTorch may allocate beside the allocator's reserve, the CUDA context and NCCL */
  double room = fu_mem_allocatable(prof->gpu_mem_bytes, row->r.mem_nccl_bytes) - w->mem.peak;
  if (o->mem_cap || row->r.mem_fits != 0 || !(w->mem.peak > 0) || !(room > 0))
    return FU_OK;
  fu_plan capped = *base;
  /* fusim's own plans hold a buffer of the largest packed bucket for every communication stream
     (fu_predict_plan): the memory left shared between them */
  double streams = base->framework == FU_FRAMEWORK_IDEAL && base->comm_streams > 1 ? base->comm_streams : 1;
  capped.mem_cap_bytes = (uint64_t)(room / streams / 1048576) * 1048576; /* whole MiB */
  if (!capped.mem_cap_bytes) return FU_OK;
  uint64_t uncapped = row->r.fusion_buffer_bytes;
  fu_result_finish(&row->r);
  memset(stats, 0, sizeof *stats);
  FU_CHECK(fu__row_run(o, row, row->label, "optimal", &capped, w, c, prof, stats));
  row->over_cap = 0; /* the cap is the GPU's, not --mem-cap */
  row->uncapped_buffer = uncapped;
  return FU_OK;
}

/* The comparison: six plans, ranked. */
static int fu__compare(const fu__opts *o, const fu_workload *w, const fu_plan *base,
                       const fu_comm *c, const fu_profile *prof) {
  static const char *const plans[][2] = {{"none", "none"}, {"single", "single"},
                                         {"DDP default", "ddp"}, {"Horovod default", "horovod"},
                                         {"MG-WFBP", "mgwfbp"}, {"optimal", "optimal"}};
  enum { NPLANS = sizeof plans / sizeof plans[0] };
  size_t nplans = NPLANS;
  fu__row rows[NPLANS];
  memset(rows, 0, sizeof rows);
  fu_search_stats stats;
  memset(&stats, 0, sizeof stats);
  int st = FU_OK;
  double ddp_us = NAN, opt_us = NAN;
  for (size_t k = 0; k < nplans && st == FU_OK; k++) {
    int opt = strcmp(plans[k][1], "optimal") == 0;
    st = fu__row_run(o, &rows[k], plans[k][0], plans[k][1], base, w, c, prof, opt ? &stats : NULL);
    if (st == FU_OK && opt) st = fu__fit_optimal(o, &rows[k], base, w, c, prof, &stats);
    if (st == FU_OK && strcmp(plans[k][1], "ddp") == 0) ddp_us = rows[k].r.iter_us;
    if (st == FU_OK && opt) {
      opt_us = rows[k].r.iter_us;
      if (o->save_buckets) st = fu_plan_save_buckets(o->save_buckets, w, rows[k].r.buckets, rows[k].r.nbuckets);
    }
  }
  if (st == FU_OK) {
    for (size_t k = 0; k < nplans; k++) rows[k].speedup = ddp_us / rows[k].r.iter_us;
    qsort(rows, nplans, sizeof rows[0], fu__row_cmp);
    for (size_t k = 0; k < nplans; k++) rows[k].rank = (int)k + 1;
    st = fu__store(o, rows, nplans, w, prof);
  }
  if (st == FU_OK) fu__print_rows(o, rows, nplans, prof, &stats, opt_us);
  if (st == FU_OK && o->out.format == FU_FORMAT_TABLE && w->compute_rel > 0)
    printf("intervals: each holds the estimate's compute error (compute_rel %.2f%%), common to every "
           "plan: it shifts them together, so the gap between two plans is far surer than either "
           "interval\n", 100 * w->compute_rel);
  for (size_t k = 0; k < NPLANS; k++) fu_result_finish(&rows[k].r);
  return st;
}


static int fu__plot_sweep(const char *path, const fu__row *rows, size_t n, const fu_workload *w,
                          const char *comm, double opt_us, double ddp_us) {
  if (!fu_have_program("gnuplot")) {
    fu_warn("gnuplot is not installed: no plot written to %s (the CSV above has the data)", path);
    return FU_OK;
  }
  int svg;
  FU_CHECK(fu_plot_path_check("--plot", path, &svg));
  /* The output and the title (the workload's name comes from its file) reach gnuplot as ARG1
   * and ARG2 (fu_gnuplot_run): values, never gnuplot syntax, whatever quotes they hold. */
  char title[600];
  snprintf(title, sizeof title, "%s, %s: iteration time against bucket cap", w->name, comm);
  char *script = NULL;
  size_t slen = 0;
  FILE *g = open_memstream(&script, &slen);
  if (!g) {
    fu_error("--plot %s: out of memory", path);
    return FU_ENOMEM;
  }
  fprintf(g, "set terminal %s size 900,540 noenhanced\nset output ARG1\nset title ARG2\n", svg ? "svg" : "png");
  fprintf(g,
          "set logscale x 2\nset xtics ('64K' 65536, '256K' 262144, '1M' 1048576, '4M' 4194304, "
          "'16M' 16777216, '64M' 67108864, '256M' 268435456, '1G' 1073741824)\n"
          "set xrange [49152:1.5e9]\nset xlabel 'bucket cap (bytes, KiB/MiB/GiB)'\n"
          "set ylabel 'iteration (us)'\nset grid\nset key top left\n"
          "plot '-' using 1:2 with linespoints title 'cap:SIZE', %.6f with lines lc rgb 'dark-green' "
          "lw 2 title 'optimal', %.6f with lines lc rgb 'red' dashtype 2 title 'DDP default'\n",
          opt_us, ddp_us);
  for (size_t k = 0; k < n; k++) fprintf(g, "%llu %.6f\n", (unsigned long long)rows[k].plan.cap_bytes, rows[k].r.iter_us);
  fprintf(g, "e\n");
  if (fclose(g) != 0 || !script) {
    free(script);
    fu_error("--plot %s: out of memory", path);
    return FU_ENOMEM;
  }
  const char *args[] = {title};
  int st = fu_gnuplot_run("--plot", path, script, args, 1);
  free(script);
  if (st != FU_OK) return st;
  fprintf(stderr, "fusim: plot written to %s\n", path);
  return FU_OK;
}

static void fu__add_sweep(const fu__row *row, json_t *j, const void *ddp_us) {
  json_object_set_new(j, "cap_bytes", json_integer((json_int_t)row->plan.cap_bytes));
  json_object_set_new(j, "speedup_vs_ddp", json_real(*(const double *)ddp_us / row->r.iter_us));
}

/* --sweep: cap:SIZE for SIZE = 64 KiB .. 1 GiB. */
static int fu__sweep(const fu__opts *o, const fu_workload *w, const fu_plan *base,
                     const fu_comm *c, const fu_profile *prof) {
  enum { NCAPS = 15 }; /* 2^16 .. 2^30 */
  fu__row rows[NCAPS], ref[2];
  memset(rows, 0, sizeof rows);
  memset(ref, 0, sizeof ref);
  fu_plan nocap = *base;
  nocap.mem_cap_bytes = 0;
  int st = FU_OK;
  for (size_t k = 0; k < NCAPS && st == FU_OK; k++) {
    char spec[32];
    snprintf(spec, sizeof spec, "cap:%lluKiB", (1ull << (16 + k)) >> 10);
    st = fu__row_run(o, &rows[k], "cap", spec, &nocap, w, c, prof, NULL);
  }
  /* References: DDP's default and the optimum (re-planned to fit, as plan's comparison has it). */
  fu_search_stats stats;
  memset(&stats, 0, sizeof stats);
  if (st == FU_OK) st = fu__row_run(o, &ref[0], "DDP default", "ddp", base, w, c, prof, NULL);
  if (st == FU_OK) st = fu__row_run(o, &ref[1], "optimal", "optimal", base, w, c, prof, &stats);
  if (st == FU_OK) st = fu__fit_optimal(o, &ref[1], base, w, c, prof, &stats);
  if (st == FU_OK) st = fu__store(o, rows, NCAPS, w, prof);
  if (st == FU_OK) {
    double ddp = ref[0].r.iter_us, opt = ref[1].r.iter_us;
    char sz[32];
    if (o->out.format == FU_FORMAT_JSON) {
      st = fu__print_json(rows, NCAPS, fu__add_sweep, &ddp);
    } else if (o->out.format == FU_FORMAT_CSV) {
      printf("cap_bytes,cap,iter_us,iter_lo_us,iter_hi_us,exposed_comm_us,comm_us,n_ops,"
             "bus_util,speedup_vs_ddp,mem_need_bytes,fits,mem_device_bytes\n");
      for (size_t k = 0; k < NCAPS; k++) {
        const fu_result *r = &rows[k].r;
        printf("%llu,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%zu,%.6f,%.6f,%.0f,%s,%.0f\n",
               (unsigned long long)rows[k].plan.cap_bytes,
               fu_format_size(rows[k].plan.cap_bytes, sz, sizeof sz), r->iter_us, r->iter_lo_us,
               r->iter_hi_us, r->exposed_comm_us, r->comm_us, r->n_ops, r->bus_util,
               ddp / r->iter_us, rows[k].r.mem_need_bytes, rows[k].r.mem_fits < 0 ? "" : rows[k].r.mem_fits ? "1" : "0",
               rows[k].r.mem_device_bytes);
      }
    } else {
      char note[192];
      printf("workload  %s   comm %s  (%s)\n", rows[0].r.workload, rows[0].r.comm,
             fu_result_comm_note(&rows[0].r, note, sizeof note));
      char from[512];
      if (fu_compute_note(&rows[0].r.compute_from, from, sizeof from)) printf("compute   %s\n", from);
      printf("\n");
      printf("%10s %12s %12s %7s %8s %8s\n", "cap", "iter_us", "exposed_us", "ops", "busutil",
             "vs DDP");
      int n_out = 0;
      for (size_t k = 0; k < NCAPS; k++) {
        char cap[40];
        snprintf(cap, sizeof cap, "%s%s", fu_format_size(rows[k].plan.cap_bytes, sz, sizeof sz),
                 rows[k].r.mem_fits == 0 ? "!" : "");
        printf("%10s %12.1f %12.1f %7zu %7.1f%% %7.3fx\n", cap, rows[k].r.iter_us,
               rows[k].r.exposed_comm_us, rows[k].r.n_ops, 100 * rows[k].r.bus_util,
               ddp / rows[k].r.iter_us);
        n_out += rows[k].r.mem_fits == 0;
      }
      printf("\nDDP default %.1f us%s, optimal %.1f us%s\n", ddp, ref[0].r.mem_fits == 0 ? " (does not fit)" : "",
             opt, ref[1].uncapped_buffer ? " (its buffer capped to fit, as plan's comparison does)" :
                  ref[1].r.mem_fits == 0 ? " (does not fit)" : "");
      if (n_out) { /* the step alone on the device, as plan's comparison says it */
        char gpu[32];
        fu_mem_need alone;
        fu_mem_need_set(&alone, w->mem.peak, ref[0].r.mem_nccl_bytes);
        printf("! %d cap%s do%s not fit in one GPU's memory beside the step (%s of %s: its peak, the "
               "allocator's reserve, the CUDA context and NCCL's buffers)\n", n_out,
               n_out == 1 ? "" : "s", n_out == 1 ? "es" : "",
               fu_format_size((uint64_t)alone.device, sz, sizeof sz),
               fu_format_size((uint64_t)prof->gpu_mem_bytes, gpu, sizeof gpu));
      }
    }
    if (st == FU_OK && o->plot) st = fu__plot_sweep(o->plot, rows, NCAPS, w, rows[0].r.comm, opt, ddp);
  }
  for (size_t k = 0; k < NCAPS; k++) fu_result_finish(&rows[k].r);
  for (size_t k = 0; k < 2; k++) fu_result_finish(&ref[k].r);
  return st;
}

/* --fusion-table: 4 messages of SIZE each, all ready at once, sent as 4 operations or fused
 * into one of 4 x SIZE (pack=view: the classic table compares messages, not packing). */
static int fu__fusion_table(const fu__opts *o, const fu_comm *c, const fu_profile *prof,
                            const fu_plan *base) {
  static const struct {
    uint64_t bytes;          /* per message */
    double sep, fused;       /* the course text's A100 numbers, percent */
  } sizes[] = {{1ull << 20, 15, 45}, {8ull << 20, 30, 72}, {128ull << 20, 65, 88}};
  double util[3][2];
  int st = FU_OK;
  for (size_t s = 0; s < 3 && st == FU_OK; s++) {
    fu_workload w;
    fu_workload_init(&w);
    snprintf(w.name, sizeof w.name, "fusion_table_4x%llu", (unsigned long long)sizes[s].bytes);
    w.grads = calloc(4, sizeof *w.grads);
    if (!w.grads) return FU_ENOMEM;
    w.ngrads = 4;
    for (size_t i = 0; i < 4; i++) {
      char name[16];
      snprintf(name, sizeof name, "m%zu", i);
      w.grads[i].name = strdup(name);
      w.grads[i].bytes = sizes[s].bytes;
    }
    for (int fused = 0; fused < 2 && st == FU_OK; fused++) {
      fu_plan p = *base;
      p.kind = fused ? FU_FUSION_SINGLE : FU_FUSION_NONE;
      p.pack_view = 1;
      p.overlap = 1;
      p.comm_streams = 1;
      fu_result r;
      st = fu_predict_plan(&w, &p, c, prof, NULL, NULL, &r);
      if (st == FU_OK) util[s][fused] = r.bus_util;
      fu_result_finish(&r);
    }
    fu_workload_finish(&w);
  }
  if (st != FU_OK) return st;
  char comm[64], sz[32];
  fu_comm_string(c, comm, sizeof comm);
  if (o->out.format == FU_FORMAT_JSON) {
    json_t *arr = json_array();
    for (size_t s = 0; s < 3; s++)
      json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f}", "comm", comm,
                                           "profile", prof->name, "message_bytes",
                                           (json_int_t)sizes[s].bytes, "separate_bus_util",
                                           util[s][0], "fused_bus_util", util[s][1],
                                           "a100_separate", sizes[s].sep / 100,
                                           "a100_fused", sizes[s].fused / 100));
    json_dumpf(arr, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(arr);
  } else if (o->out.format == FU_FORMAT_CSV) {
    printf("comm,profile,message_bytes,separate_bus_util,fused_bus_util,a100_separate,a100_fused\n");
    for (size_t s = 0; s < 3; s++) {
      fu_csv_field(stdout, comm);
      putchar(',');
      fu_csv_field(stdout, prof->name);
      printf(",%llu,%.6f,%.6f,%.2f,%.2f\n", (unsigned long long)sizes[s].bytes, util[s][0],
             util[s][1], sizes[s].sep / 100, sizes[s].fused / 100);
    }
  } else {
    printf("fusion table: bus utilisation, %s, profile %s (%s)\n", comm, prof->name,
           prof->gpu[0] ? prof->gpu : "?");
    printf("(4 separate messages vs 1 fused message of 4x the size; simulated, pack=view)\n\n");
    printf("%-10s %12s %12s    %s\n", "message", "4 separate", "1 fused", "course text, A100");
    for (size_t s = 0; s < 3; s++)
      printf("%-10s %11.0f%% %11.0f%%    %.0f%% -> %.0f%%\n",
             fu_format_size(sizes[s].bytes, sz, sizeof sz), 100 * util[s][0], 100 * util[s][1],
             sizes[s].sep, sizes[s].fused);
  }
  return FU_OK;
}

int fu_cmd_plan(int argc, char **argv) {
  fu_opt_inputs in = {0};
  fu_opt_target tg = {0};
  fu_opt_plan po = {0};
  fu__opts o = {.argc = argc, .argv = argv};
  fu_opt_output_init(&o.out);
  int strict = 0, sweep = 0, table = 0, format_given = 0, mem_cap_given = 0;
  uint64_t mem_cap = 0;
  long gpp = 0;
  const char *nccl = NULL;
  const fu_option rows[] = {
      FU_OPT_HEADER("inputs"), FU_OPTS_INPUTS(&in), FU_OPTS_TARGET(&tg),
      FU_OPT_ROW_LAYOUT(&gpp),
      FU_OPT_ROW_NCCL(&nccl),
      {FU_OPT_FLAG(0, "strict", &strict, "ready times out of order in the workload are an error")},
      FU_OPT_HEADER("plan (every plan compared gets these)"), FU_OPTS_PLAN_REST(&po),
      {FU_OPT_STR(0, "fusion", &po.fusion, "SPEC", "refused: plan compares its own fusions ('fusim predict\n"
                                                   "--fusion' prices one)")},
      {FU_OPT_CUSTOM(0, "mem-cap", &mem_cap, fu_opt_size_arg, "SIZE",
                     "the optimal plan's largest fusion buffer (B, KiB, MiB, GiB); other plans\n"
                     "above it are starred (over_mem_cap in csv and json)"), .bad = "25", .seen = &mem_cap_given},
      {FU_OPT_OUT(0, "save-buckets", &o.save_buckets, "FILE",
                  "write the optimal plan's buckets to FILE as a bucket file (a JSON list of\n"
                  "lists of tensor names; {\"order\": \"listed\", \"buckets\": [...]} where they\n"
                  "go in another order than they fill) that --fusion buckets:FILE reads back")},
      FU_OPT_HEADER("runs"),
      {FU_OPT_FLAG(0, "sweep", &sweep, "iteration time against the bucket cap, 64 KiB .. 1 GiB\n"
                                      "in powers of 2 (cap:SIZE; CSV unless --format says otherwise)")},
      {FU_OPT_PLOT(0, "plot", &o.plot, "with --sweep: draw it into FILE (.png or .svg) with gnuplot")},
      {FU_OPT_FLAG(0, "fusion-table", &table, "the classic fusion table, simulated (see below)")},
      FU_OPT_HEADER("output"),
      {FU_OPT_CUSTOM(0, "format", &o.out.format, fu_opt_parse_format, "table|csv|json",
                     "output as a table (default), CSV or JSON"), .bad = "yaml", .seen = &format_given},
      FU_OPT_ROW_DB(&o.out.db),
      FU_OPT_ROW_NO_STORE(&o.out.no_store),
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"plan", fu__head, fu__foot, rows, 0};
  int first, done, st = fu_opt_parse(&cmd, argc, argv, &first, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  const char *why = NULL;
  if (!in.workload && !table) why = "--workload FILE|NAME is required (or --fusion-table)";
  else if (po.fusion) why = "--fusion: plan compares its own plans; use 'fusim predict --fusion' for one";
  else if (o.plot && !sweep) why = "--plot draws the --sweep; add --sweep";
  else if (o.save_buckets && (sweep || table))
    why = "--save-buckets saves the comparison's optimal plan; leave out --sweep and --fusion-table";
  else if (sweep && table) why = "--sweep and --fusion-table are separate runs; give one";
  if (why) {
    fu_opt_usage_error(&cmd, "%s", why);
    return fu_exit_code(FU_EUSAGE);
  }
  /* as fit --plot: a plot asked for and impossible is refused before any work, never a warning
   * after the sweep with exit 0 and no file */
  if (o.plot && !fu_have_program("gnuplot")) {
    fu_error("plan: --plot needs gnuplot, which is not on PATH (apt-get install gnuplot-nox), or leave out --plot");
    return fu_exit_code(FU_EUSAGE);
  }
  if (sweep && !format_given) o.out.format = FU_FORMAT_CSV;
  o.mem_cap = mem_cap_given;
  fu_plan base;
  fu_comm c;
  fu_workload w;
  fu_workload_init(&w);
  fu_profile *prof = NULL;
  st = fu_cmd_get_plan("plan", &po, &base);
  if (st == FU_OK) fu_cmd_warn_framework(&base);
  if (st == FU_OK && po.plan_file && base.kind != FU_FUSION_NONE) /* as --fusion is refused */
    fu_warn("plan: --plan %s: its fusion is not used: plan compares its own plans (the file's "
            "overlap, pack, comm_streams and framework are used; 'fusim predict --plan' runs it)",
            po.plan_file);
  if (mem_cap_given) base.mem_cap_bytes = mem_cap;
  if (st == FU_OK) st = fu_cmd_get_comm("plan", &tg, &c);
  if (st == FU_OK) st = fu_cmd_inputs("plan", &in, strict, table ? NULL : &w, &prof);
  if (st == FU_OK) st = fu_cmd_layout("plan", gpp, &c, prof);
  if (st == FU_OK) st = fu_cmd_nccl_version("plan", nccl, prof, &o.nccl_source);
  o.layout_given = gpp > 0;
  if (st == FU_OK && table) st = fu__fusion_table(&o, &c, prof, &base);
  else if (st == FU_OK) st = sweep ? fu__sweep(&o, &w, &base, &c, prof) : fu__compare(&o, &w, &base, &c, prof);
  free(prof);
  fu_workload_finish(&w);
  fu_plan_finish(&base);
  return fu_exit_code(st);
}
