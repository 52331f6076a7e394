/* cmd_cost.c: fusim cost: the price of one collective at each of a list of sizes, on a target
 * that may have been measured (the profile's curve at that rank and node count) or not (the
 * collective cost model of fu_coll.h with the profile's fitted link parameters). Every row says
 * which: measured, interpolated (between rank counts the profile measured) or predicted, and
 * whether the size lies beyond the largest one measured (extrapolated at that size's
 * bandwidth). O(sizes) after one curve lookup. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_cmd.h"
#include "fu_coll.h"
#include "fu_common.h"
#include "fu_cost.h"
#include "fu_options.h"

static const char fu__head[] =
    "usage: fusim cost --comm SPEC --bytes SIZE[,SIZE...] [--gpus-per-process N]\n"
    "                  [--nccl-version X.Y.Z] [--profile P] [--format table|csv|json]\n"
    "\n"
    "Prices one collective at each size: its time with an interval, bus bandwidth (nccl-tests'\n"
    "definition), the algorithm, and whether the profile measured it at that rank and node count\n"
    "(measured), or the cost model priced it from the profile's fitted link latency and bandwidth,\n"
    "between rank counts it measured (interpolated) or outside them (predicted). Sizes beyond the\n"
    "largest measured are priced at that size's bandwidth and marked extrapolated; sizes below the\n"
    "smallest measured, on the first segment's line, are marked extrapolated too (JSON:\n"
    "extrapolated_below).\n";

static const char fu__foot[] =
    "\n"
    "--comm: OP:RANKS[:LINK], OP allreduce|reducescatter|allgather, RANKS N (one node) or\n"
    "NODESxGPUS (2x8: two nodes of 8 GPUs), LINK nvlink|pcie|net (default: the profile's\n"
    "machine's link inside a node, else nvlink).\n"
    "--bytes: sizes with a unit (B, KiB, MiB, GiB), comma separated: 64MiB,1GiB.\n"
    "--gpus-per-process: the job's process layout across nodes (nccl-tests -g; default 1, one\n"
    "process per GPU, as training frameworks run); a process driving more GPUs pays the fitted\n"
    "layout cost (the profile's proc_pair_us) on each predicted Simple call.\n"
    "--nccl-version: the NCCL the job runs (default: the one the profile's logs ran, where they\n"
    "name one, else unknown: the model takes its fastest line);\n"
    "from 2.19 a predicted all-reduce across nodes runs the algorithm NCCL's own tuning picks\n"
    "(2.19-2.26: NVLS-tree where it rates it highest; 2.27 on: NCCL's algorithm and protocol at\n"
    "each size), NVLS-tree in NCCL's chunks, priced by the model's line for it.\n";

#define FU_COST_MAX_BYTES (1ull << 53) /* the largest size priced and printed exactly */

/* The comma-separated sizes of --bytes into *out (malloc'd). One line naming --bytes on error. */
static int fu__sizes(const char *arg, double **out, size_t *n) {
  *out = NULL;
  *n = 0;
  size_t cap = 1;
  for (const char *p = arg; *p; p++) cap += *p == ',';
  double *v = malloc(cap * sizeof *v);
  char *copy = malloc(strlen(arg) + 1);
  if (!v || !copy) {
    free(v);
    free(copy);
    return FU_ENOMEM;
  }
  strcpy(copy, arg);
  int st = FU_OK;
  for (char *t = copy; t && st == FU_OK;) { /* an empty entry ("1MiB,,2MiB") is an error too */
    char *comma = strchr(t, ',');
    if (comma) *comma = '\0';
    uint64_t b;
    st = fu_plan_parse_size("cost: --bytes", t, &b); /* a unit is required: '25' is an error */
    /* sizes are priced and printed as doubles, and JSON's "bytes" is an integer: above 2^53 the
       size printed was not the one given (2^53 + 1 B printed 2^53), and from 8 EiB on JSON said
       -9223372036854775808 (a double past INT64_MAX cast to json_int_t) */
    if (st == FU_OK && b > FU_COST_MAX_BYTES) {
      fu_error("cost: --bytes '%s': above 8192TiB (2^53 bytes, the largest size priced and printed exactly)", t);
      st = FU_EUSAGE;
    }
    if (st == FU_OK) v[(*n)++] = (double)b;
    t = comma ? comma + 1 : NULL;
  }
  free(copy);
  if (st == FU_OK && *n == 0) {
    fu_error("cost: --bytes '%s': no size given", arg);
    st = FU_EUSAGE;
  }
  if (st != FU_OK) {
    free(v);
    *n = 0;
    return st;
  }
  *out = v;
  return FU_OK;
}

