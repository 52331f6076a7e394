/* test_import.c: the parsers of fu_import.h on the public nccl-tests logs and reference CSVs
 * (row counts counted by hand in the files, values copied from the text), on synthetic logs in
 * the layouts of other nccl-tests versions, and on bad input (one message, FU_EDATA/FU_EUSAGE). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_import.h"
#include "fu_model.h"
#include "fu_test.h"

static char shared[512];

static int parse_text(const char *name, const char *text, const fu_import_opts *o, fu_import_result *r) {
  fu_import_result_init(r);
  return fu_import_parse(name, text, strlen(text), o, r);
}

static int parse_file(const char *rel, const fu_import_opts *o, fu_import_result *r) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", shared, rel);
  char *text = NULL;
  size_t len = 0;
  fu_import_result_init(r);
  int st = fu_read_file(path, &text, &len);
  if (st == FU_OK) {
    st = fu_import_parse(path, text, len, o, r);
    free(text);
  }
  /* Every check after a call reads r->samples: a file that does not parse ends the program
   * as a failure here rather than dereferencing an empty result. */
  if (st != FU_OK) {
    fprintf(stderr, "FAIL %s:%d: %s did not parse (status %d)\n", __FILE__, __LINE__, path, st);
    exit(1);
  }
  return st;
}

/* The sample of size bytes and in_place flag (NULL if absent). */
static const fu_sample *find(const fu_import_result *r, uint64_t bytes, int in_place) {
  for (size_t i = 0; i < r->n; i++)
    if (r->samples[i].bytes == bytes && r->samples[i].in_place == in_place) return &r->samples[i];
  return NULL;
}

static size_t count_in_place(const fu_import_result *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) n += r->samples[i].in_place;
  return n;
}

