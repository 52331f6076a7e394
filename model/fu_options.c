/* fu_options.c: the table-driven option parser, --help and --list-options (see fu_options.h). */
#include "fu_options.h"

#include <ctype.h>
#include <math.h>
#include <strings.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FU__HELP_COL 24 /* column where the help text of an option starts */

void fu_opt_usage_error(const fu_opt_cmd *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fusim: %s: ", cmd->name); /* fu_error's form */
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "; see 'fusim %s --help'\n", cmd->name);
  va_end(ap);
}

int fu_opt_parse_format(void *value, const char *arg, char *why, size_t why_len) {
  if (fu_parse_format(arg, value) == FU_OK) return FU_OK;
  snprintf(why, why_len, "expected table, csv or json");
  return FU_EUSAGE;
}

int fu_opt_parse_db(void *value, const char *arg, char *why, size_t why_len) {
  if (!*arg) { /* was taken as "not given": ./fusim.db written without a word */
    snprintf(why, why_len, "an empty file name (leave --db out for $FUSIM_DB, else ./fusim.db)");
    return FU_EUSAGE;
  }
  /* Its folder need not be writable: report only reads a database. */
  FU_CHECK(fu_out_path_why(arg, 0, why, why_len));
  *(const char **)value = arg;
  return FU_OK;
}

int fu_opt_parse_out(void *value, const char *arg, char *why, size_t why_len) {
  if (!*arg) {
    snprintf(why, why_len, "an empty file name");
    return FU_EUSAGE;
  }
  if (strcmp(arg, "-") != 0) FU_CHECK(fu_out_path_why(arg, 1, why, why_len)); /* "-": stdout */
  *(const char **)value = arg;
  return FU_OK;
}

int fu_opt_parse_plot(void *value, const char *arg, char *why, size_t why_len) {
  FU_CHECK(fu_plot_path_why(arg, NULL, why, why_len));
  *(const char **)value = arg;
  return FU_OK;
}

void fu_opt_output_init(fu_opt_output *o) {
  o->format = FU_FORMAT_TABLE;
  o->db = NULL;
  o->no_store = 0;
}

fu_option *fu_opt_concat(const fu_option *a, const fu_option *b) {
  size_t na = 0, nb = 0;
  while (a[na].kind) na++;
  while (b[nb].kind) nb++;
  fu_option *all = malloc((na + nb + 1) * sizeof *all);
  if (!all) return NULL;
  memcpy(all, a, na * sizeof *all);
  memcpy(all + na, b, (nb + 1) * sizeof *all); /* with b's end row */
  return all;
}

/* ---- lookup ---- */

/* Does the space-separated list hold the word [s, s+n)? With prefix set, a word starting with it. */
static int fu__in_list(const char *list, const char *s, size_t n, int prefix) {
  for (const char *p = list; p && *p;) {
    size_t w = strcspn(p, " ");
    if (w == n ? memcmp(p, s, n) == 0 : prefix && w > n && memcmp(p, s, n) == 0) return 1;
    p += w;
    while (*p == ' ') p++;
  }
  return 0;
}

static int fu__is_option(const fu_option *o) {
  return o->kind != FU_OPT_KIND_END && o->kind != FU_OPT_KIND_HEADER;
}

/* Long-name match of row o against [s, s+n): 2 the name or an `also` spelling, 1 a deprecated
 * alias, 0 none; exact or (prefix set) as a prefix. */
static int fu__match(const fu_option *o, const char *s, size_t n, int prefix) {
  size_t ln = strlen(o->name);
  if (o->whole) prefix = 0;
  if (ln == n ? memcmp(o->name, s, n) == 0 : prefix && ln > n && memcmp(o->name, s, n) == 0) return 2;
  if (fu__in_list(o->also, s, n, prefix)) return 2;
  if (fu__in_list(o->aliases, s, n, prefix)) return 1;
  return 0;
}

/* Finds the row of a long option [s, s+n): exact spellings first, else an unambiguous prefix.
 * Returns it (*deprecated set for an alias) or NULL after one line on stderr (none when quiet). */
