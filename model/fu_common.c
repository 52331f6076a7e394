/* fu_common.c: status table, diagnostics and checked parsing. */
#include "fu_common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUSIM_VERSION
#define FUSIM_VERSION "0.0.0-dev"
#endif

static const struct {
  int code;
  const char *msg;
} fu__status_table[] = {
#define FU__ROW(name, code, msg) {code, msg},
    FU_STATUS_MAP(FU__ROW)
#undef FU__ROW
};

const char *fu_strerror(int status) {
  if (status < 0 || status >= FU_STATUS_COUNT) return "unknown status";
  return fu__status_table[status].msg;
}

int fu_exit_code(int status) {
  if (status < 0 || status >= FU_STATUS_COUNT) return 70;
  return fu__status_table[status].code;
}

const char *fu_version(void) { return FUSIM_VERSION; }

void fu_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fusim: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int fu__warnings_muted;

int fu_warn_mute(int muted) {
  int was = fu__warnings_muted;
  fu__warnings_muted = muted;
  return was;
}

void fu_warn(const char *fmt, ...) {
  if (fu__warnings_muted) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("fusim: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void fu__debug(const char *file, int line, const char *fmt, ...) {
  if (!getenv("FUSIM_DEBUG")) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fusim: debug %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* Skip trailing blanks; true when nothing else is left. */
static int fu__only_blanks(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return *p == '\0';
}

/* True when s, after blanks and a sign, is a hexadecimal number ("0x10"): strtod reads those
 * (and "0x1p4"), but no number fusim reads is written in hex, so "0x10" us is a typo. */
static int fu__is_hex(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  if (*s == '-' || *s == '+') s++;
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int fu_parse_double(const char *s, double *out) {
  if (!s || fu__is_hex(s)) return FU_EDATA;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v) || !fu__only_blanks(end)) return FU_EDATA;
  *out = v;
  return FU_OK;
}

int fu_parse_u64(const char *s, uint64_t *out) {
  if (!s) return FU_EDATA;
  while (isspace((unsigned char)*s)) s++;
  if (*s == '-' || *s == '+') return FU_EDATA;
  if (!isdigit((unsigned char)*s)) return FU_EDATA;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno == ERANGE || !fu__only_blanks(end)) return FU_EDATA;
  *out = (uint64_t)v;
  return FU_OK;
}

int fu_parse_long(const char *s, long lo, long hi, long *out) {
  if (!s) return FU_EDATA;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || errno == ERANGE || !fu__only_blanks(end) || v < lo || v > hi) return FU_EDATA;
  *out = v;
  return FU_OK;
}

int fu_parse_size(const char *s, uint64_t *out) {
  if (!s || fu__is_hex(s)) return FU_EDATA;
  while (isspace((unsigned char)*s)) s++;
  if (!isdigit((unsigned char)*s) && *s != '.') return FU_EDATA;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v) || v < 0) return FU_EDATA;
  while (isspace((unsigned char)*end)) end++;
  static const struct {
    const char *suffix;
    double mult;
  } units[] = {{"", 1},          {"B", 1},          {"K", 1024.0},      {"KB", 1024.0},
               {"KiB", 1024.0},  {"M", 1048576.0},  {"MB", 1048576.0},  {"MiB", 1048576.0},
               {"G", 1073741824.0}, {"GB", 1073741824.0}, {"GiB", 1073741824.0},
               {"TiB", 1099511627776.0}};
  size_t n = strcspn(end, " \t\r\n");
  if (!fu__only_blanks(end + n)) return FU_EDATA;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strlen(units[i].suffix) == n && strncasecmp(end, units[i].suffix, n) == 0) {
      double bytes = v * units[i].mult;
      if (bytes > 1.8e19 || bytes != floor(bytes)) return FU_EDATA;
      *out = (uint64_t)bytes;
      /* a whole number of units is read again as an integer: strtod rounds past 2^53 (2^53 + 1
         bytes read as 2^53) */
      size_t d = strspn(s, "0123456789"), k = d;
      while (s + k < end && isspace((unsigned char)s[k])) k++;
      unsigned long long whole, exact;
      errno = 0;
      if (d > 0 && s + k == end && (whole = strtoull(s, NULL, 10), errno == 0) &&
          !__builtin_mul_overflow(whole, (unsigned long long)units[i].mult, &exact))
        *out = exact;
      return FU_OK;
    }
  }
  return FU_EDATA;
}

const char *fu_format_size(uint64_t bytes, char *buf, size_t len) {
  static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    u++;
  }
  /* three significant digits, but never an exponent: 1000.03 MiB is "1000 MiB", not "1e+03" */
  if (v == floor(v) || v >= 100)
    snprintf(buf, len, "%.0f %s", v, names[u]);
  else
    snprintf(buf, len, "%.3g %s", v, names[u]);
  return buf;
}

