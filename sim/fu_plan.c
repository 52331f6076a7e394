/* fu_plan.c: fusion plans: parsing the --fusion / --comm values and plan files, the canonical
 * plan string, and the assignment of gradients to buckets for every plan kind.
 *
 * Bucket rules, as the frameworks implement them:
 *  - cap (PyTorch DDP, reducer.cpp compute_bucket_assignment_by_size): walk the gradients in
 *    ready order (DDP rebuilds its buckets in the order gradients became ready after the first
 *    iteration), add the tensor, and close the bucket once its size reaches or exceeds the
 *    limit; the first bucket's limit is first_cap, every later one cap. A tensor is never split.
 *  - horovod: every CYCLE the background thread takes the tensors that became ready and not yet
 *    sent, and fuses them in order into buffers of at most THRESHOLD bytes (a tensor larger than
 *    the threshold goes alone). Cycles are counted from the start of backward.
 *  - defaults: "ddp" is cap:25MiB,first:1MiB (bucket_cap_mb = 25, kDefaultFirstBucketBytes);
 *    "horovod" alone is horovod:128MiB,1ms, the defaults since Horovod 0.21 (release notes:
 *    "Changed default cycle time from 5ms to 1ms and fusion threshold from 64MB to 128MB",
 *    #2468; docs/tensor-fusion.rst still says 64 MB). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fu_common.h"
#include "fu_search.h"
#include "fu_sim.h"

void fu_plan_init(fu_plan *p) {
  memset(p, 0, sizeof *p);
  p->kind = FU_FUSION_NONE;
  p->overlap = 1;
  p->pack_view = 0;
  p->comm_streams = 1;
}

/* "1ms", "250us", "0.5 ms", "1s" or a plain number of microseconds. */
static int fu__parse_time_us(const char *s, double *out) {
  char buf[64];
  size_t n = strlen(s);
  if (n == 0 || n >= sizeof buf) return FU_EDATA;
  memcpy(buf, s, n + 1);
  double mult = 1.0;
  while (n > 0 && buf[n - 1] == ' ') buf[--n] = '\0';
  if (n > 2 && strcmp(buf + n - 2, "us") == 0) buf[n - 2] = '\0';
  else if (n > 2 && strcmp(buf + n - 2, "ms") == 0) buf[n - 2] = '\0', mult = 1e3;
  else if (n > 1 && buf[n - 1] == 's') buf[n - 1] = '\0', mult = 1e6;
  double v;
  if (fu_parse_double(buf, &v) != FU_OK || v < 0) return FU_EDATA;
  *out = v * mult;
  return FU_OK;
}

/* Size for the canonical string: exact, parseable again, compact. */
static const char *fu__size_str(uint64_t b, char *buf, size_t len) {
  if (b != 0 && b % (1ull << 30) == 0) snprintf(buf, len, "%lluGiB", (unsigned long long)(b >> 30));
  else if (b != 0 && b % (1ull << 20) == 0) snprintf(buf, len, "%lluMiB", (unsigned long long)(b >> 20));
  else if (b != 0 && b % 1024 == 0) snprintf(buf, len, "%lluKiB", (unsigned long long)(b >> 10));
  else snprintf(buf, len, "%llu", (unsigned long long)b);
  return buf;
}

/* Parses SIZE of a --fusion value; prints `what: 'text': why` on failure. */
static int fu__plan_size(const char *what, const char *full, const char *text, const char *role,
                         uint64_t *out) {
  if (fu_parse_size(text, out) != FU_OK) {
    fu_error("%s '%s': %s '%s' is not a size (bytes, or a number with B, KiB, MiB, GiB)", what,
             full, role, text);
    return FU_EUSAGE;
  }
  if (*out == 0) {
    fu_error("%s '%s': a %s of 0 puts nothing in a bucket; use 'none' for one operation per "
             "tensor",
             what, full, role);
    return FU_EUSAGE;
  }
  return FU_OK;
}

