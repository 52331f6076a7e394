/* cmd_predict.c: fusim predict: one workload under one fusion plan -> the predicted iteration,
 * its interval from the fits' confidence intervals, where the time goes, a per-bucket table,
 * optionally a Chrome trace; the prediction is stored in the results database. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_predict.h"
#include "fu_search.h"
#include "fu_sim.h"
#include "fu_trace.h"
#include "fu_workload.h"

#define FU__DEFAULT_COMM "allreduce:8:nvlink"

static void fu__usage(FILE *out) {
  fprintf(out,
"usage: fusim predict --workload FILE|NAME [--profile P.json] [--comm SPEC] [--fusion SPEC]\n"
"                     [--overlap on|off] [--pack copy|view] [--comm-streams N] [--plan PLAN.json]\n"
"                     [--strict] [--trace FILE] [--buckets] [--format table|csv|json]\n"
"                     [--db FILE] [--no-store]\n"
"\n"
"Simulates one training iteration of the workload under a fusion plan and prints the iteration\n"
"time with its interval (every operation at the 95%% CI bounds of its fit), compute,\n"
"communication, exposed communication, overlap fraction, bus utilisation (achieved bus\n"
"bandwidth of the operations over the best the fitted curve reaches at any size, and at\n"
"least its measured peak: never above 100%%), operations, fusion buffer bytes, events\n"
"simulated, and a table of buckets.\n"
"\n"
"  --workload W      a fusim-workload-1 file, or a bundled name (fusim workload --list)\n"
"  --profile P       calibrated profile (JSON); default: the embedded profile\n"
"  --comm SPEC       allreduce|reducescatter|allgather:RANKS:nvlink|pcie|net, or offload\n"
"                    (D2H copies over PCIe); default " FU__DEFAULT_COMM "\n"
"  --fusion SPEC     none|single|cap:SIZE[,first:SIZE]|horovod:SIZE[,CYCLE]|buckets:FILE|\n"
"                    optimal[:MEMCAP]|mgwfbp; default none (sizes: B, KiB, MiB, GiB)\n"
"  --overlap on|off  communicate as buckets fill (on, default) or after backward\n"
"  --pack copy|view  pack into a fusion buffer (copy, default) or gradients live in it\n"
"  --comm-streams N  communication streams, buckets round robin (default 1)\n"
"  --plan FILE       JSON plan {\"fusion\", \"overlap\", \"pack\", \"comm_streams\"}; flags given\n"
"                    on the command line override its keys; its buckets:FILE is read beside\n"
"                    the plan file when there is one\n"
"  --strict          ready times out of order in the workload are an error\n"
"  --trace FILE      write Chrome trace JSON (open in ui.perfetto.dev): a track per stream,\n"
"                    copy engine and the host thread, link counters, flows from each\n"
"                    gradient's ready time to its bucket's communication\n"
"  --buckets         with --format csv: print the bucket table instead of the summary row\n"
"  --format F        table (default), csv or json (one object, as plan's array elements)\n"
"  --db FILE         results database (default $FUSIM_DB, else ./fusim.db)\n"
"  --no-store        do not store the prediction\n");
}

typedef struct fu__predict_opts {
  const char *workload;      /* --workload */
  const char *profile;       /* --profile or NULL */
  const char *comm;          /* --comm */
  const char *fusion;        /* --fusion or NULL */
  const char *overlap;       /* --overlap or NULL */
  const char *pack;          /* --pack or NULL */
  const char *streams;       /* --comm-streams or NULL */
  const char *plan_file;     /* --plan or NULL */
  const char *trace;         /* --trace or NULL */
  const char *db;            /* --db or NULL */
  int strict;                /* --strict */
  int buckets_csv;           /* --buckets */
  int no_store;              /* --no-store */
  fu_format format;          /* --format */
} fu__predict_opts;

