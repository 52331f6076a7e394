/* cmd_validate.c: fusim validate: run fusion plans on the GPU and compare with predictions. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_validate.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: fusim validate --workload W[,W2..] [--plans FILE|default] [--profile FILE]\n"
          "                      [--iters N] [--warmup N] [--gpus N] [--no-host] [--comm C]\n"
          "                      [--format table|csv|json] [--db FILE | --no-db] [--plot FILE]\n"
          "       fusim validate --fusion-table [--reps N] [--format table|csv|json]\n"
          "       fusim validate --from-csv FILE [--format table|csv|json] [--plot FILE]\n"
          "\n"
          "Runs every workload under every plan for real on the GPU(s) and prints the simulator's\n"
          "prediction beside the measured iteration time, with the error of each row and a\n"
          "summary (median and max |error|). With one GPU the communication is gradient offload\n"
          "to pinned host memory over PCIe; with two or more, NCCL all-reduce across them.\n"
          "\n"
          "  --workload W      bundled workload names (resnet50, bert_large, ...) or files\n"
          "  --plans FILE      a JSON plan object or an array of them ({\"fusion\": \"cap:25MiB\",\n"
          "                    \"overlap\": \"on\", \"pack\": \"copy\", \"comm_streams\": 1});\n"
          "                    default: none, single, cap:25MiB,first:1MiB, cap:4MiB, cap:100MiB\n"
          "                    and optimal, each with overlap on and off\n"
          "  --profile FILE    machine profile for the predictions (default: the bundled one)\n"
          "  --iters N         timed iterations per plan, interleaved across plans (20)\n"
          "  --warmup N        untimed rounds first (3)\n"
          "  --gpus N          use N of the visible GPUs (default: all)\n"
          "  --no-host         do not emulate the workload's host costs (hook_us, issue_us)\n"
          "  --comm auto|allreduce  auto (default): offload on one GPU, NCCL all-reduce on\n"
          "                    several; allreduce: NCCL even on one GPU (checks that path)\n"
          "  --format F        table (default), csv or json\n"
          "  --db FILE         store predictions and measurements (default $FUSIM_DB or fusim.db)\n"
          "  --no-db           store nothing\n"
          "  --plot FILE       predicted vs measured through gnuplot (.png or .svg)\n"
          "  --fusion-table    the classic table: 4 separate messages vs one fused message at\n"
          "                    1, 8 and 128 MiB each (and 64 x 4 KiB, 64 x 64 KiB) over PCIe\n"
          "  --reps N          timed runs per fusion-table cell (20)\n"
          "  --from-csv FILE   print (and --plot) results a run stored with --format csv; no GPU\n");
}

/* A whole-number option in [lo, hi]; one line naming the flag otherwise. */
static int fu__whole(const char *flag, const char *arg, long lo, long hi, long *out) {
  if (fu_parse_long(arg, lo, hi, out) == FU_OK) return FU_OK;
  fu_error("validate: %s: '%s' is not a whole number from %ld to %ld", flag, arg, lo, hi);
  return FU_EUSAGE;
}

