/* test_options: the option parser (model/fu_options.c) on a table that uses every kind, and the
 * data type names (model/fu_dtype.c). Messages go to stderr, which each case captures in a
 * temporary file to check that an error or a deprecation is exactly one line. */
#include <stdlib.h>
#include <unistd.h>

#include "fu_dtype.h"
#include "fu_options.h"
#include "fu_test.h"

/* The values one parse fills. */
typedef struct fu__vals {
  fu_opt_output out;         /* --format, --db, --no-store */
  fu_opt_plan plan;          /* plan group */
  long n;                    /* --count, -n */
  double x;                  /* --ratio */
  uint64_t size;             /* --size, -b */
  int mode;                  /* --mode a|bb|ccc */
  int verbose, quiet;        /* -v, -q */
  int seen_n;                /* times --count was given */
} fu__vals;

static const char *const fu__modes[] = {"a", "bb", "ccc", NULL};

/* fu_opt_each's calls of the last good parse, "--name=value " each (a flag without "="). */
static char fu__each_text[512];

static int fu__each(void *ctx, const fu_option *row, const char *value) {
  size_t n = strlen(ctx);
  snprintf((char *)ctx + n, sizeof fu__each_text - n, "--%s%s%s ", row->name, value ? "=" : "", value ? value : "");
  return FU_OK;
}

/* Runs one parse of the space-separated words after "test"; returns its status, with stderr's
 * text in err, the first argument's index in *first and argv (permuted) in words. */
static int fu__run(const char *line, fu__vals *v, char *err, size_t errlen, int *first, int *done,
                   char **words, int *argc) {
  memset(v, 0, sizeof *v);
  fu_opt_output_init(&v->out);
  const fu_option rows[] = {
      FU_OPT_HEADER("output"),
      FU_OPTS_OUTPUT(&v->out),
      FU_OPT_HEADER("plan"),
      FU_OPTS_PLAN(&v->plan),
      FU_OPT_HEADER("own"),
      {FU_OPT_INT('n', "count", &v->n, 1, 100, "N", "how many\nsecond help line"), .seen = &v->seen_n},
      {FU_OPT_DOUBLE(0, "ratio", &v->x, 0, 1, "R", "a fraction above 0"), .open_lo = 1},
      {FU_OPT_SIZE('b', "size", &v->size, "SIZE", "bytes"), .also = "minbytes"},
      {FU_OPT_ENUM(0, "mode", &v->mode, fu__modes, "the mode")},
      {FU_OPT_FLAG('v', "verbose", &v->verbose, "talk")},
      {FU_OPT_FLAG('q', "quiet", &v->quiet, "hush")},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"test", "usage: fusim test [options] [ARG]\n", "footer text\n", rows, 1};
  static char buf[512];
  snprintf(buf, sizeof buf, "test %s", line);
  *argc = 0;
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) words[(*argc)++] = t;
  words[*argc] = NULL;
  for (int i = 0; i < *argc; i++)
    if (!strcmp(words[i], "''")) words[i] = (char *)""; /* an empty argument */
  fflush(stderr);
  int saved = dup(2);
  FILE *tmp = tmpfile();
  dup2(fileno(tmp), 2);
  int st = fu_opt_parse(&cmd, *argc, words, first, done);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(err, 1, errlen - 1, tmp);
  err[n] = '\0';
  fclose(tmp);
  fu__each_text[0] = '\0';
  if (st == FU_OK && !*done) EXPECT_INT_EQ(fu_opt_each(&cmd, *first, words, fu__each, fu__each_text), FU_OK);
  return st;
}

static int fu__lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

