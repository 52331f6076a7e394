/* fu_check.c: whole-database checks for `fusim report check` (fu_check.h). */
#include "fu_check.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_hash.h"

/* The checker's state: the connection and where problems go. */
typedef struct fu__chk {
  sqlite3 *h;                /* read-only connection */
  FILE *out;                 /* one line per problem */
  size_t problems;           /* problems found */
  size_t checks;             /* rules checked (a CHECK, a NOT NULL, a type, a hash, a pragma) */
} fu__chk;

static void fu__problem(fu__chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fu__problem(fu__chk *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(c->out, fmt, ap);
  fputc('\n', c->out);
  va_end(ap);
  c->problems++;
}

/* Runs sql; every row's first column (text) goes to row(c, text, arg). A query that fails
 * (a damaged page) is itself a problem, named by what. */
static void fu__each(fu__chk *c, const char *sql, const char *what,
                     void (*row)(fu__chk *, const char *, void *), void *arg) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c->h, sql, -1, &st, NULL);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    row(c, t ? (const char *)t : "", arg);
  }
  if (rc != SQLITE_DONE) fu__problem(c, "%s: could not be checked: %s", what, sqlite3_errmsg(c->h));
  sqlite3_finalize(st);
}

static void fu__integrity_row(fu__chk *c, const char *t, void *arg) {
  (void)arg;
  if (strcmp(t, "ok") != 0) fu__problem(c, "integrity_check: %s", t);
}

static void fu__fk_row(fu__chk *c, const char *t, void *arg) {
  (void)arg;
  fu__problem(c, "foreign_key_check: %s", t);
}

/* One count query: a problem naming what when it counts rows. */
static void fu__count(fu__chk *c, const char *sql, const char *what) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c->h, sql, -1, &st, NULL);
  c->checks++;
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    long long n = sqlite3_column_int64(st, 0);
    if (n > 0) {
      const unsigned char *ids = sqlite3_column_text(st, 1);
      fu__problem(c, "%s: broken by %lld row%s (rowid %s%s)", what, n, n == 1 ? "" : "s",
                  ids ? (const char *)ids : "?", n > 5 ? ", ..." : "");
    }
  } else {
    fu__problem(c, "%s: could not be checked: %s", what, sqlite3_errmsg(c->h));
  }
  sqlite3_finalize(st);
}

/* A rule over every row of table: the rows where `broken` (an SQL condition) holds break it. */
static void fu__rule(fu__chk *c, const char *table, const char *broken, const char *what) {
  char *q = sqlite3_mprintf("SELECT count(*), (SELECT group_concat(r, ', ') FROM (SELECT rowid AS r "
                            "FROM \"%w\" WHERE %s LIMIT 5)) FROM \"%w\" WHERE %s",
                            table, broken, table, broken);
  if (q) fu__count(c, q, what);
  else fu__problem(c, "%s: out of memory", what);
  sqlite3_free(q);
}

/* Past a quoted run ('...', "...", `...`, [...]) starting at p; the end of s if unterminated. */
static const char *fu__skip_quoted(const char *p) {
  char close = *p == '[' ? ']' : *p;
  for (p++; *p; p++) {
    if (*p == close) {
      if (close != ']' && p[1] == close) p++; /* a doubled quote stays inside */
      else return p + 1;
    }
  }
  return p;
}

/* Past a comment (-- to the line's end, or a block comment) starting at p, else p. */
static const char *fu__skip_comment(const char *p) {
  if (p[0] == '-' && p[1] == '-') return p + strcspn(p, "\n");
  if (p[0] == '/' && p[1] == '*') {
    const char *e = strstr(p + 2, "*/");
    return e ? e + 2 : p + strlen(p);
  }
  return p;
}

/* Every CHECK (...) expression of a CREATE TABLE statement: the expression's text (malloc'd)
 * goes to fn. Strings, quoted names and comments are skipped, parentheses balanced. */
