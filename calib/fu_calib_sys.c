/* fu_calib_sys.c: what the GPU says about itself, through NVML.
 *
 * Why NVML, loaded with dlopen: it is the one interface that reports the PCIe link's current
 * and maximum generation and width, active NVLink links and the current (not only the maximum)
 * clocks, power and temperature; cudaDeviceGetAttribute gives none of the link state, and
 * parsing nvidia-smi's output is slower and version-dependent. libnvidia-ml.so.1 ships with
 * the driver wherever there is a GPU, but nvml.h is not in every CUDA toolkit (not on the CPU
 * build machine), so the few entry points are declared here and looked up at run time; without
 * NVML the run goes on and records "unknown". NVML devices are matched to CUDA devices by PCI
 * bus id, since their orders can differ (CUDA_VISIBLE_DEVICES). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fu_calib_int.h"

typedef struct fu__nvml_dev *fu__nvml_device;   /* nvmlDevice_t */

struct fu_nvml {
  void *lib;                                                  /* dlopen handle */
  int (*init)(void);                                          /* nvmlInit_v2 */
  int (*shutdown)(void);                                      /* nvmlShutdown */
  int (*driver)(char *, unsigned);                            /* nvmlSystemGetDriverVersion */
  int (*by_bus)(const char *, fu__nvml_device *);             /* ...GetHandleByPciBusId_v2 */
  int (*clock)(fu__nvml_device, int, unsigned *);             /* nvmlDeviceGetClockInfo */
  int (*max_clock)(fu__nvml_device, int, unsigned *);         /* nvmlDeviceGetMaxClockInfo */
  int (*gen)(fu__nvml_device, unsigned *);                    /* ...GetCurrPcieLinkGeneration */
  int (*width)(fu__nvml_device, unsigned *);                  /* ...GetCurrPcieLinkWidth */
  int (*gen_max)(fu__nvml_device, unsigned *);                /* ...GetMaxPcieLinkGeneration */
  int (*width_max)(fu__nvml_device, unsigned *);              /* ...GetMaxPcieLinkWidth */
  int (*nvlink)(fu__nvml_device, unsigned, int *);            /* nvmlDeviceGetNvLinkState */
  int (*power)(fu__nvml_device, unsigned *);                  /* nvmlDeviceGetPowerUsage */
  int (*temp)(fu__nvml_device, int, unsigned *);              /* nvmlDeviceGetTemperature */
};

enum { FU__NVML_CLOCK_SM = 1, FU__NVML_CLOCK_MEM = 2, FU__NVML_NVLINK_MAX = 18 };

fu_nvml *fu_nvml_create(void) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  fu_nvml *n = calloc(1, sizeof *n);
  if (!n) {
    dlclose(lib);
    return NULL;
  }
  n->lib = lib;
#define FU__SYM(field, name) *(void **)(&n->field) = dlsym(lib, name)
  FU__SYM(init, "nvmlInit_v2");
  FU__SYM(shutdown, "nvmlShutdown");
  FU__SYM(driver, "nvmlSystemGetDriverVersion");
  FU__SYM(by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
  FU__SYM(clock, "nvmlDeviceGetClockInfo");
  FU__SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
  FU__SYM(gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  FU__SYM(width, "nvmlDeviceGetCurrPcieLinkWidth");
  FU__SYM(gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  FU__SYM(width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  FU__SYM(nvlink, "nvmlDeviceGetNvLinkState");
  FU__SYM(power, "nvmlDeviceGetPowerUsage");
  FU__SYM(temp, "nvmlDeviceGetTemperature");
#undef FU__SYM
  if (!n->init || !n->by_bus || n->init() != 0) {
    dlclose(lib);
    free(n);
    return NULL;
  }
  return n;
}

void fu_nvml_destroy(fu_nvml *n) {
  if (!n) return;
  if (n->shutdown) n->shutdown();
  dlclose(n->lib);
  free(n);
}

int fu_nvml_driver(fu_nvml *n, char *buf, size_t len) {
  if (!n || !n->driver || n->driver(buf, (unsigned)len) != 0) return FU_ENODEV;
  return FU_OK;
}

int fu_nvml_read(fu_nvml *n, int cuda_dev, fu_gpu_state *g) {
  memset(g, 0, sizeof *g);
  char bus[32];
  fu__nvml_device d;
  if (!n || cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) != cudaSuccess ||
      n->by_bus(bus, &d) != 0)
    return FU_ENODEV;
  g->valid = 1;
  if (n->clock) n->clock(d, FU__NVML_CLOCK_SM, &g->sm_mhz);
  if (n->clock) n->clock(d, FU__NVML_CLOCK_MEM, &g->mem_mhz);
  if (n->max_clock) n->max_clock(d, FU__NVML_CLOCK_SM, &g->sm_max_mhz);
  if (n->gen) n->gen(d, &g->pcie_gen);
  if (n->width) n->width(d, &g->pcie_width);
  if (n->gen_max) n->gen_max(d, &g->pcie_gen_max);
  if (n->width_max) n->width_max(d, &g->pcie_width_max);
  if (n->nvlink)
    for (unsigned l = 0; l < FU__NVML_NVLINK_MAX; l++) {
      int active = 0;
      if (n->nvlink(d, l, &active) == 0 && active) g->nvlinks++;
    }
  if (n->power) n->power(d, &g->power_mw);
  if (n->temp) n->temp(d, 0, &g->temp_c);
  return FU_OK;
}

void fu_gpu_state_format(const fu_gpu_state *g, char *buf, size_t len) {
  if (!g->valid) {
    snprintf(buf, len, "clocks unknown (NVML not available)");
    return;
  }
  snprintf(buf, len, "SM %u MHz (max %u), memory %u MHz, %.0f W, %u C, PCIe Gen%u x%u", g->sm_mhz,
           g->sm_max_mhz, g->mem_mhz, g->power_mw / 1000.0, g->temp_c, g->pcie_gen, g->pcie_width);
}
