#!/bin/sh
# cli_db.sh FUSIM CASE: the results database's provenance, content identity, imports that keep
# going, measured times, re-runs and migration (issue 11). Fixtures are in tests/data; expected
# numbers are counted by hand from them (see each case). Exit 0 pass, 1 fail.
set -u
FUSIM=$1
CASE=$2
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/fusim-db-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/r.db
fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
q() { "$FUSIM" report --db "$DB" --format csv sql "$1" | tail -n +2; }
py() { python3 -c "$@"; }

case $CASE in
tree)
  # tree/: a100 log 11 sizes x 2 columns = 22 samples, one-host DGX H100 log 31 x 2 = 62 (its
  # "## hardware" line names NVLink4/NVSwitch), copies CSV 45 rows; README.md and
  # other/h200-pcie-copies.txt are not results: one line each, exit 65
  "$FUSIM" import --db "$DB" "$D/tree" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 65 ] || fail "exit $rc, want 65: $(cat "$T/err")"
  [ "$(grep -c "tree/README.md:" "$T/err")" = 1 ] || fail "README not named once: $(cat "$T/err")"
  [ "$(grep -c "tree/other/h200-pcie-copies.txt:" "$T/err")" = 1 ] || fail "other file not named"
  grep -q "5 files: 3 imported (129 samples, 0 measured times, 0 bad rows skipped), 0 already imported, 2 failed" "$T/err" ||
    fail "summary: $(cat "$T/err")"
  [ "$(grep -c . "$T/err")" = 3 ] || fail "want 3 stderr lines: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = 129 ] || fail "samples $(q "SELECT count(*) FROM samples")"
  [ "$(q "SELECT DISTINCT s.link FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%1node%'")" = nvlink ] ||
    fail "one-host log link"
  [ "$(q "SELECT count(*) FROM runs WHERE length(content_hash) = 64 AND fusim_version IS NOT NULL AND fusim_commit IS NOT NULL")" = 3 ] ||
    fail "runs lack hash/version/commit"
  # a second run adds nothing: every file already imported (3 notes), the 2 others named again
  "$FUSIM" import --db "$DB" "$D/tree" >"$T/out" 2>"$T/err"
  [ $? = 65 ] || fail "second run exit"
  [ "$(grep -c "already imported (run" "$T/err")" = 3 ] || fail "second run notes: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = 129 ] || fail "second run added samples"
  # --again imports a file once more
  "$FUSIM" import --db "$DB" --again "$D/tree/csv/h200-pcie-copies.csv" >/dev/null 2>&1 || fail "--again"
  [ "$(q "SELECT count(*) FROM samples")" = $((129 + 45)) ] || fail "--again did not add 45"
  echo "ok [$CASE]"
  ;;
provenance)
  # every prediction row reaches its workload JSON, profile JSON, buckets, version and commit,
  # one query each, for predict and plan
  "$FUSIM" predict --db "$DB" --workload resnet50 --fusion horovod:64MiB,5ms >/dev/null || fail predict
  "$FUSIM" plan --db "$DB" --workload bert_large >/dev/null || fail plan
  ver=$("$FUSIM" --version) # fusim 0.1.0 (commit X)
  n=$(q "SELECT count(*) FROM predictions")
  [ "$n" = 7 ] || fail "$n predictions, want 1 + 6"
  for id in $(q "SELECT id FROM predictions"); do
    wl=$(q "SELECT w.json FROM predictions p JOIN workloads w ON w.id = p.workload_id WHERE p.id = $id")
    pf=$(q "SELECT pr.json FROM predictions p JOIN profiles pr ON pr.id = p.profile_id WHERE p.id = $id")
    bk=$(q "SELECT buckets FROM predictions WHERE id = $id")
    vs=$(q "SELECT r.fusim_version FROM predictions p JOIN runs r ON r.id = p.run_id WHERE p.id = $id")
    cm=$(q "SELECT r.fusim_commit FROM predictions p JOIN runs r ON r.id = p.run_id WHERE p.id = $id")
    # the buckets cover the workload's gradients in order; the profile is the bundled one
    printf '%s\n%s\n%s\n' "$wl" "$pf" "$bk" >"$T/row"
    py "
import csv, json, sys
csv.field_size_limit(1 << 30)  # the profile's JSON (compute tables) is a few hundred KB
rows = list(csv.reader(open('$T/row')))
w, p, b = (json.loads(r[0]) for r in rows)
n = len(w['grads'])
assert w['format'] == 'fusim-workload-1', w.get('format')
assert p['name'] == 'h200-default', p['name']
assert b[0][0] == 0 and b[-1][1] == n - 1, (b[0], b[-1], n)
assert all(b[k][0] == b[k - 1][1] + 1 for k in range(1, len(b))), b
" || fail "prediction $id: workload/profile/buckets"
    [ "fusim $vs (commit $cm)" = "$ver" ] || fail "prediction $id: version '$vs' commit '$cm' vs '$ver'"
  done
  [ "$(q "SELECT count(DISTINCT run_id) FROM predictions")" = 2 ] || fail "one run per command"
  [ "$(q "SELECT group_concat(kind) FROM (SELECT kind FROM runs ORDER BY id)")" = '"predict,plan"' ] || fail "run kinds"
  [ "$(q "SELECT count(*) FROM runs WHERE host_id IS NULL")" = 0 ] || fail "runs without host"
  echo "ok [$CASE]"
  ;;
content)
  # a name is a label: two different workloads named tiny_llama (seq 4096 and 2048) are two
  # rows; the same content predicted twice is one
  for seq in 4096 2048; do
    "$FUSIM" workload --transformer --layers 2 --hidden 1024 --heads 8 --ffn 4096 --vocab 32000 \
      --seq $seq --micro-batch 1 --name tiny_llama --out "$T/tiny_$seq.json" >/dev/null || fail "workload $seq"
  done
  for f in 4096 2048 4096; do
    "$FUSIM" predict --db "$DB" --workload "$T/tiny_$f.json" --fusion optimal >/dev/null || fail "predict $f"
  done
  [ "$(q "SELECT count(*) FROM workloads WHERE name = 'tiny_llama'")" = 2 ] || fail "want 2 workloads named tiny_llama"
  [ "$(q "SELECT count(DISTINCT hash) FROM workloads")" = 2 ] || fail "hashes"
  [ "$(q "SELECT count(DISTINCT workload_id) FROM predictions")" = 2 ] || fail "predictions' workloads"
  [ "$(q "SELECT count(*) FROM profiles")" = 1 ] || fail "one profile content"
  # different iteration times under one name (the issue's 3.65 s / 2.30 s case)
  [ "$(q "SELECT count(DISTINCT iter_us) FROM predictions")" = 2 ] || fail "iteration times"
  echo "ok [$CASE]"
  ;;
