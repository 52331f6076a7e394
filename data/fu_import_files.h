/* fu_import_files.h: the files of one `fusim import` (data/fu_import_files.c).
 *
 * Every file is its own transaction: a file that cannot be read or parsed gets one line on
 * stderr and the others still import. A file whose bytes were imported before (same SHA-256) is
 * skipped with a note unless `again`. */
#ifndef FU_IMPORT_FILES_H
#define FU_IMPORT_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_hash.h"
#include "fu_import.h"
#include "fu_measured.h"

/* One file: what was parsed from it and what became of it. */
typedef struct fu_import_file {
  const char *path;          /* as given, or found under a folder given */
  fu_import_result res;      /* parsed samples and provenance */
  fu_measured_csv_row *meas; /* or: measured iteration times (a measured-times CSV) */
  size_t n_meas;             /* rows in meas */
  char hash[FU_HASH_HEX];    /* SHA-256 of the file's bytes */
  int status;                /* FU_OK, or why the file was not imported */
  int64_t run_id;            /* run row once stored */
  int64_t dup_of;            /* > 0: already imported as this run, skipped */
} fu_import_file;

/* Appends path (and, for a folder, every file under it in name order) to *v (*n used, *cap
 * allocated; each malloc'd). A folder with no files, or one that cannot be read, is appended
 * itself and fails when parsed. */
int fu_import_expand(const char *path, char ***v, size_t *n, size_t *cap);

/* Parses f->path (no database): samples, or measured iteration times; one line on failure. */
int fu_import_file_parse(fu_import_file *f, const fu_import_opts *opts);

/* Stores one parsed file in its own transaction (or notes that it is already there: f->dup_of). */
int fu_import_file_store(fu_db *db, fu_import_file *f, const char *cmdline, int again);

/* 1 where a status is not the file's fault and stops the import: a database error, one that
 * cannot be written, a database busy past FUSIM_DB_BUSY_MS (the next file would wait as long;
 * run again, and the files already stored are skipped), or memory run out. */
int fu_import_stops(int status);

/* The summary of the files stored (or read, dry) as a table, CSV or JSON on stdout. */
void fu_import_files_print(fu_format fmt, const fu_import_file *f, size_t nf, int dry);

void fu_import_file_finish(fu_import_file *f);

#endif
