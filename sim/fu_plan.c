/* fu_plan.c: fusion plans: parsing the --fusion / --comm values and plan files, the canonical
 * plan string, and the bucket rules that need no search (see fu_plan.h).
 *
 * Bucket rules, as the frameworks implement them:
 *  - cap (PyTorch DDP, reducer.cpp compute_bucket_assignment_by_size): walk the gradients in
 *    ready order (DDP rebuilds its buckets in the order gradients became ready after the first
 *    iteration), add the tensor, and close the bucket once its size reaches or exceeds the
 *    limit; the first bucket's limit is first_cap, every later one cap. A tensor is never split.
 *    Each element type has its own open bucket and its own limits (the Reducer's BucketKey is
 *    dtype and device), and the buckets go in the order they closed; those still open at the end
 *    follow in the order the Reducer's unordered_map yields them: libstdc++ puts a new key
 *    first, so the type seen last comes first (exact for two types; for three it may depend on
 *    c10's hash). The Reducer launches buckets strictly in this order (mark_bucket_ready).
 *  - horovod: every CYCLE the background thread takes the tensors that became ready and not yet
 *    sent, and fuses them in order into buffers of at most THRESHOLD bytes (a tensor larger than
 *    the threshold goes alone). Cycles are counted from the start of backward. A response fuses
 *    only tensors of its first tensor's type; others are skipped (looked past) while the skipped
 *    bytes still fit beside the fused ones, and stay first in line (controller.cc FuseResponses).
 *  - defaults: "ddp" is cap:25MiB,first:1MiB (bucket_cap_mb = 25, kDefaultFirstBucketBytes);
 *    "horovod" alone is horovod:128MiB,1ms, the defaults since Horovod 0.21 (fu_plan.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fu_common.h"
#include "fu_dtype.h"
#include "fu_options.h"
#include "fu_output.h"
#include "fu_plan.h"

#define FU__FUSION_FORMS \
  "none|single|ddp|cap:SIZE[,first:SIZE]|horovod[:SIZE[,CYCLE]]|buckets:FILE|optimal[:MEMCAP]|mgwfbp"

void fu_plan_init(fu_plan *p) {
  memset(p, 0, sizeof *p);
  p->kind = FU_FUSION_NONE;
  p->overlap = 1;
  p->pack_view = 0;
  p->comm_streams = 1;
  p->framework = FU_FRAMEWORK_IDEAL;
}

static void fu__names_unref(fu_bucket_names *b) {
  if (!b || --b->refs > 0) return;
  for (size_t i = 0; i < b->nnames; i++) free(b->names[i]);
  free(b->names);
  free(b->end);
  free(b);
}

void fu_plan_finish(fu_plan *p) {
  if (!p) return;
  fu__names_unref(p->bucket_list);
  fu_plan_init(p);
}

void fu_plan_copy(fu_plan *dst, const fu_plan *src) {
  *dst = *src;
  if (dst->bucket_list) dst->bucket_list->refs++;
}

/* ---- numbers with units ---- */

/* SIZE of a plan spec; prints `what 'full': ROLE 'text': why` on failure. */
static int fu__size(const char *what, const char *full, const char *text, const char *role,
                    uint64_t *out) {
  char why[256];
  if (fu_opt_size_arg(out, text, why, sizeof why) == FU_OK) return FU_OK;
  if (fu_parse_size(text, out) == FU_OK && *out == 0)
    fu_error("%s '%s': a %s of 0 puts nothing in a bucket; use 'none' for one operation per "
             "tensor",
             what, full, role);
  else
    fu_error("%s '%s': %s '%s' %s", what, full, role, text, why);
  return FU_EUSAGE;
}

int fu_plan_parse_size(const char *what, const char *s, uint64_t *out) {
  char why[256];
  if (fu_opt_size_arg(out, s, why, sizeof why) == FU_OK) return FU_OK;
  fu_error("%s '%s' %s", what, s ? s : "", why);
  return FU_EUSAGE;
}

/* Horovod's cycle: "3.5" (ms, as HOROVOD_CYCLE_TIME), "3.5ms", "250us", "1s"; finite, from
 * 1 us to 1 hour (a cycle of 1e-20 us made the engine take a tick per 1e-20 us: it hung). */
static int fu__cycle(const char *what, const char *full, const char *s, double *out) {
  char buf[64];
  size_t n = strlen(s);
  int ok = n > 0 && n < sizeof buf; /* fu_parse_double refuses hex */
  double mult = 1e3, v = NAN;
  if (ok) {
    memcpy(buf, s, n + 1);
    while (n > 0 && isspace((unsigned char)buf[n - 1])) buf[--n] = '\0';
    if (n > 2 && strcmp(buf + n - 2, "us") == 0) buf[n - 2] = '\0', mult = 1.0;
    else if (n > 2 && strcmp(buf + n - 2, "ms") == 0) buf[n - 2] = '\0';
    else if (n > 1 && buf[n - 1] == 's') buf[n - 1] = '\0', mult = 1e6;
    ok = fu_parse_double(buf, &v) == FU_OK && isfinite(v * mult);
  }
  if (!ok) {
    fu_error("%s '%s': cycle time '%s' is not a time (a number of ms, or with us, ms or s)", what,
             full, s);
    return FU_EUSAGE;
  }
  v *= mult;
  if (!(v >= FU_HOROVOD_CYCLE_MIN_US && v <= FU_HOROVOD_CYCLE_MAX_US)) {
    fu_error("%s '%s': cycle time '%s' is outside 1us .. 3600s", what, full, s);
    return FU_EUSAGE;
  }
  *out = v;
  return FU_OK;
}

