/* fu_wlinfo.c: what `fusim workload` prints about workloads: the summary (--info), the list
 * of bundled ones (--list) and the memory breakdown (see fu_wlinfo.h). */
#include "fu_memcheck.h"
#include "fu_wlinfo.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fu_paths.h"

int fu_wlinfo_print(const fu_workload *w, fu_format fmt, int tensors) {
  uint64_t total = fu_workload_total_bytes(w), mn = UINT64_MAX, mx = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    if (w->grads[i].bytes < mn) mn = w->grads[i].bytes;
    if (w->grads[i].bytes > mx) mx = w->grads[i].bytes;
  }
  double first = w->ngrads ? w->grads[0].ready_us : 0;
  double last = w->ngrads ? w->grads[w->ngrads - 1].ready_us : 0;
  const char *kind = w->estimated ? "estimated" : "measured";
  if (fmt == FU_FORMAT_JSON) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:f, s:i, s:f, s:f, s:I, s:I, s:f, s:f}",
                          "name", w->name, "source", w->source, "kind", kind,
                          "tensors", (json_int_t)w->ngrads, "total_bytes", (json_int_t)total,
                          "fwd_us", w->fwd_us, "bwd_us", w->bwd_us, "opt_us", w->opt_us,
                          "accum_steps", w->accum_steps, "hook_us", w->hook_us,
                          "issue_us", w->issue_us, "min_tensor_bytes", (json_int_t)mn,
                          "max_tensor_bytes", (json_int_t)mx, "first_ready_us", first,
                          "last_ready_us", last);
    if (!o) return FU_ENOMEM;
    const fu_host *h = &w->host;
    if (h->version == FU_HOST_VERSION &&
        json_object_set_new(o, "host", json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:b}",
                                                 "version", h->version, "fwd_gpu_us", h->fwd_gpu_us,
                                                 "bwd_gpu_us", h->bwd_gpu_us, "opt_gpu_us", h->opt_gpu_us,
                                                 "fwd_cpu_us", h->fwd_cpu_us, "bwd_cpu_us", h->bwd_cpu_us,
                                                 "opt_cpu_us", h->opt_cpu_us, "ddp", h->has_ddp,
                                                 "hooks", h->has_hooks))) {
      json_decref(o);
      return FU_ENOMEM;
    }
    if (fu_workload_compute_gpu(w) && json_object_set_new(o, "compute_gpu", json_string(fu_workload_compute_gpu(w)))) {
      json_decref(o);
      return FU_ENOMEM;
    }
    if (w->mem.peak > 0 && json_object_set_new(o, "memory", fu_mem_to_json(&w->mem))) {
      json_decref(o);
      return FU_ENOMEM;
    }
    if (tensors) {
      json_t *arr = json_array();
      for (size_t i = 0; arr && i < w->ngrads; i++)
        json_array_append_new(arr, json_pack("{s:s, s:I, s:f}", "name", w->grads[i].name, "bytes",
                                             (json_int_t)w->grads[i].bytes, "ready_us",
                                             w->grads[i].ready_us));
      if (!arr) {
        json_decref(o);
        return FU_ENOMEM;
      }
      json_object_set_new(o, "grads", arr);
    }
    int st = json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
    fputc('\n', stdout);
    return st == 0 ? FU_OK : FU_EIO;
  }
  if (fmt == FU_FORMAT_CSV) {
    if (tensors) {
      printf("index,name,bytes,ready_us\n");
      for (size_t i = 0; i < w->ngrads; i++) {
        printf("%zu,", i);
        fu_csv_field(stdout, w->grads[i].name);
        printf(",%llu,%.6f\n", (unsigned long long)w->grads[i].bytes, w->grads[i].ready_us);
      }
      return FU_OK;
    }
    printf("name,source,kind,tensors,total_bytes,fwd_us,bwd_us,opt_us,accum_steps,hook_us,issue_us,"
           "min_tensor_bytes,max_tensor_bytes,first_ready_us,last_ready_us\n");
    fu_csv_field(stdout, w->name);
    putchar(',');
    fu_csv_field(stdout, w->source);
    printf(",%s,%zu,%llu,%.6f,%.6f,%.6f,%d,%.6g,%.6g,%llu,%llu,%.6f,%.6f\n", kind, w->ngrads, (unsigned long long)total, w->fwd_us, w->bwd_us, w->opt_us,
           w->accum_steps, w->hook_us, w->issue_us, (unsigned long long)mn,
           (unsigned long long)mx, first, last);
    return FU_OK;
  }
  char b1[32], b2[32], b3[32];
  printf("%-18s %s\n", "workload", w->name);
  printf("%-18s %s\n", "source", w->source[0] ? w->source : "-");
  printf("%-18s %s\n", "times", w->estimated ? "estimated (how: the file's notes)" : "measured");
  if (fu_workload_compute_gpu(w)) /* its profile's tables were a base's of another GPU (fit --out) */
    printf("%-18s priced from %s tables; the pricing profile's links are %s's\n", "compute tables",
           fu_workload_compute_gpu(w), json_string_value(json_object_get(w->priced_with, "gpu")));
  if (w->compute_rel > 0) /* the estimate's own error, which predict's interval carries */
    printf("%-18s %.2f%% (95%%, compute_rel)\n", "compute error", 100 * w->compute_rel);
  printf("%-18s %zu\n", "tensors", w->ngrads);
  printf("%-18s %llu (%s)\n", "total bytes", (unsigned long long)total, fu_format_size(total, b1, sizeof b1));
  printf("%-18s %s .. %s\n", "tensor sizes", fu_format_size(mn, b2, sizeof b2), fu_format_size(mx, b3, sizeof b3));
  printf("%-18s %.1f\n", "fwd_us", w->fwd_us);
  printf("%-18s %.1f\n", "bwd_us", w->bwd_us);
  printf("%-18s %.1f\n", "opt_us", w->opt_us);
  printf("%-18s %d\n", "accum_steps", w->accum_steps);
  const fu_host *h = &w->host;
  if (h->version == FU_HOST_VERSION) { /* the simulator runs this timeline, not the times above */
    printf("%-18s version 2: simulated from its GPU-only fwd/bwd/opt %.1f / %.1f / %.1f us and "
           "per-gradient times, enqueued along CPU %.1f / %.1f / %.1f us (fwd_us, bwd_us, opt_us "
           "and ready_us above are the run's as measured, shown only)\n", "host timeline",
           h->fwd_gpu_us, h->bwd_gpu_us, h->opt_gpu_us, h->fwd_cpu_us, h->bwd_cpu_us, h->opt_cpu_us);
    printf("%-18s %s%s%s\n", "framework costs", h->has_ddp ? "ddp" : "",
           h->has_ddp && h->has_hooks ? ", " : "", h->has_hooks ? "hooks" : "");
  } else {
    printf("%-18s %.3g / %.3g\n", "host hook/issue us", w->hook_us, w->issue_us);
  }
  printf("%-18s %.1f .. %.1f\n", "ready_us", first, last);
  if (tensors) {
    printf("\n%6s  %-60s %14s %12s\n", "index", "name", "bytes", "ready_us");
    for (size_t i = 0; i < w->ngrads; i++)
      printf("%6zu  %-60s %14llu %12.1f\n", i, w->grads[i].name,
             (unsigned long long)w->grads[i].bytes, w->grads[i].ready_us);
  }
  return FU_OK;
}

