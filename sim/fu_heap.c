/* fu_heap.c: array-backed binary min-heap of events ordered by (time, sequence number). */
#include "fu_heap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

/* a before b: earlier time, or the same time and pushed earlier. */
static inline int fu__less(const fu_heap_entry *a, const fu_heap_entry *b) {
  return a->tbits < b->tbits || (a->tbits == b->tbits && a->seqarg < b->seqarg);
}

int fu_heap_init(fu_heap *h, size_t cap) {
  if (cap == 0) cap = 64;
  h->ev = malloc(cap * sizeof *h->ev);
  if (!h->ev) return FU_ENOMEM;
  h->cap = cap;
  fu_heap_reset(h);
  return FU_OK;
}

void fu_heap_finish(fu_heap *h) {
  free(h->ev);
  h->ev = NULL;
  h->n = h->cap = 0;
}

void fu_heap_reset(fu_heap *h) {
  h->n = 0;
  h->next_seq = 0;
  h->now_us = 0.0;
}

int fu_heap_push(fu_heap *h, double t_us, uint32_t arg, uint64_t *seq) {
  if (!(t_us >= h->now_us) || !isfinite(t_us)) return FU_EINTERNAL; /* past, NaN or infinite */
  if (arg > FU_HEAP_MAX_ARG || h->next_seq > FU_HEAP_MAX_SEQ) return FU_EINTERNAL;
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    fu_heap_entry *ev = realloc(h->ev, cap * sizeof *ev);
    if (!ev) return FU_ENOMEM;
    h->ev = ev;
    h->cap = cap;
  }
  t_us += 0.0; /* -0.0 becomes +0.0, whose bits order correctly */
  fu_heap_entry e;
  memcpy(&e.tbits, &t_us, sizeof e.tbits);
  if (seq) *seq = h->next_seq;
  e.seqarg = h->next_seq++ << FU_HEAP_ARG_BITS | arg;
  /* Sift up: move the hole towards the root while the parent comes after e. */
  fu_heap_entry *ev = h->ev;
  size_t i = h->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!fu__less(&e, &ev[parent])) break;
    ev[i] = ev[parent];
    i = parent;
  }
  ev[i] = e;
  return FU_OK;
}

int fu_heap_pop(fu_heap *h, fu_event *out) {
  if (h->n == 0) return 0;
  fu_heap_entry *ev = h->ev;
  memcpy(&out->t_us, &ev[0].tbits, sizeof out->t_us);
  out->seq = ev[0].seqarg >> FU_HEAP_ARG_BITS;
  out->arg = (uint32_t)(ev[0].seqarg & FU_HEAP_MAX_ARG);
  h->now_us = out->t_us;
  size_t n = --h->n;
  if (n == 0) return 1;
  /* Floyd's bottom-up deletion: walk the hole at the root down along the smaller children to
   * a leaf (one comparison per level), then sift the former last element up from there. It
   * usually belongs near the bottom, so this does about half the comparisons of the classic
   * top-down sift. */
  fu_heap_entry last = ev[n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && fu__less(&ev[c + 1], &ev[c])) c++;
    ev[i] = ev[c];
    i = c;
  }
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!fu__less(&last, &ev[parent])) break;
    ev[i] = ev[parent];
    i = parent;
  }
  ev[i] = last;
  return 1;
}
