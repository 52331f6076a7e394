/* fu_engine.c: lanes, shared links, compute slowdown and the event loop (see fu_engine.h). */
#include "fu_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

enum { FU__ST_WAIT = 0, FU__ST_STARTED = 1, FU__ST_WORKING = 2, FU__ST_DONE = 3 };

/* Grows *arr (elements of `size` bytes) so that it holds at least `need`. */
static int fu__grow(void **arr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return FU_OK;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *p = realloc(*arr, c * size);
  if (!p) return FU_ENOMEM;
  *arr = p;
  *cap = c;
  return FU_OK;
}

int fu_engine_init(fu_engine *e) {
  memset(e, 0, sizeof *e);
  e->comm_slowdown = e->copy_slowdown = 1.0;
  return fu_heap_init(&e->heap, 64);
}

void fu_engine_finish(fu_engine *e) {
  fu_heap_finish(&e->heap);
  free(e->tasks);
  free(e->edges);
  free(e->succ);
  for (size_t i = 0; i < e->nlanes; i++) free(e->lanes[i].q);
  free(e->lanes);
  for (int i = 0; i < e->nlinks; i++) free(e->links[i].active);
  free(e->computing);
  free(e->log);
  memset(e, 0, sizeof *e);
}

int fu_engine_lane_add(fu_engine *e, const char *name, uint32_t *id) {
  fu_lane *l = realloc(e->lanes, (e->nlanes + 1) * sizeof *l);
  if (!l) return FU_ENOMEM;
  e->lanes = l;
  l = &e->lanes[e->nlanes];
  memset(l, 0, sizeof *l);
  snprintf(l->name, sizeof l->name, "%s", name ? name : "");
  *id = (uint32_t)e->nlanes++;
  return FU_OK;
}

int fu_engine_link_add(fu_engine *e, const char *name, int *id) {
  if (e->nlinks >= FU_ENGINE_MAX_LINKS) return FU_EINTERNAL;
  fu_elink *k = &e->links[e->nlinks];
  memset(k, 0, sizeof *k);
  snprintf(k->name, sizeof k->name, "%s", name ? name : "");
  k->partner = -1;
  k->duplex_factor = 1.0;
  *id = e->nlinks++;
  return FU_OK;
}

int fu_engine_link_pair(fu_engine *e, int a, int b, double duplex_factor) {
  if (a < 0 || b < 0 || a >= e->nlinks || b >= e->nlinks || a == b) return FU_EINTERNAL;
  if (!(duplex_factor > 0.0 && duplex_factor <= 1.0)) return FU_EINTERNAL;
  e->links[a].partner = b;
  e->links[b].partner = a;
  e->links[a].duplex_factor = e->links[b].duplex_factor = duplex_factor;
  return FU_OK;
}

void fu_engine_set_slowdown(fu_engine *e, double comm_slowdown, double copy_slowdown) {
  e->comm_slowdown = comm_slowdown >= 1.0 ? comm_slowdown : 1.0;
  e->copy_slowdown = copy_slowdown >= 1.0 ? copy_slowdown : 1.0;
}

void fu_task_spec_init(fu_task_spec *s, uint32_t lane) {
  memset(s, 0, sizeof *s);
  s->lane = lane;
  s->link = -1;
  s->cls = FU_TASK_PLAIN;
  s->align_origin = FU_TASK_NONE;
}

int fu_engine_task_add(fu_engine *e, const fu_task_spec *s, uint32_t *id) {
  if (s->lane >= e->nlanes || s->link >= e->nlinks || s->link < -1) return FU_EINTERNAL;
  if (!(s->latency_us >= 0.0) || !(s->work_us >= 0.0) || !isfinite(s->latency_us) ||
      !isfinite(s->work_us) || !(s->align_us >= 0.0))
    return FU_EINTERNAL;
  if (e->ntasks >= FU_HEAP_MAX_ARG) return FU_ENOMEM; /* the heap names tasks in 26 bits */
  FU_CHECK(fu__grow((void **)&e->tasks, &e->tcap, e->ntasks + 1, sizeof *e->tasks));
  fu_lane *l = &e->lanes[s->lane];
  FU_CHECK(fu__grow((void **)&l->q, &l->cap, l->n + 1, sizeof *l->q));
  uint32_t i = (uint32_t)e->ntasks++;
  fu_engine_task *t = &e->tasks[i];
  memset(t, 0, sizeof *t);
  t->latency_us = s->latency_us;
  t->work_us = s->work_us;
  t->align_us = s->align_us;
  t->align_origin = s->align_origin;
  t->lane = s->lane;
  t->link = (int16_t)s->link;
  t->cls = (uint8_t)s->cls;
  t->tag = s->tag;
  l->q[l->n++] = i;
  e->csr_ok = 0;
  *id = i;
  return FU_OK;
}

