/* fu_output.h: files a command writes for the user (profiles, workloads, traces, bucket lists,
 * plots), written whole or not at all.
 *
 * A regular file is written to a temporary file that mkstemp creates (O_EXCL, so a name or a
 * symlink planted by someone else cannot redirect the write) in the target's folder, and renamed
 * over the target only after every write, the flush and the close succeeded; on any failure the
 * temporary file is removed and the target is left as it was. A target that exists and is not a
 * regular file (a terminal, a FIFO, /dev/full) is written in place, every write still checked;
 * so is a path that names a descriptor ("-" and /dev/stdout, /dev/stderr, /dev/fd/N: fu_out_fd),
 * through a dup of it, whatever it holds: such a path is a link, and a temporary file renamed
 * over it replaced the link (/dev/stdout itself, as root) and never reached the shell's file. */
#ifndef FU_OUTPUT_H
#define FU_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct fu_outfile {
  const char *path;          /* the target (the caller's string, kept until commit/abort) */
  char *tmp;                 /* the temporary file's name (malloc'd); NULL when written in place */
  FILE *f;                   /* write here; NULL once committed or aborted */
} fu_outfile;

/* Opens a temporary file beside path (or path itself, see above). FU_EIO or FU_ENOMEM with one
 * line on stderr "PATH: cannot write: REASON". */
int fu_outfile_open(fu_outfile *o, const char *path);
/* Checks the stream's error flag, flushes, closes and renames the temporary file over the
 * target. On failure: one line "PATH: cannot write: REASON" (ENOSPC: "No space left on device"),
 * the temporary file removed, FU_EIO. */
int fu_outfile_commit(fu_outfile *o);
/* Closes and removes the temporary file (the target is untouched); accepts an outfile that was
 * never opened, or already committed or aborted, when zeroed by fu_outfile_open's failure. */
void fu_outfile_abort(fu_outfile *o);

/* Writes the JSON value j (with json_dumpf's flags, then a line break) to path as above: one
 * line naming path and what ("the profile") on failure, FU_EIO or FU_ENOMEM. */
struct json_t;
int fu_json_save(const char *path, const struct json_t *j, size_t flags, const char *what);
/* The same for text already made (then a line break): FU_EIO after that line. */
int fu_text_save(const char *path, const char *text);

/* Runs gnuplot on a script (its text) that writes its plot to ARG1 and may use ARG2... (args,
 * nargs of them) for titles: gnuplot -c passes them as string values, never read as gnuplot
 * syntax, so no file or workload name can break out of a quote. gnuplot writes a temporary file
 * beside out, which replaces out only when gnuplot exited 0 and the file is complete (a PNG ends
 * in its IEND chunk, an SVG in </svg>); otherwise it is removed. One line on stderr naming what
 * and out on failure (gnuplot's own messages are kept in a log file that line names). */
int fu_gnuplot_run(const char *what, const char *out, const char *script, const char *const *args,
                   size_t nargs);

/* 1 when an executable `name` is in a folder of $PATH (searched here, no shell). */
int fu_have_program(const char *name);

#endif