static void public_logs(void) {
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  fu_import_result r;
  const fu_sample *s;

  /* a100x8 all-reduce: 11 sizes 1 MiB .. 1 GiB, x2 columns, 8 Rank lines, nvlink from the name */
  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/a100x8-nvlink-allreduce.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 22);
  EXPECT_INT_EQ(count_in_place(&r), 11);
  EXPECT_STR_EQ(r.samples[0].op, "allreduce");
  EXPECT_STR_EQ(r.samples[0].link, "nvlink");
  EXPECT_INT_EQ(r.samples[0].ranks, 8);
  EXPECT_INT_EQ(r.samples[0].count, 20);
  EXPECT_STR_EQ(r.samples[0].dtype, "float");
  EXPECT_STR_EQ(r.prov.gpu, "NVIDIA A100-SXM4-40GB");
  EXPECT(strstr(r.prov.notes, "mean") != NULL);
  s = find(&r, 1073741824ull, 0);
  EXPECT(s != NULL);
  if (s) {
    EXPECT_NEAR(s->t_median_us, 8139.9, 1e-9);
    EXPECT_NEAR(s->busbw_gbps, 230.84, 1e-9);
    EXPECT_INT_EQ(s->n_wrong, 0);
    EXPECT(isnan(s->t_min_us));
  }
  s = find(&r, 1073741824ull, 1);
  EXPECT(s && fabs(s->t_median_us - 8201.6) < 1e-9);
  s = find(&r, 1048576, 0);
  EXPECT(s && fabs(s->t_median_us - 78.77) < 1e-9);
  fu_import_result_finish(&r);

  /* a100x8 send/recv: trimmed log, 4 rows, ranks from the "## command:" line's -g 8, N/A */
  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/a100x8-nvlink-sendrecv.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 8);
  EXPECT_STR_EQ(r.samples[0].op, "sendrecv");
  EXPECT_INT_EQ(r.samples[0].ranks, 8);
  s = find(&r, 536870912, 1);
  EXPECT(s && fabs(s->t_median_us - 2772.2) < 1e-9 && s->n_wrong == -1);
  s = find(&r, 536870912, 0);
  EXPECT(s && s->n_wrong == 0);
  EXPECT(strstr(r.prov.cmdline, "sendrecv_perf") != NULL);
  fu_import_result_finish(&r);

  /* h100x16 over two nodes: 16 Rank lines on 2 hosts -> ranks 16, link net; 31 sizes */
  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/h100x16-2node-a3mega-allreduce.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 62);
  EXPECT_INT_EQ(r.samples[0].ranks, 16);
  EXPECT_STR_EQ(r.samples[0].link, "net");
  EXPECT(strstr(r.prov.host, "ztan-mig-235z") && strstr(r.prov.host, "ztan-mig-gq73"));
  s = find(&r, 8589934592ull, 0);
  EXPECT(s && fabs(s->t_median_us - 47535) < 1e-9 && fabs(s->busbw_gbps - 338.82) < 1e-9);
  s = find(&r, 8, 1);
  EXPECT(s && fabs(s->t_median_us - 123.5) < 1e-9);
  fu_import_result_finish(&r);

  /* RTX 2080 Ti all-gather: 28 rows, the first two of size 0 */
  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/rtx2080tix2-pcie-allgather.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 56);
  EXPECT_STR_EQ(r.samples[0].op, "allgather");
  EXPECT_STR_EQ(r.samples[0].link, "pcie");
  EXPECT_INT_EQ(r.samples[0].ranks, 2);
  EXPECT_INT_EQ(r.samples[0].bytes, 0);
  EXPECT_NEAR(r.samples[1].t_median_us, 0.36, 1e-12);
  EXPECT_STR_EQ(r.prov.driver, "550.90.07");
  EXPECT_STR_EQ(r.prov.cuda, "12.4");
  s = find(&r, 1073741824ull, 0);
  EXPECT(s && fabs(s->t_median_us - 141614) < 1e-9);
  fu_import_result_finish(&r);

  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/rtx2080tix2-pcie-allreduce.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 56);
  s = find(&r, 1073741824ull, 1);
  EXPECT(s && fabs(s->t_median_us - 268461) < 1e-9);
  fu_import_result_finish(&r);

  /* RTX 5090: version line, "Collective test starting", unalign, trailing blanks, no footer */
  EXPECT_INT_EQ(parse_file("data/public-nccl-tests/rtx5090x8-pcie-allreduce.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 50);
  EXPECT_INT_EQ(r.samples[0].ranks, 8);
  EXPECT_STR_EQ(r.prov.tool, "nccl-tests 2.18.2");
  EXPECT_STR_EQ(r.prov.nccl, "2.29.7");
  s = find(&r, 134217728, 0);
  EXPECT(s && fabs(s->t_median_us - 5355.16) < 1e-9);
  fu_import_result_finish(&r);

  /* H200, one rank: in-place times are real (NCCL does nothing), link hbm */
  EXPECT_INT_EQ(parse_file("data/reference/h200-1gpu-allreduce-nccl-tests.txt", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 28);
  EXPECT_INT_EQ(r.samples[0].ranks, 1);
  EXPECT_STR_EQ(r.samples[0].link, "hbm");
  EXPECT_INT_EQ(r.samples[0].count, 50);
  EXPECT_STR_EQ(r.prov.nccl, "2.28.3");
  s = find(&r, 8, 1);
  EXPECT(s && fabs(s->t_median_us - 0.31) < 1e-12);
  s = find(&r, 536870912, 0);
  EXPECT(s && fabs(s->t_median_us - 255.58) < 1e-9);
  fu_import_result_finish(&r);

  /* Azure H200 CSV: extra columns size_label and busbw_GBps; rows in-place per its comment */
  EXPECT_INT_EQ(parse_file("data/reference/azure-nd-h200-v5-allreduce-nvls-8gpu.csv", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 24);
  EXPECT_INT_EQ(count_in_place(&r), 24);
  EXPECT_STR_EQ(r.samples[0].link, "nvlink");
  EXPECT_INT_EQ(r.samples[0].ranks, 8);
  EXPECT_INT_EQ(r.samples[23].bytes, 8589934592ull);
  EXPECT_NEAR(r.samples[23].t_median_us, 31318.77, 1e-9);
  EXPECT_NEAR(r.samples[23].busbw_gbps, 479.98, 1e-9);
  EXPECT_STR_EQ(r.prov.nccl, "2.20.5");
  EXPECT_STR_EQ(r.samples[0].algo, "nvls");  /* "NVLS algorithm" in its comment */
  fu_import_result_finish(&r);

  /* H200 PCIe copies: 15 sizes x h2d, d2h, d2d with a link column */
  EXPECT_INT_EQ(parse_file("data/reference/h200-pcie-copies.csv", &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 45);
  EXPECT_STR_EQ(r.samples[1].op, "d2h");
  EXPECT_STR_EQ(r.samples[1].link, "pcie_d2h");
  EXPECT_INT_EQ(r.samples[1].in_place, 0);
  EXPECT_STR_EQ(r.samples[1].algo, "");
  EXPECT_NEAR(r.samples[44].t_median_us, 509.63, 1e-9);
  fu_import_result_finish(&r);
}

/* nccl-tests 2.10-era layout: no version line, no root column, "error" instead of "#wrong",
 * Rank lines without Group; NCCL INFO/WARN lines mixed in; NCCL_ALGO from the environment. */
static const char old_log[] =
    "host1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
    "# nThread 1 nGpus 4 minBytes 8 maxBytes 32 step: 2(factor) warmup iters: 5 iters: 10 validation: 1 \n"
    "#\n"
    "# Using devices\n"
    "#   Rank  0 Pid   1234 on      host1 device  0 [0x1a] Tesla V100-SXM2-32GB\n"
    "#   Rank  1 Pid   1234 on      host1 device  1 [0x1b] Tesla V100-SXM2-32GB\n"
    "#   Rank  2 Pid   1234 on      host1 device  2 [0x3d] Tesla V100-SXM2-32GB\n"
    "#   Rank  3 Pid   1234 on      host1 device  3 [0x3e] Tesla V100-SXM2-32GB\n"
    "host1:100:100 [0] NCCL INFO NCCL version 2.10.3+cuda11.4\n"
    "host1:100:100 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
    "#\n"
    "#                                                     out-of-place                       in-place          \n"
    "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
    "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
    "           8             2   float     sum    37.52    0.00    0.00  0e+00    36.98    0.00    0.00  0e+00\n"
    "host1:100:107 [2] NCCL WARN Cuda failure 'out of memory' (recovered)\n"
    "host1:100:108 [1] NCCL INFO Channel 00/02 :    0   1   2   3\n"
    "          16             4   float     sum    36.10    0.00    0.00  0e+00    36.20    0.00    0.00  0e+00\n"
    "          32             8   float     sum    36.55    0.00    0.00  2e-07    36.40    0.00    0.00  0e+00\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 0.00142 \n"
    "#\n";

/* -t 2 -g 2 -d all -o all (2 types x 2 ops x 2 sizes), per-iteration columns and timestamps,
 * then a second test in the same file (all_gather) with its own header. */
static const char all_log[] =
    "# nccl-tests version 2.19.1 nccl-headers=22703 nccl-library=22703\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 2 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 1 unalign: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   7 on      n1 device  0 [0000:01:00] NVIDIA H100\n"
    "#  Rank  1 Group  0 Pid   7 on      n1 device  1 [0000:02:00] NVIDIA H100\n"
    "#  Rank  2 Group  0 Pid   7 on      n1 device  2 [0000:03:00] NVIDIA H100\n"
    "#  Rank  3 Group  0 Pid   7 on      n1 device  3 [0000:04:00] NVIDIA H100\n"
    "#\n"
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%  timestamp\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)\n"
    "        1024           256     float     sum      -1    10.00    0.10    0.15       0     9.00    11.00    11.00     3.00    11.00    0.09    0.14       0     9.50    12.00    12.00     3.00 2025-01-01 12:00:00\n"
    "        2048           512     float     sum      -1    12.00    0.17    0.26       0    11.00    13.00    13.00     3.00    12.50    0.16    0.25       0    11.50    13.00    13.00     3.00 2025-01-01 12:00:01\n"
    "        1024           256     float     max      -1    10.10    0.10    0.15       0     9.00    11.00    11.00     3.00    11.10    0.09    0.14       0     9.50    12.00    12.00     3.00 2025-01-01 12:00:02\n"
    "        2048           512     float     max      -1    12.10    0.17    0.26       0    11.00    13.00    13.00     3.00    12.60    0.16    0.25       0    11.50    13.00    13.00     3.00 2025-01-01 12:00:03\n"
    "        1024           512      half     sum      -1    10.20    0.10    0.15       0     9.00    11.00    11.00     3.00    11.20    0.09    0.14       0     9.50    12.00    12.00     3.00 2025-01-01 12:00:04\n"
    "        2048          1024      half     sum      -1    12.20    0.17    0.26       0    11.00    13.00    13.00     3.00    12.70    0.16    0.25       0    11.50    13.00    13.00     3.00 2025-01-01 12:00:05\n"
    "        1024           512      half     max      -1    10.30    0.10    0.15       0     9.00    11.00    11.00     3.00    11.30    0.09    0.14       0     9.50    12.00    12.00     3.00 2025-01-01 12:00:06\n"
    "        2048          1024      half     max      -1    12.30    0.17    0.26       0    11.00    13.00    13.00     3.00    12.80    0.16    0.25       0    11.50    13.00    13.00     3.00 2025-01-01 12:00:07\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 0.2\n"
    "#\n"
    "# Collective test concluded: all_reduce_perf\n"
    "# Collective test starting: all_gather_perf\n"
    "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0 unalign: 0\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   8 on      n1 device  0 [0000:01:00] NVIDIA H100\n"
    "#  Rank  1 Group  0 Pid   8 on      n1 device  1 [0000:02:00] NVIDIA H100\n"
    "#\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
    "        1024           128     float    none      -1     8.00    0.13    0.06     N/A     8.10    0.13    0.06     N/A\n"
    "# Out of bounds values : 0 OK\n";

static void variants(void) {
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  fu_import_result r;

  /* old layout: op from --op (no "Collective test starting"), link from --link */
  snprintf(o.op, sizeof o.op, "allreduce");
  snprintf(o.link, sizeof o.link, "nvlink");
  EXPECT_INT_EQ(parse_text("v100.log", old_log, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 6);
  EXPECT_INT_EQ(r.samples[0].ranks, 4);
  EXPECT_INT_EQ(r.samples[0].count, 10);
  EXPECT_STR_EQ(r.samples[0].algo, "ring");
  EXPECT_STR_EQ(r.prov.nccl, "2.10.3");
  EXPECT_STR_EQ(r.prov.cuda, "11.4");
  EXPECT_STR_EQ(r.prov.gpu, "Tesla V100-SXM2-32GB");
  EXPECT_NEAR(r.samples[3].t_median_us, 36.20, 1e-12); /* 16 B in-place */
  EXPECT_INT_EQ(r.samples[4].n_wrong, -1);             /* error 2e-07: count unknown */
  EXPECT_INT_EQ(r.samples[5].n_wrong, 0);
  fu_import_result_finish(&r);
  /* without --link the log does not say: a usage error naming --link */
  o.link[0] = '\0';
  EXPECT_INT_EQ(parse_text("v100.log", old_log, &o, &r), FU_EUSAGE);
  EXPECT(strstr(r.error, "--link") != NULL);
  fu_import_result_finish(&r);
  /* --op against the file name is fine; without --op and no op in the name: usage error */
  o.op[0] = '\0';
  snprintf(o.link, sizeof o.link, "nvlink");
  EXPECT_INT_EQ(parse_text("v100.log", old_log, &o, &r), FU_EUSAGE);
  EXPECT(strstr(r.error, "--op") != NULL);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("all_reduce_perf-v100.log", old_log, &o, &r), FU_OK);
  EXPECT_STR_EQ(r.samples[0].op, "allreduce");
  fu_import_result_finish(&r);
  /* the same log with CRLF line ends */
  {
    char crlf[2 * sizeof old_log];
    size_t k = 0;
    for (const char *q = old_log; *q; q++) {
      if (*q == '\n') crlf[k++] = '\r';
      crlf[k++] = *q;
    }
    crlf[k] = '\0';
    EXPECT_INT_EQ(parse_text("all_reduce_perf-v100.log", crlf, &o, &r), FU_OK);
    EXPECT_INT_EQ(r.n, 6);
    EXPECT_NEAR(r.samples[5].t_median_us, 36.40, 1e-12);
    fu_import_result_finish(&r);
  }
  /* --ranks that contradicts the Rank lines */
  o.ranks = 8;
  EXPECT_INT_EQ(parse_text("all_reduce_perf.log", old_log, &o, &r), FU_EUSAGE);
  fu_import_result_finish(&r);
  o.ranks = 0;

  /* -d all -o all, threads, per-iteration columns, timestamps, two tests in one file */
  o.link[0] = '\0';
  snprintf(o.link, sizeof o.link, "nvlink");
  EXPECT_INT_EQ(parse_text("mixed.log", all_log, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 18);
  EXPECT_INT_EQ(r.n_tables, 2);
  EXPECT_INT_EQ(r.samples[0].ranks, 4);
  EXPECT_INT_EQ(r.samples[0].graph, 1);
  EXPECT_STR_EQ(r.samples[0].op, "allreduce");
  EXPECT_NEAR(r.samples[0].t_min_us, 9.00, 1e-12);
  EXPECT_NEAR(r.samples[1].t_min_us, 9.50, 1e-12);
  EXPECT_NEAR(r.samples[1].t_median_us, 11.00, 1e-12);
  EXPECT_STR_EQ(r.samples[8].dtype, "half");
  EXPECT_NEAR(r.samples[15].t_median_us, 12.80, 1e-12);
  EXPECT_STR_EQ(r.samples[16].op, "allgather");
  EXPECT_INT_EQ(r.samples[16].ranks, 2);
  EXPECT_INT_EQ(r.samples[16].graph, 0);
  EXPECT_INT_EQ(r.samples[17].n_wrong, -1);
  EXPECT_STR_EQ(r.prov.nccl, "2.27.3");
  fu_import_result_finish(&r);
  /* the same log under a conflicting --op */
  snprintf(o.op, sizeof o.op, "broadcast");
  EXPECT_INT_EQ(parse_text("mixed.log", all_log, &o, &r), FU_EUSAGE);
  fu_import_result_finish(&r);
  o.op[0] = '\0';

  /* a -d all sweep that stops early is a truncated log */
  char *cut = strdup(all_log);
  char *p = strstr(cut, "        2048          1024      half     max");
  strcpy(p, "# Out of bounds values : 0 OK\n");
  EXPECT_INT_EQ(parse_text("mixed.log", cut, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "truncated") != NULL);
  fu_import_result_finish(&r);
  free(cut);
}

/* nccl-tests -J output (JSON_FILE_VERSION 2 layout of src/util.cu). */
static const char json_log[] =
    "{\"version\":2,\"start_time\":\"2025-05-01 10:00:00\","
    "\"args\":[\"./build/all_reduce_perf\",\"-b\",\"8\",\"-e\",\"16\",\"-g\",\"2\",\"-J\",\"out.json\"],"
    "\"env\":[\"NCCL_ALGO=Tree\"],\"nccl_version\":22803,"
    "\"config\":{\"nthreads\":1,\"ngpus\":2,\"minimum_bytes\":8,\"maximum_bytes\":16,\"step_factor\":2,"
    "\"warmup_iters\":5,\"iterations\":20,\"aggregated_iterations\":1,\"validation\":1,\"graph\":0,"
    "\"blocking_collectives\":\"false\",\"per_iter_timing\":\"false\",\"parallel_init\":\"false\","
    "\"devices\":[{\"rank\":0,\"group\":0,\"pid\":42,\"hostname\":\"gpu-node\",\"device\":0,"
    "\"device_hex\":\"0000:19:00\",\"device_info\":\"NVIDIA H200\"}]},"
    "\"results\":["
    "{\"size\":8,\"count\":2,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"    -1\","
    "\"out_of_place\":{\"time\":10.500000,\"alg_bw\":0.000762,\"bus_bw\":0.000762,\"nwrong\":0.000000},"
    "\"in_place\":{\"time\":10.250000,\"alg_bw\":0.000780,\"bus_bw\":0.000780,\"nwrong\":null},"
    "\"actual_iterations\":20,\"experiment_name\":\"\"},"
    "{\"size\":16,\"count\":4,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"    -1\","
    "\"out_of_place\":{\"time\":10.750000,\"alg_bw\":0.001488,\"bus_bw\":0.001488,\"nwrong\":0.000000},"
    "\"in_place\":{\"time\":10.600000,\"alg_bw\":0.001509,\"bus_bw\":0.001509,\"nwrong\":0.000000},"
    "\"out_of_place_per_iter\":{\"min_us\":9.9,\"max_us\":12.0,\"avg_us\":10.75,\"p50_us\":10.7,"
    "\"p95_us\":11.8,\"p99_us\":12.0,\"stdev_us\":0.3,\"cv_pct\":2.8,\"times_us\":[10.7]},"
    "\"actual_iterations\":20,\"experiment_name\":\"\"}],"
    "\"out_of_bounds\":{\"count\":0,\"okay\":\"true\"},"
    "\"average_bus_bandwidth\":{\"bandwidth\":0.001,\"okay\":\"unchecked\"},\"errors\":[],"
    "\"end_time\":\"2025-05-01 10:00:05\"}";

static void json_and_csv(void) {
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  fu_import_result r;
  snprintf(o.link, sizeof o.link, "nvlink");
  EXPECT_INT_EQ(parse_text("run.json", json_log, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.format, FU_IMPORT_JSON);
  EXPECT_INT_EQ(r.n, 4);
  EXPECT_STR_EQ(r.samples[0].op, "allreduce");
  EXPECT_INT_EQ(r.samples[0].ranks, 2);      /* 1 device entry x nthreads 1 x ngpus 2 */
  EXPECT_INT_EQ(r.samples[0].count, 20);
  EXPECT_NEAR(r.samples[1].t_median_us, 10.25, 1e-12);
  EXPECT_INT_EQ(r.samples[1].n_wrong, -1);
  EXPECT_NEAR(r.samples[2].t_median_us, 10.7, 1e-12); /* the p50 where per-iteration given */
  EXPECT_NEAR(r.samples[2].t_min_us, 9.9, 1e-12);
  EXPECT_NEAR(r.samples[2].t_p95_us, 11.8, 1e-12);
  EXPECT_STR_EQ(r.prov.nccl, "2.28.3");
  EXPECT_STR_EQ(r.prov.gpu, "NVIDIA H200");
  fu_import_result_finish(&r);
  /* "nan" as nccl-tests writes a NaN time; a truncated document */
  char *bad = strdup(json_log);
  char *p = strstr(bad, "10.500000");
  memcpy(p, "\"nan\"    ", 9);
  EXPECT_INT_EQ(parse_text("run.json", bad, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "results[0].out_of_place.time") != NULL);
  fu_import_result_finish(&r);
  bad[strlen(bad) / 2] = '\0';
  EXPECT_INT_EQ(parse_text("run.json", bad, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "invalid JSON") != NULL);
  fu_import_result_finish(&r);
  free(bad);

  /* CSV: header names the columns, any order, extras ignored, comments, optional link */
  o.link[0] = '\0';
  const char *csv = "# calib output\nbytes,time_us,op,ranks,link,whatever,t_min_us\n"
                    "1024,5.5,allreduce,8,nvlink,x,5.0\n\n2048,6.5,all_reduce,8,nvlink,y,\n";
  EXPECT_INT_EQ(parse_text("c.csv", csv, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 2);
  EXPECT_NEAR(r.samples[0].t_min_us, 5.0, 1e-12);
  EXPECT(isnan(r.samples[1].t_min_us));
  EXPECT_STR_EQ(r.samples[1].op, "allreduce");
  fu_import_result_finish(&r);
  /* fusim calib's own CSV reads back: a measured row, and a host issue row whose min, p95,
   * bandwidth, data check and mean were not measured (written as "nan" and -1 before, which
   * this parser refused: calib's output could not be imported) */
  fu_sample w[2];
  fu_sample_init(&w[0]);
  snprintf(w[0].op, sizeof w[0].op, "allreduce");
  snprintf(w[0].link, sizeof w[0].link, "nvlink");
  w[0].ranks = 2, w[0].bytes = 4, w[0].t_median_us = 23.024, w[0].t_min_us = 20.224;
  w[0].t_p95_us = 25.984, w[0].busbw_gbps = 0.0002, w[0].count = 50, w[0].n_wrong = 0;
  fu_sample_init(&w[1]);
  snprintf(w[1].op, sizeof w[1].op, "issue");
  snprintf(w[1].link, sizeof w[1].link, "nvlink");
  snprintf(w[1].proto, sizeof w[1].proto, "host");
  w[1].ranks = 2, w[1].bytes = 4, w[1].t_median_us = 19.4104, w[1].count = 50;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  fu_import_csv_header(mem);
  fu_import_csv_row(mem, &w[0], 19.5507);
  fu_import_csv_row(mem, &w[1], NAN);
  fclose(mem);
  EXPECT_INT_EQ(parse_text("calib.csv", text, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 2);
  EXPECT_STR_EQ(r.samples[1].op, "issue");
  EXPECT_STR_EQ(r.samples[1].proto, "host");
  EXPECT_NEAR(r.samples[1].t_median_us, 19.4104, 1e-12);
  EXPECT(isnan(r.samples[1].t_min_us) && isnan(r.samples[1].t_p95_us));
  EXPECT_INT_EQ(r.samples[1].n_wrong, -1);
  EXPECT_NEAR(r.samples[0].t_min_us, 20.224, 1e-12);
  EXPECT_INT_EQ(r.samples[0].n_wrong, 0);
  fu_import_result_finish(&r);
  free(text);
  /* missing link and no --link: usage; bad link value: data error */
  EXPECT_INT_EQ(parse_text("c.csv", "op,ranks,bytes,time_us\nallreduce,8,1024,5\n", &o, &r), FU_EUSAGE);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("c.csv", "op,ranks,bytes,time_us,link\nallreduce,8,1024,5,carrier-pigeon\n", &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "c.csv:2:") != NULL);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("c.csv", "op,bytes,link\nh2d,4,pcie_h2d\n", &o, &r), FU_EDATA);
  fu_import_result_finish(&r);
}

/* Bad input: one message naming the file and line, the right status, nothing usable. */
static void bad_input(void) {
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  fu_import_result r;
  snprintf(o.link, sizeof o.link, "nvlink");
  static const struct {
    const char *what;        /* the case */
    const char *from, *to;   /* replace in old_log */
    const char *msg;         /* expected in the message */
    size_t kept;             /* samples kept under --lenient */
  } cases[] = {
      {"NaN time", "37.52", "  nan", "v.log:15: out-of-place time 'nan'", 4},
      {"negative time", "37.52", "-37.5", "v.log:15: out-of-place time '-37.5'", 4},
      {"infinite time", "36.98", "  inf", "v.log:15: in-place time 'inf'", 4},
      {"zero time", "36.98", " 0.00", "in-place time", 4},
      {"negative size", "           8             2", "          -8             2", "v.log:15: row does not start", 4},
      {"garbled size", "          16             4", "         1e6             4", "v.log:18", 4},
      {"huge size", "          32             8", "99999999999999999999999 8", "v.log:19: size", 4},
      {"bad wrong", "0e+00\nhost1:100:107", "oops!\nhost1:100:107", "v.log:15:", 4},
      {"text in table", "host1:100:107 [2] NCCL WARN", "Segmentation fault (core dumped)", "v.log:16: unexpected text", 6},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[sizeof old_log + 64];
    const char *p = strstr(old_log, cases[i].from);
    if (!p) {
      FU_T_FAIL("case %s: pattern not found", cases[i].what);
      continue;
    }
    size_t k = (size_t)(p - old_log);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)k, old_log, cases[i].to, p + strlen(cases[i].from));
    snprintf(o.op, sizeof o.op, "allreduce");
    int st = parse_text("v.log", buf, &o, &r);
    if (st != FU_EDATA || !strstr(r.error, cases[i].msg))
      FU_T_FAIL("case %s: status %d, message '%s' (want '%s')", cases[i].what, st, r.error, cases[i].msg);
    else
      fu_test_passed++;
    fu_import_result_finish(&r);
    /* lenient: that row is skipped and counted, the rest kept */
    o.lenient = 1;
    st = parse_text("v.log", buf, &o, &r);
    if (st != FU_OK || r.n_skipped < 1 || r.n != cases[i].kept)
      FU_T_FAIL("case %s lenient: status %d, %zu kept, %zu skipped", cases[i].what, st, r.n, r.n_skipped);
    else
      fu_test_passed++;
    fu_import_result_finish(&r);
    o.lenient = 0;
  }
  /* a truncated row at the end of the file */
  {
    char buf[sizeof old_log];
    const char *p = strstr(old_log, "          32             8");
    snprintf(buf, sizeof buf, "%.*s          32             8   float     sum    36.5", (int)(p - old_log), old_log);
    snprintf(o.op, sizeof o.op, "allreduce");
    EXPECT_INT_EQ(parse_text("v.log", buf, &o, &r), FU_EDATA);
    EXPECT(strstr(r.error, "v.log:19: row has 5 fields, the header has 12") != NULL);
    fu_import_result_finish(&r);
  }
  /* a truncated log: the h100 log cut after 20 of its 31 sizes */
  char path[1024];
  snprintf(path, sizeof path, "%s/data/public-nccl-tests/h100x16-2node-a3mega-allreduce.txt", shared);
  char *text;
  size_t len;
  if (fu_read_file(path, &text, &len) == FU_OK) {
    char *q = strstr(text, "     2097152        524288");
    *q = '\0';
    EXPECT_INT_EQ(parse_text("h100-allreduce.txt", text, &o, &r), FU_EDATA);
    EXPECT(strstr(r.error, "18 of the 31 sizes") != NULL && strstr(r.error, "truncated"));
    fu_import_result_finish(&r);
    /* cut in the middle of a row (no newline at the end) */
    strcpy(q, "     2097152        524288     float     sum      -1    254.0    8.26   1");
    EXPECT_INT_EQ(parse_text("h100-allreduce.txt", text, &o, &r), FU_EDATA);
    EXPECT(strstr(r.error, "h100-allreduce.txt:46: row has 8 fields, the header has 13") != NULL);
    fu_import_result_finish(&r);
    free(text);
  }
  o.op[0] = '\0';
  /* garbage, binary, empty, a header and nothing else, only comments */
  EXPECT_INT_EQ(parse_text("g.txt", "hello world\nthis is not a benchmark\n\x01\x02\xff\xfe\n", &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "no nccl-tests results table") != NULL);
  fu_import_result_finish(&r);
  fu_import_result_init(&r);
  EXPECT_INT_EQ(fu_import_parse("b.bin", "ab\0cd", 5, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "binary") != NULL);
  fu_import_result_finish(&r);
  fu_import_result_init(&r);
  EXPECT_INT_EQ(fu_import_parse("e.txt", "", 0, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "empty") != NULL);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("h.txt", "#       size         count      type   redop    root     time   algbw   busbw #wrong\n", &o, &r), FU_EDATA);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("c.csv", "# nothing\n# here\n", &o, &r), FU_EDATA);
  fu_import_result_finish(&r);
  EXPECT_INT_EQ(parse_text("x.json", "[1,2,3]", &o, &r), FU_EDATA);
  fu_import_result_finish(&r);
}

/* old_log with `from` replaced by `to` (the first occurrence) into buf. */
static const char *old_log_with(char *buf, size_t cap, const char *from, const char *to) {
  const char *p = strstr(old_log, from);
  if (!p) {
    FU_T_FAIL("pattern '%s' not in old_log", from);
    return old_log;
  }
  snprintf(buf, cap, "%.*s%s%s", (int)(p - old_log), old_log, to, p + strlen(from));
  return buf;
}

/* text parses as a whole: status OK and n samples. */
static void expect_whole(const char *text, const fu_import_opts *o, size_t n) {
  fu_import_result r;
  EXPECT_INT_EQ(parse_text("v.log", text, o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, n);
  fu_import_result_finish(&r);
}

/* Valid logs in layouts the parser must read whole, and rows it cannot place: every row is
 * either stored or named in an error, never dropped in silence (held-out clusters' logs). */
static void unusual_but_valid(void) {
  fu_import_opts o;
  fu_import_opts_init(&o);
  o.quiet = 1;
  snprintf(o.op, sizeof o.op, "allreduce");
  snprintf(o.link, sizeof o.link, "nvlink");
  fu_import_result r;
  char buf[sizeof old_log + 256];
  const char *row16 = "          16             4   float     sum";
  /* a comment line between two rows (a curator's note, RCCL's "# <smaller message sizes
   * truncated>") is a comment: the table goes on. With the "# nThread" line this log was
   * called truncated after 1 of 3 sizes; without it the 12-column rows after the comment were
   * dropped in silence (2 of 6 samples kept, status OK). */
  char note[96];
  snprintf(note, sizeof note, "## rerun after a link flap\n%s", row16);
  EXPECT_INT_EQ(parse_text("v.log", old_log_with(buf, sizeof buf, row16, note), &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 6);
  EXPECT_INT_EQ(r.n_tables, 1);
  EXPECT_NEAR(r.samples[5].t_median_us, 36.40, 1e-12); /* 32 B in-place, after the note */
  fu_import_result_finish(&r);
  char nocfg[sizeof buf];
  const char *cfg = strstr(buf, "# nThread");
  snprintf(nocfg, sizeof nocfg, "%.*s%s", (int)(cfg - buf), buf, strchr(cfg, '\n') + 1);
  o.ranks = 4;
  expect_whole(nocfg, &o, 6);
  o.ranks = 0;
  /* nccl-tests before 2.0 printed its footer without '#' (" Out of bounds values : 0 OK",
   * " Avg bus bandwidth    : 29.4"): the table ends there; the log was refused ("unexpected
   * text inside the results table") */
  char old_footer[sizeof buf];
  old_log_with(old_footer, sizeof old_footer, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.00142 \n",
               " Out of bounds values : 0 OK\n Avg bus bandwidth    : 0.00142 \n");
  expect_whole(old_footer, &o, 6);
  /* a result row after the table ended that the layout of 2.11 on (13 fields) does not fit:
   * named in an error (it was dropped in silence, status OK); a line that only starts with a
   * number ("5 more processes have sent help message ...") is not a row */
  old_log_with(buf, sizeof buf, "# Avg bus bandwidth    : 0.00142 \n",
               "# Avg bus bandwidth    : 0.00142 \n"
               "3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found\n"
               "          64            16   float     sum    36.70    0.00    0.00  0e+00    36.60    0.00    0.00  0e+00\n");
  EXPECT_INT_EQ(parse_text("v.log", buf, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "v.log:23:") != NULL && strstr(r.error, "outside") != NULL);
  fu_import_result_finish(&r);
  o.lenient = 1;
  EXPECT_INT_EQ(parse_text("v.log", buf, &o, &r), FU_OK);
  EXPECT_INT_EQ(r.n, 6);
  EXPECT_INT_EQ(r.n_skipped, 1);
  fu_import_result_finish(&r);
  o.lenient = 0;
  /* Open MPI's "N more processes have sent help message ..." has 13 words after a table: not a
   * row (it was read as one and refused: "count 'more' is not a number of elements") */
  old_log_with(buf, sizeof buf, "# Avg bus bandwidth    : 0.00142 \n",
               "# Avg bus bandwidth    : 0.00142 \n"
               "3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found\n");
  expect_whole(buf, &o, 6);
  /* rows whose #wrong is above 0 (data corruption): stored, and a warning and the run's notes
   * say how many (they passed in silence) */
  {
    static const char wrong_log[] =
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.10    0.00    0.00      3\n"
        "          16             4     float     sum      -1    11.00    0.00    0.00      0    11.10    0.00    0.00      0\n";
    o.ranks = 2;
    EXPECT_INT_EQ(parse_text("w.log", wrong_log, &o, &r), FU_OK);
    EXPECT_INT_EQ(r.n, 4);
    EXPECT_INT_EQ(r.samples[1].n_wrong, 3);
    EXPECT(strstr(r.error, "1 of its 4 samples report wrong results") != NULL);
    EXPECT(strstr(r.prov.notes, "samples with #wrong > 0: 1") != NULL);
    fu_import_result_finish(&r);
    o.ranks = 0;
  }
  /* nccl-tests cuts each process's Rank list at 2048 characters ("..."): 2 processes of 4 GPUs
   * whose second list lost its last line are 8 ranks (7 before, with only a warning about the
   * layout), and a warning says the list is cut */
  {
    static const char cut_log[] =
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid    101 on   node-a device  0 [0000:01:00] NVIDIA H100\n"
        "#  Rank  1 Group  0 Pid    101 on   node-a device  1 [0000:02:00] NVIDIA H100\n"
        "#  Rank  2 Group  0 Pid    101 on   node-a device  2 [0000:03:00] NVIDIA H100\n"
        "#  Rank  3 Group  0 Pid    101 on   node-a device  3 [0000:04:00] NVIDIA H100\n"
        "#  Rank  4 Group  0 Pid    202 on   node-b device  0 [0000:01:00] NVIDIA H100\n"
        "#  Rank  5 Group  0 Pid    202 on   node-b device  1 [0000:02:00] NVIDIA H100\n"
        "#  Rank  6 Group  0 Pid    202 on   node-b device  2 [0000:03...\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    30.00    0.00    0.00      0    30.10    0.00    0.00      0\n";
    snprintf(o.link, sizeof o.link, "net");
    EXPECT_INT_EQ(parse_text("c.log", cut_log, &o, &r), FU_OK);
    EXPECT_INT_EQ(r.n, 2);
    EXPECT_INT_EQ(r.samples[0].ranks, 8);
    EXPECT_INT_EQ(r.samples[0].nodes, 2);
    EXPECT_INT_EQ(r.samples[0].gpus_per_proc, 4);
    EXPECT(strstr(r.error, "cut short") != NULL);
    fu_import_result_finish(&r);
    snprintf(o.link, sizeof o.link, "nvlink");
  }
  /* a units line whose times are not in us (a fork printing ms): refused, not read 1000x off */
  old_log_with(buf, sizeof buf, "(elements)                     (us)", "(elements)                     (ms)");
  EXPECT_INT_EQ(parse_text("v.log", buf, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "v.log:14: the units line gives times in (ms)") != NULL);
  fu_import_result_finish(&r);
  /* the benchmark failed inside the table: the message says so, not "row does not start with a
   * size" about its " .. host pid N: Test failure" line */
  old_log_with(buf, sizeof buf, "          32             8",
               "host1: Test NCCL failure common.cu:1005 'unhandled system error'\n"
               " .. host1 pid 1234: Test failure common.cu:891\n          32             8");
  EXPECT_INT_EQ(parse_text("v.log", buf, &o, &r), FU_EDATA);
  EXPECT(strstr(r.error, "v.log:19:") != NULL && strstr(r.error, "failed") != NULL &&
         strstr(r.error, "Test NCCL failure") != NULL);
  fu_import_result_finish(&r);
}

int main(void) {
  const char *sh = getenv("FUSIM_SHARED");
  snprintf(shared, sizeof shared, "%s", sh && *sh ? sh : "/work/shared");
  public_logs();
  variants();
  json_and_csv();
  bad_input();
  unusual_but_valid();
  char op[24];
  /* the parser's copy of the op and link names agrees with model/fu_model.h, both ways */
  for (int i = 0; i < FU_OP_COUNT; i++) {
    EXPECT_INT_EQ(fu_import_op_name(fu_op_name((fu_op)i), op, sizeof op), FU_OK);
    EXPECT_STR_EQ(op, fu_op_name((fu_op)i));
    fu_op back;
    EXPECT_INT_EQ(fu_op_parse(op, &back), FU_OK);
  }
  for (int i = 0; i < FU_LINK_COUNT; i++) EXPECT(fu_import_link_ok(fu_link_name((fu_link)i)));
  EXPECT(!fu_import_link_ok("warp"));
  EXPECT_INT_EQ(fu_import_op_name("./build/reduce_scatter_perf_mpi", op, sizeof op), FU_OK);
  EXPECT_STR_EQ(op, "reducescatter");
  EXPECT_INT_EQ(fu_import_op_name("hypercube_perf", op, sizeof op), FU_EDATA);
  return fu_test_report("test_import");
}