int fu_engine_reserve(fu_engine *e, size_t ntasks, size_t nedges) {
  FU_CHECK(fu__grow((void **)&e->tasks, &e->tcap, ntasks, sizeof *e->tasks));
  return fu__grow((void **)&e->edges, &e->ecap, nedges, sizeof *e->edges);
}

int fu_engine_dep(fu_engine *e, uint32_t before, uint32_t after) {
  if (before >= e->ntasks || after >= e->ntasks || before == after) return FU_EINTERNAL;
  FU_CHECK(fu__grow((void **)&e->edges, &e->ecap, e->nedges + 1, sizeof *e->edges));
  e->edges[e->nedges++] = (fu_edge){before, after};
  e->tasks[after].ndeps++;
  e->csr_ok = 0;
  return FU_OK;
}

/* Successor lists in one array (CSR): O(V + E), once per graph change. */
static int fu__build_csr(fu_engine *e) {
  free(e->succ);
  e->succ = malloc((e->nedges ? e->nedges : 1) * sizeof *e->succ);
  if (!e->succ) return FU_ENOMEM;
  for (size_t i = 0; i < e->ntasks; i++) e->tasks[i].nsucc = 0;
  for (size_t k = 0; k < e->nedges; k++) e->tasks[e->edges[k].from].nsucc++;
  uint32_t off = 0;
  for (size_t i = 0; i < e->ntasks; i++) {
    e->tasks[i].succ_off = off;
    off += e->tasks[i].nsucc;
    e->tasks[i].nsucc = 0;
  }
  for (size_t k = 0; k < e->nedges; k++) {
    fu_engine_task *t = &e->tasks[e->edges[k].from];
    e->succ[t->succ_off + t->nsucc++] = e->edges[k].to;
  }
  e->csr_ok = 1;
  return FU_OK;
}

static int fu__log(fu_engine *e, int link, double rate) {
  if (!e->log_links) return FU_OK;
  FU_CHECK(fu__grow((void **)&e->log, &e->logcap, e->nlog + 1, sizeof *e->log));
  e->log[e->nlog++] = (fu_link_sample){e->heap.now_us, link, (int)e->links[link].n, rate};
  return FU_OK;
}

/* Brings task i's remaining work up to now and continues at `rate`; schedules its completion. */
static int fu__resched(fu_engine *e, uint32_t i, double rate) {
  fu_engine_task *t = &e->tasks[i];
  if (t->rate == rate) return FU_OK;
  double now = e->heap.now_us;
  if (t->rate > 0.0) {
    t->remaining -= t->rate * (now - t->t_last);
    if (t->remaining < 0.0) t->remaining = 0.0;
  }
  t->t_last = now;
  t->rate = rate;
  return fu_heap_push(&e->heap, now + t->remaining / rate, i, &t->pending);
}

static double fu__link_rate(const fu_engine *e, int l) {
  const fu_elink *k = &e->links[l];
  double r = k->n ? 1.0 / (double)k->n : 1.0;
  if (k->partner >= 0 && e->links[k->partner].n > 0) r *= k->duplex_factor;
  return r;
}

static int fu__link_refresh(fu_engine *e, int l) {
  double r = fu__link_rate(e, l);
  fu_elink *k = &e->links[l];
  for (size_t j = 0; j < k->n; j++) FU_CHECK(fu__resched(e, k->active[j], r));
  return fu__log(e, l, r);
}

