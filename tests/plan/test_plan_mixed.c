/* test_plan_mixed.c: the optimal and MG-WFBP searches on workloads whose gradients have two or
 * three element types (a bucket holds one type: a contiguous run of that type's gradients, in
 * fu_bucket's form). Against a hand-derived optimum, against every one-type bucketing simulated,
 * against the other plans on generated workloads, and MG-WFBP against its rule run on each
 * type's gradients by hand. */
#include <stdlib.h>

#include "fu_common.h"
#include "fu_predict.h"
#include "fu_resolve.h"
#include "fu_search.h"
#include "fu_test.h"
#include "plan_util.h"

static const char *const dtypes[] = {"float", "bf16", "half"};

/* pu_workload's workload, gradient i of type dtypes[type[i]]. */
static void mixed_workload(fu_workload *w, size_t n, const uint64_t *bytes, const double *ready,
                           const int *type, double fwd_us, double bwd_us) {
  pu_workload(w, n, bytes, ready, fwd_us, bwd_us);
  for (size_t i = 0; i < n; i++) snprintf(w->grads[i].dtype, sizeof w->grads[i].dtype, "%s", dtypes[type[i]]);
}

/* A plan of the given kind, pack=view (a bucket costs its operation alone). */
static void view_plan(fu_plan *p, fu_fusion_kind kind) {
  fu_plan_init(p);
  p->kind = kind;
  p->pack_view = 1;
}

static double simulate(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                       const fu_profile *prof, const fu_bucket *b, size_t nb) {
  double t = NAN;
  if (fu_sim_iter_buckets(w, p, c, prof, b, nb, &t) != FU_OK) return NAN;
  return t;
}

/* 1 when the buckets go by last gradient (optimal's do unless a seed sent in its own order,
 * such as DDP's, was the fastest). */
static int by_last(const fu_bucket *b, size_t nb) {
  for (size_t k = 1; k < nb; k++)
    if (b[k].last <= b[k - 1].last) return 0;
  return 1;
}

/* 1 when the buckets are one type each and cover every gradient once. */
static int well_formed(const fu_workload *w, const fu_bucket *b, size_t nb) {
  int *seen = calloc(w->ngrads, sizeof *seen), ok = 1;
  for (size_t k = 0; k < nb; k++) {
    if (!fu_grad_same_dtype(&w->grads[b[k].first], &w->grads[b[k].last])) ok = 0;
    for (size_t i = b[k].first; i <= b[k].last; i++) seen[i] += fu_bucket_has(w, &b[k], i);
  }
  for (size_t i = 0; i < w->ngrads; i++) ok &= seen[i] == 1;
  free(seen);
  return ok;
}

/* Every one-type bucketing (a cut after any gradient but its type's last), buckets in order of
 * their last gradient, simulated: the best iteration and its cuts (bit i: a cut at gradient i). */
static double brute_force(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                          const fu_profile *prof, uint32_t *best_cuts, double *second) {
  size_t n = w->ngrads, nfree = 0, freepos[32];
  for (size_t i = 0; i < n; i++) {
    size_t j = i + 1;
    while (j < n && !fu_grad_same_dtype(&w->grads[i], &w->grads[j])) j++;
    if (j < n) freepos[nfree++] = i; /* not its type's last */
  }
  fu_bucket b[32];
  double best = INFINITY;
  *second = INFINITY;
  for (uint32_t mask = 0; mask < (1u << nfree); mask++) {
    uint32_t cuts = 0;
    for (size_t k = 0; k < nfree; k++)
      if (mask >> k & 1) cuts |= 1u << freepos[k];
    for (size_t i = 0; i < n; i++) /* every type's last gradient */
      if (!(cuts >> i & 1)) {
        size_t j = i + 1;
        while (j < n && !fu_grad_same_dtype(&w->grads[i], &w->grads[j])) j++;
        if (j == n) cuts |= 1u << i;
      }
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
      if (!(cuts >> i & 1)) continue;
      size_t first = i; /* back to just after the previous cut of its type */
      for (size_t g = i; g-- > 0;)
        if (fu_grad_same_dtype(&w->grads[g], &w->grads[i])) {
          if (cuts >> g & 1) break;
          first = g;
        }
      memset(&b[nb], 0, sizeof b[nb]);
      b[nb].first = first;
      b[nb++].last = i;
    }
    double t = simulate(w, p, c, prof, b, nb);
    if (t < best) *second = best, best = t, *best_cuts = cuts;
    else if (t < *second) *second = t;
  }
  return best;
}

