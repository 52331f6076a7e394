/* plan_util.h: helpers for the plan tests: build a workload in memory, capture stderr. */
#ifndef PLAN_UTIL_H
#define PLAN_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_workload.h"

/* A workload with n gradients named g0.. (or names[]), given bytes and ready times. */
static inline void pu_workload(fu_workload *w, size_t n, const uint64_t *bytes, const double *ready,
                               double fwd_us, double bwd_us) {
  fu_workload_init(w);
  snprintf(w->name, sizeof w->name, "test%zu", n);
  w->fwd_us = fwd_us;
  w->bwd_us = bwd_us;
  w->ngrads = n;
  w->grads = calloc(n, sizeof *w->grads);
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "g%zu", i);
    w->grads[i].name = strdup(name);
    w->grads[i].bytes = bytes[i];
    w->grads[i].ready_us = ready[i];
  }
}

/* Redirects stderr into a temporary file until pu_stderr_end, which returns what was written
 * (static buffer). */
typedef struct pu_capture {
  int saved_fd;              /* the original stderr */
  FILE *tmp;                 /* where stderr goes meanwhile */
  char text[4096];           /* what was captured */
} pu_capture;

static inline void pu_stderr_begin(pu_capture *c) {
  fflush(stderr);
  c->saved_fd = dup(fileno(stderr));
  c->tmp = tmpfile();
  dup2(fileno(c->tmp), fileno(stderr));
}

static inline const char *pu_stderr_end(pu_capture *c) {
  fflush(stderr);
  dup2(c->saved_fd, fileno(stderr));
  close(c->saved_fd);
  rewind(c->tmp);
  size_t n = fread(c->text, 1, sizeof c->text - 1, c->tmp);
  c->text[n] = '\0';
  fclose(c->tmp);
  return c->text;
}

#endif