measured)
  # measured/resnet50-times.csv: 2 rows; they join predictions of resnet50 under the same plan
  # (canonical form) and 8 GPUs, one row per profile
  "$FUSIM" predict --db "$DB" --workload resnet50 --fusion cap:25MiB,first:1MiB >/dev/null || fail predict
  "$FUSIM" predict --db "$DB" --workload resnet50 --fusion single >/dev/null || fail predict
  "$FUSIM" predict --db "$DB" --workload resnet50 --fusion single --comm allreduce:4:nvlink >/dev/null || fail predict4
  "$FUSIM" import --db "$DB" "$D/measured/resnet50-times.csv" >"$T/out" 2>"$T/err" || fail "import: $(cat "$T/err")"
  grep -q "measured-times" "$T/out" || fail "summary table: $(cat "$T/out")"
  [ "$(q "SELECT count(*) FROM measurements")" = 2 ] || fail "measurements"
  [ "$(q "SELECT count(*) FROM v_prediction_error")" = 2 ] || fail "error rows: $(q "SELECT * FROM v_prediction_error")"
  # rel_err = (predicted - measured) / measured, from the stored prediction
  for plan_meas in "cap:25MiB,first:1MiB overlap=on pack=copy streams=1|11400" "single overlap=on pack=copy streams=1|11700"; do
    plan=${plan_meas%|*} meas=${plan_meas#*|}
    pred=$(q "SELECT p.iter_us FROM predictions p JOIN plans pl ON pl.id = p.plan_id WHERE pl.plan = '$plan' AND p.ranks = 8")
    got=$(q "SELECT rel_err FROM v_prediction_error WHERE plan = '$plan'")
    py "
p, m, g = $pred, $meas, $got
assert abs((p - m) / m - g) <= 1e-15, (p, m, g)
" || fail "$plan: rel_err $got, predicted $pred, measured $meas"
  done
  [ "$(q "SELECT source FROM v_prediction_error LIMIT 1")" = import ] || fail source
  # the same workload and plan by hash prefix; framework ddp matches no ideal prediction
  h=$(q "SELECT substr(hash, 1, 12) FROM workloads WHERE name = 'resnet50_b64'")
  printf 'workload,plan,measured_us,framework\n%s,single,11650,\n%s,single,11650,ddp\n' "$h" "$h" >"$T/m2.csv"
  "$FUSIM" import --db "$DB" "$T/m2.csv" >/dev/null 2>&1 || fail "import by hash"
  [ "$(q "SELECT count(*) FROM v_prediction_error WHERE measured_us = 11650")" = 2 ] ||
    fail "by hash: want 2 rows (8 and 4 GPUs, gpus not given), $(q "SELECT * FROM v_prediction_error WHERE measured_us = 11650")"
  # a bad row fails its file in one line, nothing of it stored
  printf 'workload,plan,measured_us\nresnet50,single,11000\nno_such_model,single,1\n' >"$T/bad.csv"
  "$FUSIM" import --db "$DB" "$T/bad.csv" >/dev/null 2>"$T/err"
  [ $? = 65 ] || fail "bad workload exit"
  grep -q "bad.csv:3: workload 'no_such_model'" "$T/err" || fail "message: $(cat "$T/err")"
  [ "$(grep -c . "$T/err")" = 1 ] || fail "lines: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM measurements")" = 4 ] || fail "bad file stored rows"
  printf 'workload,plan,measured_us\nresnet50,cap:25,11000\n' >"$T/bad2.csv"
  "$FUSIM" import --db "$DB" "$T/bad2.csv" >/dev/null 2>"$T/err"
  [ $? = 65 ] && grep -q "bad2.csv:2: plan" "$T/err" || fail "bad plan: $(cat "$T/err")"
  "$FUSIM" report --db "$DB" accuracy >/dev/null 2>&1 || fail "report accuracy"
  echo "ok [$CASE]"
  ;;
