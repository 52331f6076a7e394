/* fu_db.c: the results database: open, migrate, write and read (SQLite).
 *
 * One connection per fu_db. Every writing function runs in one transaction: its own
 * BEGIN IMMEDIATE when the caller has none open, else a savepoint inside the caller's, so a
 * failure leaves the file as it was. BEGIN IMMEDIATE takes the write lock up front, which is
 * what lets the busy timeout work for two writers (a deferred transaction that upgrades from
 * read to write can fail with SQLITE_BUSY at once in WAL mode, whatever the timeout). */
#include "fu_db.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_hash.h"

extern const char fu__schema_sql[];     /* data/schema.sql, embedded by tools/embed.py */
extern const char fu__migration_002[];  /* data/migrations/002_provenance.sql */
extern const char fu__migration_003[];  /* data/migrations/003_cluster.sql */
extern const char fu__migration_004[];  /* data/migrations/004_layout.sql */
extern const char fu__migration_005[];  /* data/migrations/005_nccl.sql */
extern const char fu__migration_006[];  /* data/migrations/006_fit_shape.sql */
extern const char fu__migration_007[];  /* data/migrations/007_fit_samples.sql */
extern const char fu__migration_008[];  /* data/migrations/008_fit_error_curve.sql */
extern const char fu__build_commit[];   /* data/fu_build.c, from meson's vcs_tag */

/* Migrations in order; migration i brings user_version from i to i + 1. Append, never edit a
 * released step: a new step is a file data/migrations/NNN_what.sql, its line in
 * data/meson.build (embedded as fu__migration_NNN) and its line here. A fresh database runs
 * every step, so new and migrated databases have the same schema by construction. All steps
 * run in one transaction with foreign keys off (SQLite's table-rebuild procedure needs them off;
 * they cannot change inside a transaction), and PRAGMA foreign_key_check must find nothing
 * before the commit. */
static const struct {
  int version;               /* user_version after this step */
  const char *sql;           /* statements to run */
  const char *what;          /* one line for --help and errors */
} fu__migrations[] = {
    {1, fu__schema_sql, "initial schema: hosts, runs, samples, fits, predictions, views"},
    {2, fu__migration_002, "provenance, workloads and profiles by content, resolved plans, "
                           "imported measurements, views"},
    {3, fu__migration_003, "cluster: samples.nodes, fit_segments.flags, v_fit_quality flags"},
    {4, fu__migration_004, "process layout: samples.gpus_per_proc"},
    {5, fu__migration_005, "NCCL version: samples.nccl_version"},
    {6, fu__migration_006, "fitted curves' machine: fit_segments.nodes, gpus_per_proc, gpu"},
    {7, fu__migration_007, "fitted curves' samples: fit_segments.in_place, dtype, graph"},
    {8, fu__migration_008, "v_fit_error_by_size names its curve: segment_id, nodes, gpu, ..."},
};
#define FU__SCHEMA_VERSION ((int)(sizeof fu__migrations / sizeof fu__migrations[0]))

#define FU__BUSY_MS_DEFAULT 10000

struct fu_db {
  sqlite3 *h;                /* the connection */
  char *path;                /* file name as given (for messages) */
  int readonly;              /* opened with FU_DB_READONLY */
  int busy_ms;               /* busy timeout in milliseconds */
  sqlite3_stmt *ins_sample;  /* cached INSERT INTO samples (prepared on first use) */
  int version;               /* schema version of the file (older only when opened read-only) */
  int created;               /* this open created the file (it did not exist before) */
  dev_t dev;                 /* the file it created (device, inode): removed only while the */
  ino_t ino;                 /*   path still names it */
};

int fu_db_schema_version(void) { return FU__SCHEMA_VERSION; }

const char *fu_db_build_version(void) { return fu_version(); }
const char *fu_db_build_commit(void) { return fu__build_commit[0] ? fu__build_commit : "unknown"; }

/* The busy timeout: $FUSIM_DB_BUSY_MS, whole milliseconds from 0 to 1 hour, or 10 s. Tests
 * shorten it to provoke a locked database quickly. A value that is not one is said (a user who
 * wrote "5s" got the default in silence) and the default kept. */
static int fu__busy_ms(void) {
  const char *e = getenv("FUSIM_DB_BUSY_MS");
  long v;
  if (!e || !*e) return FU__BUSY_MS_DEFAULT;
  if (fu_parse_long(e, 0, 3600000, &v) == FU_OK) return (int)v;
  fu_warn("FUSIM_DB_BUSY_MS='%s' is not whole milliseconds from 0 to 3600000; waiting the default %d ms",
          e, FU__BUSY_MS_DEFAULT);
  return FU__BUSY_MS_DEFAULT;
}

/* Print "PATH: what is wrong" for an SQLite result code and return the fusim status. */
static int fu__fail(const fu_db *db, int rc, const char *doing) {
  const char *path = db->path ? db->path : "(database)";
  const char *msg = db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_NOTADB: /* bad data in the user's file, as DESIGN.md counts a corrupt database */
      fu_error("%s: not a fusim database (the file is not SQLite, or is encrypted)", path);
      return FU_EDATA;
    case SQLITE_CORRUPT:
      fu_error("%s: database file is corrupt (%s)", path, msg);
      return FU_EDATA;
    case SQLITE_READONLY:
      if (db->readonly) {
        fu_error("%s: opened read-only: cannot %s", path, doing);
        break;
      }
      fu_error("%s: database is read-only: cannot %s (check the permissions of the file and its "
               "folder)", path, doing);
      return FU_ECANTCREAT; /* the user's output cannot be written: EX_CANTCREAT */
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      fu_error("%s: database is locked by another process; gave up after %d ms trying to %s "
               "(set FUSIM_DB_BUSY_MS to wait longer)", path, db->busy_ms, doing);
      FU_DEBUG("sqlite extended code %d: %s", rc, msg);
      return FU_EBUSY; /* try again later: EX_TEMPFAIL */
    case SQLITE_CANTOPEN: /* the path the user gave cannot be used: a usage error */
      fu_error("%s: cannot open the database to %s (%s): missing folder, or no permission to "
               "create files in it", path, doing, msg);
      return FU_EUSAGE;
    case SQLITE_FULL:
      fu_error("%s: disk full while trying to %s", path, doing);
      return FU_EIO;
    case SQLITE_IOERR:
      fu_error("%s: i/o error while trying to %s: %s", path, doing, msg);
      return FU_EIO;
    case SQLITE_CONSTRAINT:
      fu_error("%s: cannot %s: value rejected by the schema (%s)", path, doing, msg);
      return FU_EDATA;
    default:
      fu_error("%s: cannot %s: %s", path, doing, msg);
      break;
  }
  return FU_EDB;
}

static int fu__exec(fu_db *db, const char *sql, const char *doing) {
  int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? FU_OK : fu__fail(db, rc, doing);
}

/* First column of the first row of a query as an integer (e.g. a PRAGMA). */
static int fu__query_int(fu_db *db, const char *sql, const char *doing, int64_t *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      *out = sqlite3_column_int64(st, 0);
      rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
      *out = 0;
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? FU_OK : fu__fail(db, rc, doing);
}

