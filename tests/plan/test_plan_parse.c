/* test_plan_parse.c: --fusion, --comm, --overlap/--pack/--comm-streams and JSON plan files. */
#include <stdlib.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_search.h"
#include "fu_resolve.h"
#include "fu_test.h"
#include "plan_util.h"

static const char *str(const fu_plan *p) {
  static char buf[700];
  return fu_plan_string(p, buf, sizeof buf);
}

/* Parses s into a fresh plan; returns the status with stderr captured into *msg. */
static int parse(const char *s, fu_plan *p, char *msg, size_t len) {
  pu_capture cap;
  fu_plan_init(p);
  pu_stderr_begin(&cap);
  int st = fu_plan_parse_fusion(s, p);
  const char *m = pu_stderr_end(&cap);
  size_t k = strlen(m) < len ? strlen(m) : len - 1;
  memcpy(msg, m, k);
  msg[k] = 0;
  return st;
}

static void test_kinds(void) {
  fu_plan p;
  char msg[1024];
  fu_plan_init(&p);
  EXPECT_INT_EQ(p.kind, FU_FUSION_NONE);
  EXPECT_INT_EQ(p.overlap, 1);
  EXPECT_INT_EQ(p.pack_view, 0);
  EXPECT_INT_EQ(p.comm_streams, 1);
  EXPECT_STR_EQ(str(&p), "none overlap=on pack=copy streams=1");

  EXPECT_INT_EQ(parse("single", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_SINGLE);

  EXPECT_INT_EQ(parse("cap:25MiB,first:1MiB", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_CAP);
  EXPECT_INT_EQ(p.cap_bytes, 25ull << 20);
  EXPECT_INT_EQ(p.first_cap_bytes, 1ull << 20);
  EXPECT_STR_EQ(str(&p), "cap:25MiB,first:1MiB overlap=on pack=copy streams=1");

  EXPECT_INT_EQ(parse("cap:1.5MiB", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.cap_bytes, 1572864);
  EXPECT_INT_EQ(p.first_cap_bytes, 0);
  EXPECT_STR_EQ(str(&p), "cap:1536KiB overlap=on pack=copy streams=1");

  EXPECT_INT_EQ(parse("cap:1000B", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.cap_bytes, 1000);
  EXPECT_STR_EQ(str(&p), "cap:1000B overlap=on pack=copy streams=1");

  EXPECT_INT_EQ(parse("ddp", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_CAP);
  EXPECT_INT_EQ(p.cap_bytes, 25ull << 20);
  EXPECT_INT_EQ(p.first_cap_bytes, 1ull << 20);

  EXPECT_INT_EQ(parse("horovod", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_HOROVOD);
  EXPECT_INT_EQ(p.cap_bytes, 128ull << 20);
  EXPECT_NEAR(p.cycle_us, 1000.0, 0);
  EXPECT_STR_EQ(str(&p), "horovod:128MiB,1ms overlap=on pack=copy streams=1");

  EXPECT_INT_EQ(parse("horovod:64MiB,3.5ms", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.cap_bytes, 64ull << 20);
  EXPECT_NEAR(p.cycle_us, 3500.0, 1e-9);
  EXPECT_STR_EQ(str(&p), "horovod:64MiB,3500us overlap=on pack=copy streams=1");
  /* A cycle without a unit is in ms, as HOROVOD_CYCLE_TIME=3.5 means 3.5 ms. */
  EXPECT_INT_EQ(parse("horovod:64MiB,250", &p, msg, sizeof msg), FU_OK);
  EXPECT_NEAR(p.cycle_us, 250000.0, 0);
  EXPECT_INT_EQ(parse("horovod:64MiB,3.5", &p, msg, sizeof msg), FU_OK);
  EXPECT_NEAR(p.cycle_us, 3500.0, 1e-9);
  EXPECT_STR_EQ(str(&p), "horovod:64MiB,3500us overlap=on pack=copy streams=1");
  EXPECT_INT_EQ(parse("horovod:64MiB,1us", &p, msg, sizeof msg), FU_OK);
  EXPECT_NEAR(p.cycle_us, 1.0, 0);
  EXPECT_INT_EQ(parse("horovod:64MiB,3600s", &p, msg, sizeof msg), FU_OK);
  EXPECT_NEAR(p.cycle_us, 3.6e9, 0);
  EXPECT_INT_EQ(parse("horovod:64MiB,2ms", &p, msg, sizeof msg), FU_OK);
  EXPECT_STR_EQ(str(&p), "horovod:64MiB,2ms overlap=on pack=copy streams=1");

  /* buckets:FILE is read when the plan is parsed: the plan holds the names. */
  const char *files[] = {"my buckets.json", "x.json"};
  for (size_t i = 0; i < 2; i++) {
    FILE *bf = fopen(files[i], "w");
    EXPECT(bf != NULL);
    if (bf) fputs("[[\"a\", \"b\"], [\"c\"]]", bf), fclose(bf);
  }
  EXPECT_INT_EQ(parse("buckets:my buckets.json", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_BUCKETS);
  EXPECT_STR_EQ(p.buckets_file, "my buckets.json");
  EXPECT(p.bucket_list != NULL);
  if (p.bucket_list) {
    EXPECT_INT_EQ(p.bucket_list->nbuckets, 2);
    EXPECT_INT_EQ(p.bucket_list->nnames, 3);
    EXPECT_INT_EQ(p.bucket_list->end[0], 2);
    EXPECT_STR_EQ(p.bucket_list->names[2], "c");
  }
  fu_plan q;
  fu_plan_copy(&q, &p); /* shares the list: finishing both frees it once (ASan/valgrind) */
  fu_plan_finish(&q);
  fu_plan_finish(&p);
  EXPECT(p.bucket_list == NULL);
  EXPECT_INT_EQ(parse("buckets:no such.json", &p, msg, sizeof msg), FU_ENOINPUT);
  EXPECT(strstr(msg, "no such.json") != NULL);

  EXPECT_INT_EQ(parse("optimal", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_OPTIMAL);
  EXPECT_INT_EQ(p.mem_cap_bytes, 0);
  EXPECT_INT_EQ(parse("optimal:256MiB", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.mem_cap_bytes, 256ull << 20);
  EXPECT_STR_EQ(str(&p), "optimal:256MiB overlap=on pack=copy streams=1");
  EXPECT_INT_EQ(parse("optimal:2TiB", &p, msg, sizeof msg), FU_OK); /* TiB is read (GiB written) */
  EXPECT_INT_EQ(p.mem_cap_bytes, 2ull << 40);

  EXPECT_INT_EQ(parse("mgwfbp", &p, msg, sizeof msg), FU_OK);
  EXPECT_INT_EQ(p.kind, FU_FUSION_MGWFBP);

  /* Every canonical string parses back to the same plan. */
  const char *round[] = {"none", "single", "cap:25MiB,first:1MiB", "cap:4KiB", "horovod:128MiB,1ms",
                         "horovod:1GiB,2500us", "optimal", "optimal:1GiB", "mgwfbp", "buckets:x.json",
                         "cap:1000B", "cap:1536KiB,first:7B"};
  for (size_t i = 0; i < sizeof round / sizeof round[0]; i++) {
    fu_plan a, b;
    char s1[700], s2[700];
    EXPECT_INT_EQ(parse(round[i], &a, msg, sizeof msg), FU_OK);
    fu_plan_string(&a, s1, sizeof s1);
    *strchr(s1, ' ') = '\0';
    EXPECT_INT_EQ(parse(s1, &b, msg, sizeof msg), FU_OK);
    fu_plan_string(&b, s2, sizeof s2);
    *strchr(s2, ' ') = '\0';
    EXPECT_STR_EQ(s1, s2);
    EXPECT_STR_EQ(s1, round[i]);
    fu_plan_finish(&a);
    fu_plan_finish(&b);
  }
  /* framework: parsed, shown in the string only when not ideal. */
  fu_plan_init(&p);
  EXPECT_INT_EQ(fu_plan_parse_framework("ddp", &p), FU_OK);
  EXPECT_INT_EQ(p.framework, FU_FRAMEWORK_DDP);
  EXPECT_STR_EQ(str(&p), "none overlap=on pack=copy streams=1 framework=ddp");
  EXPECT_INT_EQ(fu_plan_parse_framework("hooks", &p), FU_OK);
  EXPECT_INT_EQ(p.framework, FU_FRAMEWORK_HOOKS);
  EXPECT_INT_EQ(fu_plan_parse_framework("ideal", &p), FU_OK);
  EXPECT_STR_EQ(str(&p), "none overlap=on pack=copy streams=1");
  pu_capture cap;
  pu_stderr_begin(&cap);
  EXPECT_INT_EQ(fu_plan_parse_framework("tf", &p), FU_EUSAGE);
  EXPECT(strstr(pu_stderr_end(&cap), "--framework 'tf'") != NULL);
}

static void test_errors(void) {
  fu_plan p;
  char msg[1024];
  static const struct {
    const char *in;   /* --fusion value */
    const char *says; /* part of the one-line message */
  } bad[] = {
      {"cap:0", "a cap of 0"},
      {"cap:0B", "a cap of 0"},
      {"cap:0MiB", "a cap of 0"},
      {"cap:25MiB,first:0", "first bucket cap of 0"},
      {"cap:", "cap needs a size"},
      {"cap", "cap needs a size"},
      {"cap:abc", "is not a size"},
      {"cap:-1", "is not a size"},
      /* a size without a unit is refused, naming the units (it used to mean bytes) */
      {"cap:25", "cap '25' has no unit; say 25MiB or 25B"},
      {"cap:25MiB,first:1", "first bucket cap '1' has no unit; say 1MiB or 1B"},
      {"horovod:64,1ms", "fusion threshold '64' has no unit"},
      {"optimal:1000", "memory cap '1000' has no unit"},
      {"cap:1.5", "has no unit"},
      /* K, M, G, KB, MB, GB (any case) are refused: powers of 1000 or of 1024? (25MB was 25MiB) */
      {"cap:25MB", "cap '25MB' has an ambiguous unit, 'MB' (powers of 1000 or 1024?); say 25MiB"},
      {"cap:25M", "say 25MiB"},
      {"cap:25Mb", "ambiguous unit, 'Mb'"},
      {"cap:1.5MB", "or give bytes (1500000B)"},
      {"horovod:64GB,1ms", "say 64GiB"},
      {"cap:25MiB,first:1kb", "first bucket cap '1kb' has an ambiguous unit"},
      {"optimal:100MB", "memory cap '100MB' has an ambiguous unit"},
      /* hexadecimal is refused, with or without a unit */
      {"cap:0x10", "hexadecimal is not accepted"},
      {"cap:0x10MiB", "hexadecimal is not accepted"},
      {"horovod:64MiB,0x10", "cycle time '0x10'"},
      /* Horovod's cycle: finite, 1 us .. 1 hour (1e-20 used to hang the engine) */
      {"horovod:64MiB,1e-20", "outside 1us .. 3600s"},
      {"horovod:64MiB,0", "outside 1us .. 3600s"},
      {"horovod:64MiB,0.5us", "outside 1us .. 3600s"},
      {"horovod:64MiB,3601s", "outside 1us .. 3600s"},
      {"horovod:64MiB,1e300", "cycle time '1e300'"},
      {"horovod:64MiB,inf", "cycle time 'inf'"},
      {"horovod:64MiB,nan", "cycle time 'nan'"},
      {"horovod:64MiB,5min", "cycle time '5min'"},
      {"cap:1e400", "is not a size"},
      {"cap:nan", "is not a size"},
      {"cap:25XB", "is not a size"},
      {"cap:25MiB,second:1MiB", "expected ',first:SIZE'"},
      {"cap:25MiB,first:x", "is not a size"},
      {"horovod:0", "fusion threshold of 0"},
      {"horovod:64MiB,-5", "cycle time"},
      {"horovod:64MiB,fast", "cycle time"},
      {"horovod:", "horovod needs"},
      {"optimal:0", "memory cap of 0"},
      {"optimal:lots", "is not a size"},
      {"buckets:", "buckets needs a file"},
      {"none:3", "takes no argument"},
      {"fused", "unknown fusion kind 'fused'"},
      {"", "empty fusion plan"},
      {"Cap:1MiB", "unknown fusion kind"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fu_plan_init(&p);
    p.kind = FU_FUSION_SINGLE;
    int st = parse(bad[i].in, &p, msg, sizeof msg);
    if (st != FU_EUSAGE) FU_T_FAIL("--fusion '%s' gave status %d, not usage error", bad[i].in, st);
    else fu_test_passed++;
    if (!strstr(msg, bad[i].says) || !strstr(msg, "--fusion"))
      FU_T_FAIL("--fusion '%s': message '%s' lacks '%s'", bad[i].in, msg, bad[i].says);
    else fu_test_passed++;
    /* exactly one line */
    EXPECT(strchr(msg, '\n') == strrchr(msg, '\n'));
  }
  /* A failed parse leaves the plan as it was. */
  fu_plan_init(&p);
  p.kind = FU_FUSION_SINGLE;
  pu_capture cap;
  pu_stderr_begin(&cap);
  fu_plan_parse_fusion("cap:0", &p);
  pu_stderr_end(&cap);
  EXPECT_INT_EQ(p.kind, FU_FUSION_SINGLE);
}

static void test_flags(void) {
  fu_plan p;
  pu_capture cap;
  fu_plan_init(&p);
  EXPECT_INT_EQ(fu_plan_parse_overlap("off", &p), FU_OK);
  EXPECT_INT_EQ(p.overlap, 0);
  EXPECT_INT_EQ(fu_plan_parse_overlap("on", &p), FU_OK);
  EXPECT_INT_EQ(p.overlap, 1);
  EXPECT_INT_EQ(fu_plan_parse_pack("view", &p), FU_OK);
  EXPECT_INT_EQ(p.pack_view, 1);
  EXPECT_INT_EQ(fu_plan_parse_streams("4", &p), FU_OK);
  EXPECT_INT_EQ(p.comm_streams, 4);
  EXPECT_STR_EQ(str(&p), "none overlap=on pack=view streams=4");
  pu_stderr_begin(&cap);
  EXPECT_INT_EQ(fu_plan_parse_overlap("maybe", &p), FU_EUSAGE);
  EXPECT_INT_EQ(fu_plan_parse_pack("zip", &p), FU_EUSAGE);
  EXPECT_INT_EQ(fu_plan_parse_streams("0", &p), FU_EUSAGE);
  EXPECT_INT_EQ(fu_plan_parse_streams("2.5", &p), FU_EUSAGE);
  EXPECT_INT_EQ(fu_plan_parse_streams("65", &p), FU_EUSAGE);
  const char *m = pu_stderr_end(&cap);
  EXPECT(strstr(m, "--overlap 'maybe'") != NULL);
  EXPECT(strstr(m, "--pack 'zip'") != NULL);
  EXPECT(strstr(m, "--comm-streams '0'") != NULL);
  EXPECT_INT_EQ(p.comm_streams, 4);
}

static void test_comm(void) {
  fu_comm c;
  char buf[64];
  EXPECT_INT_EQ(fu_comm_parse("allreduce:8:nvlink", &c), FU_OK);
  EXPECT_INT_EQ(c.kind, FU_COMM_ALLREDUCE);
  EXPECT_INT_EQ(c.ranks, 8);
  EXPECT_INT_EQ(c.link, FU_LINK_NVLINK);
  EXPECT_INT_EQ(c.nodes, 1);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allreduce:8:nvlink");
  /* The link defaults to nvlink; one rank is a target (DDP over one GPU). */
  EXPECT_INT_EQ(fu_comm_parse("allreduce:8", &c), FU_OK);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allreduce:8:nvlink");
  EXPECT_INT_EQ(fu_comm_parse("allreduce:1:nvlink", &c), FU_OK);
  EXPECT_INT_EQ(c.ranks, 1);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allreduce:1:nvlink");
  /* NODESxGPUS: 2 nodes of 8 GPUs are 16 ranks; 1x8 is one node. */
  EXPECT_INT_EQ(fu_comm_parse("allreduce:2x8", &c), FU_OK);
  EXPECT_INT_EQ(c.ranks, 16);
  EXPECT_INT_EQ(c.nodes, 2);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allreduce:2x8:nvlink");
  EXPECT_INT_EQ(fu_comm_parse("allgather:4x2:pcie", &c), FU_OK);
  EXPECT_INT_EQ(c.ranks, 8);
  EXPECT_INT_EQ(c.nodes, 4);
  EXPECT_INT_EQ(c.link, FU_LINK_PCIE);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allgather:4x2:pcie");
  EXPECT_INT_EQ(fu_comm_parse("allreduce:1x8:nvlink", &c), FU_OK);
  EXPECT_INT_EQ(c.nodes, 1);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "allreduce:8:nvlink");
  EXPECT_INT_EQ(fu_comm_parse("reducescatter:16:net", &c), FU_OK);
  EXPECT_INT_EQ(c.kind, FU_COMM_REDUCESCATTER);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "reducescatter:16:net");
  EXPECT_INT_EQ(fu_comm_parse("allgather:2:pcie", &c), FU_OK);
  EXPECT_INT_EQ(c.kind, FU_COMM_ALLGATHER);
  EXPECT_INT_EQ(fu_comm_parse("offload", &c), FU_OK);
  EXPECT_INT_EQ(c.kind, FU_COMM_OFFLOAD);
  EXPECT_INT_EQ(c.ranks, 1);
  EXPECT_INT_EQ(c.link, FU_LINK_PCIE_D2H);
  EXPECT_STR_EQ(fu_comm_string(&c, buf, sizeof buf), "offload");
  pu_capture cap;
  const char *bad[] = {"allreduce", "allreduce:0", "allreduce:x:nvlink", "allreduce:0:nvlink",
                       "allreduce:8:wifi", "broadcast:8:nvlink", "allreduce:-8:nvlink",
                       "allreduce:8:nvlink:extra", "", "allreduce:0x8", "allreduce:2x",
                       "allreduce:x8", "allreduce:2x0:nvlink", "allreduce:2x8x2",
                       "allreduce:1048576x2", "allreduce:8:"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pu_stderr_begin(&cap);
    int st = fu_comm_parse(bad[i], &c);
    const char *m = pu_stderr_end(&cap);
    if (st != FU_EUSAGE) FU_T_FAIL("--comm '%s' gave %d", bad[i], st);
    else fu_test_passed++;
    EXPECT(strstr(m, "--comm") != NULL);
  }
}

static void test_json(void) {
  fu_plan p;
  fu_plan_init(&p);
  EXPECT_INT_EQ(fu_plan_parse_json("{\"fusion\": \"cap:25MiB,first:1MiB\", \"overlap\": \"off\", "
                                   "\"pack\": \"view\", \"comm_streams\": 2}",
                                   "plan.json", NULL, &p),
                FU_OK);
  EXPECT_STR_EQ(str(&p), "cap:25MiB,first:1MiB overlap=off pack=view streams=2");
  EXPECT_INT_EQ(fu_plan_parse_json("{\"overlap\": true}", "plan.json", NULL, &p), FU_OK);
  EXPECT_INT_EQ(p.overlap, 1);
  EXPECT_INT_EQ(p.kind, FU_FUSION_CAP); /* keys not given keep their values */
  static const struct {
    const char *json;
    const char *says;
  } bad[] = {
      {"{\"fusion\": \"cap:0\"}", "plan.json: fusion 'cap:0': a cap of 0"},
      {"{\"fusion\": 25}", "plan.json: fusion: expected a string"},
      {"{\"overlap\": \"sometimes\"}", "plan.json: overlap 'sometimes'"},
      {"{\"overlap\": 3}", "plan.json: overlap: expected"},
      {"{\"pack\": \"zip\"}", "plan.json: pack 'zip'"},
      {"{\"comm_streams\": 0}", "plan.json: comm_streams: expected a whole number"},
      {"{\"comm_streams\": 1.5}", "plan.json: comm_streams: expected a whole number"},
      {"{\"streams\": 2}", "plan.json: streams: unknown key"},
      {"[1, 2]", "plan.json: a plan file is a JSON object"},
      {"{\"fusion\": ", "plan.json:1: not valid JSON"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fu_plan q;
    fu_plan_init(&q);
    pu_capture cap;
    pu_stderr_begin(&cap);
    int st = fu_plan_parse_json(bad[i].json, "plan.json", NULL, &q);
    const char *m = pu_stderr_end(&cap);
    if (st != FU_EDATA) FU_T_FAIL("plan %s gave %d", bad[i].json, st);
    else fu_test_passed++;
    if (!strstr(m, bad[i].says)) FU_T_FAIL("plan %s: message '%s' lacks '%s'", bad[i].json, m, bad[i].says);
    else fu_test_passed++;
    EXPECT_INT_EQ(q.kind, FU_FUSION_NONE);
  }
  /* A plan file on disk, then the flags over it (as predict applies them). */
  char path[] = "/tmp/fusim_plan_json_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) {
    const char *text = "{\"fusion\": \"horovod:64MiB,2ms\", \"pack\": \"view\", \"comm_streams\": 3}\n";
    if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) FU_T_FAIL("%s", "write plan file");
    close(fd);
    fu_plan_init(&p);
    EXPECT_INT_EQ(fu_plan_load(path, &p), FU_OK);
    EXPECT_STR_EQ(str(&p), "horovod:64MiB,2ms overlap=on pack=view streams=3");
    EXPECT_INT_EQ(fu_plan_parse_overlap("off", &p), FU_OK);
    EXPECT_STR_EQ(str(&p), "horovod:64MiB,2ms overlap=off pack=view streams=3");
    remove(path);
  }
  /* A file that is not there. */
  pu_capture cap;
  pu_stderr_begin(&cap);
  int st = fu_plan_load("/nonexistent/plan.json", &p);
  const char *m = pu_stderr_end(&cap);
  EXPECT_INT_EQ(st, FU_ENOINPUT);
  EXPECT(strstr(m, "/nonexistent/plan.json") != NULL);
}

int main(void) {
  /* bucket files are written in a folder of the test's own */
  char dir[] = "/tmp/fusim_plan_parse.XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0) return 1;
  test_kinds();
  test_errors();
  test_flags();
  test_comm();
  test_json();
  unlink("my buckets.json");
  unlink("x.json");
  rmdir(dir);
  return fu_test_report("plan_parse");
}
