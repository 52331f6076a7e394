/* fu_paths.c: where fusim's own files are at run time (fu_paths.h). */
#include "fu_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"

#ifndef FU_DATA_FROM_BIN
#define FU_DATA_FROM_BIN "../share/fusim"
#endif
#ifndef FU_DATA_FROM_LIBEXEC
#define FU_DATA_FROM_LIBEXEC "../../share/fusim"
#endif
#ifndef FU_LIBEXEC_FROM_BIN
#define FU_LIBEXEC_FROM_BIN "../libexec/fusim"
#endif

static int fu__is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Copies s into buf (len bytes) unless it does not fit. */
static int fu__copy(char *buf, size_t len, const char *s) {
  int n = snprintf(buf, len, "%s", s);
  if (n < 0 || (size_t)n >= len) {
    if (len) buf[0] = 0;
    return FU_ENOINPUT;
  }
  return FU_OK;
}

int fu_paths_exe_dir(char *buf, size_t len) {
  char exe[FU_PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
  } else {
    /* no /proc (a bare chroot): the file name execve was given, made absolute */
    const char *fn = (const char *)getauxval(AT_EXECFN);
    if (!fn || !realpath(fn, exe)) {
      if (len) buf[0] = 0;
      return FU_ENOINPUT;
    }
  }
  char *slash = strrchr(exe, '/');
  if (!slash) {
    if (len) buf[0] = 0;
    return FU_ENOINPUT;
  }
  *slash = 0;
  return fu__copy(buf, len, exe[0] ? exe : "/");
}

/* A build folder's data: the first line of <exe dir>/fusim-data-dir (the source tree's data/,
 * written by meson at configure time, not installed) into buf. FU_ENOINPUT without it. */
static int fu__build_data(const char *exe, char *buf, size_t len) {
  char p[FU_PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/fusim-data-dir", exe);
  FILE *f = fopen(p, "r");
  if (!f) return FU_ENOINPUT;
  int ok = fgets(buf, (int)len, f) != NULL;
  fclose(f);
  if (!ok) return FU_ENOINPUT;
  buf[strcspn(buf, "\n")] = 0;
  return buf[0] ? FU_OK : FU_ENOINPUT;
}

void fu_paths_data_dirs(char dirs[FU_DATA_NDIRS][FU_PATH_MAX]) {
  for (int i = 0; i < FU_DATA_NDIRS; i++) dirs[i][0] = 0;
  const char *env = getenv("FUSIM_DATA");
  if (env && *env) fu__copy(dirs[FU_DATA_ENV], FU_PATH_MAX, env);
  const char *old = getenv("FUSIM_DATADIR");
  if (old && *old) {
    fu_warn("FUSIM_DATADIR is the older name of FUSIM_DATA; it is still read in this release");
    fu__copy(dirs[FU_DATA_OLD_ENV], FU_PATH_MAX, old);
  }
  char exe[FU_PATH_MAX];
  if (fu_paths_exe_dir(exe, sizeof exe) != FU_OK) return;
  char cand[FU_PATH_MAX + 64], wl[FU_PATH_MAX + 80];
  if (fu__build_data(exe, cand, sizeof cand) == FU_OK) {
    snprintf(wl, sizeof wl, "%s/workloads", cand);
    if (fu__is_dir(wl) && fu__copy(dirs[FU_DATA_OWN], FU_PATH_MAX, cand) == FU_OK) return;
  }
  static const char *const rel[] = {FU_DATA_FROM_BIN, FU_DATA_FROM_LIBEXEC, "../data"};
  for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
    snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
    snprintf(wl, sizeof wl, "%s/workloads", cand);
    if (fu__is_dir(wl) && fu__copy(dirs[FU_DATA_OWN], FU_PATH_MAX, cand) == FU_OK) return;
  }
}

static int fu__is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *fu_paths_resolve(const char *arg, const char *sub) {
  if (!arg || !*arg) return NULL;
  if (fu__is_file(arg)) return strdup(arg);
  struct stat sb; /* there but not a file (a folder): loading it says so, after the bundled names */
  int there = stat(arg, &sb) == 0;
  if (strchr(arg, '/')) return there ? strdup(arg) : NULL; /* a path: no bundled lookup */
  char dirs[FU_DATA_NDIRS][FU_PATH_MAX];
  fu_paths_data_dirs(dirs);
  size_t al = strlen(arg);
  int has_ext = al > 5 && strcmp(arg + al - 5, ".json") == 0;
  for (int d = 0; d < FU_DATA_NDIRS; d++) {
    if (!*dirs[d]) continue;
    size_t len = strlen(dirs[d]) + strlen(sub) + al + 16;
    char *p = malloc(len);
    if (!p) return NULL;
    snprintf(p, len, "%s/%s/%s%s", dirs[d], sub, arg, has_ext ? "" : ".json");
    if (fu__is_file(p)) return p;
    free(p);
  }
  return there ? strdup(arg) : NULL;
}

char *fu_paths_beside(const char *file, const char *rel) {
  const char *slash = strrchr(file, '/');
  if (!slash || !*rel || rel[0] == '/') return NULL; /* FILE in the current folder: as given */
  int dlen = (int)(slash - file);
  size_t len = (size_t)dlen + strlen(rel) + 2;
  char *p = malloc(len);
  if (!p) return NULL;
  snprintf(p, len, "%.*s/%s", dlen, file, rel);
  if (access(p, F_OK) == 0) return p;
  free(p);
  return NULL;
}

int fu_paths_gpu_half(char *buf, size_t len) {
  char exe[FU_PATH_MAX];
  if (fu_paths_exe_dir(exe, sizeof exe) != FU_OK) {
    fu__copy(buf, len, "fusim-gpu");
    return FU_ENOINPUT;
  }
  char p[FU_PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/fusim-gpu", exe); /* a build folder */
  if (access(p, X_OK) == 0) return fu__copy(buf, len, p);
  snprintf(p, sizeof p, "%s/%s/fusim-gpu", exe, FU_LIBEXEC_FROM_BIN); /* an install */
  int st = fu__copy(buf, len, p);
  return st == FU_OK && access(p, X_OK) == 0 ? FU_OK : FU_ENOINPUT;
}

int fu_paths_no_gpu_half(const char *cmd) {
  char p[FU_PATH_MAX];
  fu_paths_gpu_half(p, sizeof p);
  fu_error("%s: needs fusim's GPU half, which is not installed (no %s); it is built where the CUDA "
           "toolkit is found (meson setup -Dcuda=enabled)", cmd, p);
  return FU_ENODEV;
}