static int fu__prepare(fu_db *db, const char *sql, sqlite3_stmt **st) {
  int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
  return rc == SQLITE_OK ? FU_OK : fu__fail(db, rc, "prepare a statement");
}

/* Run a prepared INSERT/UPDATE to completion; the new row id goes to *id when id != NULL. */
static int fu__step_done(fu_db *db, sqlite3_stmt *st, const char *doing, int64_t *id) {
  int rc = sqlite3_step(st);
  if (rc != SQLITE_DONE) {
    int st_rc = fu__fail(db, rc, doing);
    sqlite3_reset(st);
    return st_rc;
  }
  if (id) *id = sqlite3_last_insert_rowid(db->h);
  sqlite3_reset(st);
  return FU_OK;
}

/* Text or NULL for "" / NULL. */
static void fu__bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s && *s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, i);
}

/* The same without a copy: s must stay valid until the statement has been stepped and reset. */
static void fu__bind_text_static(sqlite3_stmt *st, int i, const char *s) {
  if (s && *s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
  else sqlite3_bind_null(st, i);
}

/* Real or NULL for NaN (SQLite would store NaN as NULL anyway; be explicit). */
static void fu__bind_real(sqlite3_stmt *st, int i, double v) {
  if (isnan(v)) sqlite3_bind_null(st, i);
  else sqlite3_bind_double(st, i, v);
}

/* A count or NULL for 0 (not known). */
static void fu__bind_int_known(sqlite3_stmt *st, int i, int v) {
  if (v >= 1) sqlite3_bind_int(st, i, v);
  else sqlite3_bind_null(st, i);
}

static void fu__column_text(sqlite3_stmt *st, int i, char *dst, size_t cap) {
  const unsigned char *s = sqlite3_column_text(st, i);
  snprintf(dst, cap, "%s", s ? (const char *)s : "");
}

static double fu__column_real(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* ---- transactions ---------------------------------------------------------------------- */

int fu_db_begin(fu_db *db) { return fu__exec(db, "BEGIN IMMEDIATE", "start a write transaction"); }

int fu_db_commit(fu_db *db) {
  if (sqlite3_get_autocommit(db->h)) return FU_OK;
  int st = fu__exec(db, "COMMIT", "commit");
  if (st != FU_OK) fu_db_rollback(db);
  return st;
}

int fu_db_rollback(fu_db *db) {
  if (!db || sqlite3_get_autocommit(db->h)) return FU_OK;
  int rc = sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc == SQLITE_OK ? FU_OK : FU_EDB;
}

/* One logical write: a transaction of its own, or a savepoint within the caller's. */
static int fu__tx_open(fu_db *db, int *owned) {
  if (sqlite3_get_autocommit(db->h)) {
    *owned = 1;
    return fu_db_begin(db);
  }
  *owned = 0;
  return fu__exec(db, "SAVEPOINT fu__sp", "start a savepoint");
}

static int fu__tx_close(fu_db *db, int owned, int st) {
  if (owned) {
    if (st == FU_OK) return fu_db_commit(db);
    fu_db_rollback(db);
    return st;
  }
  if (st == FU_OK) return fu__exec(db, "RELEASE fu__sp", "release a savepoint");
  sqlite3_exec(db->h, "ROLLBACK TO fu__sp", NULL, NULL, NULL);
  sqlite3_exec(db->h, "RELEASE fu__sp", NULL, NULL, NULL);
  return st;
}

/* ---- open, migrate, close -------------------------------------------------------------- */

/* Is the file (schema version uv) a fusim database, or empty (new)? An SQLite file with tables
 * and no schema version, or with a schema version but none of the tables every fusim schema has
 * (runs, samples), is another program's: FU_EDATA with one line. O(schema). */
static int fu__foreign(fu_db *db, int64_t uv) {
  int64_t ntab = 0, nours = 0;
  FU_CHECK(fu__query_int(db, "SELECT count(*) FROM sqlite_schema", "read the schema", &ntab));
  FU_CHECK(fu__query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                             "('runs', 'samples')", "read the schema", &nours));
  if (uv == 0 && ntab > 0) {
    fu_error("%s: an SQLite database, but not a fusim one (it has tables and no schema version)",
             db->path);
    return FU_EDATA;
  }
  if (uv != 0 && nours < 2) {
    fu_error("%s: an SQLite database, but not a fusim one (schema version %lld, but not the tables "
             "of fusim's results)", db->path, (long long)uv);
    return FU_EDATA;
  }
  return FU_OK;
}

static int fu__migrate(fu_db *db) {
  int64_t uv = 0;
  FU_CHECK(fu__query_int(db, "PRAGMA user_version", "read the schema version", &uv));
  if (uv < 0) { /* fusim never writes one: migrating would re-create tables that are there */
    fu_error("%s: schema version %lld is not one fusim writes: a damaged file or not a fusim "
             "database", db->path, (long long)uv);
    return FU_EDATA;
  }
  /* A reader that finds version 0 may be racing the process creating the file (its schema
   * transaction not yet committed): wait for it as for a lock, then say what the file is. */
  for (int waited = 0; db->readonly && uv == 0 && waited < db->busy_ms && waited < 2000; waited += 50) {
    usleep(50000);
    FU_CHECK(fu__query_int(db, "PRAGMA user_version", "read the schema version", &uv));
  }
  if (db->readonly && uv == 0) {
    FU_CHECK(fu__foreign(db, uv));
    fu_error("%s: an empty database: nothing has been stored in it yet", db->path);
    return FU_ENOINPUT;
  }
  db->version = (int)uv;
  if (uv == FU__SCHEMA_VERSION) return FU_OK;
  if (uv > FU__SCHEMA_VERSION) {
    fu_error("%s: schema version %lld is newer than this fusim understands (%d); use a newer fusim",
             db->path, (long long)uv, FU__SCHEMA_VERSION);
    return FU_EDATA; /* a file this fusim cannot read, as one that is not a fusim database */
  }
  /* Read-only: an older file is read as it is (the reads below cope with its columns), unless we
   * may write it: then it is migrated in place first, by a connection of its own, so a reader
   * of a shared database upgrades it once and sees the views of the current schema. */
  if (db->readonly && uv >= 1 && access(db->path, W_OK) != 0) return FU_OK;
  if (db->readonly && uv >= 1) {
    fu_db *rw = NULL;
    int st = fu_db_open(db->path, FU_DB_READWRITE, &rw);
    fu_db_close(rw);
    if (st == FU_OK)
      st = fu__query_int(db, "PRAGMA user_version", "read the schema version", &uv);
    /* a statement on the schema makes this connection load the migrated one: a statement
     * prepared on the cached one named the old views' columns (SQLite re-prepares it at its
     * first step, after they were printed) */
    int64_t ntab;
    if (st == FU_OK) st = fu__query_int(db, "SELECT count(*) FROM sqlite_schema", "read the schema", &ntab);
    db->version = (int)uv;
    return st;
  }

  /* Off before the transaction (a no-op inside one); back on below whatever happens. */
  FU_CHECK(fu__exec(db, "PRAGMA foreign_keys = OFF", "turn off foreign keys to migrate"));
  int st0 = fu_db_begin(db);
  if (st0 != FU_OK) {
    sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    return st0;
  }
  /* Another process may have migrated while we waited for the lock: read again. */
  int st = fu__query_int(db, "PRAGMA user_version", "read the schema version", &uv);
  if (st == FU_OK) st = fu__foreign(db, uv);
  for (int i = 0; st == FU_OK && i < FU__SCHEMA_VERSION; i++) {
    if (fu__migrations[i].version <= uv) continue;
    FU_DEBUG("%s: migrating to schema version %d (%s)", db->path, fu__migrations[i].version,
             fu__migrations[i].what);
    char doing[64];
    snprintf(doing, sizeof doing, "migrate to schema version %d", fu__migrations[i].version);
    st = fu__exec(db, fu__migrations[i].sql, doing);
    if (st == FU_OK) {
      char sql[64];
      snprintf(sql, sizeof sql, "PRAGMA user_version = %d", fu__migrations[i].version);
      st = fu__exec(db, sql, "set the schema version");
    }
  }
  if (st == FU_OK && uv > 0) { /* rows that a rebuilt table's references no longer reach */
    int64_t bad = 0;
    st = fu__query_int(db, "SELECT count(*) FROM pragma_foreign_key_check", "check foreign keys",
                       &bad);
    if (st == FU_OK && bad) {
      fu_error("%s: migration from schema version %lld left %lld rows whose references are "
               "broken; nothing was changed", db->path, (long long)uv, (long long)bad);
      st = FU_EDB;
    }
  }
  if (st == FU_OK) db->version = FU__SCHEMA_VERSION;
  if (st == FU_OK) st = fu_db_commit(db);
  else fu_db_rollback(db);
  int fk = fu__exec(db, "PRAGMA foreign_keys = ON", "turn on foreign keys");
  return st != FU_OK ? st : fk;
}

/* The journal mode of the file ("wal", "delete", ...) into mode; SQLite result code. */
static int fu__journal_mode(fu_db *db, const char *sql, char *mode, size_t cap) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    const unsigned char *m = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    snprintf(mode, cap, "%s", m ? (const char *)m : "");
    if (rc == SQLITE_ROW) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* WAL is a property of the file; switch once. The switch needs an exclusive lock, and SQLite
 * answers SQLITE_BUSY at once (without its busy handler) when another process is opening the
 * same new file, so wait here, in 10 ms steps, up to the busy timeout. */
static int fu__wal(fu_db *db) {
  char mode[16];
  for (int waited = 0;; waited += 10) {
    int rc = fu__journal_mode(db, "PRAGMA journal_mode", mode, sizeof mode);
    if (rc == SQLITE_OK && strcmp(mode, "wal") == 0) return FU_OK;
    if (rc == SQLITE_OK) rc = fu__journal_mode(db, "PRAGMA journal_mode = WAL", mode, sizeof mode);
    if (rc == SQLITE_OK && strcmp(mode, "wal") == 0) return FU_OK;
    if (rc == SQLITE_OK) {
      fu_error("%s: cannot switch the database to WAL mode (it stays '%s')", db->path, mode);
      return FU_EDB;
    }
    if ((rc & 0xff) != SQLITE_BUSY || waited >= db->busy_ms) return fu__fail(db, rc, "switch to WAL");
    sqlite3_sleep(10);
  }
}

int fu_db_reopen_immutable(sqlite3 **h, const char *path, int *reopened) {
  *reopened = 0;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(*h, "PRAGMA user_version", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  sqlite3_finalize(st);
  int prim = rc & 0xff;
  if (prim != SQLITE_READONLY && prim != SQLITE_CANTOPEN) return SQLITE_OK; /* handled later */
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  else snprintf(dir, sizeof dir, ".");
  if (access(dir, W_OK) == 0) return SQLITE_OK;
  /* from the name SQLite opened ("./:memory:" for a file of that name: "file::memory:" is an
     in-memory database) */
  char *name = fu_db_sqlite_name(path);
  if (!name) return SQLITE_NOMEM;
  char uri[3200] = "file:";
  size_t k = strlen(uri);
  for (const char *p = name; *p && k + 4 < sizeof uri - 16; p++) {
    if (*p == '%' || *p == '?' || *p == '#') k += (size_t)snprintf(uri + k, sizeof uri - k, "%%%02X", (unsigned char)*p);
    else uri[k++] = *p;
  }
  snprintf(uri + k, sizeof uri - k, "?immutable=1");
  free(name);
  sqlite3_close_v2(*h);
  *h = NULL;
  *reopened = 1;
  return sqlite3_open_v2(uri, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
}

static int fu__readonly_folder(fu_db *db) {
  int reopened;
  int rc = fu_db_reopen_immutable(&db->h, db->path, &reopened);
  if (rc != SQLITE_OK) return fu__fail(db, rc, "read it");
  if (!reopened) return FU_OK;
  sqlite3_extended_result_codes(db->h, 1);
  sqlite3_busy_timeout(db->h, db->busy_ms);
  FU_DEBUG("%s: folder not writable; reading the file as immutable", db->path);
  return FU_OK;
}

char *fu_db_sqlite_name(const char *path) {
  int special = !strncasecmp(path, "file:", 5) || !strcmp(path, ":memory:");
  size_t n = strlen(path) + 3;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", special ? "./" : "", path);
  return s;
}

int fu_db_open(const char *path, int flags, fu_db **out) {
  *out = NULL;
  if (!path || !*path) {
    fu_error("no database path given");
    return FU_EUSAGE;
  }
  fu_db *db = calloc(1, sizeof *db);
  if (!db) return FU_ENOMEM;
  db->path = strdup(path);
  db->readonly = flags & FU_DB_READONLY;
  db->busy_ms = fu__busy_ms();
  if (!db->path) {
    free(db);
    return FU_ENOMEM;
  }
  struct stat sb;
  int exists = stat(path, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode)) {
    fu_error("%s: is a directory, not a database file", path);
    fu_db_close(db);
    return FU_EUSAGE;
  }
  if (exists && !S_ISREG(sb.st_mode)) { /* SQLite would block reading a FIFO */
    fu_error("%s: not a regular file (a FIFO, device or socket), not a database file", path);
    fu_db_close(db);
    return FU_EUSAGE;
  }
  if (db->readonly && !exists) {
    fu_error("%s: no such database (%s)", path, strerror(errno));
    fu_db_close(db);
    return FU_ENOINPUT;
  }
  /* NOMUTEX: a connection is used by one thread at a time, so SQLite need not lock around every
   * call (a measurable share of a bulk insert). */
  int oflags = SQLITE_OPEN_NOMUTEX |
               (db->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  /* --db names a file: "file:x.db" is the file of that name, not a URI for x.db */
  char *oname = fu_db_sqlite_name(path);
  if (!oname) {
    fu_db_close(db);
    return FU_ENOMEM;
  }
  int rc = sqlite3_open_v2(oname, &db->h, oflags, NULL);
  free(oname);
  if (rc == SQLITE_OK && !db->readonly && !exists && stat(path, &sb) == 0) {
    db->created = 1;
    db->dev = sb.st_dev;
    db->ino = sb.st_ino;
  }
  if (rc != SQLITE_OK) {
    int st = fu__fail(db, rc, db->readonly ? "read it" : "write it");
    fu_db_close(db);
    return st;
  }
  sqlite3_extended_result_codes(db->h, 1);
  sqlite3_busy_timeout(db->h, db->busy_ms);
  int st = FU_OK;
  if (!db->readonly && sqlite3_db_readonly(db->h, "main") == 1) {
    fu_error("%s: database is read-only (no write permission on the file); nothing was stored",
             path);
    st = FU_ECANTCREAT;
  }
  if (st == FU_OK && !db->readonly && access(path, W_OK) != 0 && errno == EACCES) {
    fu_error("%s: database is read-only (no write permission on the file); nothing was stored",
             path);
    st = FU_ECANTCREAT;
  }
  if (st == FU_OK && db->readonly) st = fu__readonly_folder(db);
  if (st == FU_OK) st = fu__exec(db, "PRAGMA foreign_keys = ON", "turn on foreign keys");
  int64_t uv = 0;
  /* The first read of the header: a file that is not SQLite fails here (NOTADB). */
  if (st == FU_OK) st = fu__query_int(db, "PRAGMA user_version", "read the schema version", &uv);
  /* Another program's SQLite file is refused before anything is written to it: switching it to
   * WAL would change its header (its journal mode) for good. */
  if (st == FU_OK) st = fu__foreign(db, uv);
  if (st == FU_OK && !db->readonly) st = fu__wal(db);
  /* WAL with synchronous=NORMAL cannot corrupt the file; at worst a power cut loses the last
   * commits. It is what makes bulk imports and many small prediction writes cheap. */
  if (st == FU_OK && !db->readonly)
    st = fu__exec(db, "PRAGMA synchronous = NORMAL", "set synchronous mode");
  /* 64 MiB of page cache at most (default 2 MiB; pages are allocated as used): a bulk insert
   * of a million samples updates the (op, link, ranks, bytes) index all over. */
  if (st == FU_OK) st = fu__exec(db, "PRAGMA cache_size = -65536", "set the cache size");
  if (st == FU_OK) st = fu__migrate(db);
  if (st == FU_OK && db->readonly) st = fu__exec(db, "PRAGMA query_only = ON", "go read-only");
  if (st != FU_OK) {
    fu_db_close(db);
    return st;
  }
  *out = db;
  return FU_OK;
}

/* Does the database hold no row in any table (no tables, or the schema alone)? O(tables): one
 * probe each. */
static int fu__stored_nothing(sqlite3 *h) {
  sqlite3_stmt *t = NULL;
  int rc = sqlite3_prepare_v2(h, "SELECT name FROM sqlite_schema WHERE type = 'table'", -1, &t, NULL);
  int empty = rc == SQLITE_OK;
  while (empty && (rc = sqlite3_step(t)) == SQLITE_ROW) {
    char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 1", (const char *)sqlite3_column_text(t, 0));
    sqlite3_stmt *q = NULL;
    empty = sql && sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_DONE;
    sqlite3_finalize(q);
    sqlite3_free(sql);
  }
  sqlite3_finalize(t);
  return empty && rc == SQLITE_DONE;
}

/* A database file that fu_db_open created (db->dev, db->ino) and nothing was stored in (its
 * command failed, say on a full disk) is removed with its -wal and -shm: a failed first command
 * leaves no stray file. It is checked and removed by a connection of its own in exclusive
 * locking mode, which needs no -shm (there may be no room for one) and whose lock is refused
 * while any other connection has the file open and read; so never removed: a file that existed
 * before the open, one another connection holds (one that has opened it and not yet read it is
 * not seen), one holding any row, or one no longer at the path. The WAL is made persistent so
 * that closing deletes no file by name after the unlink (a new database may be there by then). */
static void fu__remove_if_unused(const fu_db *db) {
  char *oname = fu_db_sqlite_name(db->path);
  /* the file itself: --db may be a symlink (SQLite follows it and names the -wal and -shm after
     its target); the user's link is not the database and stays */
  char *real = realpath(db->path, NULL);
  sqlite3 *h = NULL;
  struct stat sb;
  if (oname && real && sqlite3_open_v2(oname, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
      sqlite3_exec(h, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK &&
      sqlite3_exec(h, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK && fu__stored_nothing(h) &&
      stat(real, &sb) == 0 && sb.st_dev == db->dev && sb.st_ino == db->ino) {
    int persist = 1;
    sqlite3_file_control(h, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    static const char *const suffix[] = {"-wal", "-shm", ""}; /* the database file last */
    for (int i = 0; i < 3; i++) {
      char *name = sqlite3_mprintf("%s%s", real, suffix[i]);
      if (name && unlink(name) != 0 && errno != ENOENT) fu_warn("%s: cannot remove it: %s", name, strerror(errno));
      sqlite3_free(name);
    }
    FU_DEBUG("%s: created by this command and nothing stored in it: removed", db->path);
  }
  sqlite3_close_v2(h);
  free(real);
  free(oname);
}

void fu_db_close(fu_db *db) {
  if (!db) return;
  sqlite3_finalize(db->ins_sample);
  if (db->h) sqlite3_close_v2(db->h); /* rolls back an open transaction */
  if (db->created) fu__remove_if_unused(db);
  free(db->path);
  free(db);
}

sqlite3 *fu_db_handle(fu_db *db) { return db ? db->h : NULL; }
const char *fu_db_path(const fu_db *db) { return db ? db->path : NULL; }

/* ---- runs and hosts -------------------------------------------------------------------- */

static int fu__host_id(fu_db *db, const fu_provenance *p, int64_t *host_id) {
  *host_id = 0;
  if (!*p->host && !*p->gpu && !*p->driver && !*p->cuda && !*p->nccl && !*p->topology)
    return FU_OK;
  sqlite3_stmt *st = NULL;
  FU_CHECK(fu__prepare(db,
                       "INSERT INTO hosts (host_name, gpu, driver, cuda, nccl, topology) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
                       &st));
  const char *v[6] = {p->host, p->gpu, p->driver, p->cuda, p->nccl, p->topology};
  for (int i = 0; i < 6; i++) fu__bind_text(st, i + 1, v[i]);
  int s = fu__step_done(db, st, "store the host", NULL);
  sqlite3_finalize(st);
  FU_CHECK(s);
  FU_CHECK(fu__prepare(db,
                       "SELECT id FROM hosts WHERE host_name IS ?1 AND gpu IS ?2 AND driver IS ?3 "
                       "AND cuda IS ?4 AND nccl IS ?5 AND topology IS ?6",
                       &st));
  for (int i = 0; i < 6; i++) fu__bind_text(st, i + 1, v[i]);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *host_id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return fu__fail(db, rc == SQLITE_DONE ? SQLITE_INTERNAL : rc, "find the host");
  return FU_OK;
}

void fu_provenance_local(fu_provenance *p, const char *tool, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  if (gethostname(p->host, sizeof p->host) != 0) p->host[0] = '\0';
  p->host[sizeof p->host - 1] = '\0';
  snprintf(p->tool, sizeof p->tool, "%s", tool ? tool : "fusim");
  char *cmd = argv ? fu_join_argv(argc, argv) : NULL;
  if (cmd) snprintf(p->cmdline, sizeof p->cmdline, "fusim %s", cmd);
  free(cmd);
}

int fu_db_run_begin(fu_db *db, const char *kind, const fu_provenance *prov, int64_t *run_id) {
  static const fu_provenance none; /* read-only, all empty */
  if (!prov) prov = &none;
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  int64_t host_id = 0;
  int s = fu__host_id(db, prov, &host_id);
  sqlite3_stmt *st = NULL;
  if (s == FU_OK)
    s = fu__prepare(db,
                    "INSERT INTO runs (kind, host_id, tool, source_file, cmdline, notes, "
                    "fusim_version, fusim_commit, content_hash) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    &st);
  if (s == FU_OK) {
    fu__bind_text(st, 1, kind);
    if (host_id) sqlite3_bind_int64(st, 2, host_id);
    else sqlite3_bind_null(st, 2);
    fu__bind_text(st, 3, prov->tool);
    fu__bind_text(st, 4, prov->source_file);
    fu__bind_text(st, 5, prov->cmdline);
    fu__bind_text(st, 6, prov->notes);
    fu__bind_text(st, 7, fu_db_build_version());
    fu__bind_text(st, 8, fu_db_build_commit());
    fu__bind_text(st, 9, prov->content_hash);
    s = fu__step_done(db, st, "store the run", run_id);
  }
  sqlite3_finalize(st);
  return fu__tx_close(db, owned, s);
}

int fu_db_import_find(fu_db *db, const char *content_hash, int64_t *run_id) {
  *run_id = 0;
  sqlite3_stmt *st = NULL;
  FU_CHECK(fu__prepare(db,
                       "SELECT max(id) FROM runs WHERE content_hash = ?1 AND kind IN "
                       "('import', 'measure')",
                       &st));
  fu__bind_text(st, 1, content_hash);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *run_id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? FU_OK : fu__fail(db, rc, "look up earlier imports");
}

int fu_db_run_note(fu_db *db, int64_t run_id, const char *notes) {
  if (!notes || !*notes) return FU_OK;
  sqlite3_stmt *st = NULL;
  FU_CHECK(fu__prepare(db,
                       "UPDATE runs SET notes = CASE WHEN notes IS NULL THEN ?2 "
                       "ELSE notes || char(10) || ?2 END WHERE id = ?1",
                       &st));
  sqlite3_bind_int64(st, 1, run_id);
  fu__bind_text(st, 2, notes);
  int s = fu__step_done(db, st, "store a note on the run", NULL);
  sqlite3_finalize(st);
  FU_CHECK(s);
  if (sqlite3_changes(db->h) != 1) {
    fu_error("%s: no run with id %lld", db->path, (long long)run_id);
    return FU_EDATA;
  }
  return FU_OK;
}

/* ---- samples --------------------------------------------------------------------------- */

void fu_sample_init(fu_sample *s) {
  memset(s, 0, sizeof *s);
  s->t_min_us = NAN;
  s->t_median_us = NAN;
  s->t_p95_us = NAN;
  s->busbw_gbps = NAN;
  s->n_wrong = -1;
  s->count = 1;
  s->ranks = 1;
}

int fu_db_sample_insert(fu_db *db, int64_t run_id, const fu_sample *s) {
  if (s->bytes > (uint64_t)INT64_MAX) {
    fu_error("%s: sample size %llu bytes is out of range", db->path, (unsigned long long)s->bytes);
    return FU_EDATA;
  }
  if (!db->ins_sample) {
    int rc = sqlite3_prepare_v3(
        db->h,
        "INSERT INTO samples (run_id, op, link, ranks, bytes, in_place, dtype, algo, proto, "
        "graph, t_min_us, t_median_us, t_p95_us, count, busbw_gbps, n_wrong, nodes, gpus_per_proc, "
        "nccl_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
        "?18, ?19)",
        -1, SQLITE_PREPARE_PERSISTENT, &db->ins_sample, NULL);
    if (rc != SQLITE_OK) return fu__fail(db, rc, "prepare the sample insert");
  }
  sqlite3_stmt *st = db->ins_sample;
  sqlite3_bind_int64(st, 1, run_id);
  fu__bind_text_static(st, 2, s->op);
  fu__bind_text_static(st, 3, s->link);
  sqlite3_bind_int(st, 4, s->ranks);
  sqlite3_bind_int64(st, 5, (sqlite3_int64)s->bytes);
  sqlite3_bind_int(st, 6, s->in_place ? 1 : 0);
  fu__bind_text_static(st, 7, s->dtype);
  fu__bind_text_static(st, 8, s->algo);
  fu__bind_text_static(st, 9, s->proto);
  sqlite3_bind_int(st, 10, s->graph ? 1 : 0);
  fu__bind_real(st, 11, s->t_min_us);
  fu__bind_real(st, 12, s->t_median_us);
  fu__bind_real(st, 13, s->t_p95_us);
  sqlite3_bind_int(st, 14, s->count);
  fu__bind_real(st, 15, s->busbw_gbps);
  if (s->n_wrong >= 0) sqlite3_bind_int(st, 16, s->n_wrong);
  else sqlite3_bind_null(st, 16);
  if (s->nodes >= 1) sqlite3_bind_int(st, 17, s->nodes); /* 0: not given (hosts tell) */
  else sqlite3_bind_null(st, 17);
  if (s->gpus_per_proc >= 1) sqlite3_bind_int(st, 18, s->gpus_per_proc); /* 0: unknown */
  else sqlite3_bind_null(st, 18);
  fu__bind_text_static(st, 19, s->nccl_version); /* "": NULL, unknown */
  return fu__step_done(db, st, "store a sample", NULL);
}

const char *fu_db_sample_layout_sql(const fu_db *db) {
  /* nodes: the column (schema 3), else the hosts the run's host row names ("a; b");
   * gpus_per_process: the column (schema 4), else unknown; nccl_version: the column (schema 5),
   * else unknown. */
#define FU__HOSTS "1 + length(coalesce(h.host_name, '')) - length(replace(coalesce(h.host_name, ''), ';', ''))"
  return db->version >= 5   ? "coalesce(s.nodes, " FU__HOSTS ") AS nodes, s.gpus_per_proc AS gpus_per_process, "
                              "s.nccl_version AS nccl_version"
         : db->version >= 4 ? "coalesce(s.nodes, " FU__HOSTS ") AS nodes, s.gpus_per_proc AS gpus_per_process, "
                              "NULL AS nccl_version"
         : db->version >= 3 ? "coalesce(s.nodes, " FU__HOSTS ") AS nodes, NULL AS gpus_per_process, NULL AS nccl_version"
                            : FU__HOSTS " AS nodes, NULL AS gpus_per_process, NULL AS nccl_version";
#undef FU__HOSTS
}

int fu_db_samples_select(fu_db *db, const char *op, const char *link, int ranks, int64_t run_id,
                         fu_sample **out, size_t *n) {
  *out = NULL;
  *n = 0;
  sqlite3_stmt *st = NULL;
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT op, link, dtype, algo, proto, ranks, in_place, graph, bytes, t_min_us, t_median_us, "
           "t_p95_us, count, busbw_gbps, n_wrong, h.gpu, h.host_name, %s"
           " FROM samples s LEFT JOIN runs r ON r.id = s.run_id LEFT JOIN hosts h ON h.id = r.host_id "
           "WHERE (?1 IS NULL OR op = ?1) AND (?2 IS NULL OR link = ?2) AND (?3 IS NULL OR ranks = ?3) "
           "AND (?4 IS NULL OR run_id = ?4) ORDER BY op, link, ranks, bytes, in_place, s.id",
           fu_db_sample_layout_sql(db));
  FU_CHECK(fu__prepare(db, sql, &st));
  fu__bind_text(st, 1, op);
  fu__bind_text(st, 2, link);
  if (ranks > 0) sqlite3_bind_int(st, 3, ranks);
  if (run_id > 0) sqlite3_bind_int64(st, 4, run_id);
  fu_sample *v = NULL;
  size_t cnt = 0, cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (cnt == cap) {
      size_t ncap = cap ? cap * 2 : 64;
      fu_sample *nv = realloc(v, ncap * sizeof *nv);
      if (!nv) {
        free(v);
        sqlite3_finalize(st);
        return FU_ENOMEM;
      }
      v = nv;
      cap = ncap;
    }
    fu_sample *s = &v[cnt++];
    fu_sample_init(s);
    fu__column_text(st, 0, s->op, sizeof s->op);
    fu__column_text(st, 1, s->link, sizeof s->link);
    fu__column_text(st, 2, s->dtype, sizeof s->dtype);
    fu__column_text(st, 3, s->algo, sizeof s->algo);
    fu__column_text(st, 4, s->proto, sizeof s->proto);
    s->ranks = sqlite3_column_int(st, 5);
    s->in_place = sqlite3_column_int(st, 6);
    s->graph = sqlite3_column_int(st, 7);
    s->bytes = (uint64_t)sqlite3_column_int64(st, 8);
    s->t_min_us = fu__column_real(st, 9);
    s->t_median_us = fu__column_real(st, 10);
    s->t_p95_us = fu__column_real(st, 11);
    s->count = sqlite3_column_int(st, 12);
    s->busbw_gbps = fu__column_real(st, 13);
    s->n_wrong = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 14);
    fu__column_text(st, 15, s->gpu, sizeof s->gpu);
    fu__column_text(st, 16, s->host, sizeof s->host);
    s->nodes = sqlite3_column_int(st, 17);
    if (s->nodes < 1) s->nodes = 1;
    s->gpus_per_proc = sqlite3_column_int(st, 18); /* NULL: 0, unknown */
    fu__column_text(st, 19, s->nccl_version, sizeof s->nccl_version); /* NULL: "", unknown */
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    free(v);
    return fu__fail(db, rc, "read samples");
  }
  *out = v;
  *n = cnt;
  return FU_OK;
}

/* ---- fits ------------------------------------------------------------------------------ */

int fu_db_fit_store(fu_db *db, const char *cmdline, const fu_fit_row *rows, size_t n,
                    int64_t *fit_id) {
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  fu_provenance prov;
  fu_provenance_local(&prov, "fusim fit", 0, NULL);
  snprintf(prov.cmdline, sizeof prov.cmdline, "%s", cmdline ? cmdline : "");
  int64_t run_id = 0;
  int s = fu_db_run_begin(db, "fit", &prov, &run_id);
  sqlite3_stmt *st = NULL;
  if (s == FU_OK) s = fu__prepare(db, "INSERT INTO fits (run_id, cmdline) VALUES (?1, ?2)", &st);
  if (s == FU_OK) {
    sqlite3_bind_int64(st, 1, run_id);
    fu__bind_text(st, 2, cmdline);
    s = fu__step_done(db, st, "store the fit", fit_id);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (s == FU_OK)
    s = fu__prepare(db,
                    "INSERT INTO fit_segments (fit_id, op, link, ranks, algo, segment, lo_bytes, "
                    "hi_bytes, alpha_us, alpha_lo, alpha_hi, beta_us_per_byte, beta_lo, beta_hi, "
                    "max_rel_err, n_samples, method, profile, flags, nodes, gpus_per_proc, gpu, in_place, "
                    "dtype, graph) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                    "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
                    &st);
  for (size_t i = 0; s == FU_OK && i < n; i++) {
    const fu_fit_row *r = &rows[i];
    if (isnan(r->alpha_us) || isnan(r->beta_us_per_byte) || isnan(r->lo_bytes) ||
        isnan(r->hi_bytes)) {
      fu_error("%s: fit segment %d of %s/%s/%d has NaN parameters; nothing stored", db->path,
               r->segment, r->op, r->link, r->ranks);
      s = FU_EDATA;
      break;
    }
    sqlite3_bind_int64(st, 1, *fit_id);
    fu__bind_text(st, 2, r->op);
    fu__bind_text(st, 3, r->link);
    sqlite3_bind_int(st, 4, r->ranks);
    fu__bind_text(st, 5, r->algo);
    sqlite3_bind_int(st, 6, r->segment);
    sqlite3_bind_double(st, 7, r->lo_bytes);
    sqlite3_bind_double(st, 8, r->hi_bytes);
    sqlite3_bind_double(st, 9, r->alpha_us);
    fu__bind_real(st, 10, r->alpha_lo);
    fu__bind_real(st, 11, r->alpha_hi);
    sqlite3_bind_double(st, 12, r->beta_us_per_byte);
    fu__bind_real(st, 13, r->beta_lo);
    fu__bind_real(st, 14, r->beta_hi);
    fu__bind_real(st, 15, r->max_rel_err);
    sqlite3_bind_int(st, 16, r->n_samples);
    fu__bind_text(st, 17, r->method);
    fu__bind_text(st, 18, r->profile);
    fu__bind_text(st, 19, r->flags);
    fu__bind_int_known(st, 20, r->nodes);
    fu__bind_int_known(st, 21, r->gpus_per_proc);
    fu__bind_text(st, 22, r->gpu);
    if (r->in_place >= 0) sqlite3_bind_int(st, 23, r->in_place);
    else sqlite3_bind_null(st, 23);
    fu__bind_text(st, 24, r->dtype);
    if (r->graph >= 0) sqlite3_bind_int(st, 25, r->graph);
    else sqlite3_bind_null(st, 25);
    s = fu__step_done(db, st, "store a fit segment", NULL);
  }
  sqlite3_finalize(st);
  return fu__tx_close(db, owned, s);
}

/* ---- predictions and measurements ------------------------------------------------------ */

/* Id of the row with this unique name in table (plans.plan), made if absent. */
static int fu__named_id(fu_db *db, const char *insert_sql, const char *select_sql, const char *name,
                        const char *doing, int64_t *id) {
  sqlite3_stmt *st = NULL;
  FU_CHECK(fu__prepare(db, insert_sql, &st));
  sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
  int s = fu__step_done(db, st, doing, NULL);
  sqlite3_finalize(st);
  FU_CHECK(s);
  FU_CHECK(fu__prepare(db, select_sql, &st));
  sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? FU_OK : fu__fail(db, rc == SQLITE_DONE ? SQLITE_INTERNAL : rc, doing);
}

static int fu__plan_id(fu_db *db, const char *plan, int64_t *id) {
  return fu__named_id(db, "INSERT INTO plans (plan) VALUES (?1) ON CONFLICT DO NOTHING",
                      "SELECT id FROM plans WHERE plan = ?1", plan, "store the plan", id);
}

/* A string member of a JSON object text ("name", "gpu") into dst, "" when absent. */
static void fu__json_member(const char *canon, const char *key, char *dst, size_t cap) {
  dst[0] = '\0';
  json_t *j = json_loads(canon, 0, NULL);
  const char *v = json_string_value(json_object_get(j, key));
  if (v) snprintf(dst, cap, "%s", v);
  json_decref(j);
}

/* The row of `table` (workloads or profiles) holding this content, made if absent. */
static int fu__content_id(fu_db *db, const char *table, const char *json, const char *name,
                          int64_t run_id, int64_t *id) {
  char hex[FU_HASH_HEX], label[128], gpu[128] = "", what[64];
  char *canon = NULL;
  int is_profile = strcmp(table, "profiles") == 0;
  snprintf(what, sizeof what, "%s: the %s to store", db->path, is_profile ? "profile" : "workload");
  FU_CHECK(fu_hash_json(json, what, &canon, hex));
  fu__json_member(canon, "name", label, sizeof label);
  if (!label[0]) snprintf(label, sizeof label, "%s", name && *name ? name : "(unnamed)");
  if (is_profile) fu__json_member(canon, "gpu", gpu, sizeof gpu);
  char sql[256];
  sqlite3_stmt *st = NULL;
  if (is_profile)
    snprintf(sql, sizeof sql,
             "INSERT INTO profiles (hash, name, json, gpu, run_id) VALUES (?1, ?2, ?3, ?4, ?5) "
             "ON CONFLICT DO NOTHING");
  else
    snprintf(sql, sizeof sql,
             "INSERT INTO workloads (hash, name, json) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING");
  int s = fu__prepare(db, sql, &st);
  if (s == FU_OK) {
    sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, canon, -1, SQLITE_STATIC);
    if (is_profile) {
      fu__bind_text(st, 4, gpu);
      if (run_id > 0) sqlite3_bind_int64(st, 5, run_id);
      else sqlite3_bind_null(st, 5);
    }
    s = fu__step_done(db, st, is_profile ? "store the profile" : "store the workload", NULL);
  }
  sqlite3_finalize(st);
  st = NULL;
  snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE hash = ?1", table);
  if (s == FU_OK) s = fu__prepare(db, sql, &st);
  if (s == FU_OK) {
    sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    else s = fu__fail(db, rc == SQLITE_DONE ? SQLITE_INTERNAL : rc, "find the stored content");
  }
  sqlite3_finalize(st);
  free(canon);
  return s;
}

int fu_db_workload_store(fu_db *db, const char *json, const char *name, int64_t *workload_id) {
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  return fu__tx_close(db, owned, fu__content_id(db, "workloads", json, name, 0, workload_id));
}

int fu_db_profile_store(fu_db *db, const char *json, const char *name, int64_t run_id,
                        int64_t fit_id, int64_t *profile_id) {
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  int s = FU_OK;
  if (run_id <= 0 && fit_id > 0) { /* a fit's profile belongs to the fit's run */
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT run_id FROM fits WHERE id = %lld", (long long)fit_id);
    s = fu__query_int(db, sql, "find the fit's run", &run_id);
  }
  if (s == FU_OK) s = fu__content_id(db, "profiles", json, name, run_id, profile_id);
  if (s == FU_OK && fit_id > 0) {
    sqlite3_stmt *st = NULL;
    s = fu__prepare(db, "UPDATE fits SET profile_id = ?1 WHERE id = ?2", &st);
    if (s == FU_OK) {
      sqlite3_bind_int64(st, 1, *profile_id);
      sqlite3_bind_int64(st, 2, fit_id);
      s = fu__step_done(db, st, "record the fit's profile", NULL);
    }
    sqlite3_finalize(st);
  }
  return fu__tx_close(db, owned, s);
}

/* The buckets of a predict JSON object ("buckets": [{"first", "last", ...}]) as ranges. */
static char *fu__buckets_from_result(const char *json) {
  json_t *j = json ? json_loads(json, 0, NULL) : NULL;
  json_t *b = json_object_get(j, "buckets"), *arr = json_is_array(b) ? json_array() : NULL;
  size_t i;
  json_t *v;
  json_array_foreach(b, i, v) {
    json_t *f = json_object_get(v, "first"), *l = json_object_get(v, "last");
    if (!arr || !json_is_integer(f) || !json_is_integer(l)) {
      json_decref(arr);
      arr = NULL;
      break;
    }
    json_array_append_new(arr, json_pack("[OO]", f, l));
  }
  char *s = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
  json_decref(arr);
  json_decref(j);
  return s;
}

int fu_db_prediction_store(fu_db *db, const fu_prediction_row *p, int64_t *prediction_id) {
  if (!*p->workload || !*p->plan || !*p->comm) {
    fu_error("%s: a prediction needs a workload name, a plan and a comm target", db->path);
    return FU_EDATA;
  }
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  int64_t wid = 0, pid = 0, prof_id = 0, run_id = p->run_id;
  int s = FU_OK;
  if (run_id <= 0) { /* a run of its own, from the command line */
    fu_provenance prov;
    fu_provenance_local(&prov, "fusim", 0, NULL);
    snprintf(prov.cmdline, sizeof prov.cmdline, "%s", p->cmdline);
    s = fu_db_run_begin(db, p->kind[0] ? p->kind : "predict", &prov, &run_id);
  }
  if (s == FU_OK && p->workload_json)
    s = fu__content_id(db, "workloads", p->workload_json, p->workload, 0, &wid);
  else if (s == FU_OK) /* content not given: a label-only row, as schema 1 kept */
    s = fu__named_id(db, "INSERT INTO workloads (name) SELECT ?1 WHERE NOT EXISTS "
                         "(SELECT 1 FROM workloads WHERE name = ?1 AND hash IS NULL)",
                     "SELECT id FROM workloads WHERE name = ?1 AND hash IS NULL", p->workload,
                     "store the workload", &wid);
  if (s == FU_OK && p->profile_json)
    s = fu__content_id(db, "profiles", p->profile_json, p->profile, run_id, &prof_id);
  else if (s == FU_OK && *p->profile)
    s = fu__named_id(db, "INSERT INTO profiles (name) SELECT ?1 WHERE NOT EXISTS "
                         "(SELECT 1 FROM profiles WHERE name = ?1 AND hash IS NULL)",
                     "SELECT id FROM profiles WHERE name = ?1 AND hash IS NULL", p->profile,
                     "store the profile", &prof_id);
  if (s == FU_OK) s = fu__plan_id(db, p->plan, &pid);
  char *buckets = p->buckets_json ? NULL : fu__buckets_from_result(p->json);
  sqlite3_stmt *st = NULL;
  if (s == FU_OK)
    s = fu__prepare(db,
                    "INSERT INTO predictions (workload_id, plan_id, comm, profile, iter_us, "
                    "iter_lo_us, iter_hi_us, compute_us, comm_us, exposed_comm_us, n_ops, "
                    "fusion_buffer_bytes, json, cmdline, run_id, profile_id, framework, ranks, "
                    "buckets) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                    "?14, ?15, ?16, ?17, ?18, ?19)",
                    &st);
  if (s == FU_OK) {
    sqlite3_bind_int64(st, 1, wid);
    sqlite3_bind_int64(st, 2, pid);
    fu__bind_text(st, 3, p->comm);
    fu__bind_text(st, 4, p->profile);
    fu__bind_real(st, 5, p->iter_us);
    fu__bind_real(st, 6, p->iter_lo_us);
    fu__bind_real(st, 7, p->iter_hi_us);
    fu__bind_real(st, 8, p->compute_us);
    fu__bind_real(st, 9, p->comm_us);
    fu__bind_real(st, 10, p->exposed_comm_us);
    sqlite3_bind_int(st, 11, p->n_ops);
    if (p->fusion_buffer_bytes > (uint64_t)INT64_MAX) sqlite3_bind_null(st, 12);
    else sqlite3_bind_int64(st, 12, (sqlite3_int64)p->fusion_buffer_bytes);
    fu__bind_text(st, 13, p->json);
    fu__bind_text(st, 14, p->cmdline);
    sqlite3_bind_int64(st, 15, run_id);
    if (prof_id > 0) sqlite3_bind_int64(st, 16, prof_id);
    else sqlite3_bind_null(st, 16);
    fu__bind_text(st, 17, p->framework);
    if (p->ranks > 0) sqlite3_bind_int(st, 18, p->ranks);
    else sqlite3_bind_null(st, 18);
    fu__bind_text(st, 19, p->buckets_json ? p->buckets_json : buckets);
    s = fu__step_done(db, st, "store the prediction", prediction_id);
  }
  sqlite3_finalize(st);
  free(buckets);
  return fu__tx_close(db, owned, s);
}

int fu_db_workload_find(fu_db *db, const char *name_or_hash, int64_t *id, int *n) {
  *id = 0;
  *n = 0;
  size_t len = strlen(name_or_hash);
  int hex = len >= 8 && len <= 64 && strspn(name_or_hash, "0123456789abcdef") == len;
  sqlite3_stmt *st = NULL;
  FU_CHECK(fu__prepare(db,
                       hex ? "SELECT id FROM workloads WHERE substr(hash, 1, length(?1)) = ?1 "
                             "OR name = ?1 ORDER BY id"
                           : "SELECT id FROM workloads WHERE name = ?1 ORDER BY id",
                       &st));
  sqlite3_bind_text(st, 1, name_or_hash, -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if ((*n)++ == 0) *id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? FU_OK : fu__fail(db, rc, "look up the workload");
}

int fu_db_measured_store(fu_db *db, int64_t run_id, const fu_measured_row *m,
                         int64_t *measurement_id) {
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  int64_t pid = 0;
  int s = fu__plan_id(db, m->plan, &pid);
  sqlite3_stmt *st = NULL;
  if (s == FU_OK)
    s = fu__prepare(db,
                    "INSERT INTO measurements (run_id, workload_id, plan_id, gpus, framework, "
                    "measured_us, spread_us, notes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    &st);
  if (s == FU_OK) {
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, m->workload_id);
    sqlite3_bind_int64(st, 3, pid);
    if (m->gpus > 0) sqlite3_bind_int(st, 4, m->gpus);
    else sqlite3_bind_null(st, 4);
    fu__bind_text(st, 5, m->framework);
    fu__bind_real(st, 6, m->measured_us);
    fu__bind_real(st, 7, m->spread_us);
    fu__bind_text(st, 8, m->notes);
    s = fu__step_done(db, st, "store the measurement", measurement_id);
  }
  sqlite3_finalize(st);
  return fu__tx_close(db, owned, s);
}

int fu_db_measurement_store(fu_db *db, const fu_measurement_row *m, int64_t *measurement_id) {
  int owned;
  FU_CHECK(fu__tx_open(db, &owned));
  int64_t exists = 0;
  int s = FU_OK;
  sqlite3_stmt *st = NULL;
  s = fu__prepare(db, "SELECT count(*) FROM predictions WHERE id = ?1", &st);
  if (s == FU_OK) {
    sqlite3_bind_int64(st, 1, m->prediction_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) exists = sqlite3_column_int64(st, 0);
    else s = fu__fail(db, rc, "look up the prediction");
  }
  sqlite3_finalize(st);
  st = NULL;
  if (s == FU_OK && !exists) {
    fu_error("%s: no prediction with id %lld to attach the measurement to", db->path,
             (long long)m->prediction_id);
    s = FU_EDATA;
  }
  if (s == FU_OK)
    s = fu__prepare(db,
                    "INSERT INTO measurements (prediction_id, measured_us, spread_us, iterations, "
                    "compute_only_us, sm_clock_mhz_start, sm_clock_mhz_end, power_w, git_commit, "
                    "json, run_id, workload_id, plan_id, gpus, framework) SELECT ?1, ?2, ?3, ?4, "
                    "?5, ?6, ?7, ?8, ?9, ?10, run_id, workload_id, plan_id, ranks, framework "
                    "FROM predictions WHERE id = ?1",
                    &st);
  if (s == FU_OK) {
    sqlite3_bind_int64(st, 1, m->prediction_id);
    fu__bind_real(st, 2, m->measured_us);
    fu__bind_real(st, 3, m->spread_us);
    sqlite3_bind_int(st, 4, m->iterations);
    fu__bind_real(st, 5, m->compute_only_us);
    fu__bind_real(st, 6, m->sm_clock_mhz_start);
    fu__bind_real(st, 7, m->sm_clock_mhz_end);
    fu__bind_real(st, 8, m->power_w);
    fu__bind_text(st, 9, m->git_commit);
    fu__bind_text(st, 10, m->json);
    s = fu__step_done(db, st, "store the measurement", measurement_id);
  }
  sqlite3_finalize(st);
  return fu__tx_close(db, owned, s);
}
