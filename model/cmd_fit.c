/* cmd_fit.c: fusim fit: piecewise alpha-beta fits of the samples in the results database, one
 * per (op, link, ranks, variant), stored in the database and written as a profile. The grouping,
 * fitting and printing are fu_fitgroup.h's (which explains variants and which samples a curve
 * uses); reading samples, storing rows, printing and the compute tables are fu_fit_io.h's; this
 * file reads the options and the base profile, and runs the steps in an order that leaves the
 * database as it was when one fails.
 *
 * Which samples: out-of-place when a group has any, else in-place (nccl-tests measures both;
 * in-place at one rank does nothing at all, so out-of-place is the one that carries a cost);
 * --place in|out forces one. The time is t_median_us (nccl-tests' mean when imported from a
 * log), else t_min_us.
 *
 * Profile scalars (launch_us, issue_us, duplex_factor, copy_slowdown, comm_slowdown, hbm_gbps,
 * gpu_tflops_bf16, gpu_tflops_fp32, pack_handoff_us) are not fitted here: they come from --merge-into BASE
 * (whose curves and scalars are kept, fitted curves added or replaced) and are overridden by the
 * flags of the same name. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_dtype.h"
#include "fu_fit.h"
#include "fu_fit_io.h"
#include "fu_fitgroup.h"
#include "fu_model.h"
#include "fu_options.h"
#include "fu_output.h"
#include "fu_profile.h"

/* Profile scalars settable by flag. */
static const struct {
  const char *flag;          /* long option name */
  size_t offset;             /* offset of the double in fu_profile */
  double lo, hi;             /* allowed range */
} fu__scalars[] = {
    {"launch-us", offsetof(fu_profile, launch_us), 0, 1e6},
    {"issue-us", offsetof(fu_profile, issue_us), 0, 1e6},
    {"duplex-factor", offsetof(fu_profile, duplex_factor), 1e-3, 1},
    {"copy-slowdown", offsetof(fu_profile, copy_slowdown), 1, 100},
    {"comm-slowdown", offsetof(fu_profile, comm_slowdown), 1, 100},
    {"hbm-gbps", offsetof(fu_profile, hbm_gbps), 0, 1e9},
    {"gpu-tflops-bf16", offsetof(fu_profile, gpu_tflops_bf16), 0, 1e6},
    {"gpu-tflops-fp32", offsetof(fu_profile, gpu_tflops_fp32), 0, 1e6},
    {"pack-handoff-us", offsetof(fu_profile, pack_handoff_us), 0, 1e6},
};
#define FU__NSCALARS (sizeof fu__scalars / sizeof fu__scalars[0])

static const char fu__fit_head[] =
    "usage: fusim fit [options]\n"
    "Fit t = alpha + beta * bytes piecewise over message size to the samples in the results\n"
    "database, one curve per (op, link, ranks, nodes, algo) of one GPU model (samples of two\n"
    "models are refused: --gpu, --host or --run choose), with 95% confidence intervals\n"
    "(weighted least squares, weights 1/t^2, i.e. relative error). Breakpoints come from the\n"
    "data: the split that minimises BIC (--criterion; tolerance: the fewest segments that keep\n"
    "every sample within --tolerance), at least 3 samples a segment. Prints the segments and\n"
    "a per-size relative error table, stores the fit in the database and writes a profile\n"
    "with --out.\n\n";

/* ---- option values ---- */

static int fu__opt_op(void *value, const char *arg, char *why, size_t len) {
  fu_op o;
  if (fu_op_parse(arg, &o) != FU_OK) return snprintf(why, len, "unknown operation"), FU_EUSAGE;
  *(const char **)value = fu_op_name(o);
  return FU_OK;
}

static int fu__opt_link(void *value, const char *arg, char *why, size_t len) {
  fu_link l;
  if (fu_link_parse(arg, &l) != FU_OK) return snprintf(why, len, "unknown link class"), FU_EUSAGE;
  *(const char **)value = fu_link_name(l);
  return FU_OK;
}

static int fu__opt_label_algo(void *value, const char *arg, char *why, size_t len) {
  fu_algo a;
  if (!arg[0] || fu_algo_parse(arg, &a) != FU_OK) return snprintf(why, len, "ring, tree or nvls"), FU_EUSAGE;
  *(const char **)value = fu_algo_name(a);
  return FU_OK;
}

