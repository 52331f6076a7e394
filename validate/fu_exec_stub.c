/* fu_exec_stub.c: the executor of the light fusim (linked without CUDA; fusim.c hands validate to
 * the GPU half, fusim-gpu, when it is installed). Every entry point says in one line that the GPU
 * half is missing and returns FU_ENODEV (exit 69), so `fusim validate` fails before any work. */

#include "fu_common.h"
#include "fu_exec.h"
#include "fu_paths.h"

static int fu__nocuda(void) { return fu_paths_no_gpu_half("validate"); }

int fu_exec_probe(fu_exec_info *info) {
  (void)info;
  return fu__nocuda();
}

uint64_t fu_exec_device_bytes(const fu_workload *w, uint64_t max_bucket_bytes, int streams) {
  return fu_workload_total_bytes(w) + max_bucket_bytes * (uint64_t)(streams > 0 ? streams : 1);
}

int fu_exec_create(const fu_workload *w, const fu_exec_opts *o, fu_exec **out) {
  (void)w;
  (void)o;
  *out = NULL;
  return fu__nocuda();
}

void fu_exec_destroy(fu_exec *e) { (void)e; }

int fu_exec_add_plan(fu_exec *e, const fu_plan *p, const fu_bucket *b, size_t nb, int *slot) {
  (void)e, (void)p, (void)b, (void)nb, (void)slot;
  return fu__nocuda();
}

int fu_exec_prepare(fu_exec *e) {
  (void)e;
  return fu__nocuda();
}

int fu_exec_iteration(fu_exec *e, int slot, double *iter_us) {
  (void)e, (void)slot, (void)iter_us;
  return fu__nocuda();
}

int fu_exec_verify(fu_exec *e, int slot, uint32_t seed, char *msg, size_t len) {
  (void)e, (void)slot, (void)seed, (void)msg, (void)len;
  return fu__nocuda();
}

int fu_exec_comm(const fu_exec *e, fu_comm *c) {
  (void)e, (void)c;
  return fu__nocuda();
}

int fu_exec_bench_fusion(const int *k, const uint64_t *m, size_t n, int reps, fu_fusion_row *out) {
  (void)k, (void)m, (void)n, (void)reps, (void)out;
  return fu__nocuda();
}