int fu_parse_format(const char *s, fu_format *out) {
  if (!s) return FU_EUSAGE;
  if (strcmp(s, "table") == 0) *out = FU_FORMAT_TABLE;
  else if (strcmp(s, "csv") == 0) *out = FU_FORMAT_CSV;
  else if (strcmp(s, "json") == 0) *out = FU_FORMAT_JSON;
  else return FU_EUSAGE;
  return FU_OK;
}

void fu_csv_field(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

void fu_gnuplot_quote(FILE *out, const char *s) {
  fputc('\'', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\'') fputc('\'', out);
    fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
  }
  fputc('\'', out);
}

int fu_out_fd(const char *path) {
  if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) return STDOUT_FILENO;
  if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
  const char *n = strncmp(path, "/dev/fd/", 8) == 0         ? path + 8
                  : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                             : NULL;
  if (!n || !isdigit((unsigned char)*n)) return -1;
  char *end;
  errno = 0;
  long fd = strtol(n, &end, 10);
  return *end || errno || fd > 1 << 20 ? -1 : (int)fd;
}

int fu_out_path_why(const char *path, int writable, char *why, size_t why_len) {
  struct stat st;
  int fd = fu_out_fd(path);
  if (fd >= 0) { /* written through the descriptor: it must be open for writing */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
      snprintf(why, why_len, "descriptor %d is not open for writing", fd);
      return FU_EUSAGE;
    }
    return FU_OK;
  }
  int exists = stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    snprintf(why, why_len, "a folder, not a file");
    return FU_EUSAGE;
  }
  if (exists && !S_ISREG(st.st_mode)) return FU_OK;
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  if (n >= sizeof dir) {
    snprintf(why, why_len, "a path longer than %zu characters", sizeof dir - 1);
    return FU_EUSAGE;
  }
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (n == 0) snprintf(dir, sizeof dir, "/");
  else memcpy(dir, path, n), dir[n] = '\0';
  if (stat(dir, &st) != 0) {
    snprintf(why, why_len, "folder %s: %s", dir, strerror(errno));
    return FU_EUSAGE;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(why, why_len, "%s is not a folder", dir);
    return FU_EUSAGE;
  }
  if (writable && access(dir, W_OK | X_OK) != 0) {
    snprintf(why, why_len, "folder %s: %s", dir, strerror(errno));
    return FU_EUSAGE;
  }
  return FU_OK;
}

int fu_plot_path_why(const char *path, int *svg, char *why, size_t why_len) {
  const char *ext = strrchr(path, '.');
  int is_svg = ext && strcasecmp(ext, ".svg") == 0;
  if (!ext || (!is_svg && strcasecmp(ext, ".png") != 0)) {
    snprintf(why, why_len, "the file name must end in .png or .svg");
    return FU_EUSAGE;
  }
  for (const char *c = path; *c; c++) {
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      snprintf(why, why_len, "the file name holds a control character");
      return FU_EUSAGE;
    }
  }
  /* gnuplot's own complaint about an output it cannot open runs to several lines: say it first */
  FU_CHECK(fu_out_path_why(path, 1, why, why_len));
  if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
    snprintf(why, why_len, "the file is not writable");
    return FU_EUSAGE;
  }
  if (svg) *svg = is_svg;
  return FU_OK;
}

int fu_plot_path_check(const char *what, const char *path, int *svg) {
  char why[4200];
  int st = fu_plot_path_why(path, svg, why, sizeof why);
  int ctrl = 0; /* a name with a line break is not printed: one line always */
  for (const char *c = path; *c; c++) ctrl |= (unsigned char)*c < 0x20 || *c == 0x7f;
  if (st != FU_OK && ctrl) fu_error("%s: %s", what, why);
  else if (st != FU_OK) fu_error("%s '%s': %s", what, path, why);
  return st;
}

const char *fu_db_path_default(const char *from_option) {
  if (from_option && *from_option) return from_option;
  const char *env = getenv("FUSIM_DB");
  if (env && *env) return env;
  return "fusim.db";
}