rerun)
  "$FUSIM" predict --db "$DB" --workload bert_large --fusion optimal >/dev/null || fail predict
  "$FUSIM" plan --db "$DB" --workload resnet50 >/dev/null || fail plan
  "$FUSIM" report --db "$DB" --format csv rerun >"$T/out" 2>"$T/err" || fail "rerun: $(cat "$T/err")"
  [ "$(grep -c ",same,reproduces$" "$T/out")" = 7 ] || fail "$(cat "$T/out")"
  # a stored time changed by 1%: that prediction no longer reproduces (exit 65)
  py "
import sqlite3; c = sqlite3.connect('$DB'); c.execute('UPDATE predictions SET iter_us = iter_us * 1.01 WHERE id = 3'); c.commit()"
  "$FUSIM" report --db "$DB" --format csv rerun 3 >"$T/out" 2>/dev/null
  [ $? = 65 ] || fail "tampered row reproduced"
  grep -q "^3,.*,differs$" "$T/out" || fail "$(cat "$T/out")"
  # a stored target that does not parse is named by its row, not as an option given (--comm)
  py "
import sqlite3; c = sqlite3.connect('$DB'); c.execute(\"UPDATE predictions SET comm = 'allreduce:8:wifi' WHERE id = 3\"); c.commit()"
  "$FUSIM" report --db "$DB" --format csv rerun 3 >"$T/out" 2>"$T/err"
  [ $? = 65 ] && grep -q "^3,.*,error$" "$T/out" || fail "bad stored comm: $(cat "$T/out")"
  grep -q "^fusim: prediction 3: comm 'allreduce:8:wifi': unknown link 'wifi'" "$T/err" || fail "$(cat "$T/err")"
  echo "ok [$CASE]"
  ;;
rerun-job)
  # a job across nodes priced at --nccl-version and --gpus-per-process of its own: report rerun
  # re-prices it at the same (the prediction's JSON names both), not at the profile's NCCL and one
  # process per GPU. h200-ndr prices 4x8 all-reduce by the cost model; NCCL 2.29.2 picks another
  # line than the profile's (unknown) NCCL, and a layout cost makes 8 GPUs a process dearer.
  cp "$D/../../data/profiles/h200-ndr.json" "$T/ndr.json" || fail "h200-ndr.json"
  py "