/* The parser behind fu_plan_parse_fusion and plan files; `what` names the source. */
static int fu__plan_parse_fusion(const char *s, const char *what, fu_plan *p) {
  if (!s || !*s) {
    fu_error("%s: empty fusion plan; expected none|single|cap:SIZE[,first:SIZE]|"
             "horovod:SIZE[,CYCLE]|buckets:FILE|optimal[:MEMCAP]|mgwfbp",
             what);
    return FU_EUSAGE;
  }
  const char *colon = strchr(s, ':');
  size_t klen = colon ? (size_t)(colon - s) : strlen(s);
  const char *arg = colon ? colon + 1 : NULL;
  char buf[600];
  fu_plan q = *p;
  q.cap_bytes = 0;
  q.first_cap_bytes = 0;
  q.cycle_us = 0;
  q.mem_cap_bytes = 0;
  q.buckets_file[0] = '\0';
#define FU__IS(name) (klen == strlen(name) && strncmp(s, name, klen) == 0)
  if (FU__IS("none") || FU__IS("single") || FU__IS("mgwfbp") || FU__IS("ddp")) {
    if (arg) {
      fu_error("%s '%s': '%.*s' takes no argument", what, s, (int)klen, s);
      return FU_EUSAGE;
    }
    if (FU__IS("none")) q.kind = FU_FUSION_NONE;
    else if (FU__IS("single")) q.kind = FU_FUSION_SINGLE;
    else if (FU__IS("mgwfbp")) q.kind = FU_FUSION_MGWFBP;
    else {
      q.kind = FU_FUSION_CAP; /* "ddp": PyTorch DDP's default buckets */
      q.cap_bytes = FU_DDP_CAP_BYTES;
      q.first_cap_bytes = FU_DDP_FIRST_BYTES;
    }
  } else if (FU__IS("cap")) {
    if (!arg || !*arg) {
      fu_error("%s '%s': cap needs a size, e.g. cap:25MiB or cap:25MiB,first:1MiB", what, s);
      return FU_EUSAGE;
    }
    if (strlen(arg) >= sizeof buf) return fu_error("%s: value too long", what), FU_EUSAGE;
    strcpy(buf, arg);
    char *comma = strchr(buf, ',');
    if (comma) *comma = '\0';
    q.kind = FU_FUSION_CAP;
    FU_CHECK(fu__plan_size(what, s, buf, "cap", &q.cap_bytes));
    if (comma) {
      const char *f = comma + 1;
      if (strncmp(f, "first:", 6) != 0) {
        fu_error("%s '%s': after the cap expected ',first:SIZE', got ',%s'", what, s, f);
        return FU_EUSAGE;
      }
      FU_CHECK(fu__plan_size(what, s, f + 6, "first bucket cap", &q.first_cap_bytes));
    }
  } else if (FU__IS("horovod")) {
    q.kind = FU_FUSION_HOROVOD;
    q.cap_bytes = FU_HOROVOD_THRESHOLD_BYTES;
    q.cycle_us = FU_HOROVOD_CYCLE_US;
    if (arg && *arg) {
      if (strlen(arg) >= sizeof buf) return fu_error("%s: value too long", what), FU_EUSAGE;
      strcpy(buf, arg);
      char *comma = strchr(buf, ',');
      if (comma) *comma = '\0';
      FU_CHECK(fu__plan_size(what, s, buf, "fusion threshold", &q.cap_bytes));
      if (comma && fu__parse_time_us(comma + 1, &q.cycle_us) != FU_OK) {
        fu_error("%s '%s': cycle time '%s' is not a time >= 0 (microseconds, or with us, ms, s)",
                 what, s, comma + 1);
        return FU_EUSAGE;
      }
    } else if (arg) {
      fu_error("%s '%s': horovod needs THRESHOLD[,CYCLE] after the colon, or nothing for "
               "Horovod's defaults",
               what, s);
      return FU_EUSAGE;
    }
  } else if (FU__IS("buckets")) {
    if (!arg || !*arg) {
      fu_error("%s '%s': buckets needs a file, e.g. buckets:plan_buckets.json", what, s);
      return FU_EUSAGE;
    }
    if (strlen(arg) >= sizeof q.buckets_file) {
      fu_error("%s '%s': bucket file path longer than %zu characters", what, s,
               sizeof q.buckets_file - 1);
      return FU_EUSAGE;
    }
    q.kind = FU_FUSION_BUCKETS;
    strcpy(q.buckets_file, arg);
  } else if (FU__IS("optimal")) {
    q.kind = FU_FUSION_OPTIMAL;
    if (arg) FU_CHECK(fu__plan_size(what, s, arg, "memory cap", &q.mem_cap_bytes));
  } else {
    fu_error("%s '%s': unknown fusion kind '%.*s'; expected none, single, cap, horovod, "
             "buckets, optimal or mgwfbp",
             what, s, (int)klen, s);
    return FU_EUSAGE;
  }
#undef FU__IS
  *p = q;
  return FU_OK;
}

