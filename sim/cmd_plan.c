/* cmd_plan.c: fusim plan: compares the fusion plans people use (none, single, PyTorch DDP's
 * default, Horovod's default, MG-WFBP) with the optimal contiguous bucketing, each simulated,
 * ranked by iteration time with the speed-up over DDP's default; --sweep runs the bucket cap
 * from 64 KiB to 1 GiB; --fusion-table reproduces the classic fusion table by simulation.
 * Predictions are stored in the results database, one transaction for the command. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_output.h"
#include "fu_predict.h"
#include "fu_search.h"
#include "fu_sim.h"
#include "fu_workload.h"

#define FU__DEFAULT_COMM "allreduce:8:nvlink"

static void fu__usage(FILE *out) {
  fprintf(out,
"usage: fusim plan --workload FILE|NAME [--profile P.json] [--comm SPEC] [--overlap on|off]\n"
"                  [--pack copy|view] [--comm-streams N] [--mem-cap SIZE] [--strict]\n"
"                  [--save-buckets FILE]\n"
"                  [--format table|csv|json] [--db FILE] [--no-store]\n"
"       fusim plan --workload W --sweep [--plot FILE.png|svg] [...]\n"
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
"  --workload W      a fusim-workload-1 file, or a bundled name (fusim workload --list)\n"
"  --profile P       calibrated profile (JSON); default: the embedded profile\n"
"  --comm SPEC       allreduce|reducescatter|allgather:RANKS:nvlink|pcie|net, or offload;\n"
"                    default " FU__DEFAULT_COMM "\n"
"  --overlap on|off  communicate as buckets fill (on, default) or after backward\n"
"  --pack copy|view  pack into a fusion buffer (copy, default) or gradients live in it\n"
"  --comm-streams N  communication streams (default 1)\n"
"  --mem-cap SIZE    the optimal plan's largest fusion buffer (B, KiB, MiB, GiB); other plans\n"
"                    above it are starred (over_mem_cap in csv and json)\n"
"  --save-buckets F  write the optimal plan's buckets to F as a bucket file (a JSON list of\n"
"                    lists of tensor names) that --fusion buckets:F reads back\n"
"  --strict          ready times out of order in the workload are an error\n"
"  --sweep           iteration time against the bucket cap, 64 KiB .. 1 GiB in powers of 2\n"
"                    (cap:SIZE; CSV unless --format says otherwise)\n"
"  --plot FILE       with --sweep: draw the sweep into FILE (.png or .svg) when gnuplot is\n"
"                    installed\n"
"  --fusion-table    bus utilisation of 4 separate messages against 1 fused message of 4x the\n"
"                    size, at 1 MiB, 8 MiB and 128 MiB per message (pack=view), simulated on\n"
"                    the profile and --comm target; utilisation is the achieved bus bandwidth\n"
"                    over the peak (the best bus bandwidth the fitted curve reaches at any\n"
"                    size, at least the measured peak), so at most 100%%\n"
"  --format F        table (default), csv or json (an array of predict objects, each with\n"
"                    its plan string, rank and speedup_vs_ddp)\n"
"  --db FILE         results database (default $FUSIM_DB, else ./fusim.db)\n"
"  --no-store        do not store the predictions\n");
}

typedef struct fu__plan_opts {
  const char *workload;      /* --workload */
  const char *profile;       /* --profile or NULL */
  const char *comm;          /* --comm */
  const char *overlap;       /* --overlap or NULL */
  const char *pack;          /* --pack or NULL */
  const char *streams;       /* --comm-streams or NULL */
  const char *mem_cap;       /* --mem-cap or NULL */
  const char *plot;          /* --plot or NULL */
  const char *save_buckets;  /* --save-buckets or NULL */
  const char *db;            /* --db or NULL */
  int strict;                /* --strict */
  int sweep;                 /* --sweep */
  int fusion_table;          /* --fusion-table */
  int no_store;              /* --no-store */
  int format_given;          /* --format was on the command line */
  fu_format format;          /* --format */
} fu__plan_opts;

