/* fu_paths.h: where fusim's own files are at run time. Found from the running executable's
 * location, never from the source tree's path (an installed binary must not carry it):
 *
 *   bundled data (workloads/, profiles/), searched in this order:
 *     $FUSIM_DATA; $FUSIM_DATADIR (its older name: still read, with one warning line); then
 *     fusim's own folder, the first of these that holds workloads/:
 *       the folder named in <exe dir>/fusim-data-dir   a build folder anywhere (meson writes
 *                                       this file beside the executables and never installs it)
 *       <exe dir>/FU_DATA_FROM_BIN      an install: bin/fusim -> ../share/fusim
 *       <exe dir>/FU_DATA_FROM_LIBEXEC  the GPU half in an install: ../../share/fusim
 *       <exe dir>/../data               a copied build folder inside the source tree (build/fusim)
 *   the GPU half (fusim-gpu: calib and validate, linked with CUDA, NCCL, cuBLAS and MPI):
 *       <exe dir>/fusim-gpu             a build folder
 *       <exe dir>/FU_LIBEXEC_FROM_BIN/fusim-gpu   an install: ../libexec/fusim/fusim-gpu
 * The FROM_* paths come from meson's bindir, datadir and libexecdir (top-level meson.build). */
#ifndef FU_PATHS_H
#define FU_PATHS_H

#include <stddef.h>

#define FU_PATH_MAX 4096

/* Slots of fu_paths_data_dirs, in lookup order. */
enum { FU_DATA_ENV, FU_DATA_OLD_ENV, FU_DATA_OWN, FU_DATA_NDIRS };

/* The folder holding the running executable (/proc/self/exe, else the name it was started by).
 * FU_ENOINPUT when neither can be resolved (buf = ""). */
int fu_paths_exe_dir(char *buf, size_t len);

/* The data folders, "" where a slot is unset or not found. Prints a warning line when the older
 * $FUSIM_DATADIR is set. */
void fu_paths_data_dirs(char dirs[FU_DATA_NDIRS][FU_PATH_MAX]);

/* Resolves a file argument: a path as given, else the name of a bundled file in <data>/SUB of the
 * data folders in order ("resnet50" or "resnet50.json" -> <data>/workloads/resnet50.json). A name
 * with a '/' is a path only. Returns a malloc'd path, or NULL when neither is there. */
char *fu_paths_resolve(const char *arg, const char *sub);

/* A relative path written inside FILE, taken from FILE's own folder: "dir/of/FILE/REL" when
 * that is there, else NULL (REL absolute, not there, or out of memory); the caller then
 * resolves REL as usual (current folder, bundled names). */
char *fu_paths_beside(const char *file, const char *rel);

/* The GPU half's path in buf: FU_OK when it is there and executable, else FU_ENOINPUT (buf holds
 * the install location it was looked for last). */
int fu_paths_gpu_half(char *buf, size_t len);

/* Says in one line that `cmd` needs the GPU half, which is not beside this fusim, and returns
 * FU_ENODEV (exit 69). */
int fu_paths_no_gpu_half(const char *cmd);

#endif
