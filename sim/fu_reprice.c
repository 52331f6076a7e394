/* fu_reprice.c: what priced a what-if, and pricing it again with the profile in use (see
 * fu_reprice.h). */
#include "fu_reprice.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_builder.h"
#include "fu_common.h"

int fu_profile_hash(const fu_profile *p, char hex[FU_HASH_HEX]) {
  /* dumped straight in fu_hash_json's canonical form: every double at 17 digits reads back as
     itself, so parsing and dumping it again (a tenth of a second on the embedded profile) would
     give these bytes */
  json_t *j = fu_profile_to_json(p);
  char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;
  json_decref(j);
  if (!text) return FU_ENOMEM;
  fu_hash_bytes(text, strlen(text), hex);
  free(text);
  return FU_OK;
}

int fu_reprice_record(fu_workload *w, const fu_profile *prof, json_t *args, int tables) {
  char hex[FU_HASH_HEX];
  FU_CHECK(fu_profile_hash(prof, hex));
  json_t *pw = json_pack("{s:s, s:s, s:s, s:O}", "profile", prof->name, "profile_hash", hex, "gpu",
                         prof->gpu, "builder_args", args);
  const char *cg = tables ? fu_profile_compute_other_gpu(prof) : NULL;
  if (pw && cg && json_object_set_new(pw, "compute_gpu", json_string(cg)) != 0) {
    json_decref(pw);
    pw = NULL;
  }
  if (!pw) return FU_ENOMEM;
  json_decref(w->priced_with);
  w->priced_with = pw;
  return FU_OK;
}

static const char *fu__pw(const fu_workload *w, const char *key) {
  return json_string_value(json_object_get(w->priced_with, key));
}

/* Names in f the GPU of the tables that priced the times used (tables, NULL: prof's links' own)
   where it is not prof's: the output says so (fu_compute_note). */
static void fu__tables_gpu(fu_compute_from *f, const char *tables, const fu_profile *prof) {
  if (!tables || !tables[0] || !prof->gpu[0] || fu_gpu_same(tables, prof->gpu)) return;
  f->said = 1;
  snprintf(f->tables_gpu, sizeof f->tables_gpu, "%s", tables);
  snprintf(f->links_gpu, sizeof f->links_gpu, "%s", prof->gpu);
}

/* a and b alike, numbers within a relative 1e-9: two profiles that hold the same tables, read
   from files that print them at different precision, price a sum a rounding apart */
static int fu__json_close(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) {
    double x = json_number_value(a), y = json_number_value(b);
    return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
  }
  if (json_typeof(a) != json_typeof(b)) return 0;
  if (json_is_array(a)) {
    if (json_array_size(a) != json_array_size(b)) return 0;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!fu__json_close(json_array_get(a, i), json_array_get(b, i))) return 0;
    return 1;
  }
  if (json_is_object(a)) {
    if (json_object_size(a) != json_object_size(b)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) {
      json_t *u = json_object_get(b, k);
      if (!u || !fu__json_close(v, u)) return 0;
    }
    return 1;
  }
  return json_equal((json_t *)a, (json_t *)b);
}

/* Whether the what-if as given (its JSON) and b, built again, price it alike: the same
   workload but for its labels (name, notes) and what priced it. */
static int fu__same_compute(const json_t *given, const fu_workload *b, int *same) {
  json_t *ja = json_copy((json_t *)given), *jb = NULL; /* shallow: its labels go, given's stay */
  int st = ja ? fu_workload_to_json(b, &jb) : FU_ENOMEM;
  if (st == FU_OK) {
    static const char *const labels[] = {"name", "notes", "priced_with"};
    for (size_t k = 0; k < sizeof labels / sizeof labels[0]; k++) {
      json_object_del(ja, labels[k]);
      json_object_del(jb, labels[k]);
    }
    *same = fu__json_close(ja, jb);
  }
  json_decref(ja);
  json_decref(jb);
  return st;
}