static uint32_t cuts_of(const fu_bucket *b, size_t nb) {
  uint32_t m = 0;
  for (size_t k = 0; k < nb; k++) m |= 1u << b[k].last;
  return m;
}

/* K groups of four 256 KiB gradients, float and bf16 alternating (A B A B), group k ready at
 * 51k + 1..4 us; backward ends with the last. Test profile, 8-rank NVLink all-reduce, pack=view
 * (a bucket costs its all-reduce alone): t(256 KiB) = 20 + 262144 / 1e5 = 22.62 us, t(512 KiB) =
 * 25.24 us, t(768 KiB) = 27.86 us, t(1 MiB) = 30 + 1048576 / 3e5 = 33.50 us; an issue 2.1 us.
 *  - a group as two buckets, {A A} {B B}, holds the stream 2 x 25.24 = 50.48 us from 5.1 us
 *    after its group starts (A's pair ready at +3, issued): done 0.5 us before the next group's
 *    first bucket can start. Three buckets (25.24 + 2 x 22.62 = 70.48 us), four (90.5), or a
 *    bucket that takes a gradient of the group before (768 KiB: 2 x 27.86 = 55.72 us) run past
 *    it, and a delay of 2.6 us or more reaches the tail, 0.5 us of slack a group absorbing it;
 *  - the last group (the tail): each type's last pair must be sent after it is ready; {A A} {B B}
 *    is 2 x 25.24 after the issues, {A}{A}{B}{B} or three buckets longer, a bucket with earlier
 *    gradients larger (27.86 or 33.50 us).
 * So the best is {A A} {B B} in every group: cuts at the last two gradients of each group.
 * Brute force (every one-type bucketing simulated) confirms it for K <= 4 (up to 16384
 * bucketings), the runner-up over a microsecond behind (measured: 2.6, 2.1, 1.6 us); the search
 * must find it for K = 2..5 (from 12 gradients on, past its own exhaustive enumeration). */
static void test_hand_optimum(void) {
  static fu_profile prof;
  pu_profile(&prof, 1.0);
  fu_comm c;
  fu_comm_parse("allreduce:8:nvlink", &c);
  for (size_t K = 2; K <= 5; K++) {
    size_t n = 4 * K;
    uint64_t bytes[20];
    double ready[20];
    int type[20];
    uint32_t want = 0;
    for (size_t i = 0; i < n; i++) {
      bytes[i] = 262144;
      ready[i] = 51.0 * (double)(i / 4) + (double)(i % 4) + 1;
      type[i] = (int)(i % 2);
      if (i % 4 >= 2) want |= 1u << i;
    }
    fu_workload w;
    mixed_workload(&w, n, bytes, ready, type, 100, ready[n - 1]);
    fu_plan p;
    view_plan(&p, FU_FUSION_OPTIMAL);
    fu_bucket *b = NULL;
    size_t nb = 0;
    fu_search_stats st;
    if (fu_resolve_buckets(&w, &p, &c, &prof, &b, &nb, &st) != FU_OK) {
      FU_T_FAIL("K=%zu: optimal refused a workload of two element types", K);
      fu_workload_finish(&w);
      return;
    }
    EXPECT(well_formed(&w, b, nb));
    EXPECT_INT_EQ(st.dtypes, 2);
    double found = simulate(&w, &p, &c, &prof, b, nb);
    if (cuts_of(b, nb) != want)
      FU_T_FAIL("K=%zu: optimal cuts %#x (%.3f us), the hand optimum is %#x", K, cuts_of(b, nb),
                found, want);
    else fu_test_passed++;
    if (K <= 4) {
      uint32_t bf_cuts = 0;
      double second, bf = brute_force(&w, &p, &c, &prof, &bf_cuts, &second);
      EXPECT_INT_EQ(bf_cuts, want);    /* the hand derivation, checked */
      EXPECT(second > bf + 1.0);       /* unique, by more than a microsecond */
      EXPECT_NEAR(found, bf, 1e-9 * bf);
      fprintf(stderr, "hand optimum, K=%zu: %.3f us (runner-up %.3f us), search %.3f us in %llu "
              "simulations\n", K, bf, second, found, (unsigned long long)st.sims);
    }
    free(b);
    fu_workload_finish(&w);
  }
}

