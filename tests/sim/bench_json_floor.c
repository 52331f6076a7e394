/* bench_json_floor.c WORKLOAD.json PREDICTION.json EVENTS: what Jansson alone costs for a
 * whole-process `fusim predict --format json` (tests/sim/bench_predict.sh runs it on the same
 * files): reading the workload (json_loadb with the flags fu_workload.c uses, then freeing the
 * tree) and writing the prediction (its tree, read back untimed, dumped with json_dump_callback
 * into a sink that only counts bytes: the same numbers formatted the same way, no I/O). No
 * simulation and no checks: a floor under any Jansson-based predict. Prints the CPU seconds and
 * the events per second that the floor allows. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fu_common.h"

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int count(const char *buf, size_t n, void *data) {
  (void)buf;
  *(size_t *)data += n;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: bench_json_floor WORKLOAD.json PREDICTION.json EVENTS\n");
    return 64;
  }
  char *wtext = NULL, *ptext = NULL;
  size_t wlen = 0, plen = 0;
  if (fu_read_file(argv[1], &wtext, &wlen) != FU_OK || fu_read_file(argv[2], &ptext, &plen) != FU_OK)
    return 66;
  double events = atof(argv[3]);
  json_error_t err;
  double t0 = cpu_s();
  json_t *w = json_loadb(wtext, wlen, JSON_REJECT_DUPLICATES, &err);
  if (!w) {
    fprintf(stderr, "%s: %s\n", argv[1], err.text);
    return 65;
  }
  json_decref(w);
  double t1 = cpu_s();
  json_t *p = json_loadb(ptext, plen, 0, &err);
  if (!p) {
    fprintf(stderr, "%s: %s\n", argv[2], err.text);
    return 65;
  }
  size_t nbytes = 0;
  double t2 = cpu_s();
  int rc = json_dump_callback(p, count, &nbytes, 0);
  double t3 = cpu_s();
  json_decref(p);
  free(wtext);
  free(ptext);
  if (rc != 0) return 70;
  double rd = t1 - t0, wr = t3 - t2;
  printf("Jansson floor: read the workload %.3f s + write the prediction %.3f s (%.1f MB) = %.3f s "
         "CPU: at most %.2f M events/s for %.0f events, before any simulation\n",
         rd, wr, (double)nbytes / 1e6, rd + wr, events / (rd + wr) / 1e6, events);
  return 0;
}