int fu_reprice(const char *cmd, fu_workload *w, const fu_profile *prof, const char *prof_arg,
               const char *prof_hash) {
  fu_compute_from *f = &w->from;
  memset(f, 0, sizeof *f);
  f->estimated = w->estimated;
  if (!w->estimated) { /* a capture: measured, kept; named where it ran elsewhere */
    const char *gpu = json_string_value(json_object_get(w->meta, "gpu"));
    if (!gpu || !strcmp(gpu, prof->gpu)) return FU_OK;
    f->said = 1;
    snprintf(f->gpu, sizeof f->gpu, "%s", gpu);
    fu_warn("%s: %s: compute measured on %s, kept, with the links of %s (%s)", cmd, w->name, gpu,
            prof->name, prof->gpu);
    return FU_OK;
  }
  f->said = 1;
  if (!w->priced_with) {
    snprintf(f->why, sizeof f->why, "the what-if does not record its pricing profile (written before fusim did)");
    fu_warn("%s: %s: compute kept as estimated: %s; build it again with fusim workload --profile", cmd,
            w->name, f->why);
    return FU_OK;
  }
  char hex[FU_HASH_HEX];
  if (prof_hash) snprintf(hex, sizeof hex, "%s", prof_hash);
  else FU_CHECK(fu_profile_hash(prof, hex));
  snprintf(f->profile, sizeof f->profile, "%s", fu__pw(w, "profile"));
  snprintf(f->gpu, sizeof f->gpu, "%s", fu__pw(w, "gpu"));
  if (!strcmp(hex, fu__pw(w, "profile_hash"))) {
    f->said = 0; /* the profile in use priced it: nothing to say, but where its tables are another GPU's */
    fu__tables_gpu(f, fu__pw(w, "compute_gpu"), prof);
    return FU_OK;
  }
  fu_workload nw;
  int no_tables = 0;
  /* the builder's warnings are not given on every predict: the what-if's own build gave them,
     and `workload --profile` gives this profile's (README says they are muted) */
  int was = fu_warn_mute(1);
  int st = fu_workload_build_args(json_object_get(w->priced_with, "builder_args"), prof,
                                  prof_arg ? prof_arg : FU_PROFILE_EMBEDDED_LABEL, &nw, &no_tables);
  fu_warn_mute(was);
  FU_CHECK(st);
  if (no_tables) { /* a roofline what-if needs none: built again above */
    snprintf(f->why, sizeof f->why, "the profile in use (%s) has no compute tables", prof->name);
    fu_warn("%s: %s: compute kept as %s (%s) priced it: %s", cmd, w->name, f->profile, f->gpu, f->why);
    fu__tables_gpu(f, fu__pw(w, "compute_gpu") ? fu__pw(w, "compute_gpu") : f->gpu, prof);
    return FU_OK;
  }
  /* another profile with the same tables (one that adds network curves) prices it alike: the
     file's workload stands, and there is nothing to say */
  int same = 0;
  json_t *given = NULL; /* the what-if as the user gave it: the database keeps it */
  if ((st = fu_workload_to_json(w, &given)) == FU_OK) st = fu__same_compute(given, &nw, &same);
  if (st != FU_OK || same) {
    json_decref(given);
    f->said = 0;
    fu__tables_gpu(f, fu_workload_compute_gpu(&nw), prof);
    fu_workload_finish(&nw);
    return st;
  }
  /* a label and where it was read from stay the user's */
  snprintf(nw.name, sizeof nw.name, "%s", w->name);
  snprintf(nw.source, sizeof nw.source, "%s", w->source);
  nw.from = *f;
  nw.from.repriced = 1;
  snprintf(nw.from.was_profile, sizeof nw.from.was_profile, "%s", f->profile);
  snprintf(nw.from.was_gpu, sizeof nw.from.was_gpu, "%s", f->gpu);
  snprintf(nw.from.profile, sizeof nw.from.profile, "%s", prof->name);
  snprintf(nw.from.gpu, sizeof nw.from.gpu, "%s", prof->gpu);
  fu__tables_gpu(&nw.from, fu_workload_compute_gpu(&nw), prof);
  nw.as_given = given; /* with the profile: report rerun prices it again so */
  fu_workload_finish(w);
  *w = nw;
  return FU_OK;
}