/* Small random workloads of two or three types (n = 4..14) against brute force, with and
 * without compute slowed beside communication and on two streams. Up to 8 free cuts the search
 * enumerates them all itself (must be equal, or below with a seed's own order); past that
 * (moves from seeds) it may stop at a local best: measured when written, see the line printed;
 * the test asks for none more than 1% above and 80% equal or below. Brute force sends by last
 * gradient, so only a result in another order may beat it. */
static void test_vs_brute_force(void) {
  static fu_profile plain, slow;
  pu_profile(&plain, 1.0);
  pu_profile(&slow, 1.25);
  slow.copy_slowdown = 1.1;
  uint64_t seed = 6913;
  int cases = 0, equal = 0, reordered = 0;
  double worst = 0;
  for (int rep = 0; rep < 40; rep++) {
    size_t n = 4 + (size_t)(pu_rng_next(&seed) % 11);
    int ntypes = rep % 4 == 3 ? 3 : 2;
    uint64_t bytes[16];
    double ready[16], t = 0;
    int type[16];
    for (size_t i = 0; i < n; i++) {
      bytes[i] = ((uint64_t)exp(log(1024.0) + pu_rng_unit(&seed) * (log(32.0 * 1048576.0) - log(1024.0)))) & ~7ull;
      t += pu_rng_unit(&seed) < 0.2 ? 0.0 : pu_rng_unit(&seed) * 300.0;
      ready[i] = t;
      type[i] = (int)(pu_rng_next(&seed) % (uint64_t)ntypes);
    }
    type[0] = 0, type[n - 1] = 1; /* at least two types */
    fu_workload w;
    mixed_workload(&w, n, bytes, ready, type, 500, t + 50);
    fu_comm c;
    fu_comm_parse(rep % 2 ? "offload" : "allreduce:8:nvlink", &c);
    fu_plan p;
    fu_plan_init(&p);
    p.kind = FU_FUSION_OPTIMAL;
    p.pack_view = rep % 3 == 0;
    p.comm_streams = rep % 5 == 4 ? 2 : 1;
    const fu_profile *prof = rep % 3 == 1 ? &slow : &plain;
    fu_bucket *b = NULL;
    size_t nb = 0;
    if (fu_search_optimal(&w, &p, &c, prof, &b, &nb, NULL) != FU_OK) {
      FU_T_FAIL("case %d: search failed", rep);
      fu_workload_finish(&w);
      continue;
    }
    EXPECT(well_formed(&w, b, nb));
    double found = simulate(&w, &p, &c, prof, b, nb);
    int in_order = by_last(b, nb);
    free(b);
    uint32_t cuts;
    double second, bf = brute_force(&w, &p, &c, prof, &cuts, &second);
    double gap = (found - bf) / bf;
    if (in_order) EXPECT(gap > -1e-12); /* brute force is the best in that order */
    else reordered++;
    if (!in_order) { /* validate's: fill order only, so no better than brute force, and as good
                        where every bucketing is enumerated */
      p.fill_order = 1;
      EXPECT_INT_EQ(fu_search_optimal(&w, &p, &c, prof, &b, &nb, NULL), FU_OK);
      double kept = simulate(&w, &p, &c, prof, b, nb);
      EXPECT(by_last(b, nb) && well_formed(&w, b, nb) && kept >= bf * (1 - 1e-12));
      if (n - (size_t)ntypes <= 8) EXPECT(kept <= bf * (1 + 1e-12));
      free(b);
    }
    if (gap > worst) worst = gap;
    cases++;
    equal += gap < 1e-12;
    if (n - (size_t)ntypes <= 8 && gap >= 1e-12)
      FU_T_FAIL("case %d (n=%zu, every bucketing enumerated): %.3f us, best %.3f us", rep, n, found, bf);
    fu_workload_finish(&w);
  }
  fprintf(stderr, "mixed vs brute force: %d cases, %d equal or below (%d in a seed's own order), "
          "worst %.3g%% above\n", cases, equal, reordered, 100 * worst);
  EXPECT(worst <= 0.01);
  EXPECT(equal >= cases * 80 / 100);
}