static void fu__checks_of(fu__chk *c, const char *table, const char *sql) {
  for (const char *p = sql; *p;) {
    const char *q = fu__skip_comment(p);
    if (q != p) {
      p = q;
      continue;
    }
    if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
      p = fu__skip_quoted(p);
      continue;
    }
    int word = strncasecmp(p, "check", 5) == 0 && (p == sql || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
               !(isalnum((unsigned char)p[5]) || p[5] == '_');
    if (!word) {
      p++;
      continue;
    }
    const char *e = p + 5;
    while (isspace((unsigned char)*e)) e++;
    if (*e != '(') {
      p = e;
      continue;
    }
    const char *start = e + 1;
    int depth = 1;
    for (e = start; *e && depth > 0;) {
      const char *k = fu__skip_comment(e);
      if (k != e) e = k;
      else if (*e == '\'' || *e == '"' || *e == '`' || *e == '[') e = fu__skip_quoted(e);
      else {
        if (*e == '(') depth++;
        else if (*e == ')') depth--;
        e++;
      }
    }
    if (depth != 0) return; /* unbalanced: SQLite would not have taken the schema */
    int len = (int)(e - 1 - start);
    char *broken = sqlite3_mprintf("NOT (%.*s)", len, start);
    char *what = sqlite3_mprintf("%s: CHECK (%.*s)", table, len, start);
    if (broken && what) fu__rule(c, table, broken, what);
    sqlite3_free(broken);
    sqlite3_free(what);
    p = e;
  }
}

/* NOT NULL columns and STRICT types of one table, from PRAGMA table_info. */
static void fu__columns_of(fu__chk *c, const char *table, int strict) {
  char *sql = sqlite3_mprintf("SELECT name, type, \"notnull\", pk FROM pragma_table_info('%q')", table);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c->h, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *col = (const char *)sqlite3_column_text(st, 0);
    const char *type = (const char *)sqlite3_column_text(st, 1);
    int notnull = sqlite3_column_int(st, 2), pk = sqlite3_column_int(st, 3);
    if (!col) continue;
    if (notnull && !pk) {
      char *broken = sqlite3_mprintf("\"%w\" IS NULL", col);
      char *what = sqlite3_mprintf("%s.%s: NOT NULL", table, col);
      if (broken && what) fu__rule(c, table, broken, what);
      sqlite3_free(broken);
      sqlite3_free(what);
    }
    /* STRICT: INTEGER holds integers, REAL reals (integers are stored as reals), TEXT text */
    const char *want = !strict || !type ? NULL
                       : !strcasecmp(type, "INTEGER") || !strcasecmp(type, "INT") ? "'integer'"
                       : !strcasecmp(type, "REAL") ? "'real'"
                       : !strcasecmp(type, "TEXT") ? "'text'"
                       : !strcasecmp(type, "BLOB") ? "'blob'" : NULL;
    if (want && !pk) {
      char *broken = sqlite3_mprintf("typeof(\"%w\") NOT IN (%s, 'null')", col, want);
      char *what = sqlite3_mprintf("%s.%s: STRICT type %s", table, col, type);
      if (broken && what) fu__rule(c, table, broken, what);
      sqlite3_free(broken);
      sqlite3_free(what);
    }
  }
  if (rc != SQLITE_DONE) fu__problem(c, "%s: columns could not be read: %s", table, sqlite3_errmsg(c->h));
  sqlite3_finalize(st);
}