static int fu__parse_args(int argc, char **argv, fu__plan_opts *o, int *done) {
  enum { O_PROFILE = 256, O_COMM, O_OVERLAP, O_PACK, O_STREAMS, O_MEMCAP, O_FORMAT, O_DB,
         O_NOSTORE, O_STRICT, O_SWEEP, O_PLOT, O_TABLE, O_SAVE, O_HELP };
  static const struct option longopts[] = {
      {"workload", required_argument, NULL, 'w'},     {"profile", required_argument, NULL, O_PROFILE},
      {"comm", required_argument, NULL, O_COMM},      {"overlap", required_argument, NULL, O_OVERLAP},
      {"pack", required_argument, NULL, O_PACK},      {"comm-streams", required_argument, NULL, O_STREAMS},
      {"mem-cap", required_argument, NULL, O_MEMCAP}, {"format", required_argument, NULL, O_FORMAT},
      {"db", required_argument, NULL, O_DB},          {"no-store", no_argument, NULL, O_NOSTORE},
      {"strict", no_argument, NULL, O_STRICT},        {"sweep", no_argument, NULL, O_SWEEP},
      {"plot", required_argument, NULL, O_PLOT},      {"fusion-table", no_argument, NULL, O_TABLE},
      {"save-buckets", required_argument, NULL, O_SAVE},
      {"help", no_argument, NULL, O_HELP},            {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->comm = FU__DEFAULT_COMM;
  o->format = FU_FORMAT_TABLE;
  *done = 0;
  optind = 1;
  opterr = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, ":w:h", longopts, NULL)) != -1) {
    switch (ch) {
    case 'w': o->workload = optarg; break;
    case O_PROFILE: o->profile = optarg; break;
    case O_COMM: o->comm = optarg; break;
    case O_OVERLAP: o->overlap = optarg; break;
    case O_PACK: o->pack = optarg; break;
    case O_STREAMS: o->streams = optarg; break;
    case O_MEMCAP: o->mem_cap = optarg; break;
    case O_DB: o->db = optarg; break;
    case O_NOSTORE: o->no_store = 1; break;
    case O_STRICT: o->strict = 1; break;
    case O_SWEEP: o->sweep = 1; break;
    case O_PLOT: o->plot = optarg; break;
    case O_TABLE: o->fusion_table = 1; break;
    case O_SAVE: o->save_buckets = optarg; break;
    case O_FORMAT:
      if (fu_parse_format(optarg, &o->format) != FU_OK) {
        fu_error("plan: --format: expected table, csv or json, got '%s'", optarg);
        return FU_EUSAGE;
      }
      o->format_given = 1;
      break;
    case 'h':
    case O_HELP:
      fu__usage(stdout);
      *done = 1;
      return FU_OK;
    case ':':
      fu_error("plan: %s needs a value; see 'fusim plan --help'", argv[optind - 1]);
      return FU_EUSAGE;
    default:
      fu_error("plan: unknown option '%s'; see 'fusim plan --help'", argv[optind - 1]);
      return FU_EUSAGE;
    }
  }
  if (optind < argc) {
    fu_error("plan: unexpected argument '%s'; see 'fusim plan --help'", argv[optind]);
    return FU_EUSAGE;
  }
  if (!o->workload && !o->fusion_table) {
    fu_error("plan: --workload FILE|NAME is required (or --fusion-table); see 'fusim plan --help'");
    return FU_EUSAGE;
  }
  if (o->plot && !o->sweep) {
    fu_error("plan: --plot draws the --sweep; add --sweep");
    return FU_EUSAGE;
  }
  if (o->plot) FU_CHECK(fu_plot_path_check("plan: --plot", o->plot, NULL));
  if (o->save_buckets && (o->sweep || o->fusion_table)) {
    fu_error("plan: --save-buckets saves the comparison's optimal plan; leave out --sweep and "
             "--fusion-table");
    return FU_EUSAGE;
  }
  if (o->sweep && o->fusion_table) {
    fu_error("plan: --sweep and --fusion-table are separate runs; give one");
    return FU_EUSAGE;
  }
  if (o->sweep && !o->format_given) o->format = FU_FORMAT_CSV;
  return FU_OK;
}

