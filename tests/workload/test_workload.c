/* test_workload.c: the workload loader (sim/fu_workload.c) and the bundled workloads.
 *
 * Expected values are derived by hand, independently of the generator:
 *   ResNet-50 (torchvision): 53 convolutions + 53 batch norms x (weight, bias) + fc (weight,
 *     bias) = 161 tensors; 25,557,032 parameters (torchvision's documented count) x 4 bytes.
 *   BERT-large as BertForMaskedLM: embeddings 5 + 24 layers x 16 + MLM head 5 (bias, transform
 *     dense w/b, transform LayerNorm w/b; decoder tied) = 394 tensors;
 *     params = 30522*1024 + 512*1024 + 2*1024 + 2*1024            (embeddings 31,782,912)
 *            + 24 * (4*(1024*1024+1024) + 2*(1024*4096) + 4096 + 1024 + 4*1024)
 *                                                                (layers 302,309,376)
 *            + 30522 + 1024*1024 + 1024 + 2*1024                   (head 1,082,170)
 *            = 335,174,458, x 4 bytes (fp32 gradients) = 1.2486 GiB.
 *   Llama-2-7B: 1 + 32 x 9 + 1 + 1 = 291 tensors, 6,738,415,616 params (Meta's count) x 2. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_test.h"
#include "fu_workload.h"

static int parse(const char *text, int strict, fu_workload *w) {
  return fu_workload_parse(text, "t.json", strict, w);
}

static void check_bundled(const char *name, size_t ntensors, uint64_t bytes, const char *first,
                          const char *last, double param_bytes) {
  char *path = fu_workload_resolve(name);
  EXPECT(path != NULL);
  if (!path) return;
  fu_workload w;
  EXPECT_INT_EQ(fu_workload_load(path, 1, &w), FU_OK); /* strict: in order, known fields */
  EXPECT_INT_EQ(w.ngrads, ntensors);
  EXPECT_INT_EQ(fu_workload_total_bytes(&w), bytes);
  EXPECT(w.estimated);
  EXPECT_INT_EQ(w.accum_steps, 1);
  if (w.ngrads == ntensors) {
    EXPECT_STR_EQ(w.grads[0].name, first);
    EXPECT_STR_EQ(w.grads[w.ngrads - 1].name, last);
    /* the first layer in forward order is the last to be ready: at the end of backward */
    EXPECT_NEAR(w.grads[w.ngrads - 1].ready_us, w.bwd_us, 1e-3);
    int ordered = 1;
    for (size_t i = 1; i < w.ngrads; i++) ordered &= w.grads[i].ready_us >= w.grads[i - 1].ready_us;
    EXPECT(ordered);
  }
  /* the builder's memory block: the parameters at their precision (fp32 under autocast, bf16
   * for llama2_7b), and a peak above parameters plus optimizer states */
  EXPECT_REL(w.mem.params, param_bytes, 1e-9);
  EXPECT(w.mem.peak > w.mem.params + w.mem.optimizer);
  fu_workload_finish(&w);
  free(path);
}

static void test_bundled(void) {
  check_bundled("resnet50", 161, 25557032ull * 4, "fc.weight", "conv1.weight", 25557032.0 * 4);
  check_bundled("bert_large", 394, 335174458ull * 4, "cls.predictions.bias",
                "bert.embeddings.word_embeddings.weight", 335174458.0 * 4);
  check_bundled("llama2_7b", 291, 6738415616ull * 2, "lm_head.weight", "model.embed_tokens.weight",
                6738415616.0 * 2);
  /* byte totals as the issue states them: 97.5 MiB, 1.25 GiB */
  char *p = fu_workload_resolve("resnet50");
  fu_workload w;
  if (p && fu_workload_load(p, 0, &w) == FU_OK) {
    EXPECT_NEAR(fu_workload_total_bytes(&w) / 1048576.0, 97.5, 0.05);
    fu_workload_finish(&w);
  }
  free(p);
  p = fu_workload_resolve("bert_large.json");
  if (p && fu_workload_load(p, 0, &w) == FU_OK) {
    EXPECT_NEAR(fu_workload_total_bytes(&w) / 1073741824.0, 1.25, 0.005);
    fu_workload_finish(&w);
  }
  free(p);
}