/* A task joins or leaves link l: O(k) for the k transfers of l (and of its partner when the
 * partner's duplex factor switches). */
static int fu__link_join(fu_engine *e, uint32_t i) {
  int l = e->tasks[i].link;
  fu_elink *k = &e->links[l];
  FU_CHECK(fu__grow((void **)&k->active, &k->cap, k->n + 1, sizeof *k->active));
  e->tasks[i].slot = (uint32_t)k->n;
  k->active[k->n++] = i;
  FU_CHECK(fu__link_refresh(e, l));
  if (k->n == 1 && k->partner >= 0 && e->links[k->partner].n > 0)
    FU_CHECK(fu__link_refresh(e, k->partner));
  return FU_OK;
}

static int fu__link_leave(fu_engine *e, uint32_t i) {
  int l = e->tasks[i].link;
  fu_elink *k = &e->links[l];
  uint32_t s = e->tasks[i].slot;
  k->active[s] = k->active[--k->n];
  e->tasks[k->active[s]].slot = s;
  FU_CHECK(fu__link_refresh(e, l));
  if (k->n == 0 && k->partner >= 0 && e->links[k->partner].n > 0)
    FU_CHECK(fu__link_refresh(e, k->partner));
  return FU_OK;
}

static double fu__compute_rate(const fu_engine *e) {
  double s = 1.0;
  if (e->n_nccl > 0 && e->comm_slowdown > s) s = e->comm_slowdown;
  if (e->n_copy > 0 && e->copy_slowdown > s) s = e->copy_slowdown;
  return 1.0 / s;
}

/* The number of NCCL or copy tasks running changed: compute tasks may change speed. */
static int fu__compute_refresh(fu_engine *e) {
  double r = fu__compute_rate(e);
  for (size_t j = 0; j < e->ncomputing; j++) FU_CHECK(fu__resched(e, e->computing[j], r));
  return FU_OK;
}

/* Latency is over: the task's work begins. */
static int fu__begin_work(fu_engine *e, uint32_t i) {
  fu_engine_task *t = &e->tasks[i];
  t->state = FU__ST_WORKING;
  t->xfer_us = e->heap.now_us;
  t->remaining = t->work_us;
  t->t_last = e->heap.now_us;
  t->rate = -1.0;
  if (t->link >= 0) return fu__link_join(e, i);
  if (t->cls == FU_TASK_COMPUTE) {
    FU_CHECK(fu__grow((void **)&e->computing, &e->ccap, e->ncomputing + 1, sizeof *e->computing));
    t->slot = (uint32_t)e->ncomputing;
    e->computing[e->ncomputing++] = i;
    return fu__resched(e, i, fu__compute_rate(e));
  }
  return fu__resched(e, i, 1.0);
}

static int fu__start(fu_engine *e, uint32_t i) {
  fu_engine_task *t = &e->tasks[i];
  t->state = FU__ST_STARTED;
  t->start_us = e->heap.now_us;
  e->lanes[t->lane].busy = 1;
  if (t->cls == FU_TASK_NCCL && e->n_nccl++ == 0) FU_CHECK(fu__compute_refresh(e));
  if (t->cls == FU_TASK_COPY && e->n_copy++ == 0) FU_CHECK(fu__compute_refresh(e));
  if (t->latency_us > 0.0)
    return fu_heap_push(&e->heap, e->heap.now_us + t->latency_us, i, &t->pending);
  return fu__begin_work(e, i);
}

/* Starts the head of lane l if the lane is free and the head's predecessors have ended. */
static int fu__lane_try(fu_engine *e, uint32_t l) {
  fu_lane *ln = &e->lanes[l];
  if (ln->busy || ln->head == ln->n) return FU_OK;
  uint32_t i = ln->q[ln->head];
  fu_engine_task *t = &e->tasks[i];
  if (t->npending) return FU_OK;
  if (t->align_us > 0.0 && t->align_origin != FU_TASK_NONE &&
      e->tasks[t->align_origin].state != FU__ST_WAIT) {
    /* The first grid point at or after the moment the task became ready (a relative
     * tolerance keeps a ready time that sits on a grid point from rounding up a cycle). */
    double o = e->tasks[t->align_origin].start_us, now = e->heap.now_us;
    double k = ceil((t->ready_us - o) / t->align_us - 1e-9);
    double at = o + (k > 0 ? k : 0) * t->align_us;
    if (at > now) {
      ln->busy = 1; /* the lane waits for the grid point */
      return fu_heap_push(&e->heap, at, i, &t->pending);
    }
  }
  return fu__start(e, i);
}