/* The base plan from the flags (fusion kind set per row later). */
static int fu__base_plan(const fu__plan_opts *o, fu_plan *p, fu_comm *c) {
  fu_plan_init(p);
  if (o->overlap) FU_CHECK(fu_plan_parse_overlap(o->overlap, p));
  if (o->pack) FU_CHECK(fu_plan_parse_pack(o->pack, p));
  if (o->streams) FU_CHECK(fu_plan_parse_streams(o->streams, p));
  if (o->mem_cap) {
    if (fu_parse_size(o->mem_cap, &p->mem_cap_bytes) != FU_OK || p->mem_cap_bytes == 0) {
      fu_error("--mem-cap '%s': expected a size above 0 (bytes, or with B, KiB, MiB, GiB)",
               o->mem_cap);
      return FU_EUSAGE;
    }
  }
  return fu_comm_parse(o->comm, c);
}

/* One simulated plan. */
typedef struct fu__row {
  const char *label;         /* what the row is ("DDP default", ...) */
  fu_plan plan;              /* the plan */
  char plan_str[512];        /* its canonical string */
  fu_result r;               /* simulated iteration */
  json_t *j;                 /* predict's JSON object for it */
  double speedup;            /* DDP default's iteration / this one's */
  int rank;                  /* 1 = fastest */
  int over_cap;              /* --mem-cap given and this plan's largest fusion buffer is above it
                                (the cap binds only the optimal plan) */
} fu__row;

static int fu__simulate_row(fu__row *row, const fu_workload *w, const fu_comm *c,
                            const fu_profile *prof, fu_search_stats *stats) {
  fu_plan_string(&row->plan, row->plan_str, sizeof row->plan_str);
  if (row->plan.kind == FU_FUSION_OPTIMAL) {
    fu_bucket *b = NULL;
    size_t nb = 0;
    FU_CHECK(fu_search_optimal(w, &row->plan, c, prof, &b, &nb, stats));
    int st = fu_sim_predict_buckets(w, &row->plan, c, prof, b, nb, NULL, &row->r);
    free(b);
    FU_CHECK(st);
  } else {
    FU_CHECK(fu_sim_predict(w, &row->plan, c, prof, NULL, &row->r));
  }
  row->j = fu_result_to_json(&row->r, w, &row->plan, c, prof);
  return row->j ? FU_OK : FU_ENOMEM;
}

/* Stores every row's prediction in one transaction. */
static int fu__store_rows(const fu__plan_opts *o, fu__row *rows, size_t n, const fu_workload *w,
                          const fu_comm *c, const fu_profile *prof, int argc, char **argv) {
  char comm[64];
  fu_comm_string(c, comm, sizeof comm);
  char *cmd = fu_join_argv(argc, argv);
  fu_db *db = NULL;
  int st = fu_db_open(fu_db_path_default(o->db), FU_DB_READWRITE, &db);
  if (st == FU_OK) st = fu_db_begin(db);
  for (size_t k = 0; k < n && st == FU_OK; k++) {
    fu_prediction_row pr;
    memset(&pr, 0, sizeof pr);
    snprintf(pr.workload, sizeof pr.workload, "%s", w->name);
    snprintf(pr.plan, sizeof pr.plan, "%s", rows[k].plan_str);
    snprintf(pr.comm, sizeof pr.comm, "%s", comm);
    snprintf(pr.profile, sizeof pr.profile, "%s", prof->name);
    pr.iter_us = rows[k].r.iter_us;
    pr.iter_lo_us = rows[k].r.iter_lo_us;
    pr.iter_hi_us = rows[k].r.iter_hi_us;
    pr.compute_us = rows[k].r.compute_us;
    pr.comm_us = rows[k].r.comm_us;
    pr.exposed_comm_us = rows[k].r.exposed_comm_us;
    pr.n_ops = (int)rows[k].r.n_ops;
    pr.fusion_buffer_bytes = rows[k].r.fusion_buffer_bytes;
    char *jt = json_dumps(rows[k].j, JSON_COMPACT);
    pr.json = jt;
    snprintf(pr.cmdline, sizeof pr.cmdline, "fusim %s", cmd ? cmd : "plan");
    int64_t id;
    st = jt ? fu_db_prediction_store(db, &pr, &id) : FU_ENOMEM;
    free(jt);
  }
  if (st == FU_OK) st = fu_db_commit(db);
  else fu_db_rollback(db);
  fu_db_close(db);
  free(cmd);
  return st;
}

