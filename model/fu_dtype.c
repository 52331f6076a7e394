/* fu_dtype.c: data type names (see fu_dtype.h). */
#include "fu_dtype.h"

#include <strings.h>

#include "fu_common.h"

static const struct {
  const char *name;          /* canonical, as nccl-tests prints it */
  int size;                  /* bytes per element */
  const char *aliases[3];    /* other spellings, NULL-padded */
} fu__dtypes[FU_DT_COUNT] = {
    [FU_DT_INT8] = {"int8", 1, {"char", "i8", NULL}},
    [FU_DT_UINT8] = {"uint8", 1, {"u8", NULL, NULL}},
    [FU_DT_INT32] = {"int32", 4, {"int", "i32", NULL}},
    [FU_DT_INT64] = {"int64", 8, {"i64", NULL, NULL}},
    [FU_DT_HALF] = {"half", 2, {"fp16", "float16", NULL}},
    [FU_DT_FLOAT] = {"float", 4, {"fp32", "float32", NULL}},
    [FU_DT_DOUBLE] = {"double", 8, {"fp64", "float64", NULL}},
    [FU_DT_BF16] = {"bf16", 2, {"bfloat16", NULL, NULL}},
};

int fu_dtype_parse(const char *s, fu_dtype *out) {
  for (int i = 0; s && i < FU_DT_COUNT; i++) {
    int hit = strcasecmp(s, fu__dtypes[i].name) == 0;
    for (int k = 0; k < 3 && !hit && fu__dtypes[i].aliases[k]; k++) hit = strcasecmp(s, fu__dtypes[i].aliases[k]) == 0;
    if (hit) {
      *out = (fu_dtype)i;
      return FU_OK;
    }
  }
  return FU_EDATA;
}

const char *fu_dtype_name(fu_dtype dt) {
  return (int)dt >= 0 && dt < FU_DT_COUNT ? fu__dtypes[dt].name : "?";
}

int fu_dtype_size(fu_dtype dt) { return (int)dt >= 0 && dt < FU_DT_COUNT ? fu__dtypes[dt].size : 0; }

int fu_dtype_is_float(fu_dtype dt) {
  return dt == FU_DT_HALF || dt == FU_DT_FLOAT || dt == FU_DT_DOUBLE || dt == FU_DT_BF16;
}

const char *fu_dtype_canon(const char *s) {
  fu_dtype dt;
  return fu_dtype_parse(s, &dt) == FU_OK ? fu_dtype_name(dt) : s;
}