static int fu__opt_variant(void *value, const char *arg, char *why, size_t len) {
  if (!fu_algo_label_ok(arg)) return snprintf(why, len, "a variant label (ring, pageable, unpack, any, ...)"), FU_EUSAGE;
  *(const char **)value = arg;
  return FU_OK;
}

static int fu__opt_proto(void *value, const char *arg, char *why, size_t len) {
  if (!fu_algo_label_ok(arg)) return snprintf(why, len, "a protocol or timing variant (LL, pipe, default)"), FU_EUSAGE;
  *(const char **)value = strcmp(arg, "default") == 0 ? "" : arg;
  return FU_OK;
}

/* A data type: any spelling fu_dtype knows (canonical name kept), else a label as given (a GEMM
 * sample's "tf32"). */
static int fu__opt_dtype(void *value, const char *arg, char *why, size_t len) {
  if (!arg[0] || !fu_algo_label_ok(arg)) return snprintf(why, len, "a data type name (float, fp32, bf16, ...)"), FU_EUSAGE;
  *(const char **)value = fu_dtype_canon(arg);
  return FU_OK;
}

/* --gpu-mem: a size with its unit, as plan's --mem-cap asks (a bare 183359, nvidia-smi's MiB with
 * nounits, was stored as 183359 bytes and plan found no plan fits 179 KiB). */
static int fu__opt_gpu_mem(void *value, const char *arg, char *why, size_t len) {
  if (fu_opt_size_arg(value, arg, why, len) != FU_OK) return FU_EUSAGE; /* as plan's sizes */
  /* the profile's own limit: more was written to a file no command could load */
  if (*(uint64_t *)value > FU_PROFILE_GPU_MEM_MAX)
    return snprintf(why, len, "above a profile's limit, %g bytes (909 TiB)", FU_PROFILE_GPU_MEM_MAX), FU_EUSAGE;
  return FU_OK;
}