/* Generated mixed workloads of realistic size (60-300 gradients, two or three types, bf16 weights
 * beside float biases and norms): optimal is a search seeded with the other plans, so it is
 * never slower than any of them (each simulated as fu_predict_plan resolves it). */
static void test_never_worse(void) {
  static fu_profile plain, packed, slow;
  pu_profile(&plain, 1.0);
  pu_profile_pack(&packed, 1.0);
  pu_profile(&slow, 1.25);
  slow.copy_slowdown = 1.1;
  const fu_profile *profs[] = {&plain, &packed, &slow};
  const char *others[] = {"none", "single", "ddp", "cap:4MiB", "cap:64MiB", "horovod", "mgwfbp"};
  uint64_t seed = 77;
  for (int rep = 0; rep < 6; rep++) {
    size_t n = rep < 4 ? 60 + (size_t)(pu_rng_next(&seed) % 60) : 300;
    uint64_t *bytes = malloc(n * sizeof *bytes);
    double *ready = malloc(n * sizeof *ready), t = 0;
    int *type = malloc(n * sizeof *type);
    for (size_t i = 0; i < n; i++) {
      int weight = i % 3 != 2; /* weight, weight, bias/norm */
      type[i] = weight ? 1 : (rep % 3 == 2 && i % 2 ? 2 : 0);
      double lo = weight ? 65536.0 : 512.0, hi = weight ? 64.0 * 1048576.0 : 65536.0;
      bytes[i] = ((uint64_t)exp(log(lo) + pu_rng_unit(&seed) * (log(hi) - log(lo)))) & ~7ull;
      t += (double)bytes[i] / (rep % 2 ? 2e5 : 2e4); /* backward making 200 or 20 GB/s */
      ready[i] = t;
    }
    fu_workload w;
    mixed_workload(&w, n, bytes, ready, type, t / 2, t);
    for (size_t pi = 0; pi < 3; pi++)
      for (int ci = 0; ci < 2; ci++) {
        fu_comm c;
        fu_comm_parse(ci ? "offload" : "allreduce:8:nvlink", &c);
        fu_plan p;
        fu_plan_init(&p);
        fu_plan_parse_fusion("optimal", &p);
        p.comm_streams = rep == 5 ? 2 : 1;
        fu_result r;
        if (fu_predict_plan(&w, &p, &c, profs[pi], NULL, NULL, &r) != FU_OK) {
          FU_T_FAIL("rep %d: optimal failed", rep);
          continue;
        }
        double opt = r.iter_us;
        EXPECT(well_formed(&w, r.buckets, r.nbuckets));
        fu_result_finish(&r);
        for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
          fu_plan q;
          fu_plan_init(&q);
          fu_plan_parse_fusion(others[k], &q);
          q.comm_streams = p.comm_streams;
          if (fu_predict_plan(&w, &q, &c, profs[pi], NULL, NULL, &r) != FU_OK) {
            FU_T_FAIL("rep %d: %s failed", rep, others[k]);
            continue;
          }
          if (opt > r.iter_us * (1 + 1e-12))
            FU_T_FAIL("rep %d (n=%zu), profile %zu, %s: optimal %.3f us slower than %s %.3f us",
                      rep, n, pi, ci ? "offload" : "allreduce", opt, others[k], r.iter_us);
          else fu_test_passed++;
          fu_result_finish(&r);
        }
      }
    fu_workload_finish(&w);
    free(bytes);
    free(ready);
    free(type);
  }
}