/* 1 when file (a workload's file name) is in an earlier data folder than dirs[d], which
 * --workload NAME then finds first. */
static int fu__hidden(char dirs[FU_DATA_NDIRS][FU_PATH_MAX], int d, const char *file) {
  for (int e = 0; e < d; e++) {
    char p[FU_PATH_MAX + 300];
    struct stat st;
    snprintf(p, sizeof p, "%.*s/workloads/%s", (int)strnlen(dirs[e], FU_PATH_MAX), dirs[e], file);
    if (*dirs[e] && stat(p, &st) == 0 && S_ISREG(st.st_mode)) return 1;
  }
  return 0;
}

/* Bundled workloads: *.json in the data folders of fu_paths_data_dirs ($FUSIM_DATA, then
 * fusim's own: share/fusim in an install, data/ beside a build folder). */
int fu_wlinfo_list(fu_format fmt) {
  char dirs[FU_DATA_NDIRS][FU_PATH_MAX];
  fu_paths_data_dirs(dirs);
  /* every data folder in the order --workload NAME searches them (a name in an earlier one
     hides the same name later; FUSIM_DATA's empty folder listed nothing while every bundled
     name still resolved) */
  int nfolders = 0;
  json_t *arr = fmt == FU_FORMAT_JSON ? json_array() : NULL;
  if (fmt == FU_FORMAT_CSV) printf("name,file,tensors,total_bytes,kind\n");
  else if (fmt == FU_FORMAT_TABLE) printf("%-20s %8s %16s  %-9s %s\n", "name", "tensors", "bytes", "times", "workload");
  for (int d = 0; d < FU_DATA_NDIRS; d++) {
    if (!*dirs[d]) continue;
    char path[FU_PATH_MAX + 16];
    snprintf(path, sizeof path, "%.*s/workloads", (int)strnlen(dirs[d], FU_PATH_MAX), dirs[d]);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) continue;
    nfolders++;
    for (int i = 0; i < n; i++) {
      const char *f = ents[i]->d_name;
      size_t len = strlen(f);
      char full[FU_PATH_MAX + 300], base[256];
      snprintf(base, sizeof base, "%.*s", len > 5 ? (int)(len - 5) : 0, f);
      if (len > 5 && strcmp(f + len - 5, ".json") == 0 && !fu__hidden(dirs, d, f)) {
        snprintf(full, sizeof full, "%s/%s", path, f);
        fu_workload w;
        if (fu_workload_load(full, 0, &w) == FU_OK) {
          unsigned long long tb = (unsigned long long)fu_workload_total_bytes(&w);
          const char *kind = w.estimated ? "estimated" : "measured";
          if (arr)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:s}", "name", base, "file", full,
                                                 "tensors", (json_int_t)w.ngrads, "total_bytes",
                                                 (json_int_t)tb, "kind", kind));
          else if (fmt == FU_FORMAT_CSV) {
            fu_csv_field(stdout, base);
            putchar(',');
            fu_csv_field(stdout, full);
            printf(",%zu,%llu,%s\n", w.ngrads, tb, kind);
          } else {
            printf("%-20s %8zu %16llu  %-9s %s\n", base, w.ngrads, tb, kind, w.name);
          }
        }
        fu_workload_finish(&w);
      }
      free(ents[i]);
    }
    free(ents);
  }
  if (!nfolders) {
    json_decref(arr);
    fu_error("workload: no data folder with workloads found beside this fusim; set FUSIM_DATA");
    return FU_ENOINPUT;
  }
  if (arr) {
    json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(arr);
  }
  return FU_OK;
}