/* By iteration time; on a tie the optimal plan first, then fewer operations. */
static int fu__row_cmp(const void *a, const void *b) {
  const fu__row *x = a, *y = b;
  if (x->r.iter_us != y->r.iter_us) return x->r.iter_us < y->r.iter_us ? -1 : 1;
  int xo = x->plan.kind == FU_FUSION_OPTIMAL, yo = y->plan.kind == FU_FUSION_OPTIMAL;
  if (xo != yo) return yo - xo;
  return (x->r.n_ops > y->r.n_ops) - (x->r.n_ops < y->r.n_ops);
}


static void fu__print_rows(const fu__plan_opts *o, fu__row *rows, size_t n, const fu_workload *w,
                           const fu_comm *c, const fu_profile *prof,
                           const fu_search_stats *stats, double opt_sim_us) {
  char comm[64], sz[32];
  fu_comm_string(c, comm, sizeof comm);
  if (o->format == FU_FORMAT_JSON) {
    json_t *arr = json_array();
    for (size_t k = 0; k < n && arr; k++) {
      json_object_set_new(rows[k].j, "label", json_string(rows[k].label));
      json_object_set_new(rows[k].j, "rank", json_integer(rows[k].rank));
      json_object_set_new(rows[k].j, "speedup_vs_ddp", json_real(rows[k].speedup));
      if (o->mem_cap) json_object_set_new(rows[k].j, "over_mem_cap", json_boolean(rows[k].over_cap));
      json_array_append(arr, rows[k].j);
    }
    if (arr) {
      json_dumpf(arr, stdout, JSON_INDENT(2));
      putchar('\n');
    }
    json_decref(arr);
    return;
  }
  if (o->format == FU_FORMAT_CSV) {
    printf("rank,label,workload,plan,comm,profile,iter_us,iter_lo_us,iter_hi_us,compute_us,"
           "comm_us,exposed_comm_us,overlap_frac,bus_util,n_ops,fusion_buffer_bytes,sim_events,"
           "speedup_vs_ddp%s\n", o->mem_cap ? ",over_mem_cap" : "");
    for (size_t k = 0; k < n; k++) {
      const fu_result *r = &rows[k].r;
      printf("%d,", rows[k].rank);
      fu_csv_field(stdout, rows[k].label);
      putchar(',');
      fu_csv_field(stdout, w->name);
      putchar(',');
      fu_csv_field(stdout, rows[k].plan_str);
      putchar(',');
      fu_csv_field(stdout, comm);
      putchar(',');
      fu_csv_field(stdout, prof->name);
      printf(",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,%zu,%llu,%llu,%.6f", r->iter_us,
             r->iter_lo_us, r->iter_hi_us, r->compute_us, r->comm_us, r->exposed_comm_us,
             r->overlap_frac, r->bus_util, r->n_ops, (unsigned long long)r->fusion_buffer_bytes,
             (unsigned long long)r->sim_events, rows[k].speedup);
      if (o->mem_cap) printf(",%d", rows[k].over_cap);
      putchar('\n');
    }
    return;
  }
  printf("workload  %s (%zu tensors, %s%s)\n", w->name, w->ngrads,
         fu_format_size(fu_workload_total_bytes(w), sz, sizeof sz),
         w->estimated ? "; times are estimates" : "");
  printf("comm      %s  (profile %s)   compute %.1f us\n\n", comm, prof->name,
         n ? rows[0].r.compute_us : 0.0);
  printf("%4s  %-16s %-24s %11s %23s %11s %6s %10s %7s %7s\n", "rank", "plan", "fusion",
         "iter_us", "95% interval", "exposed_us", "ops", "buffer", "busutil", "vs DDP");
  for (size_t k = 0; k < n; k++) {
    const fu_result *r = &rows[k].r;
    char iv[48], fusion[64], buf[40];
    snprintf(iv, sizeof iv, "[%.1f, %.1f]", r->iter_lo_us, r->iter_hi_us);
    snprintf(buf, sizeof buf, "%s%s", fu_format_size(r->fusion_buffer_bytes, sz, sizeof sz),
             rows[k].over_cap ? "*" : "");
    snprintf(fusion, sizeof fusion, "%.*s", (int)strcspn(rows[k].plan_str, " "), rows[k].plan_str);
    printf("%4d  %-16s %-24s %11.1f %23s %11.1f %6zu %10s %6.1f%% %6.3fx\n", rows[k].rank,
           rows[k].label, fusion, r->iter_us, iv, r->exposed_comm_us, r->n_ops, buf,
           100 * r->bus_util, rows[k].speedup);
  }
  int n_over = 0;
  for (size_t k = 0; k < n; k++) n_over += rows[k].over_cap;
  if (n_over) {
    uint64_t cap = 0;
    for (size_t k = 0; k < n; k++)
      if (rows[k].plan.kind == FU_FUSION_OPTIMAL) cap = rows[k].plan.mem_cap_bytes;
    printf("\n* largest fusion buffer above --mem-cap %s, which binds only the optimal plan: "
           "a starred plan does not fit in that memory\n",
           fu_format_size(cap, sz, sizeof sz));
  }
  const char *rest = n ? strchr(rows[0].plan_str, ' ') : NULL;
  printf("\nevery plan: %s\n", rest ? rest + 1 : "");
  if (stats->polished)
    printf("optimal: DP over %zu tensors (%llu candidates); the profile or plan has contention "
           "the DP leaves out (comm_slowdown %.4g, copy_slowdown %.4g, %d stream%s), so its "
           "buckets (DP model %.1f us, simulated %.1f us) were checked against %llu simulated "
           "alternatives: "
           "%.1f us, %.2f ms in all\n",
           w->ngrads, (unsigned long long)stats->candidates, prof->comm_slowdown,
           prof->copy_slowdown, rows[0].plan.comm_streams,
           rows[0].plan.comm_streams == 1 ? "" : "s", stats->predicted_us, stats->dp_simulated_us,
           (unsigned long long)stats->sims - 1, stats->simulated_us, stats->elapsed_ms);
  else
    printf("optimal: DP over %zu tensors (%llu candidates, %.2f ms%s); its own model %.3f us, "
           "simulated %.3f us (gap %.2g us)\n",
           w->ngrads, (unsigned long long)stats->candidates, stats->elapsed_ms,
           stats->exact ? ", exact" : "", stats->predicted_us, opt_sim_us,
           fabs(stats->predicted_us - opt_sim_us));
}

