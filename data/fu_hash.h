/* fu_hash.h: content hashes for the results database: SHA-256 (FIPS 180-4) of bytes, and of a
 * JSON document in canonical form, so that a workload or profile is identified by what it holds,
 * never by its name. None of fusim's dependencies (GSL, SQLite, Jansson) computes a hash, hence
 * this small implementation, checked against the FIPS test vectors in tests/data/test_db.c. */
#ifndef FU_HASH_H
#define FU_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FU_HASH_HEX 65       /* 64 hex digits and the NUL */

typedef struct fu_sha256 {
  uint32_t h[8];             /* chaining state */
  uint64_t len;              /* bytes hashed so far */
  unsigned char buf[64];     /* partial block */
  size_t nbuf;               /* bytes in buf */
} fu_sha256;

void fu_sha256_init(fu_sha256 *s);
void fu_sha256_update(fu_sha256 *s, const void *data, size_t n);
void fu_sha256_final(fu_sha256 *s, char hex[FU_HASH_HEX]); /* lower-case hex digest */

/* SHA-256 of n bytes as hex. */
void fu_hash_bytes(const void *data, size_t n, char hex[FU_HASH_HEX]);

/* The canonical form of a JSON text: parsed and dumped by Jansson with sorted keys, no
 * whitespace and reals to 17 significant digits (so every double round-trips), and its hash.
 * Two files that differ only in layout or key order get one hash. *canon is malloc'd.
 * FU_EDATA (message naming `what`) when the text is not JSON. */
int fu_hash_json(const char *json_text, const char *what, char **canon, char hex[FU_HASH_HEX]);

#endif