int fu_read_file(const char *path, char **out, size_t *len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fu_error("%s: cannot open: %s", path, strerror(errno));
    return FU_ENOINPUT;
  }
  if (S_ISDIR(st.st_mode)) {
    fu_error("%s: is a directory, not a file", path);
    return FU_ENOINPUT;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    fu_error("%s: cannot open: %s", path, strerror(errno));
    return FU_ENOINPUT;
  }
  /* Refused as they arrive, before memory runs out: a NUL byte (/dev/zero, a binary), a line
   * longer than FU_READ_LINE_MAX (an endless line on a pipe), more than FU_READ_MAX bytes. */
  size_t cap = 65536, n = 0, line = 0; /* line: bytes since the last line break */
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    fu_error("%s: out of memory reading the file", path);
    return FU_ENOMEM;
  }
  int rst = FU_OK;
  for (;;) {
    if (n + 1 >= cap) {
      char *nb = cap <= FU_READ_MAX ? realloc(buf, cap * 2) : NULL;
      if (!nb) {
        if (cap <= FU_READ_MAX) fu_error("%s: out of memory reading %zu bytes of it", path, n);
        else fu_error("%s: larger than %d MiB, more than any input fusim reads", path, FU_READ_MAX >> 20);
        rst = cap <= FU_READ_MAX ? FU_ENOMEM : FU_EDATA;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    if (memchr(buf + n, '\0', got)) {
      fu_error("%s: binary data (NUL bytes), not a text file", path);
      rst = FU_EDATA;
      break;
    }
    for (const char *p = buf + n, *e = buf + n + got; p < e;) {
      const char *nl = memchr(p, '\n', (size_t)(e - p));
      line = nl ? 0 : line + (size_t)(e - p);
      p = nl ? nl + 1 : e;
    }
    if (line > FU_READ_LINE_MAX) {
      fu_error("%s: a line longer than %d MiB, not a text file fusim reads", path, FU_READ_LINE_MAX >> 20);
      rst = FU_EDATA;
      break;
    }
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (rst == FU_OK && err) {
    fu_error("%s: read error", path);
    rst = FU_EIO;
  }
  if (rst != FU_OK) {
    free(buf);
    return rst;
  }
  buf[n] = '\0';
  if (n == 0) {
    free(buf);
    fu_error("%s: file is empty", path);
    return FU_EDATA;
  }
  *out = buf;
  if (len) *len = n;
  return FU_OK;
}

/* N where the entry e (len bytes) is a marker "and N more", else 0. */
static int fu__list_more(const char *e, size_t len) {
  int n, used = 0;
  return sscanf(e, "and %d more%n", &n, &used) == 1 && (size_t)used == len && n > 0 ? n : 0;
}

/* How many entries the "; "-joined list s stands for. */
static int fu__list_count(const char *s) {
  int n = 0;
  for (const char *e;; s = e + 2) {
    e = strstr(s, "; ");
    int more = fu__list_more(s, e ? (size_t)(e - s) : strlen(s));
    n += more ? more : 1;
    if (!e) return n;
  }
}

void fu_list_fit(char *dst, size_t cap, const char *list) {
  /* the longest run of whole entries that fits with the marker for the rest; entries after a
   * marker stay in its count (the run would skip some) */
  char mark[32] = "", m[32] = "";
  int kept = 0;
  size_t keep = 0;
  for (const char *s = list, *e; s; s = e ? e + 2 : NULL) {
    e = strstr(s, "; ");
    size_t end = e ? (size_t)(e - list) : strlen(list);
    if (fu__list_more(s, end - (size_t)(s - list))) break;
    m[0] = '\0';
    if (e) snprintf(m, sizeof m, "; and %d more", fu__list_count(e + 2));
    if (end + strlen(m) < cap) kept = 1, keep = end, memcpy(mark, m, sizeof m);
  }
  if (kept) {
    snprintf(dst, cap, "%.*s%s", (int)keep, list, mark);
    return;
  }
  const char *first = strstr(list, "; ");
  size_t len0 = first ? (size_t)(first - list) : strlen(list);
  if (fu__list_more(list, len0)) { /* a list that starts with its marker */
    snprintf(dst, cap, "and %d more", fu__list_count(list));
    return;
  }
  /* not even the first entry fits: it is cut, "..." says so */
  if (first) snprintf(mark, sizeof mark, "; and %d more", fu__list_count(first + 2));
  size_t room = cap - 1 > strlen(mark) + 3 ? cap - 1 - strlen(mark) - 3 : 0;
  size_t w = len0 < room ? len0 : room;
  while (w > 0 && ((unsigned char)list[w] & 0xC0) == 0x80) w--; /* not inside a UTF-8 character */
  snprintf(dst, cap, "%.*s...%s", (int)w, list, mark);
}

char *fu_join_argv(int argc, char **argv) {
  size_t total = 1;
  for (int i = 0; i < argc; i++) total += strlen(argv[i]) + 1;
  char *s = malloc(total);
  if (!s) return NULL;
  s[0] = '\0';
  for (int i = 0; i < argc; i++) {
    if (i) strcat(s, " ");
    strcat(s, argv[i]);
  }
  return s;
}