static const fu_option *fu__find_long(const fu_opt_cmd *cmd, const char *s, size_t n, int *deprecated,
                                      int quiet) {
  for (const fu_option *o = cmd->opts; o->kind; o++) {
    int m = fu__is_option(o) ? fu__match(o, s, n, 0) : 0;
    if (m) {
      *deprecated = m == 1;
      return o;
    }
  }
  const fu_option *hit = NULL;
  int nhit = 0;
  if (n == 0) { /* "--=x" */
    if (!quiet) fu_opt_usage_error(cmd, "unknown option '--'");
    return NULL;
  }
  for (const fu_option *o = cmd->opts; o->kind; o++)
    if (fu__is_option(o) && fu__match(o, s, n, 1)) hit = o, nhit++;
  if (nhit == 1) {
    *deprecated = fu__match(hit, s, n, 1) == 1;
    return hit;
  }
  if (quiet) return NULL;
  if (nhit > 1) {
    char list[256] = "";
    for (const fu_option *o = cmd->opts; o->kind; o++) {
      size_t l = strlen(list);
      if (fu__is_option(o) && fu__match(o, s, n, 1) && l + strlen(o->name) + 5 < sizeof list)
        snprintf(list + l, sizeof list - l, "%s--%s", l ? ", " : "", o->name);
    }
    fu_opt_usage_error(cmd, "option '--%.*s' is ambiguous (%s)", (int)n, s, list);
  } else {
    fu_opt_usage_error(cmd, "unknown option '--%.*s'", (int)n, s);
  }
  return NULL;
}

static const fu_option *fu__find_short(const fu_opt_cmd *cmd, char c) {
  for (const fu_option *o = cmd->opts; o->kind; o++)
    if (fu__is_option(o) && o->short_name == c) return o;
  return NULL;
}

/* ---- values ---- */

