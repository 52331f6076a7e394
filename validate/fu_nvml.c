/* fu_nvml.c: SM clock, power and driver version through NVML, loaded at run time.
 *
 * libnvidia-ml.so.1 ships with the driver, not with the toolkit (nor does every toolkit carry
 * nvml.h), so it is opened with dlopen and the five entry points used are declared here with
 * the types of NVML's public API (nvml.h: nvmlReturn_t is an int enum, nvmlDevice_t an opaque
 * pointer, NVML_CLOCK_SM = 1, NVML_SUCCESS = 0). Without the library every reading is NAN. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_exec.h"

#define FU__NVML_CLOCK_SM 1

typedef int (*fu__nvml_init_fn)(void);
typedef int (*fu__nvml_shutdown_fn)(void);
typedef int (*fu__nvml_handle_fn)(unsigned int, void **);
typedef int (*fu__nvml_clock_fn)(void *, int, unsigned int *);
typedef int (*fu__nvml_power_fn)(void *, unsigned int *);
typedef int (*fu__nvml_driver_fn)(char *, unsigned int);

struct fu_nvml {
  void *lib;                     /* dlopen handle */
  fu__nvml_shutdown_fn shutdown; /* nvmlShutdown */
  fu__nvml_handle_fn handle;     /* nvmlDeviceGetHandleByIndex_v2 */
  fu__nvml_clock_fn clock;       /* nvmlDeviceGetClockInfo */
  fu__nvml_power_fn power;       /* nvmlDeviceGetPowerUsage (milliwatts) */
  fu__nvml_driver_fn driver;     /* nvmlSystemGetDriverVersion */
};

int fu_nvml_open(fu_nvml **out) {
  *out = NULL;
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fu_warn("validate: NVML (libnvidia-ml.so.1) not found; clocks and power are not recorded");
    return FU_OK;
  }
  fu_nvml *n = calloc(1, sizeof *n);
  if (!n) {
    dlclose(lib);
    return FU_ENOMEM;
  }
  n->lib = lib;
  fu__nvml_init_fn init = (fu__nvml_init_fn)dlsym(lib, "nvmlInit_v2");
  n->shutdown = (fu__nvml_shutdown_fn)dlsym(lib, "nvmlShutdown");
  n->handle = (fu__nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  n->clock = (fu__nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
  n->power = (fu__nvml_power_fn)dlsym(lib, "nvmlDeviceGetPowerUsage");
  n->driver = (fu__nvml_driver_fn)dlsym(lib, "nvmlSystemGetDriverVersion");
  if (!init || !n->shutdown || !n->handle || !n->clock || !n->power || init() != 0) {
    fu_warn("validate: NVML could not be initialised; clocks and power are not recorded");
    dlclose(lib);
    free(n);
    return FU_OK;
  }
  *out = n;
  return FU_OK;
}

void fu_nvml_close(fu_nvml *n) {
  if (!n) return;
  n->shutdown();
  dlclose(n->lib);
  free(n);
}

void fu_nvml_read(fu_nvml *n, int dev, double *sm_mhz, double *power_w) {
  *sm_mhz = NAN;
  *power_w = NAN;
  void *h = NULL;
  if (!n || n->handle((unsigned)dev, &h) != 0) return;
  unsigned int v;
  if (n->clock(h, FU__NVML_CLOCK_SM, &v) == 0) *sm_mhz = v;
  if (n->power(h, &v) == 0) *power_w = v / 1000.0;
}

void fu_nvml_driver(fu_nvml *n, char *buf, size_t len) {
  if (len) buf[0] = 0;
  if (n && n->driver && len) {
    if (n->driver(buf, (unsigned)len) != 0) buf[0] = 0;
  }
}