import json; p = json.load(open('$T/ndr.json')); p['cluster']['proc_pair_us'] = 3.0; json.dump(p, open('$T/ndr.json', 'w'))"
  for a in "" "--nccl-version 2.29.2" "--gpus-per-process 8"; do
    "$FUSIM" predict --db "$DB" --workload resnet50 --profile "$T/ndr.json" --comm allreduce:4x8 \
      --fusion none --overlap off $a >/dev/null 2>&1 || fail "predict $a"
  done
  [ "$(q "SELECT count(DISTINCT iter_us) FROM predictions")" = 3 ] || fail "the three jobs should price apart"
  "$FUSIM" report --db "$DB" --format csv rerun >"$T/out" 2>"$T/err" || fail "rerun: $(cat "$T/out" "$T/err")"
  [ "$(grep -c ",same,reproduces$" "$T/out")" = 3 ] || fail "$(cat "$T/out")"
  echo "ok [$CASE]"
  ;;
rerun-layout)
  # a job across nodes whose process layout picks a curve measured at that layout (the MIT B200
  # 2-node log: one process drove 8 GPUs, -g 8) keeps the layout in its row, so report rerun
  # takes the same curve; before, only a model-priced row kept it, and the rerun priced the
  # measured row at one process per GPU by the model (llama-sized gradients: 5-13% apart)
  M=$D/public-nccl-tests/multi-node
  "$FUSIM" import --db "$DB" "$M/mit-b200-8gpu-1node-allreduce.txt" "$M/mit-b200-16gpu-2node-allreduce.txt" \
    >/dev/null 2>&1 || fail "import"
  "$FUSIM" fit --db "$DB" --out "$T/b200.json" >/dev/null 2>&1 || fail "fit"
  for a in "" "--gpus-per-process 8"; do
    "$FUSIM" predict --db "$DB" --workload llama2_7b --profile "$T/b200.json" --comm allreduce:2x8 \
      --fusion ddp $a >/dev/null 2>&1 || fail "predict $a"
  done
  got=$(q "SELECT group_concat(b || ' ' || g, '; ') FROM (SELECT json_extract(json, '$.comm_basis') AS b,
           coalesce(json_extract(json, '$.gpus_per_process'), 'none') AS g FROM predictions ORDER BY id)")
  [ "$got" = "predicted 1; measured 8" ] || fail "basis and layout stored: $got"
  [ "$(q "SELECT count(DISTINCT iter_us) FROM predictions")" = 2 ] || fail "the two layouts should price apart"
  "$FUSIM" report --db "$DB" --format csv rerun >"$T/out" 2>"$T/err" || fail "rerun: $(cat "$T/out" "$T/err")"
  [ "$(grep -c ",same,reproduces$" "$T/out")" = 2 ] || fail "$(cat "$T/out")"
  echo "ok [$CASE]"
  ;;
dbname)
  # --db names a file, whatever its name: "file:x.db" is not an SQLite URI for x.db (the system's
  # SQLite may take URIs without SQLITE_OPEN_URI) and ":memory:" is not a database that vanishes
  FUSIM=$(cd "$(dirname "$FUSIM")" && pwd)/$(basename "$FUSIM")
  cd "$T" || fail "cd"
  for name in "file:u.db" "file:m.db?mode=memory" ":memory:"; do
    "$FUSIM" predict --db "$name" --workload resnet50 --fusion none >/dev/null 2>"$T/err" ||
      fail "predict --db $name: $(cat "$T/err")"
    [ -f "$T/$name" ] || fail "--db $name: no file of that name ($(ls "$T"))"
    [ "$("$FUSIM" report --db "$name" --format csv sql "SELECT count(*) FROM predictions" | tail -n +2)" = 1 ] ||
      fail "--db $name: the prediction is not in it"
    "$FUSIM" report --db "$name" check >/dev/null 2>&1 || fail "report check --db $name"
  done
  [ ! -e "$T/u.db" ] || fail "file:u.db wrote u.db"
  echo "ok [$CASE]"
  ;;