/* Size for the canonical string: exact, with its unit, parseable again, compact. */
static const char *fu__size_str(uint64_t b, char *buf, size_t len) {
  if (b != 0 && b % (1ull << 30) == 0) snprintf(buf, len, "%lluGiB", (unsigned long long)(b >> 30));
  else if (b != 0 && b % (1ull << 20) == 0) snprintf(buf, len, "%lluMiB", (unsigned long long)(b >> 20));
  else if (b != 0 && b % 1024 == 0) snprintf(buf, len, "%lluKiB", (unsigned long long)(b >> 10));
  else snprintf(buf, len, "%lluB", (unsigned long long)b);
  return buf;
}

/* ---- bucket files ---- */

/* A JSON file read whole and parsed. Through fu_read_file: a NUL byte, an endless line or a
 * file too large is refused as it is read (json_load_file buffered an endless string from a
 * pipe without bound). One line naming the file and the line on bad JSON. */
static int fu__json_file(const char *path, json_t **root) {
  char *text = NULL;
  FU_CHECK(fu_read_file(path, &text, NULL));
  json_error_t err;
  *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  free(text);
  if (!*root) {
    fu_error("%s:%d: not valid JSON: %s", path, err.line, err.text);
    return FU_EDATA;
  }
  return FU_OK;
}

/* A bucket file's {"order": "listed"|"fill", "buckets": [...]} ("order" left out: "fill"): its
 * list (borrowed) and order into *listed. The list itself is checked by the caller. */
static int fu__names_object(const char *path, json_t *root, json_t **list, int *listed) {
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    if (strcmp(key, "order") && strcmp(key, "buckets")) {
      fu_error("%s: unknown key '%s' (a bucket file's object has \"order\" and \"buckets\")",
               path, key);
      return FU_EDATA;
    }
  }
  json_t *o = json_object_get(root, "order");
  const char *order = o ? json_string_value(o) : "fill";
  if (!order || (strcmp(order, "listed") && strcmp(order, "fill"))) {
    fu_error("%s: \"order\" must be \"listed\" (sent as listed) or \"fill\" (as they fill)", path);
    return FU_EDATA;
  }
  *listed = !strcmp(order, "listed");
  *list = json_object_get(root, "buckets");
  return FU_OK;
}

/* Reads a bucket file (fu_plan.h: a JSON list of lists of tensor names, or an object with its
 * order) into *out (refs = 1). */
static int fu__names_load(const char *path, fu_bucket_names **out) {
  *out = NULL;
  if (access(path, R_OK) != 0) {
    fu_error("%s: cannot read the bucket file: %s", path, strerror(errno));
    return FU_ENOINPUT;
  }
  json_t *root;
  FU_CHECK(fu__json_file(path, &root));
  json_t *list = root;
  int listed = 0;
  int st = json_is_object(root) ? fu__names_object(path, root, &list, &listed) : FU_OK;
  fu_bucket_names *b = st == FU_OK ? calloc(1, sizeof *b) : NULL;
  size_t nb = json_is_array(list) ? json_array_size(list) : 0, total = 0;
  if (st != FU_OK) goto done;
  if (!b) {
    st = FU_ENOMEM;
    goto done;
  }
  b->refs = 1;
  b->listed = listed;
  if (nb == 0) {
    fu_error("%s: expected a non-empty JSON list of buckets, each a list of tensor names", path);
    st = FU_EDATA;
    goto done;
  }
  for (size_t k = 0; k < nb; k++) {
    json_t *bucket = json_array_get(list, k);
    if (!json_is_array(bucket) || json_array_size(bucket) == 0) {
      fu_error("%s: bucket %zu: expected a non-empty list of tensor names", path, k);
      st = FU_EDATA;
      goto done;
    }
    total += json_array_size(bucket);
  }
  b->end = malloc(nb * sizeof *b->end);
  b->names = calloc(total, sizeof *b->names);
  if (!b->end || !b->names) {
    st = FU_ENOMEM;
    goto done;
  }
  b->nbuckets = nb;
  for (size_t k = 0; k < nb; k++) {
    size_t ti;
    json_t *name;
    json_array_foreach(json_array_get(list, k), ti, name) {
      if (!json_is_string(name)) {
        fu_error("%s: bucket %zu, item %zu: expected a tensor name (string)", path, k, ti);
        st = FU_EDATA;
        goto done;
      }
      if (!(b->names[b->nnames] = strdup(json_string_value(name)))) {
        st = FU_ENOMEM;
        goto done;
      }
      b->nnames++;
    }
    b->end[k] = b->nnames;
  }
done:
  json_decref(root);
  if (st != FU_OK) fu__names_unref(b);
  else *out = b;
  return st;
}

