/* fu_reprice.c: what priced a what-if, and pricing it again with the profile in use (see
 * fu_reprice.h). */
#include "fu_reprice.h"

#include <jansson.h>
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

int fu_reprice_record(fu_workload *w, const fu_profile *prof, json_t *args) {
  char hex[FU_HASH_HEX];
  FU_CHECK(fu_profile_hash(prof, hex));
  json_t *pw = json_pack("{s:s, s:s, s:s, s:O}", "profile", prof->name, "profile_hash", hex, "gpu",
                         prof->gpu, "builder_args", args);
  if (!pw) return FU_ENOMEM;
  json_decref(w->priced_with);
  w->priced_with = pw;
  return FU_OK;
}

static const char *fu__pw(const fu_workload *w, const char *key) {
  return json_string_value(json_object_get(w->priced_with, key));
}

int fu_reprice(const char *cmd, fu_workload *w, const fu_profile *prof, const char *prof_arg) {
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
  FU_CHECK(fu_profile_hash(prof, hex));
  snprintf(f->profile, sizeof f->profile, "%s", fu__pw(w, "profile"));
  snprintf(f->gpu, sizeof f->gpu, "%s", fu__pw(w, "gpu"));
  if (!strcmp(hex, fu__pw(w, "profile_hash"))) {
    f->said = 0; /* the profile in use priced it: nothing to say */
    return FU_OK;
  }
  if (!fu_builder_has_tables(prof)) {
    snprintf(f->why, sizeof f->why, "the profile in use (%s) has no compute tables", prof->name);
    fu_warn("%s: %s: compute kept as %s (%s) priced it: %s", cmd, w->name, f->profile, f->gpu, f->why);
    return FU_OK;
  }
  fu_workload nw;
  FU_CHECK(fu_workload_build_args(json_object_get(w->priced_with, "builder_args"), prof,
                                   prof_arg ? prof_arg : FU_PROFILE_EMBEDDED_LABEL, &nw));
  /* a label and where it was read from stay the user's */
  snprintf(nw.name, sizeof nw.name, "%s", w->name);
  snprintf(nw.source, sizeof nw.source, "%s", w->source);
  nw.from = *f;
  nw.from.repriced = 1;
  snprintf(nw.from.was_profile, sizeof nw.from.was_profile, "%s", f->profile);
  snprintf(nw.from.was_gpu, sizeof nw.from.was_gpu, "%s", f->gpu);
  snprintf(nw.from.profile, sizeof nw.from.profile, "%s", prof->name);
  snprintf(nw.from.gpu, sizeof nw.from.gpu, "%s", prof->gpu);
  fu_workload_finish(w);
  *w = nw;
  return FU_OK;
}