/* Writes buckets as a bucket file: a JSON list of lists of tensor names, in ready order. */
static int fu__save_buckets(const char *path, const fu_workload *w, const fu_bucket *b, size_t nb) {
  json_t *root = json_array();
  for (size_t k = 0; k < nb && root; k++) {
    json_t *names = json_array();
    for (size_t i = b[k].first; i <= b[k].last && names; i++)
      if (json_array_append_new(names, json_string(w->grads[i].name)) != 0) {
        json_decref(names);
        names = NULL;
      }
    if (!names || json_array_append_new(root, names) != 0) {
      json_decref(root);
      root = NULL;
    }
  }
  if (!root) return FU_ENOMEM;
  int st = fu_json_save(path, root, JSON_INDENT(1), "the bucket file");
  json_decref(root);
  if (st != FU_OK) return st;
  fprintf(stderr, "fusim: optimal buckets (%zu) written to %s; use --fusion buckets:%s\n", nb, path,
          path);
  return FU_OK;
}

/* The comparison: six plans, ranked. */
static int fu__compare(const fu__plan_opts *o, const fu_workload *w, const fu_plan *base,
                       const fu_comm *c, const fu_profile *prof, int argc, char **argv) {
  static const struct {
    const char *label;       /* row label */
    const char *fusion;      /* --fusion value */
  } plans[] = {{"none", "none"},       {"single", "single"},   {"DDP default", "ddp"},
               {"Horovod default", "horovod"}, {"MG-WFBP", "mgwfbp"}, {"optimal", "optimal"}};
  enum { NPLANS = sizeof plans / sizeof plans[0] };
  fu__row rows[NPLANS];
  memset(rows, 0, sizeof rows);
  fu_search_stats stats;
  memset(&stats, 0, sizeof stats);
  int st = FU_OK;
  double ddp_us = NAN, opt_us = NAN;
  for (size_t k = 0; k < NPLANS && st == FU_OK; k++) {
    rows[k].label = plans[k].label;
    rows[k].plan = *base;
    uint64_t mem_cap = base->mem_cap_bytes;
    st = fu_plan_parse_fusion(plans[k].fusion, &rows[k].plan);
    if (rows[k].plan.kind == FU_FUSION_OPTIMAL) rows[k].plan.mem_cap_bytes = mem_cap;
    if (st == FU_OK) st = fu__simulate_row(&rows[k], w, c, prof, &stats);
    if (st == FU_OK)
      rows[k].over_cap = mem_cap && rows[k].r.fusion_buffer_bytes > mem_cap;
    if (st == FU_OK && strcmp(plans[k].fusion, "ddp") == 0) ddp_us = rows[k].r.iter_us;
    if (st == FU_OK && strcmp(plans[k].fusion, "optimal") == 0) {
      opt_us = rows[k].r.iter_us;
      if (o->save_buckets) st = fu__save_buckets(o->save_buckets, w, rows[k].r.buckets, rows[k].r.nbuckets);
    }
  }
  if (st == FU_OK) {
    for (size_t k = 0; k < NPLANS; k++) rows[k].speedup = ddp_us / rows[k].r.iter_us;
    qsort(rows, NPLANS, sizeof rows[0], fu__row_cmp);
    for (size_t k = 0; k < NPLANS; k++) rows[k].rank = (int)k + 1;
    if (!o->no_store) st = fu__store_rows(o, rows, NPLANS, w, c, prof, argc, argv);
  }
  if (st == FU_OK) fu__print_rows(o, rows, NPLANS, w, c, prof, &stats, opt_us);
  for (size_t k = 0; k < NPLANS; k++) {
    fu_result_finish(&rows[k].r);
    json_decref(rows[k].j);
  }
  return st;
}

