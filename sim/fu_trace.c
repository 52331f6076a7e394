/* fu_trace.c: Chrome trace JSON through Jansson (see fu_trace.h). */
#include "fu_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_output.h"

struct fu_trace {
  char *path;                /* output file (malloc'd) */
  json_t *events;            /* the traceEvents array */
  json_t *root;              /* {"traceEvents": [...], "displayTimeUnit": "ns"} */
};

enum { FU__PID = 1 };

int fu_trace_create(const char *path, fu_trace **out) {
  *out = NULL;
  fu_trace *t = calloc(1, sizeof *t);
  if (!t) return FU_ENOMEM;
  t->path = strdup(path);
  t->events = json_array();
  t->root = json_object();
  if (!t->path || !t->events || !t->root ||
      json_object_set(t->root, "traceEvents", t->events) != 0 ||
      json_object_set_new(t->root, "displayTimeUnit", json_string("ns")) != 0) {
    fu_trace_destroy(t);
    return FU_ENOMEM;
  }
  *out = t;
  return FU_OK;
}

void fu_trace_destroy(fu_trace *t) {
  if (!t) return;
  json_decref(t->events);
  json_decref(t->root);
  free(t->path);
  free(t);
}

const char *fu_trace_path(const fu_trace *t) { return t->path; }
size_t fu_trace_nevents(const fu_trace *t) { return json_array_size(t->events); }

int fu_trace_write(fu_trace *t) {
  /* whole or nothing: a failed write (a full disk) leaves no half or empty trace behind */
  return fu_json_save(t->path, t->root, JSON_COMPACT, "the trace");
}

/* Appends ev (stolen). */
static int fu__add(fu_trace *t, json_t *ev) {
  if (!ev) return FU_ENOMEM;
  return json_array_append_new(t->events, ev) == 0 ? FU_OK : FU_ENOMEM;
}

int fu_trace_process_name(fu_trace *t, const char *name) {
  return fu__add(t, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name", "ph", "M",
                              "pid", FU__PID, "tid", 0, "args", "name", name));
}

int fu_trace_thread_name(fu_trace *t, int tid, const char *name, int sort) {
  FU_CHECK(fu__add(t, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
                                "pid", FU__PID, "tid", tid, "args", "name", name)));
  return fu__add(t, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}", "name", "thread_sort_index", "ph",
                              "M", "pid", FU__PID, "tid", tid, "args", "sort_index", sort));
}

int fu_trace_slice(fu_trace *t, int tid, const char *name, const char *cat, double ts_us,
                   double dur_us, json_t *args) {
  json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f}", "name", name, "cat", cat, "ph", "X",
                         "pid", FU__PID, "tid", tid, "ts", ts_us, "dur", dur_us);
  if (ev && args && json_object_set_new(ev, "args", args) != 0) {
    json_decref(ev);
    return FU_ENOMEM;
  }
  if (!ev) json_decref(args);
  return fu__add(t, ev);
}

int fu_trace_flow(fu_trace *t, uint64_t id, const char *name, int tid0, double ts0_us, int tid1,
                  double ts1_us) {
  FU_CHECK(fu__add(t, json_pack("{s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "name", name, "cat", "flow",
                                "ph", "s", "id", (json_int_t)id, "pid", FU__PID, "tid", tid0, "ts",
                                ts0_us)));
  return fu__add(t, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "name", name, "cat",
                              "flow", "ph", "f", "bp", "e", "id", (json_int_t)id, "pid", FU__PID,
                              "tid", tid1, "ts", ts1_us));
}

int fu_trace_counter(fu_trace *t, const char *name, double ts_us, const char *series, double v) {
  return fu__add(t, json_pack("{s:s, s:s, s:i, s:f, s:{s:f}}", "name", name, "ph", "C", "pid",
                              FU__PID, "ts", ts_us, "args", series, v));
}