/* "lines": every algorithm and protocol the cost model prices for the job (NCCL's choice picks
 * among them), with its time at `bytes`, so that a reader sees how far the chosen one is from the
 * others (nothing when the model did not price it). */
static int fu__lines_json(const fu_profile *prof, const char *op, int ranks, int nodes, double bytes, json_t *o) {
  fu_op fo;
  fu_coll_line l[FU_COLL_MAX_LINES], chosen[FU_COLL_MAX_LINES];
  int n, nc;
  if (fu_op_parse(op, &fo) != FU_OK || fu_coll_nvls_slot(fo) < 0 || !fu_cluster_usable(&prof->cluster, nodes) ||
      fu_coll_lines_all(&prof->cluster, fo, ranks, nodes, l, &n) != FU_OK ||
      fu_coll_lines(&prof->cluster, fo, ranks, nodes, bytes, chosen, &nc) != FU_OK)
    return FU_OK;
  for (int k = 0; k < n; k++) /* a line NCCL's choice keeps, as it prices it (its chunks) */
    for (int i = 0; i < nc; i++)
      if (strcmp(l[k].algo, chosen[i].algo) == 0) l[k] = chosen[i];
  json_t *arr = json_array();
  for (int k = 0; arr && k < n; k++) {
    json_t *e = json_pack("{s:s, s:f}", "algo", l[k].algo, "time_us", fu_coll_line_time(&l[k], bytes));
    if (!e || json_array_append_new(arr, e) != 0) {
      json_decref(arr);
      return FU_ENOMEM;
    }
  }
  return arr && json_object_set_new(o, "lines", arr) == 0 ? FU_OK : FU_ENOMEM;
}

/* 1 when a predicted price runs NVLS at a rate the machine gave, not a measurement. */
static int fu__nvls_derived(const fu_profile *prof, const fu_comm_price *p) {
  return p->basis != FU_BASIS_MEASURED && strncmp(p->algo, "nvls", 4) == 0 && prof->cluster.nvls_source[0];
}

/* The NVLS curve of more ranks a 2-rank price on one node was carried from, as the ring NCCL runs
 * there (fu_segment_carry), so that the output can say how; NULL for any other price. */
static const fu_curve *fu__nvls_to_ring(const fu_profile *prof, const char *op, const char *link,
                                        const fu_comm_price *p, int ranks, int nodes) {
  int rescaled = 0;
  const fu_curve *c = nodes == 1 && ranks == 2 && p->basis != FU_BASIS_MEASURED && !strcmp(p->algo, "ring")
                          ? fu_profile_find(prof, op, link, ranks, &rescaled) : NULL;
  return c && rescaled && !strcmp(c->algo, "nvls") ? c : NULL;
}

/* One line saying where a model price's interval came from (fu_comm_price.interval), for each
 * kind the rows have: the model's own error on the fit's logs, a borrowed network's (wide), or
 * the nominal band of a profile that records none. */
static void fu__interval_note(const fu_profile *prof, int nodes, const fu_comm_price *pr, size_t ns) {
  const fu_collerr *e = &prof->cluster.err[nodes > 1 ? FU_COLLERR_NODES : FU_COLLERR_ONE_NODE];
  static const char *const kinds[] = {"model_error", "borrowed", "band"};
  for (int k = 0; k < 3; k++) {
    size_t i = 0;
    while (i < ns && strcmp(pr[i].interval, kinds[k]) != 0) i++;
    if (i == ns) continue;
    if (k == 0)
      printf("  interval from the fit's own %s logs (%s): the model's error on them at that size, at least "
             "/%.2f .. x%.2f\n", nodes > 1 ? "multi-node" : "one-node", e->source, 1 + FU_COST_MODEL_BAND,
             1 + FU_COST_MODEL_BAND);
    else if (k == 1)
      printf("  borrowed network: wide: the fit has no multi-node log of this machine (%s, at least /2 .. x2)\n",
             e->source);
    else
      printf("  interval: the model's nominal /%.2f .. x%.2f: the profile records no error of the model at "
             "that size (fit it again with this fusim to record one)\n", 1 + FU_COST_MODEL_BAND,
             1 + FU_COST_MODEL_BAND);
  }
}

