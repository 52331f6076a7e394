/* fu_engine.h: the discrete-event engine. A caller adds lanes (in-order executors: the host
 * thread, the compute stream, communication streams, copy engines), links (shared by the
 * transfers running over them at once), tasks with dependencies, then runs it; every task gets
 * its start and end time. The driver (fu_engine) holds all state; there are no globals.
 *
 * Semantics, in the order the engine applies them:
 *  - A lane runs its tasks one at a time in the order they were added (a CUDA stream, or a host
 *    thread issuing one operation after another). The head task starts when all its
 *    predecessors have ended (and, with align_us > 0, on the next point of the grid
 *    origin.start + k * align_us: Horovod's cycle).
 *  - A task first spends latency_us (fixed, shared with nobody), then work_us of work at full
 *    rate. Work runs at a rate that changes at events:
 *      on a link: processor sharing, rate = 1/k for k transfers on the link; when the link has a
 *        duplex partner (PCIe H2D vs D2H) with transfers of its own, times duplex_factor
 *        (the H200 reached 99.13 GB/s both ways against 2 x 55.2: factor 0.898);
 *      FU_TASK_COMPUTE: rate = 1/slowdown while an FU_TASK_NCCL task runs (comm_slowdown) or an
 *        FU_TASK_COPY task runs (copy_slowdown); the larger factor applies when both run;
 *      otherwise rate 1.
 *    A rate change re-schedules the task's completion; the superseded event is recognised by a
 *    sequence number kept in the task and dropped (it still counts as an event processed).
 *  - Ties: events at equal times run in the order they were scheduled (fu_heap).
 *
 * Costs: O(E log P) for E events with P pending (P is at most the running tasks); a rate change
 * on a link costs O(k) for its k transfers. Memory: about 120 bytes per task, 8 per edge. */
#ifndef FU_ENGINE_H
#define FU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "fu_heap.h"

#define FU_ENGINE_MAX_LINKS 16
#define FU_TASK_NONE UINT32_MAX

typedef enum fu_task_class {
  FU_TASK_PLAIN = 0,         /* fixed duration, not slowed (host work, pack kernels, markers) */
  FU_TASK_COMPUTE = 1,       /* compute kernels: slowed while communication runs beside them */
  FU_TASK_NCCL = 2,          /* a collective kernel: slows compute by comm_slowdown */
  FU_TASK_COPY = 3           /* a copy-engine transfer: slows compute by copy_slowdown */
} fu_task_class;

/* What the caller says about a task. */
typedef struct fu_task_spec {
  uint32_t lane;             /* lane it runs on (fu_engine_lane_add) */
  int link;                  /* link its work runs over (fu_engine_link_add), -1 for none */
  fu_task_class cls;         /* how it interacts with compute */
  double latency_us;         /* fixed part before the work (not shared, not slowed) */
  double work_us;            /* work at full rate, microseconds */
  double align_us;           /* > 0: start only on the grid align_origin.start + k * align_us */
  uint32_t align_origin;     /* task whose start is the grid's origin (FU_TASK_NONE: none) */
  int32_t tag;               /* the caller's, returned untouched */
} fu_task_spec;

typedef struct fu_engine_task {
  double latency_us;         /* from the spec */
  double work_us;            /* from the spec (may be changed between runs) */
  double align_us;           /* from the spec */
  double remaining;          /* work left at t_last (run state) */
  double rate;               /* current rate of progress, <= 1 (run state; -1 before work) */
  double t_last;             /* when remaining was last brought up to date */
  double ready_us;           /* result: when its last predecessor ended (0 without any) */
  double start_us;           /* result: when the task started (NaN if it never did) */
  double xfer_us;            /* result: when its work (after latency) began */
  double end_us;             /* result: when it ended */
  uint64_t pending;          /* sequence number of its live event (run state) */
  uint32_t align_origin;     /* from the spec */
  uint32_t lane;             /* from the spec */
  uint32_t npending;         /* predecessors not yet ended (run state) */
  uint32_t ndeps;            /* predecessors */
  uint32_t succ_off;         /* first successor in fu_engine.succ (after the CSR build) */
  uint32_t nsucc;            /* successors */
  uint32_t slot;             /* index in its link's or the compute list of running tasks */
  int32_t tag;               /* the caller's */
  int16_t link;              /* from the spec, -1 for none */
  uint8_t cls;               /* fu_task_class */
  uint8_t state;             /* waiting, started, working, done */
} fu_engine_task;