foreign)
  # another program's SQLite file (rollback journal, a table, user_version 0 or one a fusim schema
  # also has) is refused as not a fusim database (65) by a writing command and by report, and
  # left as it was: not switched to WAL, not migrated
  for uv in 0 1 3; do
    py "
import sqlite3; c = sqlite3.connect('$T/app$uv.db'); c.execute('CREATE TABLE t (x)'); c.execute('INSERT INTO t VALUES (1)')
c.execute('PRAGMA user_version = $uv'); c.commit()"
    S1=$(sha256sum "$T/app$uv.db")
    "$FUSIM" predict --db "$T/app$uv.db" --workload resnet50 --fusion none >/dev/null 2>"$T/err"
    [ $? = 65 ] && grep -q "not a fusim one" "$T/err" || fail "predict into app$uv.db: $(cat "$T/err")"
    "$FUSIM" report --db "$T/app$uv.db" runs >/dev/null 2>"$T/err"
    [ $? = 65 ] && grep -q "not a fusim one" "$T/err" || fail "report of app$uv.db: $(cat "$T/err")"
    [ "$(sha256sum "$T/app$uv.db")" = "$S1" ] || fail "app$uv.db changed"
    [ ! -e "$T/app$uv.db-wal" ] || fail "app$uv.db has a WAL file"
  done
  echo "ok [$CASE]"
  ;;
precision)
  # report prints the shortest decimal that reads back exactly: the same double as predict's JSON
  "$FUSIM" predict --db "$DB" --workload llama2_7b --fusion single --format json >"$T/j" || fail predict
  t=$(q "SELECT iter_us FROM predictions")
  "$FUSIM" report --db "$DB" predictions >"$T/table" 2>/dev/null
  tt=$(grep -o " $t " "$T/table" | tr -d ' ')
  py "
import json; j = json.load(open('$T/j'))
assert float('$t') == j['iter_us'] and float('$tt') == j['iter_us'], ('$t', '$tt', j['iter_us'])
assert float('%.6g' % j['iter_us']) != j['iter_us']  # what report printed before: not exact
" || fail "csv '$t' table '$tt'"
  echo "ok [$CASE]"
  ;;