/* True when gnuplot can be run. */
static int fu__have_gnuplot(void) {
  return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int fu__plot_sweep(const char *path, const fu__row *rows, size_t n, const fu_workload *w,
                          const char *comm, double opt_us, double ddp_us) {
  if (!fu__have_gnuplot()) {
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

/* --sweep: cap:SIZE for SIZE = 64 KiB .. 1 GiB. */
static int fu__sweep(const fu__plan_opts *o, const fu_workload *w, const fu_plan *base,
                     const fu_comm *c, const fu_profile *prof, int argc, char **argv) {
  enum { NCAPS = 15 }; /* 2^16 .. 2^30 */
  fu__row rows[NCAPS];
  memset(rows, 0, sizeof rows);
  int st = FU_OK;
  for (size_t k = 0; k < NCAPS && st == FU_OK; k++) {
    rows[k].label = "cap";
    rows[k].plan = *base;
    rows[k].plan.kind = FU_FUSION_CAP;
    rows[k].plan.cap_bytes = 1ull << (16 + k);
    rows[k].plan.first_cap_bytes = 0;
    rows[k].plan.mem_cap_bytes = 0;
    st = fu__simulate_row(&rows[k], w, c, prof, NULL);
  }
  /* References: DDP's default and the optimum. */
  fu__row ref[2];
  memset(ref, 0, sizeof ref);
  for (size_t k = 0; k < 2 && st == FU_OK; k++) {
    ref[k].plan = *base;
    uint64_t mem_cap = base->mem_cap_bytes;
    st = fu_plan_parse_fusion(k == 0 ? "ddp" : "optimal", &ref[k].plan);
    if (k == 1) ref[k].plan.mem_cap_bytes = mem_cap;
    fu_search_stats stats;
    if (st == FU_OK) st = fu__simulate_row(&ref[k], w, c, prof, &stats);
  }
  if (st == FU_OK && !o->no_store) st = fu__store_rows(o, rows, NCAPS, w, c, prof, argc, argv);
  char comm[64];
  fu_comm_string(c, comm, sizeof comm);
  if (st == FU_OK) {
    double ddp = ref[0].r.iter_us, opt = ref[1].r.iter_us;
    if (o->format == FU_FORMAT_JSON) {
      json_t *arr = json_array();
      for (size_t k = 0; k < NCAPS && arr; k++) {
        json_object_set_new(rows[k].j, "cap_bytes", json_integer((json_int_t)rows[k].plan.cap_bytes));
        json_object_set_new(rows[k].j, "speedup_vs_ddp", json_real(ddp / rows[k].r.iter_us));
        json_array_append(arr, rows[k].j);
      }
      json_dumpf(arr, stdout, JSON_INDENT(2));
      putchar('\n');
      json_decref(arr);
    } else if (o->format == FU_FORMAT_CSV) {
      printf("cap_bytes,cap,iter_us,iter_lo_us,iter_hi_us,exposed_comm_us,comm_us,n_ops,"
             "bus_util,speedup_vs_ddp\n");
      for (size_t k = 0; k < NCAPS; k++) {
        const fu_result *r = &rows[k].r;
        char sz[32];
        printf("%llu,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%zu,%.6f,%.6f\n",
               (unsigned long long)rows[k].plan.cap_bytes,
               fu_format_size(rows[k].plan.cap_bytes, sz, sizeof sz), r->iter_us, r->iter_lo_us,
               r->iter_hi_us, r->exposed_comm_us, r->comm_us, r->n_ops, r->bus_util,
               ddp / r->iter_us);
      }
    } else {
      printf("workload  %s   comm %s   profile %s\n\n", w->name, comm, prof->name);
      printf("%10s %12s %12s %7s %8s %8s\n", "cap", "iter_us", "exposed_us", "ops", "busutil",
             "vs DDP");
      for (size_t k = 0; k < NCAPS; k++) {
        char sz[32];
        printf("%10s %12.1f %12.1f %7zu %7.1f%% %7.3fx\n",
               fu_format_size(rows[k].plan.cap_bytes, sz, sizeof sz), rows[k].r.iter_us,
               rows[k].r.exposed_comm_us, rows[k].r.n_ops, 100 * rows[k].r.bus_util,
               ddp / rows[k].r.iter_us);
      }
      printf("\nDDP default %.1f us, optimal %.1f us\n", ddp, opt);
    }
    if (o->plot) st = fu__plot_sweep(o->plot, rows, NCAPS, w, comm, opt, ddp);
  }
  for (size_t k = 0; k < NCAPS; k++) {
    fu_result_finish(&rows[k].r);
    json_decref(rows[k].j);
  }
  for (size_t k = 0; k < 2; k++) {
    fu_result_finish(&ref[k].r);
    json_decref(ref[k].j);
  }
  return st;
}

/* --fusion-table: 4 messages of SIZE each, all ready at once, sent as 4 operations or fused
 * into one of 4 x SIZE (pack=view: the classic table compares messages, not packing). */
static int fu__fusion_table(const fu__plan_opts *o, const fu_comm *c, const fu_profile *prof,
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
      st = fu_sim_predict(&w, &p, c, prof, NULL, &r);
      if (st == FU_OK) util[s][fused] = r.bus_util;
      fu_result_finish(&r);
    }
    fu_workload_finish(&w);
  }
  if (st != FU_OK) return st;
  char comm[64], sz[32];
  fu_comm_string(c, comm, sizeof comm);
  if (o->format == FU_FORMAT_JSON) {
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
  } else if (o->format == FU_FORMAT_CSV) {
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
  fu__plan_opts o;
  int done, st = fu__parse_args(argc, argv, &o, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  fu_plan base;
  fu_comm c;
  if ((st = fu__base_plan(&o, &base, &c)) != FU_OK) return fu_exit_code(st);
  fu_profile *prof = malloc(sizeof *prof); /* large: off the stack */
  if (!prof) return fu_exit_code(FU_ENOMEM);
  st = o.profile ? fu_profile_load(o.profile, prof) : fu_profile_load_default(prof);
  if (st == FU_OK && o.fusion_table) {
    st = fu__fusion_table(&o, &c, prof, &base);
    free(prof);
    return fu_exit_code(st);
  }
  fu_workload w;
  fu_workload_init(&w);
  char *path = NULL;
  if (st == FU_OK) {
    path = fu_workload_resolve(o.workload);
    if (!path) {
      fu_error("plan: --workload %s: no such file or bundled workload (fusim workload --list)",
               o.workload);
      st = FU_ENOINPUT;
    }
  }
  if (st == FU_OK) st = fu_workload_load(path, o.strict, &w);
  if (st == FU_OK) st = o.sweep ? fu__sweep(&o, &w, &base, &c, prof, argc, argv)
                                : fu__compare(&o, &w, &base, &c, prof, argc, argv);
  free(path);
  free(prof);
  fu_workload_finish(&w);
  return fu_exit_code(st);
}