int fu_plan_save_buckets(const char *path, const fu_workload *w, const fu_bucket *b, size_t nb) {
  json_t *root = json_array();
  int listed = 0; /* not in the order they fill: the file says so */
  for (size_t k = 0; k < nb && root; k++) {
    listed |= k && b[k].last < b[k - 1].last;
    json_t *names = json_array();
    for (size_t i = b[k].first; i <= b[k].last && names; i++)
      if (fu_bucket_has(w, &b[k], i) && /* its type's gradients only */
          json_array_append_new(names, json_string(w->grads[i].name)) != 0) {
        json_decref(names);
        names = NULL;
      }
    if (!names || json_array_append_new(root, names) != 0) {
      json_decref(root);
      root = NULL;
    }
  }
  if (root && listed) root = json_pack("{s:s, s:o}", "order", "listed", "buckets", root);
  if (!root) return FU_ENOMEM;
  int st = fu_json_save(path, root, JSON_INDENT(1), "the bucket file");
  json_decref(root);
  if (st != FU_OK) return st;
  fprintf(stderr, "fusim: optimal buckets (%zu) written to %s; use --fusion buckets:%s\n", nb, path,
          path);
  return FU_OK;
}

/* ---- --fusion ---- */

/* The parser behind fu_plan_parse_fusion and plan files; `what` names the source, `dir` the
 * folder a relative buckets:FILE is looked for first (NULL: the current folder only). */
static int fu__plan_parse_fusion(const char *s, const char *what, const char *dir, fu_plan *p) {
  if (!s || !*s) {
    fu_error("%s: empty fusion plan; expected " FU__FUSION_FORMS, what);
    return FU_EUSAGE;
  }
  const char *colon = strchr(s, ':');
  size_t klen = colon ? (size_t)(colon - s) : strlen(s);
  const char *arg = colon ? colon + 1 : NULL;
  char buf[600];
  fu_plan q = *p; /* borrows p's list until the end */
  q.cap_bytes = 0;
  q.first_cap_bytes = 0;
  q.cycle_us = 0;
  q.mem_cap_bytes = 0;
  q.buckets_file[0] = '\0';
  q.bucket_list = NULL;
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
    FU_CHECK(fu__size(what, s, buf, "cap", &q.cap_bytes));
    if (comma) {
      const char *f = comma + 1;
      if (strncmp(f, "first:", 6) != 0) {
        fu_error("%s '%s': after the cap expected ',first:SIZE', got ',%s'", what, s, f);
        return FU_EUSAGE;
      }
      FU_CHECK(fu__size(what, s, f + 6, "first bucket cap", &q.first_cap_bytes));
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
      FU_CHECK(fu__size(what, s, buf, "fusion threshold", &q.cap_bytes));
      if (comma) FU_CHECK(fu__cycle(what, s, comma + 1, &q.cycle_us));
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
    /* A relative name is looked for beside the plan file first (as a user who keeps the two
     * together expects), else in the current folder. */
    if (dir && arg[0] != '/') {
      char near[sizeof q.buckets_file];
      int n = snprintf(near, sizeof near, "%s/%s", dir, arg);
      if (n > 0 && (size_t)n < sizeof near && access(near, F_OK) == 0) strcpy(q.buckets_file, near);
    }
    FU_CHECK(fu__names_load(q.buckets_file, &q.bucket_list));
  } else if (FU__IS("optimal")) {
    q.kind = FU_FUSION_OPTIMAL;
    if (arg) FU_CHECK(fu__size(what, s, arg, "memory cap", &q.mem_cap_bytes));
  } else {
    fu_error("%s '%s': unknown fusion kind '%.*s'; expected none, single, ddp, cap, horovod, "
             "buckets, optimal or mgwfbp",
             what, s, (int)klen, s);
    return FU_EUSAGE;
  }
#undef FU__IS
  fu__names_unref(p->bucket_list);
  *p = q;
  return FU_OK;
}

int fu_plan_parse_fusion(const char *s, fu_plan *p) { return fu_plan_parse_fusion_as("--fusion", s, p); }
int fu_plan_parse_fusion_as(const char *what, const char *s, fu_plan *p) {
  return fu__plan_parse_fusion(s, what, NULL, p);
}

const char *fu_framework_name(fu_framework f) {
  switch (f) {
  case FU_FRAMEWORK_IDEAL: return "ideal";
  case FU_FRAMEWORK_DDP: return "ddp";
  case FU_FRAMEWORK_HOOKS: return "hooks";
  }
  return "?";
}

const char *fu_plan_string(const fu_plan *p, char *buf, size_t len) {
  char a[32], b[48], f[640], fw[32] = "";
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
  if (p->framework != FU_FRAMEWORK_IDEAL)
    snprintf(fw, sizeof fw, " framework=%s", fu_framework_name(p->framework));
  snprintf(buf, len, "%s overlap=%s pack=%s streams=%d%s", f, p->overlap ? "on" : "off",
           p->pack_view ? "view" : "copy", p->comm_streams, fw);
  return buf;
}

