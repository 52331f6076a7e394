/* fu_heap.c: array-backed binary min-heap of events ordered by (time, sequence number). */
#include "fu_heap.h"

#include <stdlib.h>

#include "fu_common.h"

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

int fu__heap_grow(fu_heap *h) {
  size_t cap = h->cap ? 2 * h->cap : 64;
  fu_heap_entry *ev = realloc(h->ev, cap * sizeof *ev);
  if (!ev) return FU_ENOMEM;
  h->ev = ev;
  h->cap = cap;
  return FU_OK;
}

void fu_heap_reset(fu_heap *h) {
  h->n = 0;
  h->next_seq = 0;
  h->now_us = 0.0;
}
