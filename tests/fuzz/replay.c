/* replay.c: run a fuzz harness (fuzz_import.c, fuzz_sim.c) without libFuzzer on files: the
 * regression inputs the fuzzer found (for fuzz_import, first byte = mode, as the fuzzer wrote
 * them) and, with --all-modes (fuzz_import only), plain files (seeds, the public logs) under each
 * of the 128 modes. Each run of the harness has FUZZ_REPLAY_TIMEOUT seconds (default 10, as
 * run.sh's -timeout): a hang is killed by SIGALRM, which fails the test.
 * Usage: fuzz_replay [--all-modes] FILE|DIR ... ; exits non-zero if the harness aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seconds one run of the harness may take (FUZZ_REPLAY_TIMEOUT, default 10). */
static unsigned fu__limit(void) {
  const char *e = getenv("FUZZ_REPLAY_TIMEOUT");
  long v = e ? strtol(e, NULL, 10) : 0;
  return v > 0 && v < 3600 ? (unsigned)v : 10;
}

static int run_file(const char *path, int all_modes) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
    return 1;
  }
  uint8_t *buf = malloc(1 << 20);
  if (!buf) {
    fclose(f);
    return 1;
  }
  size_t n = fread(buf + 1, 1, (1 << 20) - 1, f);
  fclose(f);
  if (all_modes) {
    for (int m = 0; m < 128; m++) {
      buf[0] = (uint8_t)m;
      alarm(fu__limit());
      LLVMFuzzerTestOneInput(buf, n + 1);
    }
  } else {
    alarm(fu__limit());
    LLVMFuzzerTestOneInput(buf + 1, n);
  }
  alarm(0);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int all_modes = 0, bad = 0, files = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--all-modes")) {
      all_modes = 1;
      continue;
    }
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "fuzz_replay: %s: missing\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad |= run_file(argv[i], all_modes);
      files++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
      if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
        bad |= run_file(p, all_modes);
        files++;
      }
    }
    if (d) closedir(d);
  }
  fprintf(stderr, "fuzz_replay: %d files replayed%s\n", files, all_modes ? " under 128 modes each" : "");
  return bad;
}