/* ---- the other plan flags ---- */

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

int fu_framework_parse(const char *s, fu_framework *f) {
  static const fu_framework all[] = {FU_FRAMEWORK_IDEAL, FU_FRAMEWORK_DDP, FU_FRAMEWORK_HOOKS};
  for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
    if (strcmp(s, fu_framework_name(all[i])) == 0) {
      *f = all[i];
      return FU_OK;
    }
  return FU_EUSAGE;
}

static int fu__parse_framework(const char *s, const char *what, fu_plan *p) {
  if (fu_framework_parse(s, &p->framework) == FU_OK) return FU_OK;
  fu_error("%s '%s': expected ideal (no framework cost), ddp (PyTorch DDP's Reducer) or hooks "
           "(post-accumulate-grad hooks)",
           what, s ? s : "");
  return FU_EUSAGE;
}

int fu_plan_parse_overlap(const char *s, fu_plan *p) { return fu__parse_overlap(s, "--overlap", p); }
int fu_plan_parse_pack(const char *s, fu_plan *p) { return fu__parse_pack(s, "--pack", p); }
int fu_plan_parse_framework(const char *s, fu_plan *p) {
  return fu__parse_framework(s, "--framework", p);
}
int fu_plan_parse_streams(const char *s, fu_plan *p) { return fu_plan_parse_streams_as("--comm-streams", s, p); }
int fu_plan_parse_overlap_as(const char *what, const char *s, fu_plan *p) {
  return fu__parse_overlap(s, what, p);
}
int fu_plan_parse_pack_as(const char *what, const char *s, fu_plan *p) { return fu__parse_pack(s, what, p); }
int fu_plan_parse_framework_as(const char *what, const char *s, fu_plan *p) {
  return fu__parse_framework(s, what, p);
}

int fu_plan_parse_streams_as(const char *what, const char *s, fu_plan *p) {
  long v;
  if (fu_parse_long(s, 1, 64, &v) != FU_OK) {
    fu_error("%s '%s': expected a whole number from 1 to 64", what, s ? s : "");
    return FU_EUSAGE;
  }
  p->comm_streams = (int)v;
  return FU_OK;
}

/* ---- plan files ---- */

int fu_plan_from_json(json_t *root, const char *what, const char *dir, fu_plan *p) {
  char w[600];
  if (!json_is_object(root)) {
    fu_error("%s: a plan file is a JSON object with keys fusion, overlap, pack, comm_streams, "
             "framework",
             what);
    return FU_EDATA;
  }
  int st = FU_OK;
  fu_plan q;
  fu_plan_copy(&q, p);
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    snprintf(w, sizeof w, "%s: %s", what, key);
    if (strcmp(key, "fusion") == 0) {
      if (!json_is_string(v)) {
        fu_error("%s: expected a string such as \"cap:25MiB,first:1MiB\"", w);
        st = FU_EDATA;
      } else if ((st = fu__plan_parse_fusion(json_string_value(v), w, dir, &q)) == FU_EUSAGE) {
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
    } else if (strcmp(key, "framework") == 0) {
      if (!json_is_string(v) || fu__parse_framework(json_string_value(v), w, &q) != FU_OK) {
        if (!json_is_string(v)) fu_error("%s: expected \"ideal\", \"ddp\" or \"hooks\"", w);
        st = FU_EDATA;
      }
    } else if (strcmp(key, "comm_streams") == 0 || strcmp(key, "comm-streams") == 0) {
      /* the flag's spelling too: DESIGN.md's "the same keys" */
      if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 64) {
        fu_error("%s: expected a whole number from 1 to 64", w);
        st = FU_EDATA;
      } else {
        q.comm_streams = (int)json_integer_value(v);
      }
    } else {
      fu_error("%s: unknown key (a plan file has fusion, overlap, pack, comm_streams, framework)",
               w);
      st = FU_EDATA;
    }
    if (st != FU_OK) break;
  }
  if (st != FU_OK) {
    fu_plan_finish(&q);
    return st;
  }
  fu_plan_finish(p);
  *p = q;
  return FU_OK;
}