int fu_plan_parse_fusion(const char *s, fu_plan *p) { return fu__plan_parse_fusion(s, "--fusion", p); }

const char *fu_plan_string(const fu_plan *p, char *buf, size_t len) {
  char a[32], b[32], f[640];
  switch (p->kind) {
  case FU_FUSION_NONE: snprintf(f, sizeof f, "none"); break;
  case FU_FUSION_SINGLE: snprintf(f, sizeof f, "single"); break;
  case FU_FUSION_CAP:
    if (p->first_cap_bytes && p->first_cap_bytes != p->cap_bytes)
      snprintf(f, sizeof f, "cap:%s,first:%s", fu__size_str(p->cap_bytes, a, sizeof a),
               fu__size_str(p->first_cap_bytes, b, sizeof b));
    else
      snprintf(f, sizeof f, "cap:%s", fu__size_str(p->cap_bytes, a, sizeof a));
    break;
  case FU_FUSION_HOROVOD:
    if (p->cycle_us >= 1000 && fmod(p->cycle_us, 1000.0) == 0)
      snprintf(b, sizeof b, "%.0fms", p->cycle_us / 1000);
    else
      snprintf(b, sizeof b, "%.17gus", p->cycle_us);
    snprintf(f, sizeof f, "horovod:%s,%s", fu__size_str(p->cap_bytes, a, sizeof a), b);
    break;
  case FU_FUSION_BUCKETS: snprintf(f, sizeof f, "buckets:%s", p->buckets_file); break;
  case FU_FUSION_OPTIMAL:
    if (p->mem_cap_bytes)
      snprintf(f, sizeof f, "optimal:%s", fu__size_str(p->mem_cap_bytes, a, sizeof a));
    else
      snprintf(f, sizeof f, "optimal");
    break;
  case FU_FUSION_MGWFBP: snprintf(f, sizeof f, "mgwfbp"); break;
  default: snprintf(f, sizeof f, "?"); break;
  }
  snprintf(buf, len, "%s overlap=%s pack=%s streams=%d", f, p->overlap ? "on" : "off",
           p->pack_view ? "view" : "copy", p->comm_streams);
  return buf;
}

static int fu__parse_overlap(const char *s, const char *what, fu_plan *p) {
  if (s && (strcmp(s, "on") == 0 || strcmp(s, "true") == 0 || strcmp(s, "1") == 0)) p->overlap = 1;
  else if (s && (strcmp(s, "off") == 0 || strcmp(s, "false") == 0 || strcmp(s, "0") == 0)) p->overlap = 0;
  else {
    fu_error("%s '%s': expected on or off", what, s ? s : "");
    return FU_EUSAGE;
  }
  return FU_OK;
}