int fu_cmd_validate(int argc, char **argv) {
  enum { O_WORKLOAD = 256, O_PLANS, O_PROFILE, O_ITERS, O_WARMUP, O_FORMAT, O_DB, O_NODB, O_PLOT,
         O_TABLE, O_REPS, O_GPUS, O_NOHOST, O_COMM, O_FROM, O_HELP };
  static const struct option longopts[] = {
      {"workload", required_argument, NULL, O_WORKLOAD}, {"plans", required_argument, NULL, O_PLANS},
      {"profile", required_argument, NULL, O_PROFILE},   {"iters", required_argument, NULL, O_ITERS},
      {"warmup", required_argument, NULL, O_WARMUP},     {"format", required_argument, NULL, O_FORMAT},
      {"db", required_argument, NULL, O_DB},             {"no-db", no_argument, NULL, O_NODB},
      {"plot", required_argument, NULL, O_PLOT},         {"fusion-table", no_argument, NULL, O_TABLE},
      {"reps", required_argument, NULL, O_REPS},         {"gpus", required_argument, NULL, O_GPUS},
      {"no-host", no_argument, NULL, O_NOHOST},          {"comm", required_argument, NULL, O_COMM},
      {"from-csv", required_argument, NULL, O_FROM},     {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0}};
  fu_validate_opts o;
  fu_validate_opts_init(&o);
  const char *db_opt = NULL, *from = NULL;
  int no_db = 0, table = 0;
  long reps = 20, v;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
    case O_WORKLOAD: o.workloads = optarg; break;
    case O_PLANS: o.plans = optarg; break;
    case O_PROFILE: o.profile = optarg; break;
    case O_ITERS:
      if (fu__whole("--iters", optarg, 1, 100000, &v) != FU_OK) return fu_exit_code(FU_EUSAGE);
      o.iters = (int)v;
      break;
    case O_WARMUP:
      if (fu__whole("--warmup", optarg, 0, 100000, &v) != FU_OK) return fu_exit_code(FU_EUSAGE);
      o.warmup = (int)v;
      break;
    case O_REPS:
      if (fu__whole("--reps", optarg, 1, 100000, &reps) != FU_OK) return fu_exit_code(FU_EUSAGE);
      break;
    case O_GPUS:
      if (fu__whole("--gpus", optarg, 1, 1024, &v) != FU_OK) return fu_exit_code(FU_EUSAGE);
      o.ndev = (int)v;
      break;
    case O_FORMAT:
      if (fu_parse_format(optarg, &o.format) != FU_OK) {
        fu_error("validate: --format: '%s' is not table, csv or json", optarg);
        return fu_exit_code(FU_EUSAGE);
      }
      break;
    case O_DB: db_opt = optarg; break;
    case O_NODB: no_db = 1; break;
    case O_PLOT: o.plot = optarg; break;
    case O_TABLE: table = 1; break;
    case O_NOHOST: o.emulate_host = 0; break;
    case O_FROM: from = optarg; break;
    case O_COMM:
      if (strcmp(optarg, "allreduce") == 0) o.allreduce = 1;
      else if (strcmp(optarg, "auto") == 0) o.allreduce = 0;
      else {
        fu_error("validate: --comm: '%s' is not auto or allreduce", optarg);
        return fu_exit_code(FU_EUSAGE);
      }
      break;
    case 'h':
    case O_HELP: usage(stdout); return 0;
    default:
      fu_error("validate: unknown or incomplete option '%s' (see fusim validate --help)",
               argv[optind - 1]);
      return fu_exit_code(FU_EUSAGE);
    }
  }
  if (optind < argc) {
    fu_error("validate: unexpected argument '%s' (see fusim validate --help)", argv[optind]);
    return fu_exit_code(FU_EUSAGE);
  }
  if ((from != NULL) + table + (o.workloads != NULL) > 1) {
    fu_error("validate: --workload, --fusion-table and --from-csv are separate runs; give one");
    return fu_exit_code(FU_EUSAGE);
  }
  if (table && o.plot) {
    fu_error("validate: --plot draws the matrix (--workload or --from-csv), not --fusion-table");
    return fu_exit_code(FU_EUSAGE);
  }
  if (o.plot) {
    int pst = fu_validate_plot_check(o.plot);
    if (pst != FU_OK) return fu_exit_code(pst);
  }
  char *cmdline = fu_join_argv(argc, argv);
  o.cmdline = cmdline;
  int st;
  if (from) {
    st = fu_validate_from_csv(&o, from);
  } else if (table) {
    st = fu_validate_fusion_table(&o, (int)reps);
  } else {
    if (!no_db) o.db_path = fu_db_path_default(db_opt);
    st = fu_validate_run(&o);
  }
  free(cmdline);
  return fu_exit_code(st);
}
