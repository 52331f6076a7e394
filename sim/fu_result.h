/* fu_result.h: the output edge of a prediction: one printer per format, each reading only the
 * fu_result (fu_predict.h) it prints, and the JSON object (Jansson) that `predict --format json`
 * prints, `plan` prints an array of, and the database keeps. The three formats print the same
 * numbers: table to 0.1 us, CSV to 0.001 us, JSON in full. */
#ifndef FU_RESULT_H
#define FU_RESULT_H

#include <stdio.h>

#include <jansson.h>

#include "fu_predict.h"

/* predict's table: the summary, then a row per bucket. */
/* "profile P; predicted at this rank and node count; one process per GPU assumed; NCCL 2.29.2":
 * how the collective was priced, with the process layout and NCCL of a job the cost model priced
 * across nodes, into buf. Returns buf. */
const char *fu_result_comm_note(const fu_result *r, char *buf, size_t len);

/* Where the compute times come from when it is not the profile in use's own estimate (NULL then:
 * nothing to say), into buf: priced again with the profile in use, kept and why, or measured on
 * another GPU (predict's and plan's table line, validate's note). Returns buf or NULL. */
const char *fu_compute_note(const fu_compute_from *f, char *buf, size_t len);

/* Buckets priced outside the measured curve's sizes: below its smallest, above its largest (both
 * 0 when the collective was not priced by a measured curve). O(buckets). */
void fu_result_ops_outside(const fu_result *r, size_t *below, size_t *above);
int fu_result_print_table(FILE *out, const fu_result *r);

/* predict's CSV: FU_RESULT_CSV_HEADER then fu_result_csv_fields (plan's CSV wraps the same
 * columns in rank, label ... speedup_vs_ddp). Neither writes a line break. */
#define FU_RESULT_CSV_HEADER                                                                   \
  "workload,plan,comm,profile,iter_us,iter_lo_us,iter_hi_us,compute_us,comm_us,"               \
  "exposed_comm_us,overlap_frac,bus_util,n_ops,fusion_buffer_bytes,sim_events"
void fu_result_csv_fields(FILE *out, const fu_result *r);
int fu_result_print_csv(FILE *out, const fu_result *r);     /* header + one row */
int fu_result_print_buckets_csv(FILE *out, const fu_result *r); /* predict --buckets */

/* The JSON object: workload, plan, comm, profile, iter_us, iter_lo_us, iter_hi_us, compute_us,
 * comm_us, exposed_comm_us, overlap_frac, bus_util, pack_us, n_ops, fusion_buffer_bytes,
 * sim_events, estimated, buckets[] (index, first, last, tensors, bytes, ready_us, start_us,
 * end_us, pack_us, comm_us, busbw_gbps, last_tensor). New reference; NULL when out of memory. */
json_t *fu_result_json(const fu_result *r);
/* The memory check of r's plan (fu_memcheck.h: the step's memory m with r's fusion buffers, the
 * allocator's reserve, the CUDA context and NCCL's nccl_bytes against gpu_bytes) into r, whose
 * JSON then carries fits, mem_need_bytes, each part, mem_device_bytes and mem_over_bytes. */
struct fu_mem;
void fu_result_mem(fu_result *r, const struct fu_mem *m, double nccl_bytes, double gpu_bytes);
int fu_result_print_json(FILE *out, const fu_result *r);

#endif