/* Layers in forward order; backward in reverse; a layer's grads ready at the end of its
 * backward. By hand: bwd total 10 given, layers' bwd sum 2+1+5 = 8, so 2 us come first;
 * l2 ends at 2+5 = 7, relu at 8, l0 at 10. */
static void test_layers(void) {
  const char *j =
      "{\"format\":\"fusim-workload-1\",\"name\":\"lay\",\"bwd_us\":10,\"layers\":["
      "{\"name\":\"l0\",\"fwd_us\":1,\"bwd_us\":2,\"grad_bytes\":[4,8]},"
      "{\"name\":\"relu\",\"fwd_us\":1,\"bwd_us\":1,\"grad_bytes\":[]},"
      "{\"name\":\"l2\",\"fwd_us\":3,\"bwd_us\":5,\"grad_bytes\":[16],\"grad_names\":[\"fc.weight\"]}]}";
  fu_workload w;
  EXPECT_INT_EQ(parse(j, 1, &w), FU_OK);
  EXPECT_INT_EQ(w.ngrads, 3);
  EXPECT_NEAR(w.fwd_us, 5, 0);
  EXPECT_NEAR(w.bwd_us, 10, 0);
  if (w.ngrads == 3) {
    EXPECT_STR_EQ(w.grads[0].name, "fc.weight");
    EXPECT_NEAR(w.grads[0].ready_us, 7, 1e-12);
    EXPECT_STR_EQ(w.grads[1].name, "l0.0");
    EXPECT_INT_EQ(w.grads[1].bytes, 4);
    EXPECT_NEAR(w.grads[1].ready_us, 10, 1e-12);
    EXPECT_STR_EQ(w.grads[2].name, "l0.1");
    EXPECT_NEAR(w.grads[2].ready_us, 10, 1e-12);
  }
  fu_workload_finish(&w);
  /* without top-level times: sums; ready times start at 0 */
  const char *j2 =
      "{\"format\":\"fusim-workload-1\",\"layers\":["
      "{\"name\":\"a\",\"fwd_us\":1.5,\"bwd_us\":3,\"grad_bytes\":[1]},"
      "{\"name\":\"b\",\"fwd_us\":2.5,\"bwd_us\":4,\"grad_bytes\":[2,3]}]}";
  EXPECT_INT_EQ(parse(j2, 0, &w), FU_OK);
  EXPECT_NEAR(w.fwd_us, 4, 0);
  EXPECT_NEAR(w.bwd_us, 7, 0);
  if (w.ngrads == 3) {
    EXPECT_NEAR(w.grads[0].ready_us, 4, 0);
    EXPECT_NEAR(w.grads[1].ready_us, 4, 0);
    EXPECT_NEAR(w.grads[2].ready_us, 7, 0);
    EXPECT_STR_EQ(w.grads[2].name, "a.0");
  }
  EXPECT_STR_EQ(w.name, "t"); /* default: the file's base name */
  fu_workload_finish(&w);
  /* top-level bwd_us below the layers' sum is an error */
  const char *j3 = "{\"format\":\"fusim-workload-1\",\"bwd_us\":1,\"layers\":["
                   "{\"name\":\"a\",\"fwd_us\":1,\"bwd_us\":3,\"grad_bytes\":[1]}]}";
  EXPECT_INT_EQ(parse(j3, 0, &w), FU_EDATA);
}