int main(void) {
  fu__vals v;
  char err[1024], *w[32];
  int first, done, argc;

  /* --opt value and --opt=value, every kind, options after an argument (permuted) */
  EXPECT_INT_EQ(fu__run("--db a.db --format=json ARG --count 7 --ratio=0.25 -b 64KiB --mode bb -vq "
                        "--fusion cap:25MiB --no-store", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_STR_EQ(err, "");
  EXPECT_STR_EQ(v.out.db, "a.db");
  EXPECT_INT_EQ(v.out.format, FU_FORMAT_JSON);
  EXPECT_INT_EQ(v.out.no_store, 1);
  EXPECT_INT_EQ(v.n, 7);
  EXPECT_INT_EQ(v.seen_n, 1);
  EXPECT_NEAR(v.x, 0.25, 0);
  EXPECT_INT_EQ(v.size, 65536);
  EXPECT_INT_EQ(v.mode, 1);
  EXPECT(v.verbose && v.quiet);
  EXPECT_STR_EQ(v.plan.fusion, "cap:25MiB");
  EXPECT_INT_EQ(done, 0);
  EXPECT_INT_EQ(first, argc - 1);
  EXPECT_STR_EQ(w[first], "ARG");

  /* short with attached value, a second spelling that stays, a later value wins, "--" */
  EXPECT_INT_EQ(fu__run("-n3 --minbytes 1G -n 4 -- --db", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_INT_EQ(v.n, 4);
  EXPECT_INT_EQ(v.seen_n, 2);
  EXPECT_INT_EQ(v.size, 1ULL << 30);
  EXPECT_STR_EQ(w[first], "--db");
  EXPECT(v.out.db == NULL);
  EXPECT_STR_EQ(err, "");

  /* fu_opt_each hands each value on in its one spelling, by hand: 07 is 7, .250 is 0.25, 0.1 + 0.2
     needs 17 digits to read back, 64KiB is 65536 bytes; a string as given; in the table's order
     (output's --db first, then count, ratio, size, mode, verbose) */
  EXPECT_INT_EQ(fu__run("--count 07 --ratio=.250 -b64KiB --mode bb -v --db ./a.db", &v, err, sizeof err, &first,
                        &done, w, &argc), FU_OK);
  EXPECT_STR_EQ(fu__each_text, "--db=./a.db --count=7 --ratio=0.25 --size=65536 --mode=bb --verbose ");
  /* the same options in another order, one given twice (the parse keeps the last, 7): one text */
  EXPECT_INT_EQ(fu__run("-v --db ./a.db --mode bb --count 9 -b64KiB --ratio=.250 -vn7", &v, err, sizeof err, &first,
                        &done, w, &argc), FU_OK);
  EXPECT_INT_EQ(v.n, 7);
  EXPECT_STR_EQ(fu__each_text, "--db=./a.db --count=7 --ratio=0.25 --size=65536 --mode=bb --verbose ");
  EXPECT_INT_EQ(fu__run("--rat 0.30000000000000004 --minbytes 1e0 -n+3", &v, err, sizeof err, &first, &done, w, &argc),
                FU_OK);
  EXPECT_STR_EQ(fu__each_text, "--count=3 --ratio=0.30000000000000004 --size=1 ");
  EXPECT_INT_EQ(fu__run("--ratio 1e-1", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_STR_EQ(fu__each_text, "--ratio=0.1 ");

  /* a value that starts with '-' is still the value (getopt's rule) */
  EXPECT_INT_EQ(fu__run("--count -3", &v, err, sizeof err, &first, &done, w, &argc), FU_EUSAGE);
  EXPECT_STR_EQ(err, "fusim: test: --count '-3': expected a whole number from 1 to 100; see 'fusim test --help'\n");
  EXPECT_INT_EQ(fu__run("-n -3", &v, err, sizeof err, &first, &done, w, &argc), FU_EUSAGE);
  EXPECT(strstr(err, "-n '-3'") != NULL);

  /* deprecated spellings: work, one warning line each */
  EXPECT_INT_EQ(fu__run("--no-db --plans p.json", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_INT_EQ(v.out.no_store, 1);
  EXPECT_STR_EQ(v.plan.plan_file, "p.json");
  EXPECT_STR_EQ(err, "fusim: warning: test: --no-db is deprecated; use --no-store\n"
                     "fusim: warning: test: --plans is deprecated; use --plan\n");

  /* unambiguous prefixes work (as with getopt_long); exact names win over longer ones */
  EXPECT_INT_EQ(fu__run("--rat 0.5 --plan x --verb", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_NEAR(v.x, 0.5, 0);
  EXPECT_STR_EQ(v.plan.plan_file, "x");
  EXPECT(v.verbose);
  EXPECT_INT_EQ(fu__run("--no", &v, err, sizeof err, &first, &done, w, &argc), FU_OK);
  EXPECT_INT_EQ(v.out.no_store, 1); /* a prefix of the name and of its alias: one option */
  EXPECT_STR_EQ(err, "");
  EXPECT_INT_EQ(fu__run("--f x", &v, err, sizeof err, &first, &done, w, &argc), FU_EUSAGE);
  EXPECT_STR_EQ(err, "fusim: test: option '--f' is ambiguous (--format, --fusion, --framework); "
                     "see 'fusim test --help'\n");

  /* errors: one line each, FU_EUSAGE (exit 64) */
  static const struct {
    const char *line;        /* arguments */
    const char *msg;         /* the whole stderr */
  } bad[] = {
      {"--frob", "fusim: test: unknown option '--frob'; see 'fusim test --help'\n"},
      {"--=x", "fusim: test: unknown option '--'; see 'fusim test --help'\n"},
      {"-z", "fusim: test: unknown option '-z'; see 'fusim test --help'\n"},
      {"--db", "fusim: test: option '--db' needs a value; see 'fusim test --help'\n"},
      {"-b", "fusim: test: option '-b' needs a value; see 'fusim test --help'\n"},
      {"--verbose=1", "fusim: test: option '--verbose' takes no value; see 'fusim test --help'\n"},
      {"--ratio 0", "fusim: test: --ratio '0': expected a number above 0, at most 1; see 'fusim test --help'\n"},
      {"--ratio nan", "fusim: test: --ratio 'nan': expected a number above 0, at most 1; see 'fusim test --help'\n"},
      {"--size 25parsecs", "fusim: test: --size '25parsecs': expected a size such as 4, 64KiB, 1GiB; see 'fusim test --help'\n"},
      {"--mode d", "fusim: test: --mode 'd': expected a, bb or ccc; see 'fusim test --help'\n"},
      {"--format=yaml", "fusim: test: --format 'yaml': expected table, csv or json; see 'fusim test --help'\n"},
      {"A B", "fusim: test: unexpected argument 'B'; see 'fusim test --help'\n"},
      {"--count 5x", "fusim: test: --count '5x': expected a whole number from 1 to 100; see 'fusim test --help'\n"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    EXPECT_INT_EQ(fu__run(bad[i].line, &v, err, sizeof err, &first, &done, w, &argc), FU_EUSAGE);
    EXPECT_STR_EQ(err, bad[i].msg);
    EXPECT_INT_EQ(fu__lines(err), 1);
  }

  /* --help: on stdout, every option and spelling that is not deprecated is in it */
  fflush(stdout);
  int saved = dup(1);
  FILE *tmp = tmpfile();
  dup2(fileno(tmp), 1);
  int st = fu__run("--help", &v, err, sizeof err, &first, &done, w, &argc);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  EXPECT_INT_EQ(st, FU_OK);
  EXPECT_INT_EQ(done, 1);
  char help[4096];
  rewind(tmp);
  size_t n = fread(help, 1, sizeof help - 1, tmp);
  help[n] = '\0';
  fclose(tmp);
  static const char *const want[] = {
      "usage: fusim test", "output:\n", "  --db FILE", "  --format table|csv|json", "  --no-store",
      "  --fusion SPEC", "  --overlap on|off", "  --pack copy|view", "  --comm-streams N", "  --plan FILE",
      "  --framework ideal|ddp|hooks", "  -n, --count N", "how many\n                        second help line\n",
      "  --ratio R", "  -b, --size, --minbytes SIZE", "  --mode a|bb|ccc", "  -v, --verbose", "  -q, --quiet",
      "  -h, --help", "footer text\n"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(help, want[i])) FU_T_FAIL("--help lacks \"%s\":\n%s", want[i], help);
    else fu_test_passed++;
  EXPECT(strstr(help, "no-db") == NULL); /* deprecated spellings are not advertised */

  /* data type names: every spelling of one type gives one canonical name */
  static const struct {
    const char *in;          /* a spelling */
    const char *canon;       /* its canonical name */
    int size;                /* bytes per element */
  } dt[] = {{"float", "float", 4}, {"fp32", "float", 4}, {"FLOAT32", "float", 4}, {"double", "double", 8},
            {"fp64", "double", 8}, {"bf16", "bf16", 2}, {"bfloat16", "bf16", 2}, {"half", "half", 2},
            {"fp16", "half", 2},   {"float16", "half", 2}, {"int8", "int8", 1}, {"uint8", "uint8", 1},
            {"int32", "int32", 4}, {"int64", "int64", 8}};
  for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
    fu_dtype d;
    EXPECT_INT_EQ(fu_dtype_parse(dt[i].in, &d), FU_OK);
    EXPECT_STR_EQ(fu_dtype_name(d), dt[i].canon);
    EXPECT_INT_EQ(fu_dtype_size(d), dt[i].size);
    EXPECT_STR_EQ(fu_dtype_canon(dt[i].in), dt[i].canon);
  }
  fu_dtype d;
  EXPECT_INT_EQ(fu_dtype_parse("fp8", &d), FU_EDATA);
  EXPECT_INT_EQ(fu_dtype_parse("", &d), FU_EDATA);
  EXPECT_STR_EQ(fu_dtype_canon("fp8"), "fp8");
  return fu_test_report("test_options");
}
