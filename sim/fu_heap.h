/* fu_heap.h: the simulator's event queue, an array-backed binary min-heap ordered by
 * (time, sequence number). The sequence number is an insertion counter (libuv's timer heap
 * does the same), so events at equal times come out in the order they went in and every run
 * is deterministic. The heap remembers the time of the last event taken out ("now");
 * scheduling before it is an error (FU_EINTERNAL), never a silent reordering.
 *
 * An entry is 16 bytes: the time's IEEE-754 bits (times are >= 0, where the bit patterns order
 * as the numbers do) and one word holding the sequence number (high 38 bits) above the event's
 * argument (low 26 bits). Comparing two entries is then two unsigned compares and moving one
 * is two words. Limits: arguments < 2^26 (67 million tasks), 2^38 pushes per run.
 *
 * Costs: push and pop are O(log n) with n the events pending (a few dozen in practice: the
 * simulator keeps one completion per running task); memory grows by doubling. */
#ifndef FU_HEAP_H
#define FU_HEAP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fu_common.h"

#define FU_HEAP_ARG_BITS 26
#define FU_HEAP_MAX_ARG ((UINT32_C(1) << FU_HEAP_ARG_BITS) - 1)
#define FU_HEAP_MAX_SEQ ((UINT64_C(1) << (64 - FU_HEAP_ARG_BITS)) - 1)

typedef struct fu_event {
  double t_us;               /* when the event happens, microseconds */
  uint64_t seq;              /* insertion counter: tie-break for equal times, and identity */
  uint32_t arg;              /* what it is about, e.g. a task (< 2^26) */
} fu_event;

typedef struct fu_heap_entry {
  uint64_t tbits;            /* bits of the (non-negative) time: ordered as the times */
  uint64_t seqarg;           /* seq << FU_HEAP_ARG_BITS | arg */
} fu_heap_entry;

typedef struct fu_heap {
  fu_heap_entry *ev;         /* ev[0] is the earliest event (malloc'd) */
  size_t n;                  /* events pending */
  size_t cap;                /* slots allocated */
  uint64_t next_seq;         /* sequence number of the next push */
  double now_us;             /* time of the last event popped (0 before the first) */
} fu_heap;

/* Caller-owned: init with an initial capacity (0 picks a default), finish frees. */
int fu_heap_init(fu_heap *h, size_t cap);
void fu_heap_finish(fu_heap *h);
/* Empties the heap and sets the clock and the sequence back to 0 (keeps the memory). */
void fu_heap_reset(fu_heap *h);

/* Doubles the capacity (the push below calls it when full). */
int fu__heap_grow(fu_heap *h);

/* push and pop are inline: they are most of the engine's work per event (a call and return
 * each would add about a tenth). */

/* a before b: earlier time, or the same time and pushed earlier. */
static inline int fu__heap_less(const fu_heap_entry *a, const fu_heap_entry *b) {
  return a->tbits < b->tbits || (a->tbits == b->tbits && a->seqarg < b->seqarg);
}

/* Schedules an event at t_us about arg; *seq (may be NULL) receives its sequence number, which
 * a driver can keep to recognise the event later. FU_EINTERNAL if t_us < now or is not finite,
 * or arg / the sequence is out of range; FU_ENOMEM. */
static inline int fu_heap_push(fu_heap *h, double t_us, uint32_t arg, uint64_t *seq) {
  if (!(t_us >= h->now_us) || !isfinite(t_us)) return FU_EINTERNAL; /* past, NaN or infinite */
  if (arg > FU_HEAP_MAX_ARG || h->next_seq > FU_HEAP_MAX_SEQ) return FU_EINTERNAL;
  if (h->n == h->cap && fu__heap_grow(h) != FU_OK) return FU_ENOMEM;
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
    if (!fu__heap_less(&e, &ev[parent])) break;
    ev[i] = ev[parent];
    i = parent;
  }
  ev[i] = e;
  return FU_OK;
}


/* Takes out the earliest event and advances now to its time. Returns 0 when empty, 1 if *out
 * was filled. */
static inline int fu_heap_pop(fu_heap *h, fu_event *out) {
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
    if (c + 1 < n && fu__heap_less(&ev[c + 1], &ev[c])) c++;
    ev[i] = ev[c];
    i = c;
  }
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!fu__heap_less(&last, &ev[parent])) break;
    ev[i] = ev[parent];
    i = parent;
  }
  ev[i] = last;
  return 1;
}

static inline size_t fu_heap_size(const fu_heap *h) { return h->n; }

#endif