void fu_wlinfo_print_mem(const fu_mem *m, double gpu) {
  char b[32];
  printf("%-18s", "memory");
  for (int i = 0; i < FU_MEM_PARTS; i++) /* the peak's parts, by their keys less "_bytes" */
    printf("%s %.*s %s", i ? "," : "", (int)(strlen(fu_mem_keys[i]) - 6), fu_mem_keys[i],
           fu_format_size((uint64_t)fu_mem_value(m, i), b, sizeof b));
  printf("\n%-18s %s", "memory peak", fu_format_size((uint64_t)m->peak, b, sizeof b));
  /* the device holds more than PyTorch's tensors (fu_memcheck.h); NCCL's buffers come with a
     communication target, which fusim plan and predict have */
  fu_mem_need n;
  fu_mem_need_set(&n, m->peak, 0);
  char r[32], c[32], d[32];
  printf(" (max_memory_allocated)\n%-18s %s: the peak, the allocator's reserve %s, the CUDA context %s "
         "(NCCL's buffers: fusim plan)", "memory on device", fu_format_size((uint64_t)n.device, d, sizeof d),
         fu_format_size((uint64_t)n.reserve, r, sizeof r), fu_format_size((uint64_t)n.context, c, sizeof c));
  if (gpu > 0) {
    char g[32];
    fu_format_size((uint64_t)gpu, g, sizeof g);
    if (n.device <= gpu) printf(" of %s: fits (%.0f%%)\n", g, 100.0 * n.device / gpu);
    else printf(" of %s: DOES NOT FIT, %s over\n", g, fu_format_size((uint64_t)(n.device - gpu), b, sizeof b));
  } else {
    printf(" (the profile gives no GPU memory)\n");
  }
}