/* Parses argv; *done = 1 after --help. */
static int fu__parse_args(int argc, char **argv, fu__predict_opts *o, int *done) {
  enum { O_PROFILE = 256, O_COMM, O_FUSION, O_OVERLAP, O_PACK, O_STREAMS, O_PLAN, O_TRACE,
         O_FORMAT, O_DB, O_NOSTORE, O_STRICT, O_BUCKETS, O_HELP };
  static const struct option longopts[] = {
      {"workload", required_argument, NULL, 'w'},   {"profile", required_argument, NULL, O_PROFILE},
      {"comm", required_argument, NULL, O_COMM},    {"fusion", required_argument, NULL, O_FUSION},
      {"overlap", required_argument, NULL, O_OVERLAP}, {"pack", required_argument, NULL, O_PACK},
      {"comm-streams", required_argument, NULL, O_STREAMS},
      {"plan", required_argument, NULL, O_PLAN},    {"trace", required_argument, NULL, O_TRACE},
      {"format", required_argument, NULL, O_FORMAT}, {"db", required_argument, NULL, O_DB},
      {"no-store", no_argument, NULL, O_NOSTORE},   {"strict", no_argument, NULL, O_STRICT},
      {"buckets", no_argument, NULL, O_BUCKETS},    {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0}};
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
    case O_FUSION: o->fusion = optarg; break;
    case O_OVERLAP: o->overlap = optarg; break;
    case O_PACK: o->pack = optarg; break;
    case O_STREAMS: o->streams = optarg; break;
    case O_PLAN: o->plan_file = optarg; break;
    case O_TRACE: o->trace = optarg; break;
    case O_DB: o->db = optarg; break;
    case O_NOSTORE: o->no_store = 1; break;
    case O_STRICT: o->strict = 1; break;
    case O_BUCKETS: o->buckets_csv = 1; break;
    case O_FORMAT:
      if (fu_parse_format(optarg, &o->format) != FU_OK) {
        fu_error("predict: --format: expected table, csv or json, got '%s'", optarg);
        return FU_EUSAGE;
      }
      break;
    case 'h':
    case O_HELP:
      fu__usage(stdout);
      *done = 1;
      return FU_OK;
    case ':':
      fu_error("predict: %s needs a value; see 'fusim predict --help'", argv[optind - 1]);
      return FU_EUSAGE;
    default:
      fu_error("predict: unknown option '%s'; see 'fusim predict --help'", argv[optind - 1]);
      return FU_EUSAGE;
    }
  }
  if (optind < argc) {
    fu_error("predict: unexpected argument '%s'; see 'fusim predict --help'", argv[optind]);
    return FU_EUSAGE;
  }
  if (!o->workload) {
    fu_error("predict: --workload FILE|NAME is required; see 'fusim predict --help'");
    return FU_EUSAGE;
  }
  return FU_OK;
}

/* The plan: file first, then the flags over it. */
static int fu__plan_from_opts(const fu__predict_opts *o, fu_plan *p, fu_comm *c) {
  fu_plan_init(p);
  if (o->plan_file) FU_CHECK(fu_plan_load(o->plan_file, p));
  if (o->fusion) FU_CHECK(fu_plan_parse_fusion(o->fusion, p));
  if (o->overlap) FU_CHECK(fu_plan_parse_overlap(o->overlap, p));
  if (o->pack) FU_CHECK(fu_plan_parse_pack(o->pack, p));
  if (o->streams) FU_CHECK(fu_plan_parse_streams(o->streams, p));
  return fu_comm_parse(o->comm, c);
}

