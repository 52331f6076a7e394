/* fu_output.c: whole-or-nothing output files and gnuplot runs (fu_output.h). */
#include "fu_output.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fu_common.h"

extern char **environ;

/* The status for a file that cannot be created: a path the user can fix (missing folder, no
 * permission, a read-only file system) is a usage error; anything else is an i/o error. */
static int fu__create_status(int err) {
  return err == ENOENT || err == ENOTDIR || err == EACCES || err == EPERM || err == EROFS ||
                 err == EISDIR || err == ENAMETOOLONG || err == ELOOP
             ? FU_EUSAGE
             : FU_EIO;
}

int fu_outfile_open(fu_outfile *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->path = path;
  int ofd = fu_out_fd(path);
  if (ofd >= 0) { /* "-", /dev/stdout, /dev/fd/N: through the descriptor, sharing its offset */
    if (ofd == STDOUT_FILENO) fflush(stdout); /* what the command printed so far comes first */
    int fd = dup(ofd);
    if (fd < 0 || (o->f = fdopen(fd, "w")) == NULL) {
      int err = errno;
      if (fd >= 0) close(fd);
      fu_error("%s: cannot write: %s", path, strerror(err));
      return err == EBADF ? FU_EUSAGE : FU_EIO;
    }
    return FU_OK;
  }
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    if (S_ISDIR(sb.st_mode)) {
      fu_error("%s: cannot write: is a directory", path);
      return FU_EUSAGE;
    }
    /* a device, FIFO or socket: nothing to rename over, write it in place */
    o->f = fopen(path, "w");
    if (!o->f) {
      int err = errno;
      fu_error("%s: cannot write: %s", path, strerror(err));
      return fu__create_status(err);
    }
    return FU_OK;
  }
  /* DIR/.BASE.XXXXXX: in the target's folder, so that rename never crosses file systems */
  const char *slash = strrchr(path, '/');
  size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
  o->tmp = malloc(strlen(path) + 9);
  if (!o->tmp) {
    fu_error("%s: out of memory", path);
    return FU_ENOMEM;
  }
  memcpy(o->tmp, path, dl);
  sprintf(o->tmp + dl, ".%s.XXXXXX", path + dl);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int err = errno;
    fu_error("%s: cannot write: %s", path, strerror(err));
    free(o->tmp);
    o->tmp = NULL;
    return fu__create_status(err);
  }
  /* mkstemp makes the file 0600; give it the mode fopen would */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
    fu_error("%s: cannot write: %s", path, strerror(errno));
    close(fd);
    unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return FU_EIO;
  }
  return FU_OK;
}

void fu_outfile_abort(fu_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp) {
    unlink(o->tmp);
    free(o->tmp);
  }
  o->tmp = NULL;
}

int fu_outfile_commit(fu_outfile *o) {
  int err = 0;
  if (!o->f) err = EBADF;
  else {
    if (ferror(o->f)) err = errno ? errno : EIO;
    if (fflush(o->f) != 0 && !err) err = errno;
    if (o->tmp && fsync(fileno(o->f)) != 0 && !err) err = errno;
    if (fclose(o->f) != 0 && !err) err = errno;
    o->f = NULL;
  }
  if (!err && o->tmp && rename(o->tmp, o->path) != 0) err = errno;
  if (err) {
    fu_error("%s: cannot write: %s", o->path, strerror(err));
    fu_outfile_abort(o);
    return FU_EIO;
  }
  free(o->tmp);
  o->tmp = NULL;
  return FU_OK;
}

int fu_json_save(const char *path, const json_t *j, size_t flags, const char *what) {
  fu_outfile o;
  FU_CHECK(fu_outfile_open(&o, path));
  if (json_dumpf(j, o.f, flags) != 0 && !ferror(o.f)) { /* no write failed: memory did */
    fu_error("%s: out of memory writing %s", path, what);
    fu_outfile_abort(&o);
    return FU_ENOMEM;
  }
  fputc('\n', o.f); /* a failure sets the error flag, which the commit checks */
  return fu_outfile_commit(&o);
}

int fu_text_save(const char *path, const char *text) {
  fu_outfile o;
  FU_CHECK(fu_outfile_open(&o, path));
  fputs(text, o.f);
  fputc('\n', o.f); /* a failure sets the error flag, which the commit checks */
  return fu_outfile_commit(&o);
}

/* 1 when the plot file at path is complete: a PNG ends in its IEND chunk, an SVG in </svg>. */
static int fu__plot_complete(const char *path, int svg) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char tail[64];
  size_t n = 0;
  if (fseek(f, -(long)sizeof tail, SEEK_END) != 0) rewind(f);
  n = fread(tail, 1, sizeof tail, f);
  fclose(f);
  if (svg) {
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' ' || tail[n - 1] == '\r')) n--;
    return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
  }
  static const char iend[8] = {'I', 'E', 'N', 'D', (char)0xae, 'B', '`', (char)0x82};
  return n >= 8 && memcmp(tail + n - 8, iend, 8) == 0;
}

