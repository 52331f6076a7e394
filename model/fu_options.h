/* fu_options.h: the command-line options of every fusim command, in the style of git's
 * parse-options: a command describes each option by one table row (long name, short letter,
 * value kind, where the value goes, help text, deprecated spellings), and one parser reads argv,
 * prints the --help text and lists the options for tests, all from that same table.
 *
 * Shared groups (output, inputs, target, plan, gpus) are rows made by the FU_OPTS_* macros over a
 * small struct, so that one meaning has one spelling in every command:
 *
 *   fu_opt_output out;
 *   fu_opt_output_init(&out);
 *   long ranks = 0;
 *   const fu_option rows[] = {
 *       FU_OPT_HEADER("output"),
 *       FU_OPTS_OUTPUT(&out),
 *       {FU_OPT_INT(0, "ranks", &ranks, 1, 1048576, "N", "only this rank count")},
 *       FU_OPT_END,
 *   };
 *   const fu_opt_cmd cmd = {"report", "usage: fusim report [options] WHAT\n", NULL, rows, -1};
 *   int first, done;
 *   int st = fu_opt_parse(&cmd, argc, argv, &first, &done);
 *   if (st != FU_OK || done) return fu_exit_code(st);   -- done: --help was printed
 *   ... argv[first .. argc-1] are the arguments that are not options, in order ...
 *
 * What the parser accepts: `--name value`, `--name=value`, an unambiguous prefix of a long name
 * (as getopt_long did; not of a row marked whole), `-x value`, `-xvalue`, bundled short flags (`-ab`), `--` ending the
 * options; options and arguments may be mixed. A value is taken from the next argument even when
 * it starts with '-' (getopt's rule: `-w -3` is a bad warm-up count, not a missing one).
 *
 * Errors: ONE line on stderr, exit status 64 (FU_EUSAGE):
 *   fusim: CMD: unknown option '--frob'; see 'fusim CMD --help'
 *   fusim: CMD: option '--db' needs a value; see 'fusim CMD --help'
 *   fusim: CMD: option '--no-store' takes no value; see 'fusim CMD --help'
 *   fusim: CMD: option '--co' is ambiguous (--comm, --comm-streams); see 'fusim CMD --help'
 *   fusim: CMD: --ranks '0': expected a whole number from 1 to 1048576; see 'fusim CMD --help'
 *   fusim: CMD: unexpected argument 'x'; see 'fusim CMD --help'
 * A deprecated spelling works as the option it names and prints one line:
 *   fusim: warning: CMD: --no-db is deprecated; use --no-store
 *
 * Hidden option `--list-options` prints one line per spelling, tab-separated: the spelling
 * (`--db`, `-b`, a deprecated `--no-db`), its kind (flag, string, int, double, size, enum,
 * custom, or `alias` for a deprecated spelling), and an example value the option refuses
 * ("-" where there is none; for an alias: the spelling it stands for). Tests enumerate every
 * option of every command from it. */
#ifndef FU_OPTIONS_H
#define FU_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "fu_common.h"

/* What an option's value is, and so what `value` points to. */
typedef enum fu_opt_kind {
  FU_OPT_KIND_END = 0,       /* ends a table */
  FU_OPT_KIND_HEADER,        /* a heading in --help (name = title), not an option */
  FU_OPT_KIND_FLAG,          /* int *: set to 1; no value */
  FU_OPT_KIND_STRING,        /* const char **: the value as given (argv outlives the parse) */
  FU_OPT_KIND_INT,           /* long *: a whole number in [lo, hi] */
  FU_OPT_KIND_DOUBLE,        /* double *: a finite number in [lo, hi] (open_lo: above lo) */
  FU_OPT_KIND_SIZE,          /* uint64_t *: bytes, with a unit or plain (fu_parse_size) */
  FU_OPT_KIND_ENUM,          /* int *: the index of the value in names[] */
  FU_OPT_KIND_CUSTOM         /* parse(value, arg, why): the row's own checks */
} fu_opt_kind;

/* A custom parser: stores the value of arg into *value and returns FU_OK, or returns FU_EUSAGE
 * with a short reason in why (the parser adds the option, the value and the help hint). */
typedef int (*fu_opt_fn)(void *value, const char *arg, char *why, size_t why_len);
/* A custom row's one spelling of a value its parser accepted (a static name, or written into
 * buf): what fu_opt_each hands on, so that two spellings of one value are written down alike. */
typedef const char *(*fu_opt_canon_fn)(const char *arg, char *buf, size_t len);