int fu_plan_parse_json(const char *text, const char *what, const char *dir, fu_plan *p) {
  json_error_t err;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!root) {
    fu_error("%s:%d: not valid JSON: %s", what, err.line, err.text);
    return FU_EDATA;
  }
  int st = fu_plan_from_json(root, what, dir, p);
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
  if (fu__plan_parse_fusion(tok, what, NULL, &q) != FU_OK) return FU_EDATA;
  int st = FU_OK;
  while (st == FU_OK && (tok = strtok_r(NULL, " \t", &save)) != NULL) {
    char *eq = strchr(tok, '=');
    long n;
    st = FU_EDATA;
    if (eq) *eq = '\0';
    if (!eq) fu_error("%s: '%s' is not KEY=VALUE (overlap=, pack=, streams=, framework=)", what, tok);
    else if (!strcmp(tok, "overlap")) st = fu__parse_overlap(eq + 1, what, &q);
    else if (!strcmp(tok, "pack")) st = fu__parse_pack(eq + 1, what, &q);
    else if (!strcmp(tok, "framework")) st = fu__parse_framework(eq + 1, what, &q);
    else if (!strcmp(tok, "streams") || !strcmp(tok, "comm-streams") ||
             !strcmp(tok, "comm_streams")) {
      if (fu_parse_long(eq + 1, 1, 64, &n) == FU_OK) {
        q.comm_streams = (int)n;
        st = FU_OK;
      } else {
        fu_error("%s: streams '%s' is not a whole number from 1 to 64", what, eq + 1);
      }
    } else {
      fu_error("%s: unknown plan key '%s' (overlap, pack, streams, framework)", what, tok);
    }
  }
  if (st != FU_OK) {
    fu_plan_finish(&q);
    return FU_EDATA;
  }
  fu_plan_finish(p);
  *p = q;
  return FU_OK;
}

/* The folder of path ("." when it has none) into dir[len]. */
static const char *fu__dir_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, len, ".");
  else snprintf(dir, len, "%.*s", (int)(slash - path > 0 ? slash - path : 1), path);
  return dir;
}

int fu_plan_load(const char *path, fu_plan *p) {
  char *text;
  size_t len;
  char dir[512];
  FU_CHECK(fu_read_file(path, &text, &len));
  int st = fu_plan_parse_json(text, path, fu__dir_of(path, dir, sizeof dir), p);
  free(text);
  return st;
}

void fu_plan_list_free(fu_plan *plans, size_t n) {
  for (size_t i = 0; plans && i < n; i++) fu_plan_finish(&plans[i]);
  free(plans);
}

int fu_plan_load_list(const char *path, fu_plan **out, size_t *n) {
  *out = NULL;
  *n = 0;
  char dir[512];
  json_t *root;
  FU_CHECK(fu__json_file(path, &root));
  size_t np = json_is_array(root) ? json_array_size(root) : 1;
  if (np == 0) {
    fu_error("%s: no plans (an empty array)", path);
    json_decref(root);
    return FU_EDATA;
  }
  fu_plan *p = calloc(np, sizeof *p);
  if (!p) {
    json_decref(root);
    return FU_ENOMEM;
  }
  fu__dir_of(path, dir, sizeof dir);
  int st = FU_OK;
  size_t done = 0;
  for (; done < np && st == FU_OK; done++) {
    json_t *obj = json_is_array(root) ? json_array_get(root, done) : root;
    char what[600];
    if (json_is_array(root)) snprintf(what, sizeof what, "%s: plan [%zu]", path, done);
    else snprintf(what, sizeof what, "%s", path);
    fu_plan_init(&p[done]);
    st = fu_plan_from_json(obj, what, dir, &p[done]);
  }
  json_decref(root);
  if (st != FU_OK) {
    fu_plan_list_free(p, done);
    return st;
  }
  *out = p;
  *n = np;
  return FU_OK;
}

/* ---- communication targets ---- */

fu_op fu_comm_op(const fu_comm *c) {
  switch (c->kind) {
  case FU_COMM_ALLREDUCE: return FU_OP_ALLREDUCE;
  case FU_COMM_REDUCESCATTER: return FU_OP_REDUCESCATTER;
  case FU_COMM_ALLGATHER: return FU_OP_ALLGATHER;
  case FU_COMM_OFFLOAD: return FU_OP_D2H;
  }
  return FU_OP_ALLREDUCE;
}

int fu_comm_parse(const char *s, fu_comm *c) { return fu_comm_parse_as("--comm", s, c); }