/* "a, b or c" (sep ", ", last " or ") from a NULL-terminated list. */
static void fu__names_text(const char *const *names, const char *sep_, const char *last_sep, char *buf,
                           size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i] && used < len; i++) {
    const char *sep = i == 0 ? "" : names[i + 1] ? sep_ : last_sep;
    int w = snprintf(buf + used, len - used, "%s%s", sep, names[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* Stores arg into o's value; FU_EUSAGE after one line naming the option as spelled. */
static int fu__apply(const fu_opt_cmd *cmd, const fu_option *o, const char *spelled, const char *arg) {
  char why[256] = "";
  int ok = 1;
  switch (o->kind) {
    case FU_OPT_KIND_STRING: *(const char **)o->value = arg; break;
    case FU_OPT_KIND_INT: {
      long v;
      ok = fu_parse_long(arg, (long)o->lo, (long)o->hi, &v) == FU_OK;
      if (ok) *(long *)o->value = v;
      else snprintf(why, sizeof why, "expected a whole number from %ld to %ld", (long)o->lo, (long)o->hi);
      break;
    }
    case FU_OPT_KIND_DOUBLE: {
      double v;
      ok = fu_parse_double(arg, &v) == FU_OK && (o->open_lo ? v > o->lo : v >= o->lo) && v <= o->hi;
      if (ok) *(double *)o->value = v;
      else if (o->open_lo) snprintf(why, sizeof why, "expected a number above %g, at most %g", o->lo, o->hi);
      else snprintf(why, sizeof why, "expected a number from %g to %g", o->lo, o->hi);
      break;
    }
    case FU_OPT_KIND_SIZE:
      ok = fu_parse_size(arg, (uint64_t *)o->value) == FU_OK;
      if (!ok) snprintf(why, sizeof why, "expected a size such as 4, 64KiB, 1GiB");
      break;
    case FU_OPT_KIND_ENUM: {
      ok = 0;
      for (int i = 0; o->names[i] && !ok; i++)
        if (strcmp(arg, o->names[i]) == 0) *(int *)o->value = i, ok = 1;
      if (!ok) {
        char list[200];
        fu__names_text(o->names, ", ", " or ", list, sizeof list);
        snprintf(why, sizeof why, "expected %s", list);
      }
      break;
    }
    case FU_OPT_KIND_CUSTOM:
      ok = o->parse(o->value, arg, why, sizeof why) == FU_OK;
      if (!ok && !why[0]) snprintf(why, sizeof why, "not a valid value");
      break;
    default: break;
  }
  if (!ok) {
    /* the value as given, but a control character (a line break) as '?': one line always */
    char shown[512];
    size_t k = 0;
    for (const char *c = arg; *c && k + 1 < sizeof shown; c++)
      shown[k++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
    shown[k] = '\0';
    fu_opt_usage_error(cmd, "%s '%s': %s", spelled, shown, o->why ? o->why : why);
    return FU_EUSAGE;
  }
  if (o->seen) (*o->seen)++;
  return FU_OK;
}

static void fu__set_flag(const fu_option *o) {
  *(int *)o->value = 1;
  if (o->seen) (*o->seen)++;
}

/* ---- help and the option list ---- */

static const char *fu__kind_name(fu_opt_kind k) {
  static const char *const names[] = {"end", "header", "flag", "string", "int", "double", "size", "enum", "custom"};
  return names[k];
}

static void fu__metavar(const fu_option *o, char *buf, size_t len) {
  buf[0] = '\0';
  if (o->kind == FU_OPT_KIND_FLAG) return;
  if (o->metavar) snprintf(buf, len, "%s", o->metavar);
  else if (o->kind == FU_OPT_KIND_ENUM) fu__names_text(o->names, "|", "|", buf, len);
  else if (o->kind == FU_OPT_KIND_INT) snprintf(buf, len, "N");
  else if (o->kind == FU_OPT_KIND_DOUBLE) snprintf(buf, len, "X");
  else if (o->kind == FU_OPT_KIND_SIZE) snprintf(buf, len, "SIZE");
  else snprintf(buf, len, "VALUE");
}

void fu_opt_help(const fu_opt_cmd *cmd, FILE *out) {
  int any_short = 0;
  for (const fu_option *o = cmd->opts; o->kind; o++) any_short |= fu__is_option(o) && o->short_name;
  if (cmd->head) fputs(cmd->head, out);
  for (const fu_option *o = cmd->opts; o->kind; o++) {
    if (o->kind == FU_OPT_KIND_HEADER) {
      fprintf(out, "%s:\n", o->name);
      continue;
    }
    char mv[128], left[256];
    fu__metavar(o, mv, sizeof mv);
    int n;
    if (o->short_name) n = snprintf(left, sizeof left, "  -%c, --%s", o->short_name, o->name);
    else n = snprintf(left, sizeof left, "  %s--%s", any_short ? "    " : "", o->name);
    for (const char *a = o->also; a && *a && n > 0 && (size_t)n < sizeof left;) {
      size_t w = strcspn(a, " ");
      n += snprintf(left + n, sizeof left - (size_t)n, ", --%.*s", (int)w, a);
      a += w;
      while (*a == ' ') a++;
    }
    if (mv[0] && n > 0 && (size_t)n < sizeof left) snprintf(left + n, sizeof left - (size_t)n, " %s", mv);
    fputs(left, out);
    int col = (int)strlen(left);
    const char *h = o->help ? o->help : "";
    if (col + 2 > FU__HELP_COL) {
      fputc('\n', out);
      col = 0;
    }
    for (;;) {
      size_t w = strcspn(h, "\n");
      fprintf(out, "%*s%.*s\n", FU__HELP_COL - col, "", (int)w, h);
      if (!h[w]) break;
      h += w + 1;
      col = 0;
    }
  }
  fprintf(out, "  -h, --help%*sthis text\n", FU__HELP_COL - 12, "");
  if (cmd->foot) fputs(cmd->foot, out);
}

/* A value the option refuses: the row's own, else one from its kind ("-": none). */
static void fu__bad_example(const fu_option *o, char *buf, size_t len) {
  if (o->bad) snprintf(buf, len, "%s", o->bad);
  else if (o->kind == FU_OPT_KIND_INT) snprintf(buf, len, "%.0f", o->lo > -1e15 ? o->lo - 1 : o->hi + 1);
  else if (o->kind == FU_OPT_KIND_DOUBLE) snprintf(buf, len, "nan");
  else if (o->kind == FU_OPT_KIND_SIZE) snprintf(buf, len, "12parsecs");
  else if (o->kind == FU_OPT_KIND_ENUM) snprintf(buf, len, "no-such-value");
  else snprintf(buf, len, "-");
}

static void fu__list_options(const fu_opt_cmd *cmd, FILE *out) {
  for (const fu_option *o = cmd->opts; o->kind; o++) {
    if (!fu__is_option(o)) continue;
    char bad[128];
    fu__bad_example(o, bad, sizeof bad);
    fprintf(out, "--%s\t%s\t%s\n", o->name, fu__kind_name(o->kind), bad);
    if (o->short_name) fprintf(out, "-%c\t%s\t%s\n", o->short_name, fu__kind_name(o->kind), bad);
    for (const char *lists[2] = {o->also, o->aliases}, **l = lists; l < lists + 2; l++)
      for (const char *a = *l; a && *a;) {
        size_t w = strcspn(a, " ");
        if (l == lists) fprintf(out, "--%.*s\t%s\t%s\n", (int)w, a, fu__kind_name(o->kind), bad);
        else fprintf(out, "--%.*s\talias\t--%s\n", (int)w, a, o->name);
        a += w;
        while (*a == ' ') a++;
      }
  }
  fprintf(out, "--help\tflag\t-\n-h\tflag\t-\n");
}

/* ---- the parser ---- */

/* The value of option o: the attached one (--opt=v, -xv), else the next argument (*i moves past
 * it); then stored. */
static int fu__take(const fu_opt_cmd *cmd, const fu_option *o, const char *spelled, const char *attached,
                    int argc, char **argv, int *i) {
  if (attached) return fu__apply(cmd, o, spelled, attached);
  if (*i + 1 >= argc) {
    fu_opt_usage_error(cmd, "option '%s' needs a value", spelled);
    return FU_EUSAGE;
  }
  return fu__apply(cmd, o, spelled, argv[++*i]);
}

/* One long option argv[*i] (without its "--"); *i moves past a value taken from the next
 * argument. */
static int fu__long(const fu_opt_cmd *cmd, int argc, char **argv, int *i, int *done) {
  const char *s = argv[*i] + 2;
  const char *eq = strchr(s, '=');
  size_t n = eq ? (size_t)(eq - s) : strlen(s);
  if (n == 4 && memcmp(s, "help", 4) == 0 && !eq) {
    fu_opt_help(cmd, stdout);
    *done = 1;
    return FU_OK;
  }
  if (n == 12 && memcmp(s, "list-options", 12) == 0 && !eq) {
    fu__list_options(cmd, stdout);
    *done = 1;
    return FU_OK;
  }
  int deprecated = 0;
  const fu_option *o = fu__find_long(cmd, s, n, &deprecated, 0);
  if (!o) return FU_EUSAGE;
  if (deprecated)
    fu_warn("%s: --%.*s is deprecated; use --%s", cmd->name, (int)n, s, o->name);
  char spelled[128];
  snprintf(spelled, sizeof spelled, "--%s", o->name);
  if (o->kind == FU_OPT_KIND_FLAG) {
    if (eq) {
      fu_opt_usage_error(cmd, "option '%s' takes no value", spelled);
      return FU_EUSAGE;
    }
    fu__set_flag(o);
    return FU_OK;
  }
  return fu__take(cmd, o, spelled, eq ? eq + 1 : NULL, argc, argv, i);
}

/* Short options argv[*i] ("-x", "-xVALUE", "-ab"). */
static int fu__short(const fu_opt_cmd *cmd, int argc, char **argv, int *i, int *done) {
  for (const char *p = argv[*i] + 1; *p; p++) {
    const fu_option *o = fu__find_short(cmd, *p);
    if (!o && *p == 'h') {
      fu_opt_help(cmd, stdout);
      *done = 1;
      return FU_OK;
    }
    if (!o) {
      fu_opt_usage_error(cmd, "unknown option '-%c'", *p);
      return FU_EUSAGE;
    }
    char spelled[3] = {'-', *p, '\0'};
    if (o->kind == FU_OPT_KIND_FLAG) {
      fu__set_flag(o);
      continue;
    }
    return fu__take(cmd, o, spelled, p[1] ? p + 1 : NULL, argc, argv, i);
  }
  return FU_OK;
}

int fu_opt_parse(const fu_opt_cmd *cmd, int argc, char **argv, int *first_arg, int *done) {
  *done = 0;
  *first_arg = argc;
  /* Arguments are collected here, then placed after the options: O(argc). */
  char **args = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *args);
  if (!args) return FU_ENOMEM;
  int nargs = 0, nopt = 1, st = FU_OK;
  for (int i = 1; i < argc && st == FU_OK && !*done; i++) {
    const char *a = argv[i];
    int from = i;
    if (strcmp(a, "--") == 0) {
      while (++i < argc) args[nargs++] = argv[i];
      break;
    }
    if (a[0] == '-' && a[1] == '-') st = fu__long(cmd, argc, argv, &i, done);
    else if (a[0] == '-' && a[1]) st = fu__short(cmd, argc, argv, &i, done);
    else {
      args[nargs++] = argv[i];
      continue;
    }
    for (int k = from; k <= i; k++) argv[nopt++] = argv[k]; /* keeps the options in front */
  }
  if (st == FU_OK && !*done) {
    for (int k = 0; k < nargs; k++) argv[nopt + k] = args[k];
    *first_arg = nopt;
    if (cmd->max_args >= 0 && nargs > cmd->max_args) {
      fu_opt_usage_error(cmd, "unexpected argument '%s'", args[cmd->max_args]);
      st = FU_EUSAGE;
    }
  }
  free(args);
  return st;
}

/* ---- sizes with their unit (plan caps, fit --gpu-mem) ---- */

/* A unit is given when the text ends in a letter; hex (0x..) is refused before strtod sees it. */
static int fu__has_hex(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  if (*s == '+' || *s == '-') s++;
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* The letters a size ends in (its unit), "" where it ends in none: n letters at *unit. */
static size_t fu__unit(const char *s, const char **unit) {
  size_t n = strlen(s), k = 0;
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  while (k < n && isalpha((unsigned char)s[n - 1 - k])) k++;
  *unit = s + n - k;
  return k;
}

/* K, M, G and T, with or without B (any case): nccl-tests reads them as powers of 1024, a
 * datasheet as powers of 1000, "Mb" is megabits. */
static int fu__ambiguous_unit(const char *unit, size_t n) {
  static const char *amb[] = {"K", "M", "G", "T", "KB", "MB", "GB", "TB"};
  for (size_t i = 0; i < sizeof amb / sizeof amb[0]; i++)
    if (strlen(amb[i]) == n && strncasecmp(unit, amb[i], n) == 0) return 1;
  return 0;
}

/* 1000 to the power a unit letter K, M, G, T names. */
static double fu__si_power(char c) {
  const char *p = strchr("KMGT", toupper((unsigned char)c));
  return p ? pow(1000.0, (double)(p - "KMGT" + 1)) : NAN;
}

int fu_opt_size_arg(void *value, const char *s, char *why, size_t len) {
  uint64_t *out = value;
  const char *unit;
  double v;
  if (!s) s = "";
  size_t n = fu__unit(s, &unit);
  int num = (int)(unit - s);
  if (fu__has_hex(s)) snprintf(why, len, "is refused: hexadecimal is not accepted; give a size such as 16MiB or 4096B");
  else if (n == 0 && fu_parse_double(s, &v) == FU_OK && v > 0)
    snprintf(why, len, "has no unit; say %sMiB or %sB", s, s);
  else if (fu__ambiguous_unit(unit, n)) {
    char lead[64];
    snprintf(lead, sizeof lead, "%.*s", num, s);
    double si = fu_parse_double(lead, &v) == FU_OK ? v * fu__si_power(unit[0]) : NAN;
    snprintf(why, len, "has an ambiguous unit, '%.*s' (powers of 1000 or 1024?); say %s%ciB (binary: DDP's "
             "bucket_cap_mb is MiB) or give bytes (%.0fB)", (int)n, unit, lead, toupper((unsigned char)unit[0]), si);
  }
  else if (fu_parse_size(s, out) != FU_OK || *out == 0)
    snprintf(why, len, "is not a size (a whole number of bytes above 0 and below 16 EiB, with B, KiB, "
             "MiB, GiB or TiB)");
  else return FU_OK;
  return FU_EUSAGE;
}

/* The one spelling of a value that fu__apply accepted for row o (see fu_opt_each). */
static const char *fu__canon(const fu_option *o, const char *arg, char *buf, size_t len) {
  switch (o->kind) {
    case FU_OPT_KIND_INT: {
      long v;
      if (fu_parse_long(arg, (long)o->lo, (long)o->hi, &v) != FU_OK) return arg;
      snprintf(buf, len, "%ld", v);
      return buf;
    }
    case FU_OPT_KIND_DOUBLE: {
      double v, back;
      if (fu_parse_double(arg, &v) != FU_OK) return arg;
      for (int prec = 15; prec <= 17; prec++) { /* 17 digits always read back the same */
        snprintf(buf, len, "%.*g", prec, v);
        if (fu_parse_double(buf, &back) == FU_OK && back == v) break;
      }
      return buf;
    }
    case FU_OPT_KIND_SIZE: {
      uint64_t v;
      if (fu_parse_size(arg, &v) != FU_OK) return arg;
      snprintf(buf, len, "%llu", (unsigned long long)v);
      return buf;
    }
    case FU_OPT_KIND_ENUM:
      for (int i = 0; o->names[i]; i++)
        if (strcmp(arg, o->names[i]) == 0) return o->names[i];
      return arg;
    case FU_OPT_KIND_CUSTOM: return o->canon ? o->canon(arg, buf, len) : arg;
    default: return arg;
  }
}

/* What fu_opt_each found of one row in argv: whether it was given, and its last value. */
typedef struct fu__given {
  int given;                 /* 1: the option is on the command line */
  const char *value;         /* its last value as typed (a later value wins); NULL for a flag */
} fu__given;

/* Walks the options of argv[1 .. first_arg-1] as fu_opt_parse left them into last[], one entry
 * per row of cmd->opts. */
static int fu__last_given(const fu_opt_cmd *cmd, int first_arg, char *const *argv, fu__given *last) {
  for (int i = 1; i < first_arg; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] == '-') {
      const char *s = a + 2, *eq = strchr(s, '=');
      int deprecated;
      const fu_option *o = fu__find_long(cmd, s, eq ? (size_t)(eq - s) : strlen(s), &deprecated, 1);
      if (!o) return FU_EINTERNAL; /* not what fu_opt_parse left */
      const char *value = o->kind == FU_OPT_KIND_FLAG ? NULL : eq ? eq + 1 : i + 1 < first_arg ? argv[++i] : NULL;
      if (o->kind != FU_OPT_KIND_FLAG && !value) return FU_EINTERNAL;
      last[o - cmd->opts] = (fu__given){1, value};
      continue;
    }
    for (const char *p = a + 1; *p; p++) { /* -x VALUE, -xVALUE, bundled flags -ab */
      const fu_option *o = fu__find_short(cmd, *p);
      if (!o) return FU_EINTERNAL;
      if (o->kind == FU_OPT_KIND_FLAG) {
        last[o - cmd->opts] = (fu__given){1, NULL};
        continue;
      }
      const char *value = p[1] ? p + 1 : i + 1 < first_arg ? argv[++i] : NULL;
      if (!value) return FU_EINTERNAL;
      last[o - cmd->opts] = (fu__given){1, value};
      break;
    }
  }
  return FU_OK;
}

int fu_opt_each(const fu_opt_cmd *cmd, int first_arg, char *const *argv, fu_opt_each_fn fn, void *ctx) {
  size_t n = 0;
  while (cmd->opts[n].kind != FU_OPT_KIND_END) n++;
  fu__given *last = calloc(n + 1, sizeof *last);
  if (!last) return FU_ENOMEM;
  char buf[64];
  int st = fu__last_given(cmd, first_arg, argv, last);
  for (size_t k = 0; st == FU_OK && k < n; k++) { /* the table's order, not the command line's */
    const fu_option *o = &cmd->opts[k];
    if (last[k].given) st = fn(ctx, o, last[k].value ? fu__canon(o, last[k].value, buf, sizeof buf) : NULL);
  }
  free(last);
  return st;
}