/* One option: one row of a command's table. */
typedef struct fu_option {
  fu_opt_kind kind;          /* what the value is; FU_OPT_KIND_END (a zeroed row) ends a table */
  const char *name;          /* long name without "--"; the title of a HEADER row */
  char short_name;           /* short letter, or 0 */
  void *value;               /* where the value goes; its type follows kind */
  const char *metavar;       /* the value's name in --help ("FILE"); NULL: from the kind */
  const char *help;          /* --help text; '\n' continues it on the next line */
  double lo, hi;             /* INT and DOUBLE: allowed range (inclusive) */
  int open_lo;               /* DOUBLE: lo itself is refused ("above lo") */
  const char *const *names;  /* ENUM: the accepted names, NULL-terminated */
  fu_opt_fn parse;           /* CUSTOM: checks and stores the value */
  fu_opt_canon_fn canon;     /* CUSTOM: its values' one spelling; NULL: the value as given */
  const char *why;           /* reason printed for a refused value instead of the kind's own */
  const char *aliases;       /* deprecated long spellings, space-separated ("no-db plans") */
  const char *also;          /* further long spellings that stay (e.g. nccl-tests' own) */
  const char *bad;           /* a value it refuses, for --list-options; NULL: from the kind */
  int *seen;                 /* when not NULL, incremented each time the option is given */
  int whole;                 /* 1: only the whole name, never an abbreviation (--gpus, calib's
                              * and validate's GPU count, must not pass as --gpus-per-process) */
} fu_option;

/* Rows. Each macro gives the fields of one row; wrap it in braces and add more fields with
 * designated initializers: {FU_OPT_FLAG(0, "no-store", &x, "..."), .aliases = "no-db"}. */
#define FU_OPT_FLAG(s, l, v, h) \
  .kind = FU_OPT_KIND_FLAG, .short_name = (s), .name = (l), .value = (v), .help = (h)
#define FU_OPT_STR(s, l, v, mv, h) \
  .kind = FU_OPT_KIND_STRING, .short_name = (s), .name = (l), .value = (v), .metavar = (mv), .help = (h)
#define FU_OPT_INT(s, l, v, lo_, hi_, mv, h)                                                     \
  .kind = FU_OPT_KIND_INT, .short_name = (s), .name = (l), .value = (v), .lo = (lo_), .hi = (hi_), \
  .metavar = (mv), .help = (h)
#define FU_OPT_DOUBLE(s, l, v, lo_, hi_, mv, h)                                                     \
  .kind = FU_OPT_KIND_DOUBLE, .short_name = (s), .name = (l), .value = (v), .lo = (lo_), .hi = (hi_), \
  .metavar = (mv), .help = (h)
#define FU_OPT_SIZE(s, l, v, mv, h) \
  .kind = FU_OPT_KIND_SIZE, .short_name = (s), .name = (l), .value = (v), .metavar = (mv), .help = (h)
#define FU_OPT_ENUM(s, l, v, nm, h) \
  .kind = FU_OPT_KIND_ENUM, .short_name = (s), .name = (l), .value = (v), .names = (nm), .help = (h)
#define FU_OPT_CUSTOM(s, l, v, fn, mv, h)                                                       \
  .kind = FU_OPT_KIND_CUSTOM, .short_name = (s), .name = (l), .value = (v), .parse = (fn),    \
  .metavar = (mv), .help = (h)
#define FU_OPT_HEADER(title) {.kind = FU_OPT_KIND_HEADER, .name = (title)}
#define FU_OPT_END {.kind = FU_OPT_KIND_END}

/* A command: its name, the text around the options in --help, and its rows. */
typedef struct fu_opt_cmd {
  const char *name;          /* "fit": messages say "fusim fit: ..." */
  const char *head;          /* --help text before the options ("usage: fusim fit [options]\n...") */
  const char *foot;          /* --help text after the options, or NULL */
  const fu_option *opts;     /* the rows, ending with FU_OPT_END */
  int max_args;              /* arguments that are not options allowed; -1: any number */
} fu_opt_cmd;

/* Parses argv[1..argc-1] (argv[0] is the command's name) into the rows' values, left to right
 * (a later value wins). Arguments that are not options end up, in their order, in
 * argv[*first_arg .. argc-1] (argv is permuted, as GNU getopt does). --help prints the help on
 * stdout and --list-options the option list; both set *done (the command then exits 0).
 * Returns FU_OK, or FU_EUSAGE after one line on stderr. */
int fu_opt_parse(const fu_opt_cmd *cmd, int argc, char **argv, int *first_arg, int *done);

/* A size with its unit (B, KiB, MiB, GiB, TiB), whole bytes, above 0, as an option parser
 * (fu_opt_fn): *(uint64_t *)value, or FU_EUSAGE with why it is not, a predicate ("has no unit;
 * say 25MiB or 25B"; K, M, G, T with or without B are refused as ambiguous: powers of 1000 or
 * 1024?). Plan sizes and fit --gpu-mem read sizes so. */