static int fu__finish_task(fu_engine *e, uint32_t i) {
  fu_engine_task *t = &e->tasks[i];
  t->state = FU__ST_DONE;
  t->end_us = e->heap.now_us;
  if (t->end_us > e->makespan_us) e->makespan_us = t->end_us;
  fu_lane *ln = &e->lanes[t->lane];
  ln->busy = 0;
  ln->head++;
  if (t->link >= 0) FU_CHECK(fu__link_leave(e, i));
  if (t->cls == FU_TASK_COMPUTE) {
    uint32_t s = t->slot;
    e->computing[s] = e->computing[--e->ncomputing];
    e->tasks[e->computing[s]].slot = s;
  }
  if (t->cls == FU_TASK_NCCL && --e->n_nccl == 0) FU_CHECK(fu__compute_refresh(e));
  if (t->cls == FU_TASK_COPY && --e->n_copy == 0) FU_CHECK(fu__compute_refresh(e));
  const uint32_t *s = e->succ + t->succ_off;
  for (uint32_t k = 0; k < t->nsucc; k++) {
    fu_engine_task *u = &e->tasks[s[k]];
    if (--u->npending == 0) {
      u->ready_us = e->heap.now_us;
      fu_lane *ul = &e->lanes[u->lane];
      if (ul->head < ul->n && ul->q[ul->head] == s[k]) FU_CHECK(fu__lane_try(e, u->lane));
    }
  }
  return fu__lane_try(e, t->lane);
}

int fu_engine_run(fu_engine *e) {
  if (!e->csr_ok) FU_CHECK(fu__build_csr(e));
  fu_heap_reset(&e->heap);
  for (size_t i = 0; i < e->ntasks; i++) {
    fu_engine_task *t = &e->tasks[i];
    t->npending = t->ndeps;
    t->state = FU__ST_WAIT;
    t->pending = UINT64_MAX;
    t->rate = -1.0;
    t->ready_us = t->ndeps ? NAN : 0.0;
    t->start_us = t->xfer_us = t->end_us = NAN;
  }
  for (size_t l = 0; l < e->nlanes; l++) e->lanes[l].head = 0, e->lanes[l].busy = 0;
  for (int l = 0; l < e->nlinks; l++) e->links[l].n = 0;
  e->n_nccl = e->n_copy = 0;
  e->ncomputing = 0;
  e->events = 0;
  e->makespan_us = 0.0;
  e->nlog = 0;
  for (uint32_t l = 0; l < e->nlanes; l++) FU_CHECK(fu__lane_try(e, l));
  fu_event ev;
  uint64_t events = 0;
  while (fu_heap_pop(&e->heap, &ev)) {
    fu_engine_task *t = &e->tasks[ev.arg];
    if (ev.seq != t->pending) continue; /* superseded by a rate change: not an event */
    events++;
    /* A task has one live event at a time; its state says which: the grid point it waited
     * for (waiting), the end of its latency (started), or its completion (working). */
    switch (t->state) {
    case FU__ST_WAIT: FU_CHECK(fu__start(e, ev.arg)); break;
    case FU__ST_STARTED: FU_CHECK(fu__begin_work(e, ev.arg)); break;
    case FU__ST_WORKING: FU_CHECK(fu__finish_task(e, ev.arg)); break;
    default: return FU_EINTERNAL;
    }
  }
  e->events = events;
  for (size_t l = 0; l < e->nlanes; l++)
    if (e->lanes[l].head != e->lanes[l].n) return FU_EINTERNAL; /* stuck: cycle or bad order */
  return FU_OK;
}