int fu_comm_parse_as(const char *what, const char *s, fu_comm *c) {
  memset(c, 0, sizeof *c);
  if (!s || !*s) {
    fu_error("%s: empty; expected allreduce:RANKS[:LINK], reducescatter:RANKS[:LINK], "
             "allgather:RANKS[:LINK] or offload", what);
    return FU_EUSAGE;
  }
  if (strcmp(s, "offload") == 0) {
    c->kind = FU_COMM_OFFLOAD;
    c->ranks = c->nodes = 1;
    c->link = FU_LINK_PCIE_D2H;
    return FU_OK;
  }
  char buf[128];
  if (strlen(s) >= sizeof buf) {
    fu_error("%s '%.40s...': too long", what, s);
    return FU_EUSAGE;
  }
  strcpy(buf, s);
  char *r = strchr(buf, ':');
  char *l = r ? strchr(r + 1, ':') : NULL;
  if (!r) {
    fu_error("%s '%s': expected OP:RANKS[:LINK] (e.g. allreduce:8:nvlink, allreduce:2x8) or "
             "offload",
             what, s);
    return FU_EUSAGE;
  }
  *r++ = '\0';
  if (l) *l++ = '\0';
  fu_op op;
  if (fu_op_parse(buf, &op) == FU_OK && op == FU_OP_ALLREDUCE) c->kind = FU_COMM_ALLREDUCE;
  else if (fu_op_parse(buf, &op) == FU_OK && op == FU_OP_REDUCESCATTER) c->kind = FU_COMM_REDUCESCATTER;
  else if (fu_op_parse(buf, &op) == FU_OK && op == FU_OP_ALLGATHER) c->kind = FU_COMM_ALLGATHER;
  else if (strcmp(buf, "offload") == 0) {
    fu_error("%s '%s': offload takes no ranks or link (D2H copies over one GPU's PCIe): say --comm offload", what, s);
    return FU_EUSAGE;
  } else {
    fu_error("%s '%s': unknown operation '%s'; expected allreduce, reducescatter, allgather "
             "or offload",
             what, s, buf);
    return FU_EUSAGE;
  }
  /* RANKS: N (one node) or NODESxGPUS. */
  long nodes = 1, gpus;
  char *x = strchr(r, 'x');
  if (x) *x = '\0';
  int ok = fu_parse_long(r, 1, 1 << 20, x ? &nodes : &gpus) == FU_OK && (!x || fu_parse_long(x + 1, 1, 1 << 20, &gpus) == FU_OK);
  if (x) *x = 'x';
  if (!ok || nodes * gpus > (1 << 20)) {
    fu_error("%s '%s': ranks '%s' is not a whole number >= 1 or NODESxGPUS (e.g. 2x8)", what, s, r);
    return FU_EUSAGE;
  }
  fu_link link = FU_LINK_NVLINK;
  if (l && (fu_link_parse(l, &link) != FU_OK ||
            (link != FU_LINK_NVLINK && link != FU_LINK_PCIE && link != FU_LINK_NET &&
             link != FU_LINK_HBM))) {
    fu_error("%s '%s': unknown link '%s'; expected nvlink, pcie, net (or hbm: one GPU)", what, s, l);
    return FU_EUSAGE;
  }
  if (link == FU_LINK_HBM && nodes * gpus > 1) { /* it priced 8 GPUs at 1.6 TB/s bus bandwidth */
    fu_error("%s '%s': hbm is one GPU's own memory (RANKS 1); %ld GPUs talk over nvlink, pcie "
             "or net", what, s, nodes * gpus);
    return FU_EUSAGE;
  }
  if (link == FU_LINK_NET && nodes * gpus == 1) { /* it was priced as the one-GPU copy, "measured" */
    fu_error("%s '%s': one rank crosses no network; net links nodes (say NODESxGPUS, e.g. 2x8), "
             "or allreduce:1 for one GPU", what, s);
    return FU_EUSAGE;
  }
  c->ranks = (int)(nodes * gpus);
  c->nodes = (int)nodes;
  c->link = link;
  c->link_given = l != NULL;
  return FU_OK;
}

const char *fu_comm_string(const fu_comm *c, char *buf, size_t len) {
  static const char *ops[] = {"allreduce", "reducescatter", "allgather", "offload"};
  if (c->kind == FU_COMM_OFFLOAD) snprintf(buf, len, "offload");
  else if ((unsigned)c->kind < 3 && c->nodes > 1)
    snprintf(buf, len, "%s:%dx%d:%s", ops[c->kind], c->nodes, c->ranks / c->nodes,
             fu_link_name(c->link));
  else if ((unsigned)c->kind < 3)
    snprintf(buf, len, "%s:%d:%s", ops[c->kind], c->ranks, fu_link_name(c->link));
  else snprintf(buf, len, "?");
  return buf;
}

/* ---- bucket assignment ---- */

double fu_plan_backward_start_us(const fu_workload *w) {
  int k = w->accum_steps > 0 ? w->accum_steps : 1;
  return (double)(k - 1) * (w->fwd_us + w->bwd_us) + w->fwd_us;
}

int fu_bucket_has(const fu_workload *w, const fu_bucket *b, size_t i) {
  return i >= b->first && i <= b->last && fu_grad_same_dtype(&w->grads[i], &w->grads[b->first]);
}

void fu_bucket_sum(const fu_workload *w, const fu_bucket *b, size_t *ntensors, uint64_t *bytes) {
  *ntensors = 0;
  *bytes = 0;
  for (size_t i = b->first; i <= b->last; i++)
    if (fu_bucket_has(w, b, i)) ++*ntensors, *bytes += w->grads[i].bytes;
}

uint64_t fu_buckets_largest_fused(const fu_bucket *b, size_t nb) {
  uint64_t m = 0;
  for (size_t k = 0; k < nb; k++)
    if (b[k].ntensors > 1 && b[k].bytes > m) m = b[k].bytes;
  return m;
}