int fu_cmd_fit(int argc, char **argv) {
  fu_opt_output out;
  fu_opt_output_init(&out);
  fu_fit_options fo;
  fu_fit_options_init(&fo);
  fu_fitgroup_select sel = {.graph = -1, .place = -1};
  const char *op = NULL, *link = NULL, *prof_out = NULL, *merge = NULL, *name = NULL, *gpu = NULL;
  const char *notes = NULL, *psource = NULL, *plot = NULL, *compute_f = NULL, *base_path = NULL;
  int gemm_table = 0;
  uint64_t gpu_mem = 0;
  int gpu_mem_seen = 0;
  long ranks = 0, run = 0, graph = -1, max_seg = 0, min_pts = 0;
  int place = 0, crit = 0, robust = 0;
  static const char *const places[] = {"auto", "out", "in", NULL};
  static const char *const crits[] = {"bic", "tolerance", "aic", NULL};
  const fu_option rows[] = {
      FU_OPT_HEADER("selection"),
      FU_OPT_ROW_DB(&out.db),
      {FU_OPT_CUSTOM(0, "op", &op, fu__opt_op, "OP", "only this operation (allreduce, all_reduce_perf, h2d, ...)"),
       .bad = "hypercube"},
      {FU_OPT_CUSTOM(0, "link", &link, fu__opt_link, "L",
                     "only this link class (nvlink, pcie_h2d, pcie_d2h, hbm, net, ...)"), .bad = "warp-drive"},
      {FU_OPT_INT(0, "ranks", &ranks, 1, 1000000, "N", "only this rank count")},
      {FU_OPT_INT(0, "run", &run, 1, 1L << 62, "ID", "only samples of this import/calibration run")},
      {FU_OPT_CUSTOM(0, "algo", &sel.algo, fu__opt_variant, "A",
                     "only this variant: an NCCL algorithm (ring, tree, nvls, ...) or\n"
                     "a calib timing variant (pageable, unpack, pack+d2h, p2h, one,\n"
                     "separate, odd); \"any\" fits every variant, each its own curve\n"
                     "(default: NCCL's algorithms, and the plain variant of copies\n"
                     "and the pack kernel: pinned memory, all k as one curve)"), .bad = "a-label-far-too-long"},
      {FU_OPT_CUSTOM(0, "proto", &sel.proto, fu__opt_proto, "P",
                     "only this proto field: an NCCL protocol (LL, LL128, Simple) or a\n"
                     "timing variant (pipe, queued); \"default\" = none forced (the\n"
                     "default where a group has such samples)"), .bad = "a-label-far-too-long"},
      {FU_OPT_CUSTOM(0, "dtype", &sel.dtype, fu__opt_dtype, "D",
                     "only this data type (float/fp32/float32, bf16/bfloat16,\n"
                     "half/fp16/float16, double/fp64, int8, ...; samples recording none\n"
                     "pass; default float where a group has it)"), .bad = ""},
      {FU_OPT_INT(0, "graph", &graph, 0, 1, "0|1", "plain launches or CUDA-graph replays (default 0 where present)")},
      {FU_OPT_ENUM(0, "place", &place, places,
                   "out-of-place or in-place samples (auto: out-of-place when a\ngroup has any, else in-place)")},
      FU_OPT_HEADER("fit"),
      {FU_OPT_DOUBLE(0, "tolerance", &fo.tolerance, 0, 10, "REL",
                     "worst relative error to reach with the fewest segments (0.05)"), .open_lo = 1},
      {FU_OPT_ENUM(0, "criterion", &crit, crits,
                   "bic (default) or aic: the split that minimises N ln(SSE/N) plus a\n"
                   "penalty per parameter (ln N for bic, 2 for aic); tolerance: the\n"
                   "fewest segments within --tolerance")},
      {FU_OPT_INT(0, "max-segments", &max_seg, 1, FU_FIT_MAX_SEGMENTS, "K", "at most K segments per curve (default: the most)")},
      {FU_OPT_INT(0, "min-points", &min_pts, 2, 1000000, "N",
                  "samples per segment, >= 2 (default 3: a short sweep gets fewer,\n"
                  "longer segments; a 2-point segment is exact and has no CI)")},
      {FU_OPT_FLAG(0, "robust", &robust, "refit each segment with Tukey bisquare weights (outliers)")},
      {FU_OPT_FLAG(0, "nonneg-alpha", &fo.nonneg_alpha, "refit a segment through the origin when its alpha is < 0")},
      FU_OPT_HEADER("output"),
      FU_OPT_ROW_FORMAT(&out.format),
      {FU_OPT_OUT(0, "out", &prof_out, "FILE", "write the profile (JSON, format fusim-profile-1)")},
      {FU_OPT_STR(0, "merge-into", &merge, "BASE",
                  "start from profile BASE (its curves and scalars are kept; fitted\n"
                  "curves are added or replace those with the same key); written to\n"
                  "--out, or back to BASE without --out")},
      {FU_OPT_STR(0, "name", &name, "NAME", "profile name (default: BASE's, else \"fitted\")")},
      {FU_OPT_STR(0, "base", &base_path, "FILE|NAME",
                  "profile that fills what the samples do not cover (copies, pack,\n"
                  "launch, compute, network parameters), each part's source saying so\n"
                  "(default: the embedded profile; \"none\": nothing)")},
      {FU_OPT_CUSTOM(0, "gpu-mem", &gpu_mem, fu__opt_gpu_mem, "SIZE",
                     "one GPU's memory with its unit, for plan's memory check (nvidia-smi's\n"
                     "total: 183359MiB on a B200; default the base's where it is of this GPU)"),
       .bad = "183359", .seen = &gpu_mem_seen},
      {FU_OPT_STR(0, "gpu", &gpu, "NAME",
                  "only samples whose GPU model contains NAME (A100, H200, ...);\n"
                  "samples naming none are taken as NAME (it sets the link limits\n"
                  "segments are checked against); two GPU models are refused without it")},
      {FU_OPT_STR(0, "host", &sel.host, "NAME", "only samples whose host name contains NAME")},
      {FU_OPT_STR(0, "source", &sel.source, "TEXT", "provenance label of the fitted curves and the cost model's links fitted from them")},
      {FU_OPT_CUSTOM(0, "label-algo", &sel.algo_label, fu__opt_label_algo, "A",
                     "algo of curves whose samples name none (ring, tree, nvls)"), .bad = "warp"},
      {FU_OPT_STR(0, "notes", &notes, "TEXT", "appended to the profile's notes (where the scalars came from)")},
      {FU_OPT_STR(0, "profile-source", &psource, "T", "provenance of the whole profile")},
      {FU_OPT_PLOT(0, "plot", &plot,
                  "draw measured points and fitted curves (time and bus bandwidth\n"
                  "against size, log axes) with gnuplot; .png or .svg")},
      FU_OPT_ROW_NO_STORE(&out.no_store),
      FU_OPT_HEADER("compute tables (instead of fitting curves)"),
      {FU_OPT_FLAG(0, "gemm-table", &gemm_table,
                   "put the database's GEMM shape sweep (fusim calib --suite gemm) into the profile's compute tables")},
      {FU_OPT_STR(0, "compute", &compute_f, "FILE",
                  "merge tools/calib_torch.py's tables (attention, memory-bound operations, host costs, optimizers, GPU memory)")},
      FU_OPT_HEADER("profile scalars (not fitted; override BASE's)"),
      FU_OPT_END,
  };
  /* one row per profile scalar, from the table above */
  double scalar_val[FU__NSCALARS];
  int scalar_set[FU__NSCALARS] = {0};
  fu_option scalar_rows[FU__NSCALARS + 1];
  for (size_t k = 0; k < FU__NSCALARS; k++)
    scalar_rows[k] = (fu_option){FU_OPT_DOUBLE(0, fu__scalars[k].flag, &scalar_val[k], fu__scalars[k].lo,
                                               fu__scalars[k].hi, "X", "profile scalar"), .seen = &scalar_set[k]};
  scalar_rows[FU__NSCALARS] = (fu_option)FU_OPT_END;
  fu_option *all = fu_opt_concat(rows, scalar_rows);
  if (!all) return fu_exit_code(FU_ENOMEM);
  const fu_opt_cmd cmd = {"fit", fu__fit_head, NULL, all, 0};
  int first, done;
  int st = fu_opt_parse(&cmd, argc, argv, &first, &done);
  free(all);
  if (st != FU_OK || done) return fu_exit_code(st);
  sel.scalar_ops = op != NULL;
  sel.graph = (int)graph;
  sel.place = place - 1; /* auto -1, out 0, in 1 */
  fo.criterion = crit == 2 ? FU_FIT_AIC : crit == 1 ? FU_FIT_TOLERANCE : FU_FIT_BIC;
  sel.gpu = gpu;
  if (merge && base_path) {
    fu_error("fit: --merge-into and --base exclude each other (--merge-into keeps all of BASE; --base "
             "takes from it only what the samples do not cover)");
    return fu_exit_code(FU_EUSAGE);
  }
  if (gpu_mem_seen && (!gpu_mem || !(prof_out || merge) || compute_f || gemm_table)) {
    fu_error("fit: --gpu-mem goes into the profile that a fit of curves writes: give a size above 0 "
             "and --out FILE or --merge-into BASE, without --compute or --gemm-table");
    return fu_exit_code(FU_EUSAGE);
  }
  if (base_path && !prof_out) { /* it would be read by nothing: say so rather than ignore it */
    fu_error("fit: --base fills in the profile that --out writes; give --out FILE as well");
    return fu_exit_code(FU_EUSAGE);
  }
  if (robust) fo.method = FU_FIT_BISQUARE;
  if (max_seg) fo.max_segments = (int)max_seg;
  if (min_pts) fo.min_points = (int)min_pts;
  if (plot && !fu_have_program("gnuplot")) {
    fu_error("fit: --plot needs gnuplot, which is not on PATH (apt-get install gnuplot-nox), or leave out --plot");
    return fu_exit_code(FU_EUSAGE);
  }

  if (compute_f || gemm_table) {
    if (!prof_out && !merge) {
      fu_error("fit: --compute and --gemm-table write a profile: give --merge-into BASE and/or --out FILE");
      return fu_exit_code(FU_EUSAGE);
    }
    return fu_exit_code(fu_fit_compute_tables(out.db, run, compute_f, gemm_table, merge, prof_out, name));
  }
  /* The base profile first: a bad one must fail before anything is stored. */
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return fu_exit_code(FU_ENOMEM);
  fu_profile *base = NULL;
  if (merge) st = fu_profile_load(merge, prof);
  else fu_profile_init(prof);
  if (st == FU_OK && !merge && prof_out && !(base_path && strcmp(base_path, "none") == 0)) {
    base = malloc(sizeof *base);
    if (!base) st = FU_ENOMEM;
    else st = fu_profile_load_arg("--base", base_path, base);
  }
  if (st != FU_OK) {
    free(base);
    free(prof);
    return fu_exit_code(st);
  }

  const char *dbpath = fu_db_path_default(out.db);
  const char *written = prof_out ? prof_out : merge;
  sel.what = dbpath;
  struct stat sb;
  if (stat(dbpath, &sb) != 0) {
    fu_error("%s: no such database (%s); run 'fusim import' or 'fusim calib' first", dbpath, strerror(errno));
    free(prof);
    return fu_exit_code(FU_ENOINPUT);
  }
  fu_db *db = NULL;
  fu_sample *smp = NULL;
  fu_fitgroup_sample *fs = NULL;
  size_t ns = 0, ng = 0, nsel = 0, nrows = 0;
  fu_fitgroup *groups = NULL;
  fu_fit_row *frows = NULL;
  char *cmdline = NULL;
  char *pfile = NULL; /* the profile's file form: dumped once, for the stored row and the file */
  int in_tx = 0;
  st = fu_db_open(dbpath, out.no_store ? FU_DB_READONLY : FU_DB_READWRITE, &db);
  if (st == FU_OK) st = fu_fit_samples_load(db, op, link, ranks, run, &smp, &fs, &ns);
  if (st == FU_OK) st = fu_fitgroup_fit(fs, ns, &sel, &fo, &groups, &ng, &nsel);
  if (st == FU_ENOINPUT && nsel == 0) {
    char rk[24];
    if (ranks) snprintf(rk, sizeof rk, "%ld", ranks);
    else snprintf(rk, sizeof rk, "any");
    fu_error("%s: no samples match (op %s, link %s, ranks %s%s%s%s%s%s%s%s%s)", dbpath, op ? op : "any",
             link ? link : "any", rk, run ? ", one run" : "", sel.algo ? ", algo " : "", sel.algo ? sel.algo : "",
             sel.proto ? ", proto " : "", sel.proto ? (sel.proto[0] ? sel.proto : "default") : "",
             sel.dtype ? ", dtype " : "", sel.dtype ? sel.dtype : "", graph < 0 ? "" : graph ? ", graph 1" : ", graph 0");
  }
  if (st != FU_OK) goto done;

  /* One machine: a fit merged into a profile of another GPU would price that GPU by these
   * samples under the profile's name (A100 curves into a B200 profile served as its measured) */
  for (size_t k = 0; st == FU_OK && merge && prof->gpu[0] && k < ng; k++) {
    const char *g = groups[k].curve.gpu;
    if (g[0] && !fu_gpu_same(g, prof->gpu)) {
      fu_error("fit: --merge-into %s: that profile is of %s, the selected samples of %s; a profile describes "
               "one machine: give --out NEW (--base %s supplies what the logs do not cover), or --gpu",
               merge, prof->gpu, g, merge);
      st = FU_EUSAGE;
    }
  }
  if (st != FU_OK) goto done;

  /* Profile. */
  if (written) {
    if (name) snprintf(prof->name, sizeof prof->name, "%s", name);
    else if (!prof->name[0]) snprintf(prof->name, sizeof prof->name, "fitted");
    if (psource) snprintf(prof->source, sizeof prof->source, "%s", psource);
    else if (!prof->source[0]) snprintf(prof->source, sizeof prof->source, "fusim fit of %s", dbpath);
    if (notes) {
      size_t l = strlen(prof->notes);
      snprintf(prof->notes + l, sizeof prof->notes - l, "%s%s", l ? " " : "", notes);
    }
    /* the label of the cost model's link parameters: --source where given, since they come
     * from the same samples (a temporary database's path says nothing to a reader) */
    char what[600];
    if (sel.source) snprintf(what, sizeof what, "%s", sel.source);
    else snprintf(what, sizeof what, "fusim fit of %s", dbpath);
    /* --merge-into: BASE is already in prof, all of it kept; else take from the base only
     * what the samples do not cover */
    st = fu_fitgroup_profile(groups, ng, merge ? NULL : base, what, prof);
    if (st != FU_OK) goto done;
    if (gpu && !prof->gpu[0]) snprintf(prof->gpu, sizeof prof->gpu, "%s", gpu);
    /* what the logs do not cover comes from the base: say so where it is another GPU's; the
       compute tables by the GPU they name (fu_fitgroup_profile set it), since a fitted base's
       are its own base's */
    int other = base && base->gpu[0] && prof->gpu[0] && !fu_gpu_same(prof->gpu, base->gpu);
    const char *tables = !base ? "" : prof->compute.gpu[0] ? prof->compute.gpu : prof->gpu;
    int tables_base = !tables[0] || (base->gpu[0] && fu_gpu_same(tables, base->gpu));
    if (other)
      fu_warn("%s: the profile's copies, pack kernel, launch cost%s HBM figures come from "
              "base %s, measured on %s, not on %s; --base names one of this machine (fusim calib)%s",
              dbpath, tables_base ? ", compute and" : " and", base->name, base->gpu, prof->gpu,
              gpu_mem ? "" : "; it records no GPU memory, so plan checks none: --gpu-mem SIZE gives it");
    if (!tables_base && fu_profile_compute_other_gpu(prof))
      fu_warn("%s: the profile's compute tables come from base %s, measured on %s, not on %s; --base "
              "names one of this machine (fusim calib)", dbpath, base->name, tables, prof->gpu);
    /* one GPU's memory (plan's memory check) is the base's only where the base is of this GPU */
    if (base && !other) prof->gpu_mem_bytes = base->gpu_mem_bytes;
    if (gpu_mem) prof->gpu_mem_bytes = (double)gpu_mem;
    for (size_t k = 0; k < FU__NSCALARS; k++)
      if (scalar_set[k]) {
        *(double *)((char *)prof + fu__scalars[k].offset) = scalar_val[k];
        for (int i = 0; i < FU_PROFILE_NSCALARS; i++)
          if (fu_profile_scalar(prof, i) == (double *)((char *)prof + fu__scalars[k].offset))
            snprintf(prof->scalar_source[i], sizeof prof->scalar_source[i], "--%s", fu__scalars[k].flag);
      }
  }

  /* The plot first (it only makes the image), then store, write the profile and commit: a
   * failure anywhere leaves the database as it was. */
  if (plot && (st = fu_fitgroup_plot(plot, groups, ng)) != FU_OK) goto done;
  if (written && (st = fu_profile_file_text(prof, &pfile)) != FU_OK) goto done;
  if (!out.no_store) {
    int64_t fit_id = 0;
    char *args = fu_join_argv(argc, argv); /* as the runs table has it: "fusim fit ..." */
    if (args && (cmdline = malloc(strlen(args) + 7))) sprintf(cmdline, "fusim %s", args);
    free(args);
    if (!cmdline) st = FU_ENOMEM;
    if (st == FU_OK) st = fu_fit_rows_build(groups, ng, fu_fit_method_name(fo.method), written ? prof->name : NULL,
                                       &frows, &nrows);
    if (st == FU_OK && (st = fu_db_begin(db)) == FU_OK) in_tx = 1;
    if (st == FU_OK) st = fu_db_fit_store(db, cmdline, frows, nrows, &fit_id);
    if (st == FU_OK && written) { /* the profile by content, as the fit's (db, issue 11): as
                                     * the file reads back, the row predict --profile FILE names */
      char *ptext;
      int64_t profile_id;
      st = fu_profile_saved_json(pfile, &ptext);
      if (st == FU_OK) st = fu_db_profile_store(db, ptext, prof->name, 0, fit_id, &profile_id);
      free(ptext);
    }
    if (st != FU_OK) goto done;
  }
  if (written && (st = fu_text_save(written, pfile)) != FU_OK) goto done;
  if (in_tx) {
    in_tx = 0;
    if ((st = fu_db_commit(db)) != FU_OK) goto done;
  }
  st = fu_fit_print(out.format, groups, ng, &fo, prof, written, plot);

done:
  if (in_tx) fu_db_rollback(db);
  fu_fitgroup_free(groups, ng);
  free(frows);
  free(cmdline);
  free(pfile);
  free(fs);
  free(smp);
  fu_db_close(db);
  free(base);
  free(prof);
  return fu_exit_code(st);
}
