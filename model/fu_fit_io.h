/* fu_fit_io.h: what `fusim fit` does around the fitting itself: the samples it reads from the
 * results database, the segment rows it stores, the result it prints, and the compute tables it
 * writes into a profile. Kept apart from cmd_fit.c, which only reads the options. */
#ifndef FU_FIT_IO_H
#define FU_FIT_IO_H

#include <stddef.h>

#include "fu_db.h"
#include "fu_fit.h"
#include "fu_fitgroup.h"
#include "fu_options.h"
#include "fu_profile.h"

/* The samples of the database that match the filters (op, link: NULL for any; ranks, run: 0 for
 * any), as the fit driver reads them: *out points into *smp; both malloc'd, *n of each. */
int fu_fit_samples_load(fu_db *db, const char *op, const char *link, long ranks, long run,
                        fu_sample **smp, fu_fitgroup_sample **out, size_t *n);

/* The database rows of the fitted segments (*rows malloc'd, *nrows of them); profile names the
 * profile they were written into, or NULL. */
int fu_fit_rows_build(const fu_fitgroup *g, size_t ng, const char *method, const char *profile,
                      fu_fit_row **rows, size_t *nrows);

/* Prints the fitted groups as a table, CSV or JSON; written and plot (either may be NULL) name
 * the profile and plot files, which the table and the JSON mention. */
int fu_fit_print(fu_format fmt, const fu_fitgroup *g, size_t ng, const fu_fit_options *fo,
                 const fu_profile *prof, const char *written, const char *plot);

/* fit --gemm-table / --compute: the compute tables of a profile (fu_compute.h) from calib's GEMM
 * shape sweep in the database (gemm_table) and/or tools/calib_torch.py's JSON (compute_f),
 * merged into merge (or a new profile) and written to out, else back to merge. */
int fu_fit_compute_tables(const char *db_opt, long run, const char *compute_f, int gemm_table,
                          const char *merge, const char *out, const char *name);

#endif