static int fu__parse_pack(const char *s, const char *what, fu_plan *p) {
  if (s && strcmp(s, "copy") == 0) p->pack_view = 0;
  else if (s && strcmp(s, "view") == 0) p->pack_view = 1;
  else {
    fu_error("%s '%s': expected copy (pack into a fusion buffer) or view (gradients live in the "
             "bucket)",
             what, s ? s : "");
    return FU_EUSAGE;
  }
  return FU_OK;
}

int fu_plan_parse_overlap(const char *s, fu_plan *p) { return fu__parse_overlap(s, "--overlap", p); }
int fu_plan_parse_pack(const char *s, fu_plan *p) { return fu__parse_pack(s, "--pack", p); }

int fu_plan_parse_streams(const char *s, fu_plan *p) {
  long v;
  if (fu_parse_long(s, 1, 64, &v) != FU_OK) {
    fu_error("--comm-streams '%s': expected a whole number from 1 to 64", s ? s : "");
    return FU_EUSAGE;
  }
  p->comm_streams = (int)v;
  return FU_OK;
}

int fu_plan_parse_json(const char *text, const char *what, fu_plan *p) {
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  if (!root) {
    fu_error("%s:%d: not valid JSON: %s", what, err.line, err.text);
    return FU_EDATA;
  }
  int st = FU_OK;
  char w[600];
  fu_plan q = *p;
  if (!json_is_object(root)) {
    fu_error("%s: a plan file is a JSON object with keys fusion, overlap, pack, comm_streams", what);
    st = FU_EDATA;
    goto done;
  }
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    snprintf(w, sizeof w, "%s: %s", what, key);
    if (strcmp(key, "fusion") == 0) {
      if (!json_is_string(v)) {
        fu_error("%s: expected a string such as \"cap:25MiB,first:1MiB\"", w);
        st = FU_EDATA;
      } else if (fu__plan_parse_fusion(json_string_value(v), w, &q) != FU_OK) {
        st = FU_EDATA;
      }
    } else if (strcmp(key, "overlap") == 0) {
      if (json_is_boolean(v)) q.overlap = json_is_true(v);
      else if (!json_is_string(v) || fu__parse_overlap(json_string_value(v), w, &q) != FU_OK) {
        if (!json_is_string(v)) fu_error("%s: expected \"on\", \"off\", true or false", w);
        st = FU_EDATA;
      }
    } else if (strcmp(key, "pack") == 0) {
      if (!json_is_string(v) || fu__parse_pack(json_string_value(v), w, &q) != FU_OK) {
        if (!json_is_string(v)) fu_error("%s: expected \"copy\" or \"view\"", w);
        st = FU_EDATA;
      }
    } else if (strcmp(key, "comm_streams") == 0) {
      if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 64) {
        fu_error("%s: expected a whole number from 1 to 64", w);
        st = FU_EDATA;
      } else {
        q.comm_streams = (int)json_integer_value(v);
      }
    } else {
      fu_error("%s: unknown key (a plan file has fusion, overlap, pack, comm_streams)", w);
      st = FU_EDATA;
    }
    if (st != FU_OK) goto done;
  }
  *p = q;
done:
  json_decref(root);
  return st;
}

