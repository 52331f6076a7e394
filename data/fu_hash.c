/* fu_hash.c: SHA-256 (FIPS 180-4) and canonical JSON hashing. */
#include "fu_hash.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

static const uint32_t fu__k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define FU__ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void fu__block(fu_sha256 *s, const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           (uint32_t)p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = FU__ROR(w[i - 15], 7) ^ FU__ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = FU__ROR(w[i - 2], 17) ^ FU__ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5],
           g = s->h[6], h = s->h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = h + (FU__ROR(e, 6) ^ FU__ROR(e, 11) ^ FU__ROR(e, 25)) + ((e & f) ^ (~e & g)) +
                  fu__k[i] + w[i];
    uint32_t t2 = (FU__ROR(a, 2) ^ FU__ROR(a, 13) ^ FU__ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
  s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void fu_sha256_init(fu_sha256 *s) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, iv, sizeof iv);
  s->len = 0;
  s->nbuf = 0;
}

void fu_sha256_update(fu_sha256 *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->len += n;
  while (n > 0) {
    if (s->nbuf == 0 && n >= 64) { /* whole blocks straight from the input */
      fu__block(s, p);
      p += 64, n -= 64;
      continue;
    }
    size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;
    memcpy(s->buf + s->nbuf, p, k);
    s->nbuf += k, p += k, n -= k;
    if (s->nbuf == 64) {
      fu__block(s, s->buf);
      s->nbuf = 0;
    }
  }
}

void fu_sha256_final(fu_sha256 *s, char hex[FU_HASH_HEX]) {
  uint64_t bits = s->len * 8;
  unsigned char pad[72] = {0x80};
  size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
  for (int i = 0; i < 8; i++) pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
  fu_sha256_update(s, pad, npad + 8);
  for (int i = 0; i < 8; i++) snprintf(hex + 8 * i, 9, "%08x", (unsigned)s->h[i]);
}

void fu_hash_bytes(const void *data, size_t n, char hex[FU_HASH_HEX]) {
  fu_sha256 s;
  fu_sha256_init(&s);
  fu_sha256_update(&s, data, n);
  fu_sha256_final(&s, hex);
}

int fu_hash_json(const char *json_text, const char *what, char **canon, char hex[FU_HASH_HEX]) {
  *canon = NULL;
  json_error_t err;
  json_t *j = json_loads(json_text ? json_text : "", JSON_DECODE_ANY, &err);
  if (!j) {
    fu_error("%s: not valid JSON (line %d: %s)", what, err.line, err.text);
    return FU_EDATA;
  }
  char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
  json_decref(j);
  if (!s) return FU_ENOMEM;
  fu_hash_bytes(s, strlen(s), hex);
  *canon = s;
  return FU_OK;
}
