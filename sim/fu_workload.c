/* fu_workload.c: placeholder until the workload module lands. */
#include "fu_workload.h"