migrate)
  # v1/v1.db, made by schema 1's fusim (v1/make_v1.sh): 56 + 45 samples, 9 predictions (1 +
  # 6 + 2), 2 workloads (tiny_llama's two contents under one name: schema 1 kept one row),
  # 1 measurement of prediction 1 (11362.4397258079 us predicted, 11500.25 measured)
  cp "$D/v1/v1.db" "$DB"
  [ "$("$FUSIM" report --db "$DB" --format csv sql "PRAGMA user_version" | tail -1)" -ge 2 ] || fail "not migrated"
  [ "$(q "SELECT count(*) FROM samples")" = 101 ] || fail samples
  [ "$(q "SELECT count(*) FROM predictions")" = 9 ] || fail predictions
  [ "$(q "SELECT count(*) FROM predictions WHERE run_id IS NULL OR buckets IS NULL OR ranks != 8")" = 0 ] || fail "predictions not filled"
  [ "$(q "SELECT count(DISTINCT run_id) FROM predictions")" = 4 ] || fail "one run per schema 1 command (predict, plan, 2 predicts)"
  [ "$(q "SELECT buckets FROM predictions WHERE id = 2")" = '"[[0,147],[148,160]]"' ] || fail "optimal's buckets"
  [ "$(q "SELECT count(*) FROM pragma_foreign_key_check")" = 0 ] || fail "foreign keys"
  [ "$(q "PRAGMA integrity_check")" = ok ] || fail integrity
  got=$(q "SELECT rel_err FROM v_prediction_error")
  py "assert abs((11362.4397258079 - 11500.25) / 11500.25 - $got) < 1e-12" || fail "rel_err $got"
  # the schema of a migrated database is the schema of a new one
  "$FUSIM" import --db "$T/new.db" "$D/v1/h200-pcie-copies.csv" >/dev/null 2>&1 || fail "new db"
  s1=$(q "SELECT type, name, sql FROM sqlite_schema ORDER BY name" | md5sum)
  s2=$("$FUSIM" report --db "$T/new.db" --format csv sql "SELECT type, name, sql FROM sqlite_schema ORDER BY name" | tail -n +2 | md5sum)
  [ "$s1" = "$s2" ] || fail "migrated schema differs from a new database's"
  # schema 5 on: its samples' NCCL unknown (NULL), and fit reads them (migrated, and a read-only
  # schema 1 file as it is): the profile names no NCCL
  [ "$(q "PRAGMA user_version")" = 8 ] || fail "not migrated to schema 8"
  [ "$(q "SELECT count(*) FROM samples WHERE nccl_version IS NULL")" = 101 ] || fail "old samples' NCCL not unknown"
  cp "$D/v1/v1.db" "$T/ro.db" && chmod 444 "$T/ro.db"
  for db in "$DB" "$T/ro.db"; do
    "$FUSIM" fit --db "$db" --no-store --base none --out "$T/p.json" >/dev/null 2>&1 || fail "fit of $db"
    py "import json; assert 'nccl_version' not in json.load(open('$T/p.json'))" || fail "$db: profile names an NCCL"
  done
  # a database of a newer schema (a newer fusim wrote it): bad data for this one, exit 65 and one
  # line, the file untouched (it was exit 70, "internal error")
  cp "$DB" "$T/new99.db" && py "import sqlite3; c = sqlite3.connect('$T/new99.db'); c.execute('PRAGMA user_version = 99'); c.commit()"
  h=$(sha256sum <"$T/new99.db")
  for cmd in "report runs" "fit --no-store" "import $D/v1/h200-pcie-copies.csv"; do
    "$FUSIM" $cmd --db "$T/new99.db" >/dev/null 2>"$T/err"
    rc=$?
    [ $rc = 65 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "schema version 99 is newer than this fusim" "$T/err" ||
      fail "$cmd on schema 99: exit $rc: $(cat "$T/err")"
  done
  [ "$(sha256sum <"$T/new99.db")" = "$h" ] || fail "schema 99 file changed"
  # old rows re-run? no content was recorded: said so, not counted as reproducing
  "$FUSIM" report --db "$DB" rerun >/dev/null 2>"$T/err"
  grep -q "9 predictions: 0 reproduce, 0 differ or fail, 9 without stored content" "$T/err" || fail "$(cat "$T/err")"
  echo "ok [$CASE]"
  ;;
migrate5)
  # v5/v5.db, made by schema 5's fusim (v5/make_v5.sh): 100 samples; fit 1 of 12 segments (ring
  # and tree at 8 ranks on 1 node and 16 on 2, profile "fitted", flags ci_spans_zero and
  # over_link_limit on the PCIe curve), fit 2 of 5 (bisquare). Migration 006 rebuilds
  # fit_segments: every row of every table is kept, column for column, the new columns NULL, and
  # the old fits' error by size is what schema 5's view gave (their node count and GPU unknown).
  cp "$D/v5/v5.db" "$DB"
  "$FUSIM" report --db "$DB" runs >/dev/null 2>"$T/err" || fail "report runs on schema 5: $(cat "$T/err")"
  python3 - "$D/v5/v5.db" "$DB" <<'PY' || fail "schema 5 rows not kept"
