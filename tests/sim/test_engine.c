/* test_engine.c: the engine's resources, each case worked out by hand in its comment:
 * processor sharing on a link, the PCIe duplex factor, latency before work, compute slowdown,
 * lanes in order, dependencies, the Horovod alignment grid, cycles detected, equal-time order. */
#include <math.h>

#include "fu_common.h"
#include "fu_engine.h"
#include "fu_test.h"

static uint32_t add(fu_engine *e, uint32_t lane, int link, fu_task_class cls, double lat,
                    double work) {
  fu_task_spec s;
  fu_task_spec_init(&s, lane);
  s.link = link;
  s.cls = cls;
  s.latency_us = lat;
  s.work_us = work;
  uint32_t id = FU_TASK_NONE;
  if (fu_engine_task_add(e, &s, &id) != FU_OK) fprintf(stderr, "task_add failed\n");
  return id;
}

/* A 1 us task on `lane` that starts on a grid of `cycle` counted from `origin`'s start. */
static fu_task_spec grid_spec(uint32_t lane, uint32_t origin, double cycle) {
  fu_task_spec s;
  fu_task_spec_init(&s, lane);
  s.align_us = cycle;
  s.align_origin = origin;
  s.work_us = 1;
  return s;
}

int main(void) {
  const double tol = 1e-9;
  const double duplex = 99.13 / (2 * 55.2); /* H200: both directions at once */

  { /* Two transfers sharing one link, work 100 and 50, both from 0: each at rate 1/2 until the
     * short one ends at 100 (50 of work at 1/2); the long one has 50 left at rate 1: ends 150. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t a, b;
    int l;
    fu_engine_lane_add(&e, "a", &a);
    fu_engine_lane_add(&e, "b", &b);
    fu_engine_link_add(&e, "nvlink", &l);
    uint32_t t0 = add(&e, a, l, FU_TASK_NCCL, 0, 100), t1 = add(&e, b, l, FU_TASK_NCCL, 0, 50);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[t1].end_us, 100.0, tol);
    EXPECT_NEAR(e.tasks[t0].end_us, 150.0, tol);
    EXPECT_NEAR(e.makespan_us, 150.0, tol);
    /* Events: the two completions. t0's completion was first set for 100 (alone at rate 1),
     * then for 200 (shared from t1's start); both are superseded, not counted. */
    EXPECT_INT_EQ(e.events, 2);
    fu_engine_finish(&e);
  }
  { /* Duplex: H2D 100 and D2H 100 at once, each at rate f = 99.13 / 110.4: both end at 100/f;
     * total bandwidth 2 * 55.2 * f = 99.13 GB/s, the measured figure.
     * Unequal: H2D 100, D2H 50: both at f until 50/f; H2D then has 50 left alone: 50/f + 50. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t a, b;
    int h2d, d2h;
    fu_engine_lane_add(&e, "h2d ce", &a);
    fu_engine_lane_add(&e, "d2h ce", &b);
    fu_engine_link_add(&e, "pcie_h2d", &h2d);
    fu_engine_link_add(&e, "pcie_d2h", &d2h);
    EXPECT_INT_EQ(fu_engine_link_pair(&e, h2d, d2h, duplex), FU_OK);
    uint32_t t0 = add(&e, a, h2d, FU_TASK_COPY, 0, 100), t1 = add(&e, b, d2h, FU_TASK_COPY, 0, 100);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[t0].end_us, 100 / duplex, tol);
    EXPECT_NEAR(e.tasks[t1].end_us, 100 / duplex, tol);
    EXPECT_NEAR(2 * 55.2 * 100 / e.tasks[t0].end_us, 99.13, 1e-9);
    e.tasks[t1].work_us = 50;
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[t1].end_us, 50 / duplex, tol);
    EXPECT_NEAR(e.tasks[t0].end_us, 50 / duplex + 50, tol);
    /* Same direction twice on separate lanes: plain sharing, no duplex factor: 200 and 200. */
    uint32_t c;
    fu_engine_lane_add(&e, "d2h ce 2", &c);
    uint32_t t2 = add(&e, c, d2h, FU_TASK_COPY, 0, 100);
    e.tasks[t0].work_us = 0; /* H2D idle (a zero-work transfer ends at once) */
    e.tasks[t1].work_us = 100;
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[t1].end_us, 200.0, tol);
    EXPECT_NEAR(e.tasks[t2].end_us, 200.0, tol);
    /* Two D2H beside one H2D, 100 each: each D2H shares its link (1/2) while the H2D is busy
     * (x f): f/2; the H2D alone on its link at f ends at 100/f, when each D2H has 50 left, then
     * at 1/2 each: 100/f + 100. */
    e.tasks[t0].work_us = 100;
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[t0].end_us, 100 / duplex, tol);
    EXPECT_NEAR(e.tasks[t1].end_us, 100 / duplex + 100, tol);
    EXPECT_NEAR(e.tasks[t2].end_us, 100 / duplex + 100, tol);
    fu_engine_finish(&e);
  }
  { /* Latency is not shared: A = 10 latency + 100 work, B = 0 + 100, same link, both at 0.
     * B alone at rate 1 for 10 (90 left); then both at 1/2: B ends at 10 + 180 = 190 with A
     * at 10 + 90 = 100 done, 10 left alone: A ends at 200. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t a, b;
    int l;
    fu_engine_lane_add(&e, "a", &a);
    fu_engine_lane_add(&e, "b", &b);
    fu_engine_link_add(&e, "nvlink", &l);
    uint32_t ta = add(&e, a, l, FU_TASK_NCCL, 10, 100), tb = add(&e, b, l, FU_TASK_NCCL, 0, 100);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[tb].end_us, 190.0, tol);
    EXPECT_NEAR(e.tasks[ta].end_us, 200.0, tol);
    EXPECT_NEAR(e.tasks[ta].xfer_us, 10.0, tol);
    fu_engine_finish(&e);
  }
  { /* Compute slowdown 1.25 while a 50 us NCCL task runs: compute work 100 progresses at 0.8
     * for 50 us (40 done), then 60 at rate 1: ends at 110. A copy with copy_slowdown 1 leaves a
     * second compute task alone: it starts at 110, 20 of work, ends 130. */
    fu_engine e;
    fu_engine_init(&e);
    fu_engine_set_slowdown(&e, 1.25, 1.0);
    uint32_t comp, comm, ce;
    fu_engine_lane_add(&e, "compute", &comp);
    fu_engine_lane_add(&e, "comm", &comm);
    fu_engine_lane_add(&e, "ce", &ce);
    uint32_t c0 = add(&e, comp, -1, FU_TASK_COMPUTE, 0, 100);
    add(&e, comm, -1, FU_TASK_NCCL, 0, 50);
    uint32_t c1 = add(&e, comp, -1, FU_TASK_COMPUTE, 0, 20);
    uint32_t cp = add(&e, ce, -1, FU_TASK_COPY, 0, 200);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[c0].end_us, 110.0, tol);
    EXPECT_NEAR(e.tasks[c1].end_us, 130.0, tol);
    EXPECT_NEAR(e.tasks[cp].end_us, 200.0, tol);
    /* copy_slowdown 2: the copy runs 0..200 beside all compute: c0 at 1/2 while the NCCL task
     * runs too (max(1.25, 2) = 2): 100 work takes 200; c1 starts at 200 after the copy: 220. */
    fu_engine_set_slowdown(&e, 1.25, 2.0);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[c0].end_us, 200.0, tol);
    EXPECT_NEAR(e.tasks[c1].end_us, 220.0, tol);
    fu_engine_finish(&e);
  }
  { /* Lanes in order plus dependencies: host issues x (5) then y (5); stream runs X (100) after
     * x and Y (10) after y: X 5..105, Y 105..115 (stream order), host done at 10. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t host, st;
    fu_engine_lane_add(&e, "host", &host);
    fu_engine_lane_add(&e, "stream", &st);
    uint32_t x = add(&e, host, -1, FU_TASK_PLAIN, 0, 5), y = add(&e, host, -1, FU_TASK_PLAIN, 0, 5);
    uint32_t X = add(&e, st, -1, FU_TASK_PLAIN, 0, 100), Y = add(&e, st, -1, FU_TASK_PLAIN, 0, 10);
    fu_engine_dep(&e, x, X);
    fu_engine_dep(&e, y, Y);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[X].start_us, 5.0, tol);
    EXPECT_NEAR(e.tasks[Y].start_us, 105.0, tol);
    EXPECT_NEAR(e.tasks[y].end_us, 10.0, tol);
    EXPECT_INT_EQ(fu_engine_dep(&e, x, x), FU_EINTERNAL);
    /* A cycle (X after Y while Y follows X on the stream) can never run: an error. */
    fu_engine_dep(&e, Y, X);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_EINTERNAL);
    fu_engine_finish(&e);
  }
  { /* Alignment grid (Horovod cycle 1000 from the origin's start at 300): a task ready at
     * 300 + 1500 starts at 300 + 2000; one ready exactly on a grid point starts there. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t comp, bg;
    fu_engine_lane_add(&e, "compute", &comp);
    fu_engine_lane_add(&e, "bg", &bg);
    uint32_t pre = add(&e, comp, -1, FU_TASK_PLAIN, 0, 300);
    uint32_t o = add(&e, comp, -1, FU_TASK_PLAIN, 0, 1500);
    uint32_t o2 = add(&e, comp, -1, FU_TASK_PLAIN, 0, 500);
    fu_task_spec s = grid_spec(bg, o, 1000);
    uint32_t a, b;
    fu_engine_task_add(&e, &s, &a);
    fu_engine_task_add(&e, &s, &b);
    fu_engine_dep(&e, o, a);
    fu_engine_dep(&e, o2, b);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    (void)pre;
    EXPECT_NEAR(e.tasks[a].start_us, 2300.0, tol);
    EXPECT_NEAR(e.tasks[b].start_us, 2301.0, tol); /* ready at 2300, lane busy until 2301 */
    fu_engine_finish(&e);
  }
  { /* The grid counts from the origin's start while the origin still runs: origin 0..5000,
     * cycle 1000; a task ready at 300 (after a 300 us task on another lane) waits for 1000.
     * A negative or NaN grid is refused. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t comp, other, bg;
    fu_engine_lane_add(&e, "compute", &comp);
    fu_engine_lane_add(&e, "other", &other);
    fu_engine_lane_add(&e, "bg", &bg);
    uint32_t o = add(&e, comp, -1, FU_TASK_PLAIN, 0, 5000);
    uint32_t pre = add(&e, other, -1, FU_TASK_PLAIN, 0, 300);
    fu_task_spec s = grid_spec(bg, o, 1000);
    uint32_t a = FU_TASK_NONE, bad;
    EXPECT_INT_EQ(fu_engine_task_add(&e, &s, &a), FU_OK);
    fu_engine_dep(&e, pre, a);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_NEAR(e.tasks[a].start_us, 1000.0, tol);
    s.align_us = -1000;
    EXPECT_INT_EQ(fu_engine_task_add(&e, &s, &bad), FU_EINTERNAL);
    s.align_us = NAN;
    EXPECT_INT_EQ(fu_engine_task_add(&e, &s, &bad), FU_EINTERNAL);
    fu_engine_finish(&e);
  }
  { /* Equal times run in insertion order: three zero-work tasks on three lanes, all at 0,
     * then a task depending on all; the run is repeatable to the event count. */
    fu_engine e;
    fu_engine_init(&e);
    uint32_t l[3], t[3];
    for (int i = 0; i < 3; i++) fu_engine_lane_add(&e, "l", &l[i]);
    for (int i = 0; i < 3; i++) t[i] = add(&e, l[i], -1, FU_TASK_PLAIN, 0, 0);
    uint32_t z = add(&e, l[0], -1, FU_TASK_PLAIN, 0, 7);
    for (int i = 0; i < 3; i++) fu_engine_dep(&e, t[i], z);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    uint64_t ev = e.events;
    EXPECT_NEAR(e.tasks[z].end_us, 7.0, 0);
    EXPECT_INT_EQ(fu_engine_run(&e), FU_OK);
    EXPECT_INT_EQ(e.events, ev);
    EXPECT_INT_EQ(ev, 4);
    fu_engine_finish(&e);
  }
  return fu_test_report("test_engine");
}