static void fu__print_table(const fu_result *r, const fu_workload *w, const char *plan,
                            const char *comm, const fu_profile *prof, const json_t *j) {
  char sz[32], buf[32];
  printf("workload       %s (%zu tensors, %s%s)\n", w->name, w->ngrads,
         fu_format_size(fu_workload_total_bytes(w), sz, sizeof sz),
         w->estimated ? "; times are estimates" : "");
  printf("plan           %s\n", plan);
  printf("comm           %s  (profile %s)\n", comm, prof->name);
  printf("iteration      %.1f us   [%.1f, %.1f] from the fits' 95%% CIs\n", r->iter_us,
         r->iter_lo_us, r->iter_hi_us);
  printf("compute        %.1f us\n", r->compute_us);
  printf("communication  %.1f us in %zu op%s (+ %.1f us pack, hand-off, unpack)\n", r->comm_us, r->n_ops,
         r->n_ops == 1 ? "" : "s", json_real_value(json_object_get(j, "pack_us")));
  printf("exposed        %.1f us   overlap %.1f%%\n", r->exposed_comm_us, 100 * r->overlap_frac);
  printf("bus util       %.1f%%\n", 100 * r->bus_util);
  printf("fusion buffer  %s\n", fu_format_size(r->fusion_buffer_bytes, buf, sizeof buf));
  printf("sim events     %llu\n\n", (unsigned long long)r->sim_events);
  printf("%6s %7s %11s %11s %11s %11s %9s %11s %8s  %s\n", "bucket", "tensors", "bytes",
         "ready_us", "start_us", "end_us", "pack_us", "comm_us", "busbw", "last tensor");
  json_t *bk = json_object_get(j, "buckets"), *b;
  size_t k;
  json_array_foreach(bk, k, b) {
    printf("%6zu %7lld %11s %11.1f %11.1f %11.1f %9.1f %11.1f %8.1f  %s\n", k,
           (long long)json_integer_value(json_object_get(b, "tensors")),
           fu_format_size((uint64_t)json_integer_value(json_object_get(b, "bytes")), sz, sizeof sz),
           json_real_value(json_object_get(b, "ready_us")),
           json_real_value(json_object_get(b, "start_us")),
           json_real_value(json_object_get(b, "end_us")),
           json_real_value(json_object_get(b, "pack_us")),
           json_real_value(json_object_get(b, "comm_us")),
           json_real_value(json_object_get(b, "busbw_gbps")),
           json_string_value(json_object_get(b, "last_tensor")));
  }
}


static void fu__print_csv(const fu_result *r, const fu_workload *w, const char *plan,
                          const char *comm, const fu_profile *prof, const json_t *j, int buckets) {
  if (buckets) {
    printf("bucket,first,last,tensors,bytes,ready_us,start_us,end_us,pack_us,comm_us,busbw_gbps,"
           "last_tensor\n");
    json_t *b;
    size_t k;
    json_array_foreach(json_object_get(j, "buckets"), k, b) {
      printf("%zu,%lld,%lld,%lld,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", k,
             (long long)json_integer_value(json_object_get(b, "first")),
             (long long)json_integer_value(json_object_get(b, "last")),
             (long long)json_integer_value(json_object_get(b, "tensors")),
             (long long)json_integer_value(json_object_get(b, "bytes")),
             json_real_value(json_object_get(b, "ready_us")),
             json_real_value(json_object_get(b, "start_us")),
             json_real_value(json_object_get(b, "end_us")),
             json_real_value(json_object_get(b, "pack_us")),
             json_real_value(json_object_get(b, "comm_us")),
             json_real_value(json_object_get(b, "busbw_gbps")));
      fu_csv_field(stdout, json_string_value(json_object_get(b, "last_tensor")));
      putchar('\n');
    }
    return;
  }
  printf("workload,plan,comm,profile,iter_us,iter_lo_us,iter_hi_us,compute_us,comm_us,"
         "exposed_comm_us,overlap_frac,bus_util,n_ops,fusion_buffer_bytes,sim_events\n");
  fu_csv_field(stdout, w->name);
  putchar(',');
  fu_csv_field(stdout, plan);
  putchar(',');
  fu_csv_field(stdout, comm);
  putchar(',');
  fu_csv_field(stdout, prof->name);
  printf(",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,%zu,%llu,%llu\n", r->iter_us, r->iter_lo_us,
         r->iter_hi_us, r->compute_us, r->comm_us, r->exposed_comm_us, r->overlap_frac,
         r->bus_util, r->n_ops, (unsigned long long)r->fusion_buffer_bytes,
         (unsigned long long)r->sim_events);
}

/* Copies src into dst[n]; FU_EDATA (with a message) when it does not fit. */
static int fu__copy(char *dst, size_t n, const char *src, const char *what) {
  size_t len = strlen(src);
  if (len >= n) {
    fu_error("predict: the %s is too long to store (%zu characters, at most %zu)", what, len, n - 1);
    return FU_EDATA;
  }
  memcpy(dst, src, len + 1);
  return FU_OK;
}