int fu_plan_parse_string(const char *s, const char *what, fu_plan *p) {
  char buf[1024];
  if (!s || strlen(s) >= sizeof buf) {
    fu_error("%s: plan is empty or longer than %zu characters", what, sizeof buf - 1);
    return FU_EDATA;
  }
  snprintf(buf, sizeof buf, "%s", s);
  fu_plan q;
  fu_plan_init(&q);
  char *save = NULL;
  char *tok = strtok_r(buf, " \t", &save);
  if (!tok) {
    fu_error("%s: plan is empty", what);
    return FU_EDATA;
  }
  if (fu__plan_parse_fusion(tok, what, &q) != FU_OK) return FU_EDATA;
  while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
    char *eq = strchr(tok, '=');
    long n;
    int st = FU_EDATA;
    if (eq) *eq = '\0';
    if (!eq) fu_error("%s: '%s' is not KEY=VALUE (overlap=, pack=, streams=)", what, tok);
    else if (!strcmp(tok, "overlap")) st = fu__parse_overlap(eq + 1, what, &q);
    else if (!strcmp(tok, "pack")) st = fu__parse_pack(eq + 1, what, &q);
    else if (!strcmp(tok, "streams") || !strcmp(tok, "comm-streams") ||
             !strcmp(tok, "comm_streams")) {
      if (fu_parse_long(eq + 1, 1, 64, &n) == FU_OK) {
        q.comm_streams = (int)n;
        st = FU_OK;
      } else {
        fu_error("%s: streams '%s' is not a whole number from 1 to 64", what, eq + 1);
      }
    } else {
      fu_error("%s: unknown plan key '%s' (overlap, pack, streams)", what, tok);
    }
    if (st != FU_OK) return FU_EDATA;
  }
  *p = q;
  return FU_OK;
}

int fu_plan_load(const char *path, fu_plan *p) {
  char *text;
  size_t len;
  FU_CHECK(fu_read_file(path, &text, &len));
  fu_plan before = *p;
  int st = fu_plan_parse_json(text, path, p);
  free(text);
  /* A plan file's "buckets:FILE" names FILE beside the plan file (as a user who keeps the two
   * together expects), else, where no such file is there, from the current folder. */
  const char *slash = strrchr(path, '/');
  if (st == FU_OK && p->kind == FU_FUSION_BUCKETS && p->buckets_file[0] != '/' && slash &&
      (before.kind != FU_FUSION_BUCKETS || strcmp(before.buckets_file, p->buckets_file) != 0)) {
    char near[sizeof p->buckets_file];
    int n = snprintf(near, sizeof near, "%.*s/%s", (int)(slash - path), path, p->buckets_file);
    if (n > 0 && (size_t)n < sizeof near && access(near, F_OK) == 0) strcpy(p->buckets_file, near);
  }
  return st;
}

/* ---- communication targets ---- */

int fu_comm_parse(const char *s, fu_comm *c) {
  memset(c, 0, sizeof *c);
  if (!s || !*s) {
    fu_error("--comm: empty; expected allreduce:RANKS:LINK, reducescatter:RANKS:LINK, "
             "allgather:RANKS:LINK or offload");
    return FU_EUSAGE;
  }
  if (strcmp(s, "offload") == 0) {
    c->kind = FU_COMM_OFFLOAD;
    c->ranks = 1;
    strcpy(c->link, "pcie_d2h");
    return FU_OK;
  }
  char buf[128];
  if (strlen(s) >= sizeof buf) {
    fu_error("--comm '%.40s...': too long", s);
    return FU_EUSAGE;
  }
  strcpy(buf, s);
  char *r = strchr(buf, ':');
  char *l = r ? strchr(r + 1, ':') : NULL;
  if (!r || !l) {
    fu_error("--comm '%s': expected OP:RANKS:LINK (e.g. allreduce:8:nvlink) or offload", s);
    return FU_EUSAGE;
  }
  *r++ = '\0';
  *l++ = '\0';
  if (strcmp(buf, "allreduce") == 0) c->kind = FU_COMM_ALLREDUCE;
  else if (strcmp(buf, "reducescatter") == 0) c->kind = FU_COMM_REDUCESCATTER;
  else if (strcmp(buf, "allgather") == 0) c->kind = FU_COMM_ALLGATHER;
  else {
    fu_error("--comm '%s': unknown operation '%s'; expected allreduce, reducescatter, allgather "
             "or offload",
             s, buf);
    return FU_EUSAGE;
  }
  long ranks;
  if (fu_parse_long(r, 2, 1 << 20, &ranks) != FU_OK) {
    fu_error("--comm '%s': ranks '%s' is not a whole number >= 2", s, r);
    return FU_EUSAGE;
  }
  if (strcmp(l, "nvlink") != 0 && strcmp(l, "pcie") != 0 && strcmp(l, "net") != 0) {
    fu_error("--comm '%s': unknown link '%s'; expected nvlink, pcie or net", s, l);
    return FU_EUSAGE;
  }
  c->ranks = (int)ranks;
  snprintf(c->link, sizeof c->link, "%s", l);
  return FU_OK;
}

