/* fu_wlinfo.h: what `fusim workload` prints about workloads, on stdout. */
#ifndef FU_WLINFO_H
#define FU_WLINFO_H

#include "fu_common.h"
#include "fu_workload.h"

/* The summary of w (tensors, bytes, fwd/bwd/opt, ready times; tensors set: every gradient) as a
 * table, CSV or JSON. */
int fu_wlinfo_print(const fu_workload *w, fu_format fmt, int tensors);

/* The bundled workloads: *.json in the first data folder of fu_paths_data_dirs ($FUSIM_DATA,
 * else fusim's own). FU_ENOINPUT after one line when there is none. O(files x their size). */
int fu_wlinfo_list(fu_format fmt);

/* The memory breakdown of a step against the GPU's memory gpu (bytes; 0 unknown), as table lines. */
void fu_wlinfo_print_mem(const fu_mem *m, double gpu);

#endif