static int fu__store(const fu__predict_opts *o, const fu_result *r, const fu_workload *w,
                     const char *plan, const char *comm, const fu_profile *prof, const char *json,
                     int argc, char **argv) {
  fu_prediction_row row;
  memset(&row, 0, sizeof row);
  FU_CHECK(fu__copy(row.workload, sizeof row.workload, w->name, "workload name"));
  FU_CHECK(fu__copy(row.plan, sizeof row.plan, plan, "plan string"));
  FU_CHECK(fu__copy(row.comm, sizeof row.comm, comm, "comm target"));
  FU_CHECK(fu__copy(row.profile, sizeof row.profile, prof->name, "profile name"));
  row.iter_us = r->iter_us;
  row.iter_lo_us = r->iter_lo_us;
  row.iter_hi_us = r->iter_hi_us;
  row.compute_us = r->compute_us;
  row.comm_us = r->comm_us;
  row.exposed_comm_us = r->exposed_comm_us;
  row.n_ops = (int)r->n_ops;
  row.fusion_buffer_bytes = r->fusion_buffer_bytes;
  row.json = json;
  char *cmd = fu_join_argv(argc, argv);
  snprintf(row.cmdline, sizeof row.cmdline, "fusim %s", cmd ? cmd : "predict");
  free(cmd);
  fu_db *db = NULL;
  int64_t id;
  int st = fu_db_open(fu_db_path_default(o->db), FU_DB_READWRITE, &db);
  if (st == FU_OK) st = fu_db_prediction_store(db, &row, &id);
  fu_db_close(db);
  return st;
}

int fu_cmd_predict(int argc, char **argv) {
  fu__predict_opts o;
  int done, st = fu__parse_args(argc, argv, &o, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  fu_plan p;
  fu_comm c;
  if ((st = fu__plan_from_opts(&o, &p, &c)) != FU_OK) return fu_exit_code(st);

  fu_workload w;
  fu_workload_init(&w);
  fu_profile *prof = malloc(sizeof *prof); /* ~60 KiB: off the stack */
  fu_trace *tr = NULL;
  fu_result r;
  memset(&r, 0, sizeof r);
  json_t *j = NULL;
  char *jtext = NULL;
  char *path = fu_workload_resolve(o.workload);
  if (!prof) st = FU_ENOMEM;
  else if (!path) {
    fu_error("predict: --workload %s: no such file or bundled workload (fusim workload --list)",
             o.workload);
    st = FU_ENOINPUT;
  }
  if (st == FU_OK) st = fu_workload_load(path, o.strict, &w);
  if (st == FU_OK) st = o.profile ? fu_profile_load(o.profile, prof) : fu_profile_load_default(prof);
  if (st == FU_OK && o.trace) st = fu_trace_create(o.trace, &tr);
  if (st == FU_OK) st = fu_sim_predict(&w, &p, &c, prof, tr, &r);
  if (st == FU_OK && tr) st = fu_trace_write(tr);
  char plan[512], comm[64];
  if (st == FU_OK) {
    fu_plan_string(&p, plan, sizeof plan);
    fu_comm_string(&c, comm, sizeof comm);
    j = fu_result_to_json(&r, &w, &p, &c, prof);
    jtext = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (!jtext) st = FU_ENOMEM;
  }
  if (st == FU_OK && !o.no_store) st = fu__store(&o, &r, &w, plan, comm, prof, jtext, argc, argv);
  if (st == FU_OK) {
    if (o.format == FU_FORMAT_JSON) {
      json_dumpf(j, stdout, JSON_INDENT(2));
      putchar('\n');
    } else if (o.format == FU_FORMAT_CSV) {
      fu__print_csv(&r, &w, plan, comm, prof, j, o.buckets_csv);
    } else {
      fu__print_table(&r, &w, plan, comm, prof, j);
    }
    if (tr) fprintf(stderr, "fusim: trace written to %s (%zu events)\n", fu_trace_path(tr),
                    fu_trace_nevents(tr));
  }
  free(jtext);
  json_decref(j);
  fu_result_finish(&r);
  fu_trace_destroy(tr);
  free(path);
  free(prof);
  fu_workload_finish(&w);
  return fu_exit_code(st);
}