import sqlite3, sys
old, new = (sqlite3.connect(p) for p in sys.argv[1:])
assert old.execute("PRAGMA user_version").fetchone()[0] == 5
assert new.execute("PRAGMA user_version").fetchone()[0] == 8
tables = [t for t, in old.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
for t in tables:
    cols = [c[1] for c in old.execute("PRAGMA table_info(%s)" % t)]
    q = "SELECT %s FROM %s ORDER BY rowid" % (", ".join(cols), t)
    a, b = old.execute(q).fetchall(), new.execute(q).fetchall()
    assert a == b, (t, len(a), len(b))
assert new.execute("SELECT count(*) FROM fit_segments").fetchone()[0] == 17
assert new.execute("SELECT count(*) FROM fit_segments WHERE nodes IS NULL AND gpus_per_proc IS NULL "
                   "AND gpu IS NULL").fetchone()[0] == 17
assert new.execute("SELECT count(*) FROM fit_segments WHERE flags LIKE '%over_link_limit%'").fetchone()[0] == 2
q = ("SELECT fit_id, op, link, ranks, algo, segment, bytes, n_samples, measured_us, fitted_us, rel_err "
     "FROM v_fit_error_by_size ORDER BY fit_id, op, link, ranks, algo, segment, bytes")
a, b = old.execute(q).fetchall(), new.execute(q).fetchall()
assert len(a) == 28 + 44 + 28 and a == b, (len(a), len(b))  # the log's 28 sizes in each fit, the CSV's 11 x 4 curves
assert new.execute("SELECT count(*) FROM pragma_foreign_key_check").fetchone()[0] == 0
assert new.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
PY
  # a fit on the migrated file keeps each curve's node count, and its error by size compares it
  # with the samples of that node count: the CSV's exact lines, 11 sizes x 4 curves, error 0
  "$FUSIM" fit --db "$DB" --run 2 >/dev/null 2>&1 || fail "fit on the migrated file"
  [ "$(q "SELECT group_concat(c, ' ') FROM (SELECT DISTINCT ranks || '/' || nodes AS c FROM v_fit_quality WHERE fit_id = 3 ORDER BY ranks)")" = "8/1 16/2" ] ||
    fail "fit 3's nodes: $(q "SELECT group_concat(ranks || '/' || nodes, ' ') FROM v_fit_quality WHERE fit_id = 3")"
  [ "$(q "SELECT count(*) || ' ' || (max(abs(rel_err)) < 1e-9) FROM v_fit_error_by_size WHERE fit_id = 3")" = "44 1" ] ||
    fail "fit 3's error by size: $(q "SELECT count(*), max(abs(rel_err)) FROM v_fit_error_by_size WHERE fit_id = 3")"
  echo "ok [$CASE]"
  ;;
fitcurves)
  # v_fit_error_by_size names the curve a row is of (schema 8): two curves of one fit at the same
  # op, link and ranks (16 ranks over 2 nodes and over 4: exact lines t = 20 or 40 us + n / 10
  # GB/s) gave rows at a size that nothing told apart; each row now carries its segment's id and
  # node count, and compares the curve with its own samples (error 0)
  { echo 'op,ranks,bytes,time_us,link,nodes'
    for n in 1024 4096 16384 65536 262144; do
      py "n = $n; print(f'allreduce,16,{n},{20 + n / 1e4:.6f},net,2'); print(f'allreduce,16,{n},{40 + n / 1e4:.6f},net,4')"
    done; } >"$T/c.csv"
  "$FUSIM" import --db "$DB" "$T/c.csv" >/dev/null 2>&1 || fail import
  "$FUSIM" fit --db "$DB" --base none --out "$T/p.json" >/dev/null 2>&1 || fail fit
  [ "$(q "SELECT group_concat(nodes || ':' || round(fitted_us, 4), ' ') FROM (SELECT nodes, fitted_us FROM v_fit_error_by_size WHERE bytes = 1024 ORDER BY nodes)")" = "2:20.1024 4:40.1024" ] ||
    fail "$(q "SELECT * FROM v_fit_error_by_size WHERE bytes = 1024")"
  [ "$(q "SELECT count(DISTINCT segment_id) || ' ' || (max(abs(rel_err)) < 1e-9) FROM v_fit_error_by_size")" = "2 1" ] ||
    fail "$(q "SELECT segment_id, nodes, bytes, rel_err FROM v_fit_error_by_size")"
  # report fit-error lists each curve's rows together, by size (they interleaved 2, 4, 2, 4, ...
  # when ordered by fit, op, link, ranks, algo and bytes)
  "$FUSIM" report --db "$DB" fit-error --format csv >"$T/fe.csv" 2>"$T/err" || fail "report fit-error: $(cat "$T/err")"
  got=$(py "import csv; r = list(csv.DictReader(open('$T/fe.csv'))); print(' '.join(x['nodes'] + ':' + x['bytes'] for x in r))")
  [ "$got" = "2:1024 2:4096 2:16384 2:65536 2:262144 4:1024 4:4096 4:16384 4:65536 4:262144" ] ||
    fail "report fit-error's order: $got"
  echo "ok [$CASE]"
  ;;