int fu_opt_size_arg(void *value, const char *s, char *why, size_t why_len);

/* After fu_opt_parse returned FU_OK on argv: calls fn once for each option given, in the order
 * of cmd's table (not the command line's), with its row and the value the parse kept (the last
 * given; NULL for a flag), whatever its spelling (a prefix, --name=value, -xVALUE); what a
 * command needs to write its own options down again (fusim workload records a what-if's), so
 * that two orders of the same options, or an option given twice, are written alike. The value is
 * in its one spelling, so that two spellings of one value are written alike: a whole number as
 * %ld, a number as the shortest %g that reads back the same, a size in plain bytes, an enum by
 * its name, a custom row's by its canon (else, as strings, as given). Stops at the first status
 * fn returns that is not FU_OK. O(rows + arguments), one calloc of a row each. */
typedef int (*fu_opt_each_fn)(void *ctx, const fu_option *row, const char *value);
int fu_opt_each(const fu_opt_cmd *cmd, int first_arg, char *const *argv, fu_opt_each_fn fn, void *ctx);

/* Rows a, then rows b, as one malloc'd table (free() it after the parse): for rows a command
 * makes in a loop from a table of its own. NULL when out of memory. */
fu_option *fu_opt_concat(const fu_option *a, const fu_option *b);

/* The --help text, generated from the rows. */
void fu_opt_help(const fu_opt_cmd *cmd, FILE *out);

/* One line on stderr, "fusim: CMD: <msg>; see 'fusim CMD --help'", for usage errors that a
 * command finds after parsing (a missing required option, options that exclude each other). */
