/* fu_trace.h: Chrome trace JSON (the "Trace Event Format" that chrome://tracing and
 * ui.perfetto.dev open), built with Jansson and written in one go. One process; one thread
 * track per lane (host thread, compute stream, communication streams, copy engines), counter
 * tracks per link, and flow arrows ("s"/"f" events) from a gradient's ready time to the
 * communication that carries it. Times are microseconds, as the format wants. */
#ifndef FU_TRACE_H
#define FU_TRACE_H

#include <stdint.h>

#include <jansson.h>

typedef struct fu_trace fu_trace;  /* the writer (fu_trace.c) */

/* Library-owned writer: create names the output file (nothing is written until
 * fu_trace_write); destroy accepts NULL. */
int fu_trace_create(const char *path, fu_trace **out);
void fu_trace_destroy(fu_trace *t);
/* Writes the file; prints "PATH: reason" and returns FU_EIO on failure. */
int fu_trace_write(fu_trace *t);
const char *fu_trace_path(const fu_trace *t);
size_t fu_trace_nevents(const fu_trace *t);

/* Process and thread names ("M" events); sort orders the tracks top to bottom. */
int fu_trace_process_name(fu_trace *t, const char *name);
int fu_trace_thread_name(fu_trace *t, int tid, const char *name, int sort);
/* A complete slice ("X"); args (may be NULL) is stolen. */
int fu_trace_slice(fu_trace *t, int tid, const char *name, const char *cat, double ts_us,
                   double dur_us, json_t *args);
/* A flow arrow from the slice enclosing (tid0, ts0) to the slice enclosing (tid1, ts1). */
int fu_trace_flow(fu_trace *t, uint64_t id, const char *name, int tid0, double ts0_us, int tid1,
                  double ts1_us);
/* One value of a counter track ("C"): the track is named `name`, the series `series`. */
int fu_trace_counter(fu_trace *t, const char *name, double ts_us, const char *series, double v);

#endif