/* Content hashes: a table with hash and json columns keeps hash = SHA-256 of the canonical JSON. */
static void fu__hashes_of(fu__chk *c, const char *table) {
  char *sql = sqlite3_mprintf("SELECT count(*) FROM pragma_table_info('%q') WHERE name IN "
                              "('hash', 'json')", table);
  sqlite3_stmt *st = NULL;
  int has = 0;
  if (sqlite3_prepare_v2(c->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    has = sqlite3_column_int(st, 0) == 2;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  if (!has) return;
  sql = sqlite3_mprintf("SELECT rowid, hash, json, json_valid(json) FROM \"%w\" WHERE hash IS NOT NULL AND json IS "
                        "NOT NULL", table);
  int rc = sqlite3_prepare_v2(c->h, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    long long id = sqlite3_column_int64(st, 0);
    const char *hash = (const char *)sqlite3_column_text(st, 1);
    const char *json = (const char *)sqlite3_column_text(st, 2);
    char *canon = NULL, hex[FU_HASH_HEX];
    c->checks++;
    /* json_valid first: fu_hash_json would name a text that is not JSON on stderr */
    if (!sqlite3_column_int(st, 3) || fu_hash_json(json ? json : "", table, &canon, hex) != FU_OK)
      fu__problem(c, "%s rowid %lld: json is not JSON", table, id);
    else if (!hash || strcmp(hash, hex) != 0)
      fu__problem(c, "%s rowid %lld: hash %.16s... is not the SHA-256 of its JSON (%.16s...)",
                  table, id, hash ? hash : "", hex);
    free(canon);
  }
  if (rc != SQLITE_DONE) fu__problem(c, "%s: hashes could not be checked: %s", table, sqlite3_errmsg(c->h));
  sqlite3_finalize(st);
}

/* A WAL database in a folder it may not write: c->h reopened as immutable (fu_db_reopen_immutable).
 * FU_OK, or a problem said and not OK when the reopened file cannot be opened either. */
static int fu__readonly_folder(fu__chk *c, const char *path) {
  int reopened;
  if (fu_db_reopen_immutable(&c->h, path, &reopened) == SQLITE_OK) return FU_OK;
  fu__problem(c, "the file cannot be opened as SQLite: %s", c->h ? sqlite3_errmsg(c->h) : "?");
  sqlite3_close_v2(c->h);
  c->h = NULL;
  return FU_EDB;
}

int fu_db_check(const char *path, FILE *out, size_t *nproblems, size_t *nchecks) {
  *nproblems = 0;
  if (nchecks) *nchecks = 0;
  struct stat sb;
  if (stat(path, &sb) != 0) {
    fu_error("%s: no such database (%s)", path, strerror(errno));
    return FU_ENOINPUT;
  }
  if (!S_ISREG(sb.st_mode)) {
    fu_error("%s: not a regular file, not a database file", path);
    return FU_EUSAGE;
  }
  fu__chk c = {NULL, out, 0, 0};
  char *oname = fu_db_sqlite_name(path); /* "file:x.db" is that file, not a URI */
  if (!oname) return FU_ENOMEM;
  int orc = sqlite3_open_v2(oname, &c.h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
  free(oname);
  if (orc != SQLITE_OK) {
    fu__problem(&c, "the file cannot be opened as SQLite: %s", c.h ? sqlite3_errmsg(c.h) : "?");
    sqlite3_close_v2(c.h);
    *nproblems = c.problems;
    return FU_OK;
  }
  /* A WAL database in a folder we may not write: readers need the -shm file, which cannot be
   * made there; read the file as immutable, as fu_db_open does (nobody can be writing it). */
  if (fu__readonly_folder(&c, path) != FU_OK) {
    *nproblems = c.problems;
    return FU_OK;
  }
  sqlite3_busy_timeout(c.h, 5000);
  sqlite3_exec(c.h, "PRAGMA query_only = ON", NULL, NULL, NULL);
  /* the schema version */
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c.h, "PRAGMA user_version", -1, &st, NULL);
  c.checks++;
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    long long uv = sqlite3_column_int64(st, 0);
    sqlite3_stmt *nt = NULL;
    int empty = uv == 0 && sqlite3_prepare_v2(c.h, "SELECT count(*) FROM sqlite_schema", -1, &nt, NULL) == SQLITE_OK &&
                sqlite3_step(nt) == SQLITE_ROW && sqlite3_column_int64(nt, 0) == 0;
    sqlite3_finalize(nt);
    if (empty) { /* as the other reports say: a command that failed before storing anything left it */
      sqlite3_finalize(st);
      sqlite3_close_v2(c.h);
      fu_error("%s: an empty database: nothing has been stored in it yet", path);
      return FU_ENOINPUT;
    }
    if (uv < 1 || uv > fu_db_schema_version())
      fu__problem(&c, "user_version %lld: not a schema version this fusim knows (1 to %d)", uv,
                  fu_db_schema_version());
  } else {
    fu__problem(&c, "user_version: could not be read: %s", sqlite3_errmsg(c.h));
  }
  sqlite3_finalize(st);
  c.checks++;
  fu__each(&c, "PRAGMA integrity_check(100)", "integrity_check", fu__integrity_row, NULL);
  c.checks++;
  fu__each(&c, "SELECT \"table\" || ' rowid ' || rowid || ' refers to a missing ' || parent "
               "FROM pragma_foreign_key_check", "foreign_key_check", fu__fk_row, NULL);
  /* every table's own rules, from the schema the file holds */
  rc = sqlite3_prepare_v2(c.h, "SELECT s.name, s.sql, t.strict FROM sqlite_schema s JOIN "
                               "pragma_table_list t ON t.name = s.name AND t.schema = 'main' "
                               "WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite_%' ORDER BY s.name", -1, &st, NULL);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    const char *sql = (const char *)sqlite3_column_text(st, 1);
    if (!name || !sql) continue;
    char *n = strdup(name), *s = strdup(sql);
    if (n && s) {
      fu__checks_of(&c, n, s);
      fu__columns_of(&c, n, sqlite3_column_int(st, 2));
      fu__hashes_of(&c, n);
    } else {
      fu__problem(&c, "out of memory");
    }
    free(n);
    free(s);
  }
  if (rc != SQLITE_DONE) fu__problem(&c, "the schema could not be read: %s", sqlite3_errmsg(c.h));
  sqlite3_finalize(st);
  sqlite3_close_v2(c.h);
  *nproblems = c.problems;
  if (nchecks) *nchecks = c.checks;
  return FU_OK;
}