typedef struct fu_lane {
  char name[48];             /* for the trace, e.g. "comm stream 1" */
  uint32_t *q;               /* tasks in the order added (malloc'd) */
  size_t n;                  /* tasks queued */
  size_t cap;                /* slots allocated */
  size_t head;               /* next task to run (run state) */
  int busy;                  /* a task is running or waiting on the alignment grid */
} fu_lane;

/* One sample of a link's state, kept when fu_engine.log_links is set (for trace counters). */
typedef struct fu_link_sample {
  double t_us;               /* when the state changed */
  int link;                  /* which link */
  int nactive;               /* transfers on it from then on */
  double rate_each;          /* rate each of them gets (fraction of the link's bandwidth) */
} fu_link_sample;

typedef struct fu_edge {
  uint32_t from;             /* the task that must end first */
  uint32_t to;               /* the task that waits for it */
} fu_edge;

typedef struct fu_elink {
  char name[24];             /* "nvlink", "pcie_h2d", ... */
  int partner;               /* duplex partner link, -1 for none */
  double duplex_factor;      /* rate factor while the partner is busy too (<= 1) */
  uint32_t *active;          /* transfers on the link (malloc'd, unordered) */
  size_t n;                  /* transfers on the link now */
  size_t cap;                /* slots allocated */
} fu_elink;

typedef struct fu_engine {
  fu_heap heap;              /* pending events */
  fu_engine_task *tasks;     /* all tasks (malloc'd) */
  size_t ntasks;             /* tasks added */
  size_t tcap;               /* slots allocated */
  fu_edge *edges;            /* dependency edges as added (malloc'd) */
  size_t nedges;             /* edges added */
  size_t ecap;               /* slots allocated */
  uint32_t *succ;            /* successors in CSR order (built by run) */
  int csr_ok;                /* succ is up to date with the edges */
  fu_lane *lanes;            /* lanes (malloc'd) */
  size_t nlanes;             /* lanes added */
  fu_elink links[FU_ENGINE_MAX_LINKS]; /* links */
  int nlinks;                /* links added */
  double comm_slowdown;      /* compute time factor while an NCCL task runs (>= 1) */
  double copy_slowdown;      /* compute time factor while a copy task runs (>= 1) */
  int n_nccl;                /* NCCL tasks running (run state) */
  int n_copy;                /* copy tasks running (run state) */
  uint32_t *computing;       /* compute tasks running (run state, malloc'd) */
  size_t ncomputing;         /* ... how many */
  size_t ccap;               /* ... slots allocated */
  uint64_t events;           /* events of the last run: a task's latency or work ended, a grid
                              * point reached (superseded completion times are not counted) */
  double makespan_us;        /* latest end time of the last run */
  int log_links;             /* 1: record link samples during runs */
  fu_link_sample *log;       /* link samples (malloc'd) */
  size_t nlog;               /* samples recorded */
  size_t logcap;             /* slots allocated */
} fu_engine;

/* Caller-owned driver: init, add lanes/links/tasks/edges, run (as often as wanted: a run starts
 * from a clean state and may follow changes to work_us/latency_us), finish. */
int fu_engine_init(fu_engine *e);
void fu_engine_finish(fu_engine *e);

int fu_engine_lane_add(fu_engine *e, const char *name, uint32_t *id);
int fu_engine_link_add(fu_engine *e, const char *name, int *id);
/* Makes a and b the two directions of one full-duplex link. */
int fu_engine_link_pair(fu_engine *e, int a, int b, double duplex_factor);
void fu_engine_set_slowdown(fu_engine *e, double comm_slowdown, double copy_slowdown);

void fu_task_spec_init(fu_task_spec *s, uint32_t lane);   /* plain, no link, no alignment */
int fu_engine_task_add(fu_engine *e, const fu_task_spec *s, uint32_t *id);
/* Room for ntasks tasks and nedges edges in all, so that a large graph is not grown (and copied)
 * step by step; a hint: adding more still works. */
int fu_engine_reserve(fu_engine *e, size_t ntasks, size_t nedges);
/* `after` starts only once `before` has ended. FU_EINTERNAL for unknown tasks or a self edge. */
int fu_engine_dep(fu_engine *e, uint32_t before, uint32_t after);

/* Runs the graph from time 0. FU_EINTERNAL if tasks are left that can never start (a cycle,
 * or an order on a lane that contradicts the dependencies) or a schedule went into the past. */
int fu_engine_run(fu_engine *e);

#endif
