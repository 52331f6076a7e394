/* test_calib_opts.c: fusim calib's option checking, size lists, statistics and the database
 * writability check: all on the CPU, before any GPU work. Expected values derived by hand. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_calib.h"
#include "fu_test.h"

static int parse(fu_calib_opts *o, int argc, const char **argv) {
  int help = 0;
  return fu_calib_parse(argc, (char **)argv, o, &help);
}

#define ARGS(...) (const char *[]){"calib", __VA_ARGS__}
#define NARGS(...) (int)(sizeof((const char *[]){"calib", __VA_ARGS__}) / sizeof(char *))
#define PARSE(o, ...) parse(o, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))

int main(void) {
  fu_calib_opts o;
  uint64_t *sz;
  int n;

  /* defaults: 4 B .. 1 GiB by 4 is 4^1 .. 4^15: 15 sizes */
  EXPECT_INT_EQ(parse(&o, 1, ARGS(NULL)), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 15);
  EXPECT_INT_EQ(sz[0], 4);
  EXPECT_INT_EQ(sz[14], 1ULL << 30);
  free(sz);
  EXPECT_INT_EQ(o.iters, 50);
  EXPECT_INT_EQ(o.warmup, 5);
  EXPECT_INT_EQ(o.suites, FU_CALIB_SUITE_ALL);

  /* nccl-tests style: -b 8 -e 1G -f 4 -> 8, 32, ..., 512 MiB: 14 sizes (as the reference) */
  EXPECT_INT_EQ(PARSE(&o, "-b", "8", "-e", "1G", "-f", "4"), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 14);
  EXPECT_INT_EQ(sz[13], 512ULL << 20);
  free(sz);

  /* step: 1 KiB .. 4 KiB by 1 KiB -> 4 sizes */
  EXPECT_INT_EQ(PARSE(&o, "-b", "1KiB", "-e", "4KiB", "-i", "1KiB"), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 4);
  EXPECT_INT_EQ(sz[3], 4096);
  free(sz);

  /* a step larger than the range: -b alone, never a size past -e */
  EXPECT_INT_EQ(PARSE(&o, "-b", "4", "-e", "8", "-i", "100"), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 1);
  EXPECT_INT_EQ(sz[0], 4);
  free(sz);
  /* 1 KiB .. 3.5 KiB by 1 KiB: 1, 2, 3 KiB (4 KiB would pass -e) */
  EXPECT_INT_EQ(PARSE(&o, "-b", "1KiB", "-e", "3584", "-i", "1KiB"), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 3);
  EXPECT_INT_EQ(sz[2], 3072);
  free(sz);

  /* one size */
  EXPECT_INT_EQ(PARSE(&o, "-b", "64KiB", "-e", "64KiB"), FU_OK);
  EXPECT_INT_EQ(fu_calib_sizes(&o, &sz, &n), FU_OK);
  EXPECT_INT_EQ(n, 1);
  free(sz);

  /* lists */
  EXPECT_INT_EQ(PARSE(&o, "-d", "float,bf16", "-o", "allreduce,alltoall", "-P", "default,LL",
                      "-A", "ring", "--place", "ip", "-G", "both", "-s", "coll,gemm"), FU_OK);
  EXPECT_INT_EQ(o.ndtypes, 2);
  EXPECT_INT_EQ(o.dtypes[1], FU_DT_BF16);
  EXPECT_INT_EQ(o.colls, FU_CALIB_ALLREDUCE | FU_CALIB_ALLTOALL);
  EXPECT_INT_EQ(o.nprotos, 2);
  EXPECT_STR_EQ(o.protos[0], "");
  EXPECT_STR_EQ(o.protos[1], "LL");
  EXPECT_STR_EQ(o.algos[0], "Ring");
  EXPECT_INT_EQ(o.in_place, 1);
  EXPECT_INT_EQ(o.out_of_place, 0);
  EXPECT_INT_EQ(o.graph_on + o.graph_off, 2);
  EXPECT_INT_EQ(o.suites, FU_CALIB_SUITE_COLL | FU_CALIB_SUITE_GEMM);

  /* --quick: a reduced sweep, explicit options still win */
  EXPECT_INT_EQ(PARSE(&o, "--quick", "-n", "7"), FU_OK);
  EXPECT_INT_EQ(o.quick, 1);
  EXPECT_INT_EQ(o.iters, 7);
  EXPECT_INT_EQ(o.max_bytes, 64ULL << 20);

  /* bad options: usage errors, each before any GPU work */
  EXPECT_INT_EQ(PARSE(&o, "-b", "1GiB", "-e", "4"), FU_EUSAGE);   /* sizes out of order */
  EXPECT_INT_EQ(PARSE(&o, "-n", "0"), FU_EUSAGE);                 /* zero iterations */
  EXPECT_INT_EQ(PARSE(&o, "-n", "3x"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-w", "-1"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-f", "1"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-f", "nan"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-i", "0"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-b", "0"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-e", "1TiB"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-g", "0"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-d", "float,complex"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-P", "LL256"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-A", "NVLS"), FU_EUSAGE);              /* multicast stays off */
  EXPECT_INT_EQ(PARSE(&o, "-G", "maybe"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "--format", "xml"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "--budget", "0"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "--bogus"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "stray"), FU_EUSAGE);
  EXPECT_INT_EQ(PARSE(&o, "-b", "1", "-e", "1MiB", "-i", "1"), FU_EUSAGE);  /* > 4096 sizes */

  /* statistics: min, median (mean of the middle two when even), p95 by nearest rank */
  double t[] = {5, 1, 4, 2, 3}, mn, md, p95;
  fu_calib_stats(t, 5, &mn, &md, &p95);
  EXPECT_NEAR(mn, 1, 0);
  EXPECT_NEAR(md, 3, 0);
  EXPECT_NEAR(p95, 5, 0);             /* ceil(0.95 * 5) = 5th */
  double u[20];
  for (int i = 0; i < 20; i++) u[i] = 20 - i;   /* 1 .. 20 */
  fu_calib_stats(u, 20, &mn, &md, &p95);
  EXPECT_NEAR(md, 10.5, 0);
  EXPECT_NEAR(p95, 19, 0);            /* ceil(0.95 * 20) = 19th */
  double one = 7;
  fu_calib_stats(&one, 1, &mn, &md, &p95);
  EXPECT_NEAR(md, 7, 0);
  EXPECT_NEAR(p95, 7, 0);

  /* dtypes */
  int dt;
  EXPECT_INT_EQ(fu_calib_dtype_parse("fp16", &dt), FU_OK);
  EXPECT_INT_EQ(fu_calib_dtype_size(dt), 2);
  EXPECT_STR_EQ(fu_calib_dtype_name(FU_DT_BF16), "bf16");

  /* database writability, without creating anything */
  char dir[] = "/tmp/fu_calib_test_XXXXXX";
  EXPECT(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/new.db", dir);
  EXPECT_INT_EQ(fu_calib_db_writable(path), FU_OK);
  EXPECT(access(path, F_OK) != 0);    /* not created by the check */
  EXPECT_INT_EQ(fu_calib_db_writable("/nonexistent-dir/x.db"), FU_EDB);
  EXPECT_INT_EQ(fu_calib_db_writable(dir), FU_EDB);   /* a directory */
  if (geteuid() != 0) {               /* root writes anywhere */
    chmod(dir, 0500);
    EXPECT_INT_EQ(fu_calib_db_writable(path), FU_EDB); /* a new database: the folder's error */
    chmod(dir, 0700);
    /* an existing database read-only for this user, by its file or by its folder: EX_CANTCREAT */
    int fd = open(path, O_CREAT | O_WRONLY, 0400);
    EXPECT(fd >= 0);
    if (fd >= 0) close(fd);
    EXPECT_INT_EQ(fu_calib_db_writable(path), FU_ECANTCREAT);
    chmod(path, 0600);
    chmod(dir, 0500);
    EXPECT_INT_EQ(fu_calib_db_writable(path), FU_ECANTCREAT);
    chmod(dir, 0700);
    unlink(path);
  }
  rmdir(dir);
  return fu_test_report("calib options");
}