int fu_cmd_cost(int argc, char **argv) {
  fu_opt_inputs in = {0};
  fu_opt_target tg = {0};
  fu_opt_output out;
  fu_opt_output_init(&out);
  const char *bytes = NULL;
  long gpp = 0;
  const char *nccl = NULL;
  const fu_option rows[] = {
      FU_OPT_ROW_PROFILE(&in.profile),
      {FU_OPT_STR(0, "comm", &tg.comm, "SPEC", "allreduce|reducescatter|allgather:RANKS[:LINK] (a collective: not offload)")},
      {FU_OPT_STR(0, "bytes", &bytes, "SIZE[,SIZE...]", "message sizes with a unit (64MiB,1GiB)")},
      FU_OPT_ROW_LAYOUT(&gpp),
      FU_OPT_ROW_NCCL(&nccl),
      FU_OPT_ROW_FORMAT(&out.format),
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"cost", fu__head, fu__foot, rows, 0};
  int first, done, st = fu_opt_parse(&cmd, argc, argv, &first, &done);
  if (st != FU_OK || done) return fu_exit_code(st);
  if (!tg.comm || !bytes) {
    fu_opt_usage_error(&cmd, !tg.comm ? "--comm SPEC is required" : "--bytes SIZE[,SIZE...] is required");
    return fu_exit_code(FU_EUSAGE);
  }
  fu_comm c;
  if ((st = fu_comm_parse_as("cost: --comm", tg.comm, &c)) != FU_OK) return fu_exit_code(st);
  if (c.kind == FU_COMM_OFFLOAD) {
    fu_error("cost: --comm offload is a copy, not a collective; give allreduce, reducescatter or allgather");
    return fu_exit_code(FU_EUSAGE);
  }
  double *sizes = NULL;
  size_t ns = 0;
  if ((st = fu__sizes(bytes, &sizes, &ns)) != FU_OK) return fu_exit_code(st);
  fu_profile *prof = NULL;
  if ((st = fu_cmd_inputs("cost", &in, 0, NULL, &prof)) != FU_OK) {
    free(sizes);
    free(prof);
    return fu_exit_code(st);
  }
  const char *op = fu_op_name(fu_comm_op(&c));
  int nodes = c.nodes > 0 ? c.nodes : 1;
  int nsrc = FU_NCCL_UNKNOWN;
  char ver[16] = ""; /* the NCCL priced, X.Y.Z ("" unknown) */
  /* the job's layout: what the model prices, and what the output says it assumed */
  if ((st = fu_cmd_layout("cost", gpp, &c, prof)) != FU_OK ||
      (st = fu_cmd_nccl_version("cost", nccl, prof, &nsrc)) != FU_OK) {
    free(sizes);
    free(prof);
    return fu_exit_code(st);
  }
  const char *link = fu_link_name(c.link);
  const char *layout = gpp > 0 ? "given" : "assumed";
  int code = prof->cluster.job_nccl_version;
  if (code) fu_nccl_version_string(code, ver, sizeof ver);
  fu_comm_price *pr = calloc(ns, sizeof *pr);
  if (!pr) st = FU_ENOMEM;
  for (size_t i = 0; st == FU_OK && i < ns; i++) st = fu_cost_comm(prof, op, link, c.ranks, nodes, sizes[i], &pr[i]);
  if (st == FU_OK && out.format == FU_FORMAT_JSON) {
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < ns; i++) {
      json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:I, s:f, s:f, s:f, s:f, s:s, s:b, s:s, s:b, s:s}", "op", op,
                            "ranks", c.ranks, "nodes", nodes, "link", nodes > 1 ? "net" : link, "bytes",
                            (json_int_t)sizes[i], /* whole bytes: the size parser takes no fraction of one */
                            "time_us", pr[i].t_us, "lo_us", pr[i].lo_us, "hi_us", pr[i].hi_us, "busbw_gbps",
                            pr[i].busbw_gbps, "algo", pr[i].algo, "measured", pr[i].basis == FU_BASIS_MEASURED,
                            "basis", fu_cost_basis_name(pr[i].basis), "extrapolated",
                            pr[i].extrapolated || pr[i].below_bytes > 0,
                            "profile", prof->name);
      if (o && (json_object_set_new(o, "extrapolated_below", json_boolean(pr[i].below_bytes > 0)) != 0 ||
                json_object_set_new(o, "over_link_limit", json_boolean(pr[i].over_link_limit)) != 0))
        st = FU_ENOMEM;
      if (o && (json_object_set_new(o, "gpus_per_process", json_integer(prof->cluster.job_gpus_per_proc)) != 0 ||
                json_object_set_new(o, "layout", json_string(layout)) != 0 ||
                json_object_set_new(o, "nccl_version", ver[0] ? json_string(ver) : json_null()) != 0 ||
                json_object_set_new(o, "nccl_source", json_string(fu_nccl_source_name(nsrc))) != 0))
        st = FU_ENOMEM;
      if (o && pr[i].basis != FU_BASIS_MEASURED) st = fu__lines_json(prof, op, c.ranks, nodes, sizes[i], o);
      if (o && json_object_set_new(o, "interval", json_string(pr[i].interval)) != 0) st = FU_ENOMEM;
      if (o && fu__nvls_derived(prof, &pr[i]) && json_object_set_new(o, "nvls_source", json_string(prof->cluster.nvls_source)) != 0)
        st = FU_ENOMEM;
      if (!o || json_array_append_new(arr, o) != 0) st = FU_ENOMEM;
    }
    char *text = arr && st == FU_OK ? json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
    if (text) printf("%s\n", text);
    else st = FU_ENOMEM;
    free(text);
    json_decref(arr);
  } else if (st == FU_OK && out.format == FU_FORMAT_CSV) {
    printf("op,ranks,nodes,bytes,time_us,lo_us,hi_us,busbw_gbps,algo,measured,basis,extrapolated\n");
    for (size_t i = 0; i < ns; i++)
      printf("%s,%d,%d,%.0f,%.10g,%.10g,%.10g,%.10g,%s,%d,%s,%d\n", op, c.ranks, nodes, sizes[i], pr[i].t_us,
             pr[i].lo_us, pr[i].hi_us, pr[i].busbw_gbps, pr[i].algo, pr[i].basis == FU_BASIS_MEASURED,
             fu_cost_basis_name(pr[i].basis), pr[i].extrapolated || pr[i].below_bytes > 0);
  } else if (st == FU_OK) {
    char cs[64], sz[32];
    printf("%s on %d node%s (%d ranks), profile %s%s%s\n", fu_comm_string(&c, cs, sizeof cs), nodes,
           nodes == 1 ? "" : "s", c.ranks, prof->name, prof->machine[0] ? ", " : "", prof->machine);
    if (nodes > 1) { /* the layout and NCCL's choice price only calls across nodes */
      printf("  layout: %d GPU%s a process (%s%s)\n", prof->cluster.job_gpus_per_proc,
             prof->cluster.job_gpus_per_proc == 1 ? "" : "s", layout,
             gpp > 0 ? "" : ": one process per GPU; --gpus-per-process N for another");
      if (nsrc == FU_NCCL_UNKNOWN)
        printf("  NCCL: unknown (the model's fastest line; --nccl-version X.Y.Z for NCCL's choice)\n");
      else
        printf("  NCCL: %s (%s)\n", ver,
               nsrc == FU_NCCL_GIVEN ? "given" : "the profile's logs; --nccl-version X.Y.Z for another");
    }
    printf("  %12s %12s %23s %10s %-10s %s\n", "bytes", "time_us", "95% interval us", "busbw GB/s", "algo", "basis");
    for (size_t i = 0; i < ns; i++) {
      char iv[48], below[96] = "", least[32];
      snprintf(iv, sizeof iv, "[%.4g, %.4g]", pr[i].lo_us, pr[i].hi_us);
      if (pr[i].below_bytes > 0)
        snprintf(below, sizeof below, ", extrapolated below the smallest size measured (%s)",
                 fu_format_size((uint64_t)pr[i].below_bytes, least, sizeof least));
      printf("  %12s %12.4g %23s %10.4g %-10s %s%s%s%s\n", fu_format_size((uint64_t)sizes[i], sz, sizeof sz), pr[i].t_us,
             iv, pr[i].busbw_gbps, pr[i].algo, fu_cost_basis_name(pr[i].basis),
             pr[i].extrapolated ? ", extrapolated past the largest size measured" : "", below,
             pr[i].over_link_limit ? ", from a segment fitted above the link's physical limit (fit flagged it)" : "");
    }
    fu__interval_note(prof, nodes, pr, ns);
    for (size_t i = 0; i < ns; i++)
      if (fu__nvls_derived(prof, &pr[i])) {
        printf("  NVLS rate not measured: %s\n", prof->cluster.nvls_source);
        break;
      }
    const fu_curve *nv = NULL;
    for (size_t i = 0; i < ns; i++)
      if ((nv = fu__nvls_to_ring(prof, op, link, &pr[i], c.ranks, nodes)) != NULL) {
        printf("  NCCL runs no NVLS on 2 GPUs but a ring: priced from the profile's %d-rank NVLS curve, "
               "its rate over the GPU's NVLS share %.2f, NCCL's ring latency %.1f us\n", nv->ranks,
               fu_coll_nvls_efficiency(nv->gpu[0] ? nv->gpu : prof->gpu), fu_coll_nccl_ring_simple_us(2));
        break;
      }
  }
  free(pr);
  free(sizes);
  free(prof);
  return fu_exit_code(st);
}