fitsamples)
  # A curve is fitted on one placement, data type and graph mode; v_fit_error_by_size compares it
  # with those samples only (schema 7; before, with every sample under its key). For each data
  # type, spelled every way model/fu_dtype.c reads it: out-of-place plain samples on an exact
  # line t = 20 us + n / 300 GB/s, two sizes a spelling; beside them at the same sizes, in-place
  # samples at twice the time, CUDA-graph ones at three times and another type's at four times,
  # none of which the fit takes. The view: 2 sizes a spelling, one sample each, error 0.
  for spec in float:float,fp32,float32,FP32 bf16:bf16,bfloat16 half:half,fp16,float16 \
              double:double,fp64,float64 int8:int8,char,i8 uint8:uint8,u8 int32:int32,int,i32 int64:int64,i64; do
    canon=${spec%%:*}
    python3 - "${spec#*:}" "$canon" >"$T/$canon.csv" <<'PY'
import sys
names, canon = sys.argv[1].split(","), sys.argv[2]
other = "float" if canon != "float" else "bf16"
print("op,ranks,link,bytes,time_us,dtype,in_place,graph")
for k, name in enumerate(names):
    for n in (2 ** (20 + 2 * k), 2 ** (21 + 2 * k)):
        t = 20 + n / 300e3
        print("allreduce,8,nvlink,%d,%r,%s,0,0" % (n, t, name))
        print("allreduce,8,nvlink,%d,%r,%s,1,0" % (n, 2 * t, name))
        print("allreduce,8,nvlink,%d,%r,%s,0,1" % (n, 3 * t, name))
        print("allreduce,8,nvlink,%d,%r,%s,0,0" % (n, 4 * t, other))
PY
    n=$(( $(echo "${spec#*:}" | tr ',' '\n' | wc -l) * 2 ))
    rm -f "$DB"
    "$FUSIM" import --db "$DB" "$T/$canon.csv" >/dev/null 2>"$T/err" || fail "import $canon: $(cat "$T/err")"
    "$FUSIM" fit --db "$DB" --dtype "$canon" >/dev/null 2>"$T/err" || fail "fit $canon: $(cat "$T/err")"
    [ "$(q "SELECT in_place || ' ' || dtype || ' ' || graph FROM v_fit_quality GROUP BY 1")" = "0 $canon 0" ] ||
      fail "$canon: fit recorded $(q "SELECT group_concat(DISTINCT in_place || ' ' || dtype || ' ' || graph) FROM v_fit_quality")"
    got=$(q "SELECT count(*) || ' ' || sum(n_samples) || ' ' || (max(abs(rel_err)) < 1e-9) FROM v_fit_error_by_size")
    [ "$got" = "$n $n 1" ] || fail "$canon: error by size: $got, want $n $n 1"
  done
  # the fit's command line as its run row has it ("fusim fit ..."; it lacked "fusim ")
  [ "$(q "SELECT count(*) FROM fits f JOIN runs r ON r.id = f.run_id WHERE f.cmdline = r.cmdline AND f.cmdline LIKE 'fusim fit %'")" = 1 ] ||
    fail "fit's cmdline: $(q "SELECT f.cmdline || ' / ' || r.cmdline FROM fits f JOIN runs r ON r.id = f.run_id")"
  echo "ok [$CASE]"
  ;;
*) fail "unknown case" ;;
esac