/* MG-WFBP with several types is its rule on each type's gradients alone: the same rule run on a
 * workload built by hand of only one type's gradients gives that type's buckets. */
static void test_mgwfbp_per_type(void) {
  static fu_profile prof;
  pu_profile(&prof, 1.0);
  fu_comm c;
  fu_comm_parse("allreduce:8:nvlink", &c);
  uint64_t seed = 5;
  enum { N = 40 };
  uint64_t bytes[N];
  double ready[N], t = 0;
  int type[N];
  for (size_t i = 0; i < N; i++) {
    bytes[i] = 4096 * (1 + pu_rng_next(&seed) % 64);
    t += pu_rng_unit(&seed) * 30.0;
    ready[i] = t;
    type[i] = pu_rng_unit(&seed) < 0.4;
  }
  fu_workload w;
  mixed_workload(&w, N, bytes, ready, type, 200, t);
  fu_plan p;
  view_plan(&p, FU_FUSION_MGWFBP);
  fu_bucket *b = NULL;
  size_t nb = 0;
  if (fu_resolve_buckets(&w, &p, &c, &prof, &b, &nb, NULL) != FU_OK) {
    FU_T_FAIL("%s", "mgwfbp refused a workload of two element types");
    fu_workload_finish(&w);
    return;
  }
  EXPECT(well_formed(&w, b, nb));
  size_t seen = 0;
  for (int ty = 0; ty < 2; ty++) {
    size_t ix[N], m = 0;
    uint64_t sb[N];
    double sr[N];
    for (size_t i = 0; i < N; i++)
      if (type[i] == ty) ix[m] = i, sb[m] = bytes[i], sr[m++] = ready[i];
    fu_workload one;
    pu_workload(&one, m, sb, sr, 200, t);
    fu_bucket *ob = NULL;
    size_t onb = 0;
    EXPECT_INT_EQ(fu_search_mgwfbp(&one, &p, &c, &prof, &ob, &onb, NULL), FU_OK);
    size_t k = 0; /* this type's buckets in the mixed result, in order */
    for (size_t q = 0; q < nb; q++) {
      if (type[b[q].first] != ty) continue;
      if (k < onb && ix[ob[k].first] != b[q].first)
        FU_T_FAIL("type %d bucket %zu: first %zu, by hand %zu", ty, k, b[q].first, ix[ob[k].first]);
      else if (k < onb && ix[ob[k].last] != b[q].last)
        FU_T_FAIL("type %d bucket %zu: last %zu, by hand %zu", ty, k, b[q].last, ix[ob[k].last]);
      else fu_test_passed++;
      k++;
    }
    EXPECT_INT_EQ(k, onb);
    seen += onb;
    free(ob);
    fu_workload_finish(&one);
  }
  EXPECT_INT_EQ(seen, nb);
  free(b);
  fu_workload_finish(&w);
}

int main(void) {
  test_hand_optimum();
  test_vs_brute_force();
  test_mgwfbp_per_type();
  test_never_worse();
  return fu_test_report("plan_mixed");
}
