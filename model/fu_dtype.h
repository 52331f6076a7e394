/* fu_dtype.h: element data types and the names they go by. One parser, so that `fit --dtype`,
 * `workload --dtype` and `calib -d` take the same spellings (float, fp32, float32; bf16,
 * bfloat16; half, fp16, float16; ...), and the canonical name is the one nccl-tests prints and
 * `import` and `calib` store in a sample's dtype ("float", "half", "bf16", ...). */
#ifndef FU_DTYPE_H
#define FU_DTYPE_H

#include <stddef.h>

typedef enum fu_dtype {
  FU_DT_INT8, FU_DT_UINT8, FU_DT_INT32, FU_DT_INT64, FU_DT_HALF, FU_DT_FLOAT, FU_DT_DOUBLE,
  FU_DT_BF16, FU_DT_COUNT
} fu_dtype;

/* Any accepted spelling, case-insensitive; FU_EDATA (nothing printed) when none. */
int fu_dtype_parse(const char *s, fu_dtype *out);
const char *fu_dtype_name(fu_dtype dt);   /* canonical: "float", "bf16", ...; "?" out of range */
int fu_dtype_size(fu_dtype dt);           /* bytes per element; 0 out of range */
int fu_dtype_is_float(fu_dtype dt);       /* a floating-point type */

/* The canonical name of s when s is a known spelling, else s itself (a label no table knows is
 * compared as given). */
const char *fu_dtype_canon(const char *s);

#endif
