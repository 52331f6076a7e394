/* fusim.c: the table of subcommands. Each subcommand lives in the module it belongs to. */
#include <stdio.h>
#include <string.h>

#include "fu_common.h"

int fu_cmd_calib(int argc, char **argv);     /* calib/cmd_calib.c */
int fu_cmd_import(int argc, char **argv);    /* data/cmd_import.c */
int fu_cmd_fit(int argc, char **argv);       /* model/cmd_fit.c */
int fu_cmd_workload(int argc, char **argv);  /* sim/cmd_workload.c */
int fu_cmd_predict(int argc, char **argv);   /* sim/cmd_predict.c */
int fu_cmd_plan(int argc, char **argv);      /* sim/cmd_plan.c */
int fu_cmd_validate(int argc, char **argv);  /* validate/cmd_validate.c */
int fu_cmd_report(int argc, char **argv);    /* data/cmd_report.c */

static const struct {
  const char *name;                  /* subcommand */
  int (*run)(int argc, char **argv); /* returns the process exit status */
  const char *summary;               /* one line for --help */
} commands[] = {
    {"calib", fu_cmd_calib, "measure this machine's GPUs, links and launch costs (CUDA, NCCL)"},
    {"import", fu_cmd_import, "read nccl-tests output (text or -J JSON) or CSV samples"},
    {"fit", fu_cmd_fit, "fit piecewise alpha-beta curves with 95% CIs; write a profile"},
    {"workload", fu_cmd_workload, "make a workload (e.g. from transformer hyper-parameters)"},
    {"predict", fu_cmd_predict, "simulate one iteration of a workload under a fusion plan"},
    {"plan", fu_cmd_plan, "compare fusion plans and find the best one"},
    {"validate", fu_cmd_validate, "run plans on the GPU and compare with predictions"},
    {"report", fu_cmd_report, "query stored samples, fits, predictions and measurements"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: fusim <command> [options]   (fusim <command> --help for its options)\n"
          "       fusim --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(out,
          "\nResults go to the SQLite database named by --db, else $FUSIM_DB, else ./fusim.db.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return fu_exit_code(FU_EUSAGE);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("fusim %s\n", fu_version());
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fu_error("'%s' is not a fusim command; see 'fusim --help'", argv[1]);
  return fu_exit_code(FU_EUSAGE);
}
