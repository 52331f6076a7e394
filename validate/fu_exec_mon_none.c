/* fu_exec_mon_none.c: the clock and power monitor where there is no GPU to read (the light
 * fusim's stub executor, and tests that stand in for the executor): it opens as NULL and reads
 * NAN, so a measurement records "not known" rather than a number. */
#include <math.h>

#include "fu_common.h"
#include "fu_exec.h"

int fu_exec_mon_open(fu_exec_mon **out) {
  *out = NULL;
  return FU_OK;
}

void fu_exec_mon_close(fu_exec_mon *m) { (void)m; }

void fu_exec_mon_read(fu_exec_mon *m, int dev, double *sm_mhz, double *power_w) {
  (void)m, (void)dev;
  *sm_mhz = NAN;
  *power_w = NAN;
}

void fu_exec_mon_driver(fu_exec_mon *m, char *buf, size_t len) {
  (void)m;
  if (len) buf[0] = 0;
}