static void test_fields(void) {
  fu_workload w;
  const char *j =
      "{\"format\":\"fusim-workload-1\",\"name\":\"acc\",\"fwd_us\":100,\"bwd_us\":200,"
      "\"opt_us\":7.5,\"accum_steps\":4,\"host\":{\"hook_us\":1.5,\"issue_us\":2.25},"
      "\"estimated\":false,\"notes\":\"n\",\"meta\":{\"x\":1},"
      "\"grads\":[{\"name\":\"a\",\"bytes\":1024,\"ready_us\":50},"
      "{\"name\":\"b\",\"bytes\":2048,\"ready_us\":200.04}]}";
  EXPECT_INT_EQ(parse(j, 1, &w), FU_OK);
  EXPECT_INT_EQ(w.accum_steps, 4);
  EXPECT_NEAR(w.opt_us, 7.5, 0);
  EXPECT_NEAR(w.hook_us, 1.5, 0);
  EXPECT_NEAR(w.issue_us, 2.25, 0);
  EXPECT_INT_EQ(w.estimated, 0);
  EXPECT_INT_EQ(fu_workload_total_bytes(&w), 3072);
  /* 0.04 us past bwd_us is rounding: clamped to bwd_us */
  if (w.ngrads == 2) EXPECT_NEAR(w.grads[1].ready_us, 200, 0);

  /* save and load again: the same workload */
  char tmpl[] = "/tmp/fu_wl_XXXXXX";
  char *dir = mkdtemp(tmpl);
  EXPECT(dir != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/rt.json", dir);
  EXPECT_INT_EQ(fu_workload_save(path, &w), FU_OK);
  fu_workload r;
  EXPECT_INT_EQ(fu_workload_load(path, 1, &r), FU_OK);
  EXPECT_STR_EQ(r.name, "acc");
  EXPECT_INT_EQ(r.accum_steps, 4);
  EXPECT_NEAR(r.hook_us, 1.5, 0);
  EXPECT_NEAR(r.issue_us, 2.25, 0);
  EXPECT_NEAR(r.fwd_us, 100, 0);
  EXPECT_INT_EQ(r.ngrads, 2);
  if (r.ngrads == 2) {
    EXPECT_STR_EQ(r.grads[1].name, "b");
    EXPECT_INT_EQ(r.grads[1].bytes, 2048);
    EXPECT_NEAR(r.grads[0].ready_us, 50, 0);
  }
  fu_workload_finish(&r);

  /* resolve: $FUSIM_DATADIR comes before the build's data folder */
  char wdir[300];
  snprintf(wdir, sizeof wdir, "%s/workloads", dir);
  EXPECT_INT_EQ(mkdir(wdir, 0700), 0);
  char mine[320];
  snprintf(mine, sizeof mine, "%s/mine.json", wdir);
  EXPECT_INT_EQ(fu_workload_save(mine, &w), FU_OK);
  setenv("FUSIM_DATADIR", dir, 1);
  char *p = fu_workload_resolve("mine");
  EXPECT_STR_EQ(p, mine);
  free(p);
  p = fu_workload_resolve("resnet50"); /* still found in the build's data folder */
  EXPECT(p != NULL);
  free(p);
  EXPECT(fu_workload_resolve("no_such_workload") == NULL);
  EXPECT(fu_workload_resolve("/no/such/file.json") == NULL);
  unsetenv("FUSIM_DATADIR");
  p = fu_workload_resolve(path); /* a path is itself */
  EXPECT_STR_EQ(p, path);
  free(p);
  remove(mine);
  rmdir(wdir);
  remove(path);
  rmdir(dir);
  fu_workload_finish(&w);
  fu_workload_finish(&w); /* finish twice is harmless */
}

/* Out of order: sorted stably without strict, an error with it. */
static void test_order(void) {
  const char *j = "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":10,\"grads\":["
                  "{\"name\":\"a\",\"bytes\":1,\"ready_us\":5},"
                  "{\"name\":\"b\",\"bytes\":2,\"ready_us\":2},"
                  "{\"name\":\"c\",\"bytes\":3,\"ready_us\":5},"
                  "{\"name\":\"d\",\"bytes\":4,\"ready_us\":1}]}";
  fu_workload w;
  EXPECT_INT_EQ(parse(j, 1, &w), FU_EDATA);
  EXPECT_INT_EQ(w.ngrads, 0); /* nothing left behind on error */
  EXPECT_INT_EQ(parse(j, 0, &w), FU_OK);
  if (w.ngrads == 4) {
    EXPECT_STR_EQ(w.grads[0].name, "d");
    EXPECT_STR_EQ(w.grads[1].name, "b");
    EXPECT_STR_EQ(w.grads[2].name, "a"); /* stable: a before c at equal times */
    EXPECT_STR_EQ(w.grads[3].name, "c");
  }
  fu_workload_finish(&w);
}

/* Every bad input is FU_EDATA (the message is checked by tests/workload/bad_workloads.sh). */
static void test_bad(void) {
  static const char *bad[] = {
      "[]",
      "{\"format\":\"fusim-workload-2\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":-1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":0,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1.5,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":-1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":\"NaN\"}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":NaN}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":1.1}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0},{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"accum_steps\":0,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"accum_steps\":2.5,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"host\":{\"hook_us\":-2},\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"estimated\":\"yes\",\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}],\"layers\":[]}",
      "{\"format\":\"fusim-workload-1\",\"layers\":[{\"name\":\"a\",\"fwd_us\":1,\"bwd_us\":-3,\"grad_bytes\":[1]}]}",
      "{\"format\":\"fusim-workload-1\",\"layers\":[{\"name\":\"a\",\"fwd_us\":1,\"bwd_us\":3,\"grad_bytes\":[]}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"fwd_us\":2,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1e400,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}",
      "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"grads\":[{\"name\":\"a\",\"bytes\":1e300,\"ready_us\":0}]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fu_workload w;
    int st = parse(bad[i], 0, &w);
    if (st != FU_EDATA) FU_T_FAIL("bad[%zu] gave status %d, expected FU_EDATA: %s", i, st, bad[i]);
    else fu_test_passed++;
    EXPECT_INT_EQ(w.ngrads, 0);
    fu_workload_finish(&w);
  }
  /* an unknown field: a warning, or an error with strict */
  const char *unk = "{\"format\":\"fusim-workload-1\",\"fwd_us\":1,\"bwd_us\":1,\"opt_usec\":3,"
                    "\"grads\":[{\"name\":\"a\",\"bytes\":1,\"ready_us\":0}]}";
  fu_workload w;
  EXPECT_INT_EQ(parse(unk, 0, &w), FU_OK);
  fu_workload_finish(&w);
  EXPECT_INT_EQ(parse(unk, 1, &w), FU_EDATA);
  EXPECT_INT_EQ(fu_workload_load("/no/such/workload.json", 0, &w), FU_ENOINPUT);
}

