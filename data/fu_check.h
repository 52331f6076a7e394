/* fu_check.h: `fusim report check`: is a results database whole and does it keep the schema's
 * own rules? SQLite checks its pages on read only as far as a query goes, and a CHECK
 * constraint only when a row is written, so damage (random bytes over pages, a row changed by
 * another tool with checks off) can sit unnoticed until a report comes out wrong. */
#ifndef FU_CHECK_H
#define FU_CHECK_H

#include <stddef.h>
#include <stdio.h>

/* Checks the database at path, read-only and without migrating it:
 *  - PRAGMA integrity_check (pages, indexes, record formats) and PRAGMA foreign_key_check;
 *  - the schema version is one this build knows (0 < user_version <= fu_db_schema_version());
 *  - every table's CHECK constraints and NOT NULL columns, read from the schema the file holds,
 *    over every row, and every STRICT column's type;
 *  - every stored workload's and profile's content hash is the SHA-256 of its JSON's canonical
 *    form (fu_hash.h).
 * Each problem is one line on out; *nproblems counts them. FU_OK when the checks ran (problems
 * or not), FU_ENOINPUT when there is no such file (one line on stderr). */
int fu_db_check(const char *path, FILE *out, size_t *nproblems, size_t *nchecks);

#endif