const char *fu_comm_string(const fu_comm *c, char *buf, size_t len) {
  static const char *ops[] = {"allreduce", "reducescatter", "allgather", "offload"};
  if (c->kind == FU_COMM_OFFLOAD) snprintf(buf, len, "offload");
  else if ((unsigned)c->kind < 3) snprintf(buf, len, "%s:%d:%s", ops[c->kind], c->ranks, c->link);
  else snprintf(buf, len, "?");
  return buf;
}

/* ---- bucket assignment ---- */

double fu_plan_backward_start_us(const fu_workload *w) {
  int k = w->accum_steps > 0 ? w->accum_steps : 1;
  return (double)(k - 1) * (w->fwd_us + w->bwd_us) + w->fwd_us;
}

void fu_plan_fill_buckets(const fu_workload *w, fu_bucket *b, size_t nb) {
  double t0 = fu_plan_backward_start_us(w);
  for (size_t k = 0; k < nb; k++) {
    uint64_t bytes = 0;
    for (size_t i = b[k].first; i <= b[k].last; i++) bytes += w->grads[i].bytes;
    b[k].bytes = bytes;
    b[k].ready_us = t0 + w->grads[b[k].last].ready_us;
    b[k].start_us = b[k].end_us = b[k].pack_us = b[k].comm_us = 0;
  }
}

/* Appends bucket [first, last] to a growing array. */
static int fu__push(fu_bucket **arr, size_t *n, size_t *cap, size_t first, size_t last) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    fu_bucket *a = realloc(*arr, nc * sizeof **arr);
    if (!a) return FU_ENOMEM;
    *arr = a;
    *cap = nc;
  }
  memset(&(*arr)[*n], 0, sizeof **arr);
  (*arr)[*n].first = first;
  (*arr)[*n].last = last;
  (*n)++;
  return FU_OK;
}

/* DDP: close once the bucket reaches or exceeds its limit (first limit, then cap). */
static int fu__buckets_cap(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                           size_t *cap) {
  uint64_t limit = p->first_cap_bytes ? p->first_cap_bytes : p->cap_bytes;
  uint64_t size = 0;
  size_t first = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    size += w->grads[i].bytes;
    if (size >= limit) {
      FU_CHECK(fu__push(arr, n, cap, first, i));
      first = i + 1;
      size = 0;
      limit = p->cap_bytes;
    }
  }
  if (first < w->ngrads) FU_CHECK(fu__push(arr, n, cap, first, w->ngrads - 1));
  return FU_OK;
}

/* Horovod: at each cycle tick t_k = k * CYCLE (from the start of backward) the tensors ready by
 * then are fused in order into buffers of at most THRESHOLD bytes. A bucket's ready_us is the
 * tick that sends it (iteration clock). With cycle 0 a tick happens at every ready time. */
static int fu__buckets_horovod(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                               size_t *cap) {
  double t0 = fu_plan_backward_start_us(w);
  size_t i = 0;
  while (i < w->ngrads) {
    double r = w->grads[i].ready_us;
    double tick = r;
    if (p->cycle_us > 0) {
      tick = ceil(r / p->cycle_us) * p->cycle_us;
      if (tick < r) tick += p->cycle_us; /* rounding */
    }
    size_t end = i; /* exclusive end of the tensors ready by the tick */
    while (end < w->ngrads && w->grads[end].ready_us <= tick) end++;
    while (i < end) {
      uint64_t size = w->grads[i].bytes;
      size_t j = i + 1;
      while (j < end && size + w->grads[j].bytes <= p->cap_bytes) size += w->grads[j++].bytes;
      size_t k0 = *n;
      FU_CHECK(fu__push(arr, n, cap, i, j - 1));
      (*arr)[k0].ready_us = t0 + tick;
      i = j;
    }
  }
  return FU_OK;
}