/* A temporary file in $TMPDIR (else /tmp) named fusim-gnuplot-XXXXXX plus suffix; its fd. */
static int fu__tmpfile(char *name, size_t len, const char *suffix) {
  const char *dir = getenv("TMPDIR");
  snprintf(name, len, "%s/fusim-gnuplot-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
  return mkstemps(name, (int)strlen(suffix));
}

int fu_gnuplot_run(const char *what, const char *out, const char *script, const char *const *args,
                   size_t nargs) {
  const char *ext = strrchr(out, '.');
  int svg = ext && strcasecmp(ext, ".svg") == 0;
  char gp[1024], log[1024];
  int fd = fu__tmpfile(gp, sizeof gp, ".gp");
  if (fd < 0) {
    fu_error("%s %s: cannot write gnuplot's script: %s", what, out, strerror(errno));
    return FU_EIO;
  }
  size_t len = strlen(script);
  ssize_t wr = write(fd, script, len);
  int werr = wr < 0 ? errno : ENOSPC; /* a short write: the file system is full */
  if (close(fd) != 0 && wr == (ssize_t)len) wr = -1, werr = errno;
  if (wr != (ssize_t)len) {
    fu_error("%s %s: cannot write gnuplot's script %s: %s", what, out, gp, strerror(werr));
    unlink(gp);
    return FU_EIO;
  }
  int lfd = fu__tmpfile(log, sizeof log, ".log");
  if (lfd < 0) {
    fu_error("%s %s: cannot write gnuplot's log: %s", what, out, strerror(errno));
    unlink(gp);
    return FU_EIO;
  }
  fu_outfile o;
  int st = fu_outfile_open(&o, out);
  if (st != FU_OK) {
    close(lfd);
    unlink(gp);
    unlink(log);
    return st;
  }
  fclose(o.f); /* gnuplot writes the file itself */
  o.f = NULL;
  const char *target = o.tmp ? o.tmp : out;
  char **argv = calloc(nargs + 5, sizeof *argv);
  if (!argv) {
    fu_error("%s %s: out of memory", what, out);
    close(lfd);
    fu_outfile_abort(&o);
    unlink(gp);
    unlink(log);
    return FU_ENOMEM;
  }
  argv[0] = "gnuplot";
  argv[1] = "-c";
  argv[2] = gp;
  argv[3] = (char *)target;
  for (size_t i = 0; i < nargs; i++) argv[4 + i] = (char *)args[i];
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, lfd, 1);
  posix_spawn_file_actions_adddup2(&fa, lfd, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  free(argv);
  close(lfd);
  int ws = 0;
  if (rc != 0) {
    fu_error("%s %s: cannot run gnuplot: %s", what, out, strerror(rc));
    st = FU_EIO;
  } else if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    fu_error("%s %s: gnuplot failed (%s %d; its messages are in %s, the script in %s)", what, out,
             WIFSIGNALED(ws) ? "signal" : "exit", WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws),
             log, gp);
    st = FU_EIO;
  } else if (o.tmp && !fu__plot_complete(o.tmp, svg)) {
    struct stat lb; /* gnuplot says nothing of a failed write, as a rule: then drop its log */
    if (stat(log, &lb) == 0 && lb.st_size == 0) {
      fu_error("%s %s: gnuplot wrote an incomplete %s (disk full?)", what, out, svg ? "SVG" : "PNG");
      unlink(log);
    } else {
      fu_error("%s %s: gnuplot wrote an incomplete %s (disk full? its messages are in %s)", what,
               out, svg ? "SVG" : "PNG", log);
    }
    unlink(gp);
    st = FU_EIO;
  }
  if (st != FU_OK) {
    fu_outfile_abort(&o);
    if (rc != 0) unlink(log), unlink(gp);
    return st;
  }
  if (o.tmp && rename(o.tmp, out) != 0) {
    fu_error("%s %s: cannot write: %s", what, out, strerror(errno));
    fu_outfile_abort(&o);
    unlink(log);
    unlink(gp);
    return FU_EIO;
  }
  free(o.tmp);
  unlink(log);
  unlink(gp);
  return FU_OK;
}

int fu_have_program(const char *name) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  char buf[4096];
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && n + strlen(name) + 2 < sizeof buf) {
      snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
      if (access(buf, X_OK) == 0) return 1;
    }
    p += n;
    if (*p == ':') p++;
  }
  return 0;
}
