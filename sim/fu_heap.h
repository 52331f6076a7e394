/* fu_heap.h: the simulator's event queue, an array-backed binary min-heap ordered by
 * (time, sequence number). The sequence number is an insertion counter (libuv's timer heap
 * does the same), so events at equal times come out in the order they went in and every run
 * is deterministic. The heap remembers the time of the last event taken out ("now");
 * scheduling before it is an error (FU_EINTERNAL), never a silent reordering.
 *
 * Costs: push and pop are O(log n) with n the events pending (a handful in practice: the
 * simulator keeps one completion per running task); memory grows by doubling. */
#ifndef FU_HEAP_H
#define FU_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct fu_event {
  double t_us;               /* when the event happens, microseconds */
  uint64_t seq;              /* insertion counter: tie-break for equal times */
  uint32_t type;             /* what happens (meaning is the driver's) */
  uint32_t version;          /* lets the driver recognise superseded events */
  uint32_t arg;              /* e.g. the task the event belongs to */
  uint32_t spare;            /* padding, zero */
} fu_event;

typedef struct fu_heap {
  fu_event *ev;              /* ev[0] is the earliest event (malloc'd) */
  size_t n;                  /* events pending */
  size_t cap;                /* slots allocated */
  uint64_t next_seq;         /* sequence number of the next push */
  double now_us;             /* time of the last event popped (0 before the first) */
} fu_heap;

/* Caller-owned: init with an initial capacity (0 picks a default), finish frees. */
int fu_heap_init(fu_heap *h, size_t cap);
void fu_heap_finish(fu_heap *h);
/* Empties the heap and sets the clock back to 0 (keeps the memory). */
void fu_heap_reset(fu_heap *h);

/* Schedules an event at t_us. FU_EINTERNAL if t_us < now or is not finite; FU_ENOMEM. */
int fu_heap_push(fu_heap *h, double t_us, uint32_t type, uint32_t arg, uint32_t version);
/* Takes out the earliest event and advances now to its time. Returns 0 when empty, 1 if *out
 * was filled. */
int fu_heap_pop(fu_heap *h, fu_event *out);

static inline size_t fu_heap_size(const fu_heap *h) { return h->n; }

#endif