/* Name lookup: indices sorted by name, searched by bisection (O(n log n) build). */
typedef struct fu__name_ix {
  const fu_workload *w;      /* the workload whose names are indexed */
  size_t *ix;                /* gradient indices sorted by name */
} fu__name_ix;

/* qsort_r comparator (glibc argument order): arg is the workload. */
static int fu__name_cmp(const void *a, const void *b, void *arg) {
  const fu_workload *w = arg;
  return strcmp(w->grads[*(const size_t *)a].name, w->grads[*(const size_t *)b].name);
}

static long fu__name_find(const fu__name_ix *nx, const char *name) {
  size_t lo = 0, hi = nx->w->ngrads;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(nx->w->grads[nx->ix[mid]].name, name);
    if (c == 0) return (long)nx->ix[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/* Explicit buckets from a JSON file: a list of lists of tensor names. Each bucket must be a
 * contiguous run of the ready order; every tensor must be in exactly one bucket. */
static int fu__buckets_file(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                            size_t *cap) {
  const char *path = p->buckets_file;
  char *text;
  size_t len;
  FU_CHECK(fu_read_file(path, &text, &len));
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  free(text);
  if (!root) {
    fu_error("%s:%d: not valid JSON: %s", path, err.line, err.text);
    return FU_EDATA;
  }
  int st = FU_OK;
  size_t *ix = malloc((w->ngrads ? w->ngrads : 1) * sizeof *ix);
  long *owner = malloc((w->ngrads ? w->ngrads : 1) * sizeof *owner);
  if (!ix || !owner) {
    st = FU_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < w->ngrads; i++) ix[i] = i, owner[i] = -1;
  qsort_r(ix, w->ngrads, sizeof *ix, fu__name_cmp, (void *)w);
  fu__name_ix nx = {w, ix};
  if (!json_is_array(root) || json_array_size(root) == 0) {
    fu_error("%s: expected a non-empty JSON list of buckets, each a list of tensor names", path);
    st = FU_EDATA;
    goto done;
  }
  size_t bi;
  json_t *bucket;
  json_array_foreach(root, bi, bucket) {
    if (!json_is_array(bucket) || json_array_size(bucket) == 0) {
      fu_error("%s: bucket %zu: expected a non-empty list of tensor names", path, bi);
      st = FU_EDATA;
      goto done;
    }
    size_t lo = (size_t)-1, hi = 0, ti;
    json_t *name;
    json_array_foreach(bucket, ti, name) {
      if (!json_is_string(name)) {
        fu_error("%s: bucket %zu, item %zu: expected a tensor name (string)", path, bi, ti);
        st = FU_EDATA;
        goto done;
      }
      long g = fu__name_find(&nx, json_string_value(name));
      if (g < 0) {
        fu_error("%s: bucket %zu, item %zu: '%s' is not a tensor of workload '%s'", path, bi, ti,
                 json_string_value(name), w->name);
        st = FU_EDATA;
        goto done;
      }
      if (owner[g] >= 0) {
        fu_error("%s: bucket %zu, item %zu: tensor '%s' repeats (already in bucket %ld)", path, bi,
                 ti, json_string_value(name), owner[g]);
        st = FU_EDATA;
        goto done;
      }
      owner[g] = (long)bi;
      if ((size_t)g < lo) lo = (size_t)g;
      if ((size_t)g > hi) hi = (size_t)g;
    }
    if (hi - lo + 1 != json_array_size(bucket)) {
      size_t gap = lo;
      while (gap <= hi && owner[gap] == (long)bi) gap++;
      fu_error("%s: bucket %zu is not a contiguous run of the ready order: '%s' (ready #%zu) lies "
               "between its tensors",
               path, bi, w->grads[gap].name, gap);
      st = FU_EDATA;
      goto done;
    }
    if ((st = fu__push(arr, n, cap, lo, hi)) != FU_OK) goto done;
  }
  for (size_t i = 0; i < w->ngrads; i++) {
    if (owner[i] < 0) {
      fu_error("%s: tensor '%s' (ready #%zu) is in no bucket", path, w->grads[i].name, i);
      st = FU_EDATA;
      goto done;
    }
  }
  /* Buckets may be listed in any order; communicate them in ready order. */
  for (size_t a = 1; a < *n; a++) {
    fu_bucket t = (*arr)[a];
    size_t b = a;
    while (b > 0 && (*arr)[b - 1].first > t.first) {
      (*arr)[b] = (*arr)[b - 1];
      b--;
    }
    (*arr)[b] = t;
  }
done:
  free(ix);
  free(owner);
  json_decref(root);
  return st;
}

int fu_plan_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                    const fu_profile *prof, fu_bucket **out, size_t *nbuckets) {
  *out = NULL;
  *nbuckets = 0;
  if (!w || w->ngrads == 0) {
    fu_error("%s: the workload has no gradients", w && w->source[0] ? w->source : "workload");
    return FU_EDATA;
  }
  fu_bucket *arr = NULL;
  size_t n = 0, cap = 0;
  int st = FU_OK;
  switch (p->kind) {
  case FU_FUSION_NONE:
    for (size_t i = 0; i < w->ngrads && st == FU_OK; i++) st = fu__push(&arr, &n, &cap, i, i);
    break;
  case FU_FUSION_SINGLE: st = fu__push(&arr, &n, &cap, 0, w->ngrads - 1); break;
  case FU_FUSION_CAP:
    if (p->cap_bytes == 0) {
      fu_error("plan: a cap of 0 puts nothing in a bucket; use 'none'");
      return FU_EUSAGE;
    }
    st = fu__buckets_cap(w, p, &arr, &n, &cap);
    break;
  case FU_FUSION_HOROVOD:
    if (p->cap_bytes == 0) {
      fu_error("plan: a Horovod fusion threshold of 0 disables fusion; use 'none'");
      return FU_EUSAGE;
    }
    if (!(p->cycle_us >= 0)) {
      fu_error("plan: Horovod cycle time must be >= 0");
      return FU_EUSAGE;
    }
    st = fu__buckets_horovod(w, p, &arr, &n, &cap);
    break;
  case FU_FUSION_BUCKETS: st = fu__buckets_file(w, p, &arr, &n, &cap); break;
  case FU_FUSION_OPTIMAL:
  case FU_FUSION_MGWFBP:
    if (!c || !prof) {
      fu_error("plan: %s needs a communication target and a profile",
               p->kind == FU_FUSION_OPTIMAL ? "optimal" : "mgwfbp");
      return FU_EUSAGE;
    }
    if (p->kind == FU_FUSION_OPTIMAL) return fu_search_optimal(w, p, c, prof, out, nbuckets, NULL);
    return fu_search_mgwfbp(w, p, c, prof, out, nbuckets, NULL);
  default:
    fu_error("plan: unknown fusion kind %d", (int)p->kind);
    return FU_EINTERNAL;
  }
  if (st != FU_OK) {
    free(arr);
    return st;
  }
  /* Horovod's buckets carry their cycle tick as ready time; the others their last gradient's. */
  if (p->kind == FU_FUSION_HOROVOD) {
    double *tick = malloc(n * sizeof *tick);
    if (!tick) {
      free(arr);
      return FU_ENOMEM;
    }
    for (size_t k = 0; k < n; k++) tick[k] = arr[k].ready_us;
    fu_plan_fill_buckets(w, arr, n);
    for (size_t k = 0; k < n; k++) arr[k].ready_us = tick[k];
    free(tick);
  } else {
    fu_plan_fill_buckets(w, arr, n);
  }
  *out = arr;
  *nbuckets = n;
  return FU_OK;
}
