/* fu_workload.h: a training step's workload in format "fusim-workload-1" (see DESIGN.md):
 * forward, backward and optimizer times and the gradients in the order backward makes them
 * ready. Times in microseconds, sizes in bytes. */
#ifndef FU_WORKLOAD_H
#define FU_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "fu_host.h"

typedef struct fu_grad {
  char *name;                /* tensor name (malloc'd) */
  uint64_t bytes;            /* gradient size */
  double ready_us;           /* ready time counted from the start of backward */
  double cpu_us;             /* host block v2: when its hook fired on the CPU, from backward() */
  double gpu_us;             /* host block v2: ready on the GPU with no launch waits, from backward */
  char dtype[8];             /* element type, canonical (fu_dtype_name: "bf16", "float"); "": not
                                named, the workload's one type (a bucket never mixes two types) */
} fu_grad;

/* 1 when two gradients may share a reduction: the same element type (DDP's Reducer keys its
 * buckets by dtype, Horovod fuses one dtype per response). */
int fu_grad_same_dtype(const fu_grad *a, const fu_grad *b);

/* Device memory of one GPU for the training step, bytes: the "memory" block (every key
 * optional; 0 = unknown). fusim workload --transformer/--cnn writes the breakdown; a capture
 * writes the peak torch.cuda.max_memory_allocated reported. */
typedef struct fu_mem {
  double params;             /* parameters */
  double grads;              /* gradients */
  double optimizer;          /* optimizer states (+ fp32 master weights) */
  double casts;              /* autocast's low-precision weight copies */
  double activations;        /* tensors kept for backward at the micro-batch */
  double inputs;             /* the micro-batch's input tensors (images or token ids, labels) */
  double workspace;          /* the framework's own buffers through the step (cuBLAS workspaces) */
  double transient;          /* the largest temporary at the peak */
  double peak;               /* the step's peak (what max_memory_allocated reports) */
  double forward;            /* the peak through forward and the loss with no gradient alive
                                (zero_grad(set_to_none)); 0 unknown. DDP's gradient_as_bucket_view
                                keeps the gradients through forward: max(peak, forward + grads) */
} fu_mem;

/* The memory block's keys, in fu_mem's order: "params_bytes", ... "peak_bytes",
 * "forward_peak_bytes"; the first FU_MEM_PARTS are the parts of the peak. */
#define FU_MEM_KEYS 10
#define FU_MEM_PARTS 8
extern const char *const fu_mem_keys[FU_MEM_KEYS];
double *fu_mem_field(fu_mem *m, int i);          /* the part of key i, to set */
double fu_mem_value(const fu_mem *m, int i);     /* the part of key i */
/* The memory block as the workload file holds it (parts above 0, whole bytes); NULL: no memory. */
struct json_t *fu_mem_to_json(const fu_mem *m);

/* Where a workload's compute times come from, against the profile a command prices with: set by
 * the command (fu_cmd_inputs, sim/fu_reprice.h), carried by each result to its output. Not in
 * the file. */
typedef struct fu_compute_from {
  int said;                  /* 1: the output names where they come from (0: the profile in use's
                                own estimate, a capture on its GPU or on a GPU the file does not
                                name: nothing to say, the output as before) */
  int estimated;             /* 1: an estimate's times (a what-if), 0: a capture's */
  int repriced;              /* 1: priced again with the profile in use from its builder arguments */
  char profile[64];          /* the profile whose tables priced the times used ("": unknown; a
                                capture: none) */
  char gpu[64];              /* its GPU, or the one a capture ran on ("": unknown) */
  char was_profile[64];      /* repriced: the profile that priced the file's times */
  char was_gpu[64];          /* repriced: its GPU */
  char why[160];             /* kept: why they were not priced again ("" otherwise) */
  char tables_gpu[64];       /* the GPU of the compute tables that priced the times used, where
                                it is not the profile in use's (its links'): "" otherwise */
  char links_gpu[64];        /* then the profile in use's GPU */
} fu_compute_from;

typedef struct fu_workload {
  char name[128];            /* workload name */
  char source[512];          /* file it came from, or "" */
  double fwd_us;             /* forward time of one micro-batch */
  double bwd_us;             /* backward time of one micro-batch */
  double opt_us;             /* optimizer step after communication */
  double hook_us;            /* host block v1: cost per gradient-ready callback (0 if unknown) */
  double issue_us;           /* host block v1: cost per communication op issued (0 if unknown) */
  fu_host host;              /* host block v2 (host.version 2), else version 0 or 1 */
  int accum_steps;           /* micro-batches per iteration (>= 1); communication on the last */
  size_t ngrads;             /* gradients */
  fu_grad *grads;            /* in ready order (malloc'd) */
  int estimated;             /* 1 when times are roofline estimates, not measurements */
  double compute_rel;        /* "compute_rel": the compute estimate's own 95% relative error, in
                                [0, 1) (the builders', FU_COMPUTE_REL); 0 for measured times */
  char *notes;               /* free text kept with the workload ("notes" key; malloc'd, may be NULL) */
  fu_mem mem;                /* device memory of the step ("memory" block; zeros when absent) */
  json_t *meta;              /* "meta" as read (tools' data, written back unchanged), or NULL */
  json_t *priced_with;       /* "priced_with" (an estimate's pricing: its profile's "profile" name,
                                "profile_hash" (its content, as the results database hashes it),
                                "gpu", and the builder's "builder_args"), checked on reading, written
                                back unchanged; NULL: not recorded (a capture, an older what-if) */
  fu_compute_from from;      /* where the compute times come from (set by the command; not saved) */
  json_t *as_given;          /* a what-if priced again (fu_reprice): the workload as the user gave
                                it, which the results database stores (not saved); else NULL */
} fu_workload;

/* priced_with's "compute_gpu": the GPU of the tables that priced an estimate where they were not
 * its profile's GPU's (fit --out took them from a base of another); else NULL. */
const char *fu_workload_compute_gpu(const fu_workload *w);

void fu_workload_init(fu_workload *w);
void fu_workload_finish(fu_workload *w);       /* frees grads and notes; accepts a zeroed workload */
/* Reads a file; `strict` makes ready times out of order an error (else they are sorted with a
 * warning). Errors name the file and the field: "bert.json: grads[3].bytes: negative". */
int fu_workload_load(const char *path, int strict, fu_workload *w);
int fu_workload_parse(const char *json_text, const char *what, int strict, fu_workload *w);
/* Writes w (with its notes when not NULL); "-" writes to stdout. Written to a temporary name
 * and renamed, so a failed write never leaves half a workload behind. */
int fu_workload_save(const char *path, const fu_workload *w);
/* The checks fu_workload_save makes before it writes (gradients, their total, times that load
 * back): FU_EDATA with one line naming path, else FU_OK. Nothing is written. */
int fu_workload_savable(const char *path, const fu_workload *w);
/* The workload as a fusim-workload-1 JSON object (what fu_workload_save writes; *out is a new
 * reference). The results database stores it by content with each prediction. */
struct json_t;
int fu_workload_to_json(const fu_workload *w, struct json_t **out);
/* Resolves a workload argument: a path, or the name of a bundled workload in data/workloads
 * ("resnet50" -> data/workloads/resnet50.json). Returns a malloc'd path or NULL. */
char *fu_workload_resolve(const char *arg);
uint64_t fu_workload_total_bytes(const fu_workload *w);
/* 1 when w's gradients have more than one element type. O(n). */
int fu_workload_mixed_dtypes(const fu_workload *w);

#endif
