/* fusim.c: the table of subcommands. Each subcommand lives in the module it belongs to.
 *
 * Compiled twice (top-level meson.build): as the light `fusim`, linked without CUDA, NCCL, cuBLAS
 * or MPI, which hands calib and validate to the GPU half when it is installed; and as `fusim-gpu`
 * (FU_GPU_HALF), the GPU half itself, which runs every command in-process. */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <signal.h>
#endif
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_paths.h"

int fu_cmd_calib(int argc, char **argv);     /* calib/cmd_calib.c */
int fu_cmd_import(int argc, char **argv);    /* data/cmd_import.c */
int fu_cmd_fit(int argc, char **argv);       /* model/cmd_fit.c */
int fu_cmd_workload(int argc, char **argv);  /* sim/cmd_workload.c */
int fu_cmd_predict(int argc, char **argv);   /* sim/cmd_predict.c */
int fu_cmd_plan(int argc, char **argv);      /* sim/cmd_plan.c */
int fu_cmd_validate(int argc, char **argv);  /* validate/cmd_validate.c */
int fu_cmd_report(int argc, char **argv);    /* data/cmd_report.c */
int fu_cmd_cost(int argc, char **argv);      /* sim/cmd_cost.c */

/* The GPU half answers this argument by exiting 0 at once: the light fusim's check that the
 * dynamic loader found every library it needs. */
#define FU__CAN_START "--can-start"

static const struct {
  const char *name;                  /* subcommand */
  int (*run)(int argc, char **argv); /* returns the process exit status */
  int gpu;                           /* 1: handed to the GPU half (fusim-gpu) when installed */
  const char *summary;               /* one line for --help */
} commands[] = {
    {"calib", fu_cmd_calib, 1, "measure this machine's GPUs, links and launch costs (CUDA, NCCL)"},
    {"import", fu_cmd_import, 0, "read nccl-tests output (text or -J JSON) or CSV samples"},
    {"fit", fu_cmd_fit, 0, "fit piecewise alpha-beta curves with 95% CIs; write a profile"},
    {"workload", fu_cmd_workload, 0, "make a workload (e.g. from transformer hyper-parameters)"},
    {"predict", fu_cmd_predict, 0, "simulate one iteration of a workload under a fusion plan"},
    {"plan", fu_cmd_plan, 0, "compare fusion plans and find the best one"},
    {"cost", fu_cmd_cost, 0, "price one collective at given sizes, measured or predicted"},
    {"validate", fu_cmd_validate, 1, "run plans on the GPU and compare with predictions"},
    {"report", fu_cmd_report, 0, "query stored samples, fits, predictions and measurements"},
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

#ifndef FU_GPU_HALF
/* Runs `gpu --can-start` and waits: FU_OK if it exits 0, else FU_ENODEV with the first line it
 * wrote on stderr (the dynamic loader's "error while loading shared libraries: ...") in msg.
 * Costs one start of the GPU half (its libraries' loading, about 0.1 s). */
static int fu__can_start(const char *gpu, char *msg, size_t len) {
  int fd[2];
  msg[0] = 0;
  if (pipe2(fd, O_CLOEXEC) != 0) return snprintf(msg, len, "pipe: %s", strerror(errno)), FU_ENODEV;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
  char *args[] = {(char *)gpu, FU__CAN_START, NULL};
  pid_t pid;
  extern char **environ;
  int err = posix_spawn(&pid, gpu, &fa, NULL, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  size_t n = 0;
  ssize_t got;
  while (!err && n + 1 < len && (got = read(fd[0], msg + n, len - 1 - n)) > 0) n += (size_t)got;
  close(fd[0]);
  msg[n] = 0;
  msg[strcspn(msg, "\n")] = 0;
  if (err) return snprintf(msg, len, "%s", strerror(err)), FU_ENODEV;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return snprintf(msg, len, "waitpid: %s", strerror(errno)), FU_ENODEV;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return FU_OK;
  if (!msg[0]) snprintf(msg, len, "it exits with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return FU_ENODEV;
}

/* Hands a GPU command to fusim-gpu with the same argv (execv: same process, so mpirun, srun and
 * signals see one program). Returns FU_OK without doing anything when the GPU half is not
 * installed: the light command then checks its options and says in one line that it is missing.
 * Returns FU_ENODEV, having said why in one line, when it is installed but cannot start here
 * (a CUDA, NCCL, cuBLAS or MPI library the dynamic loader cannot find). */
static int fu__to_gpu_half(const char *cmd, char **argv) {
  char gpu[FU_PATH_MAX], why[512];
  if (fu_paths_gpu_half(gpu, sizeof gpu) != FU_OK) return FU_OK;
  if (fu__can_start(gpu, why, sizeof why) != FU_OK) {
    /* what needs no GPU the light command does: a GPU half that cannot start here does not
       take --help or validate --from-csv with it (they exited 69) */
    for (char **a = argv + 2; *a; a++)
      if (!strcmp(*a, "--help") || !strcmp(*a, "-h") || !strncmp(*a, "--from-csv", 10)) return FU_OK;
    fu_error("%s: fusim's GPU half cannot start here: %s", cmd, why);
    return FU_ENODEV;
  }
  fflush(NULL);
  execv(gpu, argv);
  fu_error("%s: cannot run fusim's GPU half %s: %s", cmd, gpu, strerror(errno));
  return FU_ENODEV;
}
#endif

/* A full disk while a command wrote stdout: the buffered rest is flushed here, and a failure
 * the command did not notice (it returned 0) is said in one line, exit 74, so that a script
 * does not take a truncated JSON file for a result. A command that failed keeps its status and
 * its own message. */
static int fu__output_status(const char *cmd, int rc) {
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  if (!bad || rc != 0) return rc;
  fu_error("%s: cannot write the output: %s", cmd, strerror(errno ? errno : EIO));
  return fu_exit_code(FU_EIO);
}

int main(int argc, char **argv) {
#if defined(__GLIBC__) && defined(M_MXFAST)
  /* No fastbins: a JSON tree (Jansson) of a large workload is millions of small blocks; freed
   * into fastbins, glibc merges them all again at the next large allocation. Freed straight away
   * they cost less in all (200,000-gradient predict: 0.07-0.1 s of CPU less). */
  mallopt(M_MXFAST, 0);
#endif
  /* a write past `ulimit -f` then fails (EFBIG) and is reported as any failed write: one line,
     exit 74, the partial file removed; the signal's default killed fusim mid-write instead */
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    usage(stderr);
    return fu_exit_code(FU_EUSAGE);
  }
#ifdef FU_GPU_HALF
  if (argc == 2 && strcmp(argv[1], FU__CAN_START) == 0) return 0;
#endif
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("fusim %s (commit %s)\n", fu_version(), fu_db_build_commit());
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(argv[1], commands[i].name) != 0) continue;
#ifndef FU_GPU_HALF
    if (commands[i].gpu) {
      int st = fu__to_gpu_half(commands[i].name, argv);
      if (st != FU_OK) return fu_exit_code(st);
    }
#endif
    return fu__output_status(commands[i].name, commands[i].run(argc - 1, argv + 1));
  }
  fu_error("'%s' is not a fusim command; see 'fusim --help'", argv[1]);
  return fu_exit_code(FU_EUSAGE);
}