/* The estimated workloads' ready ORDER against the order tools/capture_torch.py measured on the
 * H200 (independent data: post-accumulate-grad hooks in real PyTorch backward). Skipped (with a
 * note) when a captured file is not there. */
static void check_order(const char *est, const char *cap) {
  char *pe = fu_workload_resolve(est), *pc = fu_workload_resolve(cap);
  if (!pe || !pc) {
    fprintf(stderr, "note: %s or %s not bundled; order check skipped\n", est, cap);
    free(pe);
    free(pc);
    return;
  }
  fu_workload a, b;
  EXPECT_INT_EQ(fu_workload_load(pe, 0, &a), FU_OK);
  EXPECT_INT_EQ(fu_workload_load(pc, 0, &b), FU_OK);
  EXPECT_INT_EQ(a.ngrads, b.ngrads);
  size_t diff = 0, first = 0;
  for (size_t i = 0; i < a.ngrads && i < b.ngrads; i++) {
    if (strcmp(a.grads[i].name, b.grads[i].name) != 0 || a.grads[i].bytes != b.grads[i].bytes) {
      if (!diff) first = i;
      diff++;
    }
  }
  if (diff)
    FU_T_FAIL("%s vs %s: %zu positions differ, first %zu: %s vs %s", est, cap, diff, first,
              a.grads[first].name, b.grads[first].name);
  else
    fu_test_passed++;
  fu_workload_finish(&a);
  fu_workload_finish(&b);
  free(pe);
  free(pc);
}

int main(void) {
  test_bundled();
  check_order("resnet50", "resnet50_captured");
  check_order("bert_large", "bert_large_captured");
  test_layers();
  test_fields();
  test_order();
  test_bad();
  return fu_test_report("test_workload");
}
