/* bench_fit.c: cost of the piecewise fit (O(G^2 n) segment fits + O(K G^2) dynamic programme
 * for G distinct sizes and n samples). Prints milliseconds per fit for sweep shapes from an
 * nccl-tests log (30 sizes) to a dense calibration sweep (300 sizes, or 100 sizes x 10 runs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fu_common.h"
#include "fu_fit.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
  static const struct {
    int sizes;               /* distinct sizes, 8 B .. 8 GiB log-spaced */
    int repeats;             /* samples per size */
  } shapes[] = {{30, 1}, {100, 10}, {300, 1}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    int n = shapes[k].sizes * shapes[k].repeats;
    fu_fit_point *p = malloc((size_t)n * sizeof *p);
    if (!p) return 1;
    unsigned s = 12345;
    for (int i = 0, j = 0; i < shapes[k].sizes; i++)
      for (int r = 0; r < shapes[k].repeats; r++, j++) {
        double b = 8 * pow(2, 30.0 * i / (shapes[k].sizes - 1));
        double t = b < 65536 ? 8 + b / 2e3 : b < 8e6 ? 20 + b / 2e4 : 100 + b / 1e5;
        s = s * 1103515245u + 12345u;
        p[j].bytes = b;
        p[j].t_us = t * (1 + 0.02 * ((double)(s >> 8) / (1u << 24) - 0.5));
      }
    fu_fit_result res;
    int reps = shapes[k].sizes >= 300 ? 3 : 10;
    double t0 = now_ms();
    for (int r = 0; r < reps; r++) {
      if (fu_fit_piecewise(p, (size_t)n, NULL, "bench", &res) != FU_OK) return 1;
      if (r + 1 < reps) fu_fit_result_finish(&res);
    }
    double ms = (now_ms() - t0) / reps;
    printf("%3d sizes x %2d samples: %8.2f ms per fit, %d segments\n", shapes[k].sizes, shapes[k].repeats, ms,
           res.nseg);
    fu_fit_result_finish(&res);
    free(p);
  }
  return 0;
}
