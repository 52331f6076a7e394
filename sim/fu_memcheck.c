/* fu_memcheck.c: see fu_memcheck.h. */
#include "fu_memcheck.h"

double fu_mem_allocated(const fu_mem *m, double buffer_bytes, double view_bytes) {
  if (!(m->peak > 0)) return 0;
  double base = m->forward > 0 ? m->forward : m->peak; /* no forward peak: assume no gradient in the peak */
  double with_views = base + view_bytes > m->peak ? base + view_bytes : m->peak;
  return with_views + (buffer_bytes - view_bytes);
}

void fu_mem_check(double need_bytes, double gpu_bytes, int *fits, double *over_bytes) {
  if (!(need_bytes > 0) || !(gpu_bytes > 0)) {
    *fits = -1;
    *over_bytes = 0;
    return;
  }
  *over_bytes = need_bytes - gpu_bytes;
  *fits = *over_bytes <= 0;
}
