/* fu_heap.c: array-backed binary min-heap of events ordered by (time, sequence number). */
#include "fu_heap.h"

#include <math.h>
#include <stdlib.h>

#include "fu_common.h"

/* a before b: earlier time, or the same time and pushed earlier. */
static inline int fu__ev_less(const fu_event *a, const fu_event *b) {
  return a->t_us < b->t_us || (a->t_us == b->t_us && a->seq < b->seq);
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

int fu_heap_push(fu_heap *h, double t_us, uint32_t type, uint32_t arg, uint32_t version) {
  if (!(t_us >= h->now_us) || !isfinite(t_us)) return FU_EINTERNAL; /* past, NaN or infinite */
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    fu_event *ev = realloc(h->ev, cap * sizeof *ev);
    if (!ev) return FU_ENOMEM;
    h->ev = ev;
    h->cap = cap;
  }
  fu_event e = {t_us, h->next_seq++, type, version, arg, 0};
  /* Sift up: move the hole towards the root while the parent comes after e. */
  size_t i = h->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!fu__ev_less(&e, &h->ev[parent])) break;
    h->ev[i] = h->ev[parent];
    i = parent;
  }
  h->ev[i] = e;
  return FU_OK;
}

int fu_heap_pop(fu_heap *h, fu_event *out) {
  if (h->n == 0) return 0;
  *out = h->ev[0];
  h->now_us = out->t_us;
  size_t n = --h->n;
  if (n == 0) return 1;
  /* Floyd's bottom-up deletion: walk the hole at the root down along the smaller children to
   * a leaf (one comparison per level), then sift the former last element up from there. It
   * usually belongs near the bottom, so this does about half the comparisons of the classic
   * top-down sift. */
  fu_event *ev = h->ev;
  fu_event last = ev[n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && fu__ev_less(&ev[c + 1], &ev[c])) c++;
    ev[i] = ev[c];
    i = c;
  }
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!fu__ev_less(&last, &ev[parent])) break;
    ev[i] = ev[parent];
    i = parent;
  }
  ev[i] = last;
  return 1;
}