void fu_opt_usage_error(const fu_opt_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Custom parsers shared by the groups and commands. */
int fu_opt_parse_format(void *value, const char *arg, char *why, size_t why_len); /* fu_format * */
int fu_opt_parse_db(void *value, const char *arg, char *why, size_t why_len); /* const char **: not "" */
/* An output file (const char **): not empty, not a folder, in a folder that exists and takes new
 * files; "-" (stdout) passes. --db is checked alike, but its folder may be read-only. */
int fu_opt_parse_out(void *value, const char *arg, char *why, size_t why_len);

/* A row for an option that names a file the command writes: its path is checked as the options
 * are read (fu_opt_parse_out), so a bad one stops the command before any work. */
#define FU_OPT_OUT(s, l, v, mv, h) \
  FU_OPT_CUSTOM(s, l, v, fu_opt_parse_out, mv, h), .bad = "/nonexistent-folder/x"
/* A plot gnuplot draws (const char **): as FU_OPT_OUT, and it ends in .png or .svg
 * (fu_plot_path_why). */
int fu_opt_parse_plot(void *value, const char *arg, char *why, size_t why_len);
#define FU_OPT_PLOT(s, l, v, h) \
  FU_OPT_CUSTOM(s, l, v, fu_opt_parse_plot, "FILE", h), .bad = "/nonexistent-folder/x.png"

/* ---- shared groups ---- */

/* output: how results are printed and where they are stored. */
typedef struct fu_opt_output {
  fu_format format;          /* --format table|csv|json (default table) */
  const char *db;            /* --db FILE, or NULL: $FUSIM_DB, else ./fusim.db (fu_db_path_default) */
  int no_store;              /* --no-store (deprecated --no-db): write nothing to the database */
} fu_opt_output;
void fu_opt_output_init(fu_opt_output *o);

#define FU_OPT_ROW_FORMAT(p)                                                                 \
  {FU_OPT_CUSTOM(0, "format", (p), fu_opt_parse_format, "table|csv|json",                      \
                 "output as a table (default), CSV or JSON"), .bad = "yaml"}
#define FU_OPT_ROW_DB(p)                                                                     \
  {FU_OPT_CUSTOM(0, "db", (p), fu_opt_parse_db, "FILE",                                         \
                 "results database (default $FUSIM_DB, else ./fusim.db)"), .bad = ""}
#define FU_OPT_ROW_NO_STORE(p) \
  {FU_OPT_FLAG(0, "no-store", (p), "do not write the results to the database"), .aliases = "no-db"}
#define FU_OPTS_OUTPUT(o) FU_OPT_ROW_FORMAT(&(o)->format), FU_OPT_ROW_DB(&(o)->db), FU_OPT_ROW_NO_STORE(&(o)->no_store)

/* inputs: the workload and the profile a prediction reads. */
typedef struct fu_opt_inputs {
  const char *workload;      /* -w, --workload FILE|NAME, or NULL */
  const char *profile;       /* --profile FILE or bundled NAME, or NULL: the bundled default profile */
} fu_opt_inputs;

#define FU_OPT_ROW_WORKLOAD(p) \
  {FU_OPT_STR('w', "workload", (p), "FILE|NAME", "workload JSON, or a bundled one's name (fusim workload --list)")}
#define FU_OPT_ROW_PROFILE(p) \
  {FU_OPT_STR(0, "profile", (p), "FILE|NAME", "profile JSON from fusim fit --out, or a bundled profile's name (default: the embedded one)")}
#define FU_OPTS_INPUTS(o) FU_OPT_ROW_WORKLOAD(&(o)->workload), FU_OPT_ROW_PROFILE(&(o)->profile)

/* target: the communication whose cost is simulated or measured. */
typedef struct fu_opt_target {
  const char *comm;          /* --comm SPEC (allreduce:8:nvlink, allreduce:2x8, offload), or NULL */
} fu_opt_target;

#define FU_OPTS_TARGET(o) \
  {FU_OPT_STR(0, "comm", &(o)->comm, "SPEC", "allreduce|reducescatter|allgather:RANKS[:LINK], or offload")}
/* The job's process layout for a prediction across nodes (a long, 0: not given). */
#define FU_OPT_ROW_LAYOUT(p)                                                                 \
  {FU_OPT_INT(0, "gpus-per-process", (p), 1, 1024, "N",                                      \
              "GPUs one process drives across nodes (default 1, one process per GPU)"), .whole = 1}

/* The NCCL version the job runs (a string, NULL: not given). */
#define FU_OPT_ROW_NCCL(p) \
  {FU_OPT_STR(0, "nccl-version", (p), "X.Y.Z", "the NCCL the job runs (NCCL's 'NCCL version' line; default the\n"               \
              "profile's, the one its logs ran), for its algorithm choice")}

/* plan: the fusion plan, as given. The values stay strings here: the plan module (sim/) parses
 * them, the same way as the keys of a --plan FILE, and names the option in its messages. */
typedef struct fu_opt_plan {
  const char *fusion;        /* --fusion none|single|cap:SIZE|horovod:SIZE,CYCLE|buckets:FILE|optimal|mgwfbp */
  const char *overlap;       /* --overlap on|off */
  const char *pack;          /* --pack copy|view */
  const char *comm_streams;  /* --comm-streams N */
  const char *plan_file;     /* --plan FILE (deprecated --plans) */
  const char *framework;     /* --framework ideal|ddp|hooks */
} fu_opt_plan;

#define FU_OPTS_PLAN(o) FU_OPT_ROW_FUSION(o), FU_OPTS_PLAN_REST(o)
#define FU_OPT_ROW_FUSION(o)                                                                    \
  {FU_OPT_STR(0, "fusion", &(o)->fusion, "SPEC",                                                \
              "none|single|ddp|cap:SIZE[,first:SIZE]|horovod[:SIZE[,CYCLE]]|buckets:FILE|\n"   \
              "optimal[:MEMCAP]|mgwfbp (sizes in B, KiB, MiB, GiB or TiB)")}

/* The plan's rows but --fusion (plan compares its own fusions). */
#define FU_OPTS_PLAN_REST(o)                                                                    \
  FU_OPTS_PLAN_SHAPE(o),                                                                        \
  {FU_OPT_STR(0, "plan", &(o)->plan_file, "FILE", "JSON plan object; flags given win"), \
   .aliases = "plans"},                                                                         \
  FU_OPT_ROW_FRAMEWORK(o)
/* How the buckets are communicated (validate takes these, --fusion and --framework, with its
 * own --plan: a list of plans). */
#define FU_OPTS_PLAN_SHAPE(o)                                                                   \
  {FU_OPT_STR(0, "overlap", &(o)->overlap, "on|off", "communicate as buckets fill (on) or after backward")}, \
  {FU_OPT_STR(0, "pack", &(o)->pack, "copy|view", "copy gradients into a fusion buffer, or they live there")}, \
  {FU_OPT_STR(0, "comm-streams", &(o)->comm_streams, "N", "communication streams")}
#define FU_OPT_ROW_FRAMEWORK(o) \
  {FU_OPT_STR(0, "framework", &(o)->framework, "ideal|ddp|hooks", "whose host-side costs apply")}

/* gpus: how many GPUs a measuring command uses. */
typedef struct fu_opt_gpus {
  long gpus;                 /* -g, --gpus N (deprecated --ngpus, --gpu), 0: every visible GPU */
} fu_opt_gpus;

#define FU_OPTS_GPUS(o)                                                                         \
  {FU_OPT_INT('g', "gpus", &(o)->gpus, 1, 1024, "N", "GPUs to use (default: every visible GPU)"), \
   .aliases = "ngpus gpu"}

#endif