void fu_plan_fill_buckets(const fu_workload *w, fu_bucket *b, size_t nb) {
  double t0 = fu_plan_backward_start_us(w);
  for (size_t k = 0; k < nb; k++) {
    fu_bucket_sum(w, &b[k], &b[k].ntensors, &b[k].bytes);
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

/* One element type's open bucket while a rule walks the ready order. */
typedef struct fu__open {
  const char *dtype;         /* the type (a gradient's dtype field) */
  size_t first, last;        /* the open bucket's first and last gradient */
  uint64_t size;             /* its bytes; 0: none open */
  int closed;                /* buckets of this type closed so far */
} fu__open;
#define FU__MAX_TYPES (FU_DT_COUNT + 1) /* every fu_dtype and the unnamed one */

/* The open bucket of gradient i's type (keys in first-seen order). */
static fu__open *fu__open_of(fu__open *o, size_t *no, const fu_workload *w, size_t i) {
  size_t k = 0;
  while (k < *no && strcmp(o[k].dtype, w->grads[i].dtype)) k++;
  if (k == *no) o[(*no)++] = (fu__open){w->grads[i].dtype, 0, 0, 0, 0};
  return &o[k];
}

/* DDP: close once the bucket reaches or exceeds its limit (first limit, then cap), per type;
 * then the open ones, the type seen last first (see the top of this file). */
static int fu__buckets_cap(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                           size_t *cap) {
  fu__open o[FU__MAX_TYPES];
  size_t no = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    fu__open *b = fu__open_of(o, &no, w, i);
    uint64_t limit = b->closed == 0 && p->first_cap_bytes ? p->first_cap_bytes : p->cap_bytes;
    if (b->size == 0) b->first = i;
    b->size += w->grads[i].bytes;
    b->last = i;
    if (b->size >= limit) {
      FU_CHECK(fu__push(arr, n, cap, b->first, i));
      b->size = 0;
      b->closed++;
    }
  }
  for (size_t k = no; k-- > 0;)
    if (o[k].size) FU_CHECK(fu__push(arr, n, cap, o[k].first, o[k].last));
  return FU_OK;
}

/* Horovod: at each cycle tick t_k = k * CYCLE (from the start of backward) the tensors ready by
 * then are fused in order into buffers of at most THRESHOLD bytes. A bucket's ready_us is the
 * tick that sends it (iteration clock). With cycle 0 a tick happens at every ready time. With
 * overlap off every tensor is handed over when backward ends: one tick takes them all. */
static int fu__buckets_horovod(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                               size_t *cap) {
  double t0 = fu_plan_backward_start_us(w);
  int mixed = fu_workload_mixed_dtypes(w);
  char *taken = mixed ? calloc(w->ngrads, 1) : NULL; /* fused already (one type's look-ahead) */
  if (mixed && !taken) return FU_ENOMEM;
  int st = FU_OK;
#define FU__HVD_READY(k) (p->overlap ? w->grads[k].ready_us : w->bwd_us)
  size_t i = 0;
  while (i < w->ngrads) {
    double r = FU__HVD_READY(i);
    double tick = r;
    if (p->cycle_us > 0) {
      tick = ceil(r / p->cycle_us) * p->cycle_us;
      if (tick < r) tick += p->cycle_us; /* rounding */
    }
    size_t end = i; /* exclusive end of the tensors ready by the tick */
    while (end < w->ngrads && FU__HVD_READY(end) <= tick) end++;
    while (i < end && st == FU_OK) {
      /* response i fuses the next ones of its type that fit; it looks past others while
         they fit beside it too. O(tensors looked at): one type, the ones it fuses. */
      uint64_t size = w->grads[i].bytes, skipped = 0;
      size_t last = i;
      for (size_t j = i + 1; j < end; j++) {
        if (taken && taken[j]) continue;
        uint64_t b = w->grads[j].bytes;
        if (fu_grad_same_dtype(&w->grads[j], &w->grads[i]) && size + b <= p->cap_bytes) {
          size += b;
          last = j;
          if (taken) taken[j] = 1;
        } else if (size + (skipped += b) > p->cap_bytes) {
          break;
        }
      }
      size_t k0 = *n;
      if ((st = fu__push(arr, n, cap, i, last)) != FU_OK) break;
      (*arr)[k0].ready_us = t0 + tick;
      i++;
      while (taken && i < end && taken[i]) i++;
      if (!taken) i = last + 1;
    }
  }
#undef FU__HVD_READY
  free(taken);
  return st;
}

/* Single: one bucket per element type, in the order their last gradients become ready. */
static int fu__buckets_single(const fu_workload *w, fu_bucket **arr, size_t *n, size_t *cap) {
  fu__open o[FU__MAX_TYPES];
  size_t no = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    fu__open *b = fu__open_of(o, &no, w, i);
    if (b->size == 0) b->first = i, b->size = 1;
    b->last = i;
  }
  for (size_t i = 0; i < w->ngrads; i++) /* ready order of the last gradients */
    for (size_t k = 0; k < no; k++)
      if (o[k].last == i) FU_CHECK(fu__push(arr, n, cap, o[k].first, i));
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

/* Buckets from a bucket list read with the plan: each must be of one element type and a
 * contiguous run of that type's gradients in ready order, and every tensor must be in exactly
 * one bucket. */
static int fu__buckets_list(const fu_workload *w, const fu_plan *p, fu_bucket **arr, size_t *n,
                            size_t *cap) {
  const char *path = p->buckets_file;
  const fu_bucket_names *bl = p->bucket_list;
  if (!bl) {
    fu_error("plan: buckets:%s was not read", path);
    return FU_EINTERNAL;
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
  for (size_t bi = 0, ni = 0; bi < bl->nbuckets; bi++) {
    size_t lo = (size_t)-1, hi = 0, count = bl->end[bi] - ni;
    for (size_t ti = 0; ni < bl->end[bi]; ni++, ti++) {
      const char *name = bl->names[ni];
      long g = fu__name_find(&nx, name);
      if (g < 0) {
        fu_error("%s: bucket %zu, item %zu: '%s' is not a tensor of workload '%s'", path, bi, ti,
                 name, w->name);
        st = FU_EDATA;
        goto done;
      }
      if (owner[g] >= 0) {
        fu_error("%s: bucket %zu, item %zu: tensor '%s' repeats (already in bucket %ld)", path, bi,
                 ti, name, owner[g]);
        st = FU_EDATA;
        goto done;
      }
      owner[g] = (long)bi;
      if ((size_t)g < lo) lo = (size_t)g;
      if ((size_t)g > hi) hi = (size_t)g;
    }
    for (size_t i = bl->end[bi] - count; count && i < bl->end[bi]; i++) {
      const fu_grad *g = &w->grads[fu__name_find(&nx, bl->names[i])];
      if (!fu_grad_same_dtype(g, &w->grads[lo])) {
        fu_error("%s: bucket %zu mixes element types: '%s' is %s, '%s' %s (NCCL reduces one "
                 "type per operation)", path, bi, w->grads[lo].name, w->grads[lo].dtype, g->name,
                 g->dtype);
        st = FU_EDATA;
        goto done;
      }
    }
    if ((st = fu__push(arr, n, cap, lo, hi)) != FU_OK) goto done;
    fu_bucket *added = &(*arr)[*n - 1];
    fu_bucket_sum(w, added, &added->ntensors, &added->bytes);
    if (added->ntensors != count) {
      size_t gap = lo;
      while (gap <= hi && (owner[gap] == (long)bi || !fu_bucket_has(w, added, gap))) gap++;
      fu_error("%s: bucket %zu is not a contiguous run of the ready order: '%s' (ready #%zu) lies "
               "between its tensors",
               path, bi, w->grads[gap].name, gap);
      st = FU_EDATA;
      goto done;
    }
  }
  for (size_t i = 0; i < w->ngrads; i++) {
    if (owner[i] < 0) {
      fu_error("%s: tensor '%s' (ready #%zu) is in no bucket", path, w->grads[i].name, i);
      st = FU_EDATA;
      goto done;
    }
  }
  /* Buckets may be listed in any order; communicate them in the order they fill, unless the
     file says they go as listed. */
  for (size_t a = 1; !bl->listed && a < *n; a++) {
    fu_bucket t = (*arr)[a];
    size_t b = a;
    while (b > 0 && (*arr)[b - 1].last > t.last) {
      (*arr)[b] = (*arr)[b - 1];
      b--;
    }
    (*arr)[b] = t;
  }
done:
  free(ix);
  free(owner);
  return st;
}

int fu_plan_rule_buckets(const fu_workload *w, const fu_plan *p, fu_bucket **out,
                         size_t *nbuckets) {
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
    arr = malloc(w->ngrads * sizeof *arr);
    if (!arr) return FU_ENOMEM;
    for (size_t i = 0; i < w->ngrads; i++) {
      memset(&arr[i], 0, sizeof arr[i]);
      arr[i].first = arr[i].last = i;
    }
    n = w->ngrads;
    break;
  case FU_FUSION_SINGLE: st = fu__buckets_single(w, &arr, &n, &cap); break;
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
    if (!(p->cycle_us >= FU_HOROVOD_CYCLE_MIN_US && p->cycle_us <= FU_HOROVOD_CYCLE_MAX_US)) {
      fu_error("plan: Horovod cycle time %g us is outside 1us .. 3600s", p->cycle_us);
      return FU_EUSAGE;
    }
    st = fu__buckets_horovod(w, p, &arr, &n, &cap);
    break;
  case FU_FUSION_BUCKETS: st = fu__buckets_list(w, p, &arr, &n, &cap); break;
  default:
    fu_error("plan: fusion kind %d needs a search (fu_resolve_buckets)", (int)p->kind);
    return FU_EINTERNAL;
  }
  if (st != FU_OK) {
    free(arr);
    return st;
  }
  /* Horovod's buckets carry their cycle tick as ready time; the others their last gradient's. */
  double t0 = fu_plan_backward_start_us(w);
  for (size_t k = 0; k < n; k++) {
    fu_bucket_sum(w, &arr[k], &arr[k].ntensors, &arr[k].bytes);
    if (p->kind != FU_FUSION_HOROVOD) arr[k].ready_us = t0 + w->grads[arr[k].last].ready_us;
  }
  *out = arr;
  *nbuckets = n;
  return FU_OK;
}
