/* test_heap.c: the event heap: ordering by time, insertion order at equal times, the clock,
 * scheduling into the past. Expected orders are derived by hand / by a plain sort. */
#include <math.h>
#include <stdlib.h>

#include "fu_common.h"
#include "fu_heap.h"
#include "fu_test.h"

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

int main(void) {
  fu_heap h;
  EXPECT_INT_EQ(fu_heap_init(&h, 0), FU_OK);
  fu_event ev;
  EXPECT_INT_EQ(fu_heap_pop(&h, &ev), 0); /* empty */

  /* Hand example: times 5, 1, 3, 1, 5, 1 -> (1,#1) (1,#3) (1,#5) (3,#2) (5,#0) (5,#4). */
  double ts[] = {5, 1, 3, 1, 5, 1};
  for (uint32_t i = 0; i < 6; i++) EXPECT_INT_EQ(fu_heap_push(&h, ts[i], i, NULL), FU_OK);
  uint32_t want[] = {1, 3, 5, 2, 0, 4};
  for (int i = 0; i < 6; i++) {
    EXPECT_INT_EQ(fu_heap_pop(&h, &ev), 1);
    EXPECT_INT_EQ(ev.arg, want[i]);
  }
  EXPECT_NEAR(h.now_us, 5.0, 0);

  /* Into the past, NaN, infinity: errors; at now: fine. */
  EXPECT_INT_EQ(fu_heap_push(&h, 4.999, 0, NULL), FU_EINTERNAL);
  EXPECT_INT_EQ(fu_heap_push(&h, NAN, 0, NULL), FU_EINTERNAL);
  EXPECT_INT_EQ(fu_heap_push(&h, INFINITY, 0, NULL), FU_EINTERNAL);
  uint64_t seq = 0;
  EXPECT_INT_EQ(fu_heap_push(&h, 5.0, 7, &seq), FU_OK);
  EXPECT_INT_EQ(fu_heap_pop(&h, &ev), 1);
  EXPECT_INT_EQ(ev.arg, 7);
  EXPECT_INT_EQ(ev.seq, seq);
  EXPECT_INT_EQ(seq, 6); /* the seventh push */
  EXPECT_INT_EQ(fu_heap_push(&h, 6.0, FU_HEAP_MAX_ARG + 1, NULL), FU_EINTERNAL);
  /* -0.0 and 0.0 at the start: equal times, insertion order. */
  fu_heap_reset(&h);
  EXPECT_INT_EQ(fu_heap_push(&h, 0.0, 1, NULL), FU_OK);
  EXPECT_INT_EQ(fu_heap_push(&h, -0.0, 2, NULL), FU_OK);
  EXPECT_INT_EQ(fu_heap_push(&h, 1e-300, 3, NULL), FU_OK);
  EXPECT_INT_EQ(fu_heap_pop(&h, &ev) && ev.arg == 1, 1);
  EXPECT_INT_EQ(fu_heap_pop(&h, &ev) && ev.arg == 2, 1);
  EXPECT_INT_EQ(fu_heap_pop(&h, &ev) && ev.arg == 3, 1);

  /* 100000 random events with many ties (times 0..99) against the stable order: sorted by
   * time, equal times by push order. Pushes interleave with pops to exercise both paths. */
  fu_heap_reset(&h);
  uint64_t seed = 42;
  enum { N = 100000 };
  uint32_t count[100] = {0};
  uint32_t seen = 0, last_arg[100];
  double last_t = -1;
  for (int i = 0; i < 100; i++) last_arg[i] = 0;
  int ok = 1;
  for (uint32_t i = 0; i < N; i++) {
    double t = (double)(lcg(&seed) % 100);
    if (t < h.now_us) t = h.now_us;
    if (fu_heap_push(&h, t, i + 1, NULL) != FU_OK) ok = 0;
    if (i % 3 == 2 && fu_heap_pop(&h, &ev)) {
      if (ev.t_us < last_t) ok = 0;
      int b = (int)ev.t_us;
      if (ev.arg <= last_arg[b]) ok = 0; /* equal time: increasing push order */
      last_arg[b] = ev.arg;
      last_t = ev.t_us;
      count[b]++;
      seen++;
    }
  }
  while (fu_heap_pop(&h, &ev)) {
    if (ev.t_us < last_t) ok = 0;
    int b = (int)ev.t_us;
    if (ev.arg <= last_arg[b]) ok = 0;
    last_arg[b] = ev.arg;
    last_t = ev.t_us;
    seen++;
  }
  EXPECT(ok);
  EXPECT_INT_EQ(seen, N);
  fu_heap_finish(&h);
  return fu_test_report("test_heap");
}
