#!/bin/sh
# cli_import.sh FUSIM CASE: one command-line case of fusim import / report.
# Every failure case checks: the exit status, ONE line on stderr naming the problem, and that
# the database is as it was (sha256 of the file and the row counts). Exit 0 pass, 1 fail, 77 skip.
set -u
FUSIM=$1
CASE=$2
SH=${FUSIM_SHARED:-/work/shared}
PUB=$SH/data/public-nccl-tests
REF=$SH/data/reference
T=$(mktemp -d /tmp/fusim-cli-XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
chmod 755 "$T"
DB=$T/r.db
A100=$PUB/a100x8-nvlink-allreduce.txt

fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
# q SQL: the value(s) of a query, one per line, no header
q() { "$FUSIM" report --db "$DB" --format csv sql "$1" | tail -n +2; }
snapshot() { sha256sum "$DB" | cut -d' ' -f1; q "SELECT count(*) FROM samples"; q "SELECT count(*) FROM runs"; }
base() {
  "$FUSIM" import --db "$DB" "$A100" >/dev/null || fail "base import failed"
  BEFORE=$(snapshot)
}
unchanged() { [ "$(snapshot)" = "$BEFORE" ] || fail "database changed"; }
# expect_fail CODE PATTERN CMD...: exit CODE, exactly one stderr line, containing PATTERN, and
# nothing on stdout (no table header for a file that failed)
expect_fail() {
  code=$1 pat=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = "$code" ] || fail "exit $rc, want $code; stderr: $(cat "$T/err")"
  grep -q -- "$pat" "$T/err" || fail "stderr lacks '$pat': $(cat "$T/err")"
  n=$(grep -c . "$T/err")
  [ "$n" = 1 ] || fail "$n lines on stderr, want one: $(cat "$T/err")"
  [ ! -s "$T/out" ] || fail "stdout not empty on a refusal: $(head -c 300 "$T/out")"
  echo "ok [$CASE]: $(cat "$T/err")"
}
# hold_lock SECONDS: another process holds $DB's write lock for SECONDS, its pid in HOLDER;
# returns once the lock is held
hold_lock() {
  rm -f "$T/held"
  python3 - "$DB" "$T/held" "$1" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
c.execute("ROLLBACK")
PY
  HOLDER=$!
  i=0
  while [ ! -e "$T/held" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -e "$T/held" ] || fail "lock holder did not start"
}
# as_user CMD...: run as an unprivileged user when we are root (root ignores permissions)
as_user() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

case $CASE in
nvlink-comment)
  # the link of a one-host log whose file name names none comes from a comment naming NVLink or
  # NVSwitch; one that denies it ("PCIe only (no NVLink)", "no NVLink") does not count: the
  # public PCIe logs renamed were stored as nvlink
  cp "$PUB/rtx5090x8-pcie-allreduce.txt" "$T/rtx5090-allreduce.txt"
  cp "$PUB/rtx2080tix2-pcie-allreduce.txt" "$T/rtx2080-allreduce.txt"
  cp "$A100" "$T/a100-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/a100-allreduce.txt" >/dev/null 2>"$T/err" || fail "a100: $(cat "$T/err")"
  [ "$(q "SELECT DISTINCT link FROM samples")" = nvlink ] || fail "a100 (NVSwitch board): $(q "SELECT DISTINCT link FROM samples")"
  BEFORE=$(snapshot)
  expect_fail 64 "does not say which link the 8 ranks use" "$FUSIM" import --db "$DB" "$T/rtx5090-allreduce.txt"
  unchanged
  expect_fail 64 "does not say which link the 2 ranks use" "$FUSIM" import --db "$DB" "$T/rtx2080-allreduce.txt"
  unchanged
  "$FUSIM" import --db "$DB" --link pcie "$T/rtx2080-allreduce.txt" >/dev/null 2>"$T/err" || fail "--link pcie: $(cat "$T/err")"
  # other ways of saying there is none (each was stored as nvlink): the comment denies it anywhere
  for says in "no NVLink or NVSwitch" "no NVLink/NVSwitch" "NVLink: none" "NVLink: no" "NVLink not present" "not using NVLink"; do
    sed "s|^## .*[Nn][Vv][Ll][Ii][Nn][Kk].*|## hardware: 2 x RTX 2080 Ti, $says|" "$PUB/rtx2080tix2-pcie-allreduce.txt" >"$T/says-allreduce.txt"
    grep -q "$says" "$T/says-allreduce.txt" || fail "fixture: no comment to rewrite"
    expect_fail 64 "does not say which link the 2 ranks use" "$FUSIM" import --db "$DB" --dry-run "$T/says-allreduce.txt"
  done
  echo "ok [$CASE]"
  ;;
public)
  # every public log and reference file, one command, counts by hand from the files
  "$FUSIM" import --db "$DB" "$PUB"/*.txt "$REF"/*.csv "$REF/h200-1gpu-allreduce-nccl-tests.txt" >/dev/null ||
    fail "import of the public logs failed"
  check() { # file-suffix samples ranks link op
    got=$(q "SELECT count(*), min(s.ranks), max(s.ranks), min(s.link), max(s.op) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%$1'")
    [ "$got" = "$2,$3,$3,$4,$5" ] || fail "$1: got $got, want $2,$3,$3,$4,$5"
  }
  check a100x8-nvlink-allreduce.txt 22 8 nvlink allreduce
  check a100x8-nvlink-sendrecv.txt 8 8 nvlink sendrecv
  check h100x16-2node-a3mega-allreduce.txt 62 16 net allreduce
  check rtx2080tix2-pcie-allgather.txt 56 2 pcie allgather
  check rtx2080tix2-pcie-allreduce.txt 56 2 pcie allreduce
  check rtx5090x8-pcie-allreduce.txt 50 8 pcie allreduce
  check azure-nd-h200-v5-allreduce-nvls-8gpu.csv 24 8 nvlink allreduce
  check h200-1gpu-allreduce-nccl-tests.txt 28 1 hbm allreduce
  [ "$(q "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%h200-pcie-copies.csv'")" = 45 ] || fail "copies"
  [ "$(q "SELECT count(*) FROM runs WHERE kind = 'import'")" = 9 ] || fail "9 runs"
  # values as printed in the logs
  [ "$(q "SELECT t_median_us FROM samples WHERE op='allreduce' AND ranks=8 AND link='nvlink' AND bytes=1073741824 AND in_place=0 AND dtype='float'")" = 8139.9 ] || fail "a100 1 GiB"
  [ "$(q "SELECT t_median_us FROM samples WHERE ranks=16 AND bytes=8589934592 AND in_place=1")" = 47743 ] || fail "h100 8 GiB in-place"
  [ "$(q "SELECT t_median_us FROM samples WHERE ranks=1 AND bytes=8 AND in_place=1")" = 0.31 ] || fail "h200 in-place 0.31 us"
  [ "$(q "SELECT sum(in_place) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%azure%'")" = 24 ] || fail "azure in-place"
  [ "$(q "SELECT count(*) FROM samples WHERE n_wrong IS NULL AND op='sendrecv'")" = 4 ] || fail "N/A"
  [ "$(q "SELECT count(DISTINCT host_id) FROM runs WHERE source_file LIKE '%rtx2080%'")" = 1 ] || fail "host dedup"
  q "SELECT notes FROM runs WHERE id = 1" | grep -q "mean" || fail "provenance: time column is a mean"
  [ "$(q "SELECT host_name FROM hosts h JOIN runs r ON r.host_id = h.id WHERE r.source_file LIKE '%h100%'")" = "ztan-mig-235z; ztan-mig-gq73" ] || fail "h100 hosts"
  # nccl-tests -J JSON (tests/fuzz/seeds holds one in the layout of nccl-tests' src/util.cu)
  SEEDS=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/fuzz/seeds
  "$FUSIM" import --db "$DB" --link nvlink "$SEEDS/nccl-tests-J.json" >/dev/null || fail "JSON import"
  [ "$(q "SELECT count(*) || '/' || min(ranks) || '/' || min(t_median_us) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%.json'")" = "4/2/10.25" ] || fail "JSON samples"
  # report formats
  "$FUSIM" report --db "$DB" samples --ranks 16 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d)==62, len(d)' || fail "report json"
  [ "$("$FUSIM" report --db "$DB" runs --format csv | wc -l)" = 11 ] || fail "report runs csv"
  "$FUSIM" report --db "$DB" samples --op sendrecv >/dev/null 2>&1 || fail "report table"
  echo "ok [$CASE]"
  ;;
garbage)
  base
  printf 'Lorem ipsum dolor sit amet\n42 is the answer\nfoo,bar\n' >"$T/g.txt"
  expect_fail 65 "g.txt: no nccl-tests results table" "$FUSIM" import --db "$DB" --link nvlink --op allreduce "$T/g.txt"
  unchanged
  ;;
binary)
  base
  head -c 3000 /dev/urandom >"$T/b.bin"
  printf '\000' >>"$T/b.bin"
  expect_fail 65 "b.bin: binary data" "$FUSIM" import --db "$DB" "$T/b.bin"
  unchanged
  # binary without NUL bytes: still no table
  head -c 3000 /dev/urandom | tr -d '\000\n' >"$T/c.bin"
  expect_fail 65 "c.bin" "$FUSIM" import --db "$DB" --link nvlink --op allreduce "$T/c.bin"
  unchanged
  ;;
truncated-log)
  base
  head -n 45 "$PUB/h100x16-2node-a3mega-allreduce.txt" >"$T/h100-allreduce.txt"
  expect_fail 65 "h100-allreduce.txt:45: table ends after 18 of the 31 sizes" "$FUSIM" import --db "$DB" "$T/h100-allreduce.txt"
  unchanged
  ;;
truncated-row)
  base
  head -c 3000 "$A100" >"$T/a100-nvlink-allreduce.txt"
  expect_fail 65 "a100-nvlink-allreduce.txt:2[0-9]: row has" "$FUSIM" import --db "$DB" "$T/a100-nvlink-allreduce.txt"
  unchanged
  ;;
nan)
  base
  sed 's/ 78.77 / nan   /' "$A100" >"$T/a-nvlink-allreduce.txt"
  expect_fail 65 "a-nvlink-allreduce.txt:20: out-of-place time 'nan'" "$FUSIM" import --db "$DB" "$T/a-nvlink-allreduce.txt"
  unchanged
  sed 's/ 81.31 / NaN   /' "$A100" >"$T/a-nvlink-allreduce.txt"
  expect_fail 65 ":20: in-place time 'NaN'" "$FUSIM" import --db "$DB" "$T/a-nvlink-allreduce.txt"
  unchanged
  ;;
negative)
  base
  sed 's/ 108.8 /-108.8 /' "$A100" >"$T/a-nvlink-allreduce.txt"
  expect_fail 65 ":21: out-of-place time '-108.8'" "$FUSIM" import --db "$DB" "$T/a-nvlink-allreduce.txt"
  unchanged
  sed 's/^     2097152 /    -2097152 /' "$A100" >"$T/a-nvlink-allreduce.txt"
  expect_fail 65 ":21: row does not start with a size" "$FUSIM" import --db "$DB" "$T/a-nvlink-allreduce.txt"
  unchanged
  printf 'op,ranks,bytes,time_us,link\nallreduce,8,-1024,5.0,nvlink\n' >"$T/n.csv"
  expect_fail 65 "n.csv:2: bytes '-1024'" "$FUSIM" import --db "$DB" "$T/n.csv"
  unchanged
  printf 'op,ranks,bytes,time_us,link\nallreduce,8,1024,-5.0,nvlink\n' >"$T/n.csv"
  expect_fail 65 "n.csv:2: time '-5.0'" "$FUSIM" import --db "$DB" "$T/n.csv"
  unchanged
  ;;
empty)
  base
  : >"$T/e.txt"
  expect_fail 65 "e.txt: file is empty" "$FUSIM" import --db "$DB" "$T/e.txt"
  unchanged
  ;;
full-disk)
  # A first command that fails after it opened (created) the database, here on a full disk (a
  # file size limit; SIGXFSZ ignored, so the write fails with EFBIG), leaves no file behind; a
  # file that was there before the command is kept.
  for f in new.db old.db; do
    [ $f = old.db ] && : >"$T/$f"
    expect_fail 74 "$f" sh -c 'trap "" XFSZ; ulimit -f 100; exec "$@"' sh "$FUSIM" import --db "$T/$f" "$A100"
  done
  left=$(ls "$T" | grep 'new\.db' || true)
  [ -z "$left" ] || fail "the failed first command left: $left"
  [ -f "$T/old.db" ] || fail "a file that was there before was removed"
  ;;
mpi-tag)
  # mpirun --tag-output puts "[1,0]<stdout>:" before every line (srun --label "0: "); the log still imports, with
  # the same samples as untagged (it was taken for JSON: "invalid JSON ... near '<'").
  sed 's/^/[1,0]<stdout>:/' "$A100" >"$T/tag-nvlink-allreduce.txt"
  "$FUSIM" import --db "$DB" "$A100" "$T/tag-nvlink-allreduce.txt" >"$T/out" 2>"$T/err" || fail "tagged log: $(cat "$T/err")"
  [ "$(q "SELECT count(DISTINCT run_id) FROM samples")" = 2 ] || fail "two runs"
  a=$(q "SELECT group_concat(bytes || ':' || in_place || ':' || t_median_us) FROM (SELECT * FROM samples WHERE run_id = 1 ORDER BY bytes, in_place)")
  b=$(q "SELECT group_concat(bytes || ':' || in_place || ':' || t_median_us) FROM (SELECT * FROM samples WHERE run_id = 2 ORDER BY bytes, in_place)")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "tagged samples differ: $a vs $b"
  [ "$(q "SELECT ranks || ' ' || link FROM samples WHERE run_id = 2 LIMIT 1")" = "8 nvlink" ] || fail "tagged ranks/link"
  # srun --label: "0: " before every line
  sed 's/^/0: /' "$A100" >"$T/label-nvlink-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/label-nvlink-allreduce.txt" >"$T/out" 2>"$T/err" || fail "labelled log: $(cat "$T/err")"
  c=$(q "SELECT group_concat(bytes || ':' || in_place || ':' || t_median_us) FROM (SELECT * FROM samples WHERE run_id = 3 ORDER BY bytes, in_place)")
  [ "$a" = "$c" ] || fail "labelled samples differ: $a vs $c"
  # MPICH / Intel MPI "mpiexec -prepend-rank" (-l): "[0] " before every line, as NVIDIA/nccl#1453's
  # log has it (read as JSON: "invalid JSON ... near '#'")
  sed 's/^/[0] /' "$A100" >"$T/rank-nvlink-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/rank-nvlink-allreduce.txt" >"$T/out" 2>"$T/err" || fail "rank-prefixed log: $(cat "$T/err")"
  d=$(q "SELECT group_concat(bytes || ':' || in_place || ':' || t_median_us) FROM (SELECT * FROM samples WHERE run_id = 4 ORDER BY bytes, in_place)")
  [ "$a" = "$d" ] || fail "rank-prefixed samples differ: $a vs $d"
  [ "$(q "SELECT ranks || ' ' || link || ' ' || nodes FROM samples WHERE run_id = 4 LIMIT 1")" = "8 nvlink 1" ] || fail "rank-prefixed ranks/link"
  echo "ok [$CASE]"
  ;;
separate-jobs)
  # nccl-tests built without MPI=1 and started by mpirun: each process ran alone and printed its own
  # "Rank 0" line (nccl-tests#107); refused in one line naming the cause (the two were stored as one
  # 2-rank job over the network where rows followed; this quote ends before its rows: "no samples")
  base
  expect_fail 65 "issue107-two-jobs-allreduce.txt:10: a second 'Rank 0' line (the first is line 9): each process ran as a job of its own" \
    "$FUSIM" import --db "$DB" "$PUB/variants/issue107-two-jobs-allreduce.txt"
  unchanged
  ;;
ms-header)
  # NCCL 1's tests and early nccl-tests print "bytes N type op ... res" and times in milliseconds with
  # no units line: refused naming the unit, not "result row outside any table ... keep the header
  # lines" (the header is there), even where --op, --link and --ranks say the rest
  base
  expect_fail 65 "nccl1-readme-ms-allreduce.txt:10: a column header of NCCL 1's tests or early nccl-tests ('bytes N type op ... res'), whose times are milliseconds" \
    "$FUSIM" import --db "$DB" --op allreduce --link pcie --ranks 4 "$PUB/variants/nccl1-readme-ms-allreduce.txt"
  unchanged
  ;;
bom)
  # A CSV saved by a spreadsheet starts with a UTF-8 byte order mark: its header still names
  # the op column (it was read as "\357\273\277op": "CSV has no op column"); a file of only
  # the mark is empty.
  base
  printf '\357\273\277op,ranks,bytes,time_us,link\r\nallreduce,8,1024,5.5,nvlink\r\n' >"$T/bom.csv"
  "$FUSIM" import --db "$DB" "$T/bom.csv" >"$T/out" 2>"$T/err" || fail "BOM CSV: $(cat "$T/err")"
  [ "$(q "SELECT op || ' ' || ranks || ' ' || bytes || ' ' || t_median_us FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%bom.csv'")" = "allreduce 8 1024 5.5" ] ||
    fail "BOM CSV row: $(q "SELECT * FROM samples ORDER BY id DESC LIMIT 1")"
  BEFORE=$(snapshot)
  printf '\357\273\277' >"$T/bomonly.csv"
  expect_fail 65 "bomonly.csv: file is empty" "$FUSIM" import --db "$DB" "$T/bomonly.csv"
  unchanged
  ;;
directory)
  base
  mkdir "$T/d"
  expect_fail 66 "is a directory" "$FUSIM" import --db "$DB" "$T/d"
  unchanged
  ;;
missing)
  base
  expect_fail 66 "nope.txt: cannot open" "$FUSIM" import --db "$DB" "$T/nope.txt"
  unchanged
  # one good file and one missing: the good one is stored (a transaction per file), the missing
  # one named in one line, a closing count, exit 65
  "$FUSIM" import --db "$DB" "$REF/h200-pcie-copies.csv" "$T/nope.txt" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 65 ] || fail "good + missing: exit $rc, want 65"
  [ "$(grep -c "nope.txt" "$T/err")" = 1 ] || fail "good + missing: $(cat "$T/err")"
  grep -q "2 files: 1 imported (45 samples.*1 failed" "$T/err" || fail "no summary: $(cat "$T/err")"
  [ "$(grep -c . "$T/err")" = 2 ] || fail "good + missing: want 2 stderr lines: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = $((22 + 45)) ] || fail "good file not stored"
  echo "ok [$CASE]: good + missing"
  ;;
readonly)
  if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null; then
    echo "skip: running as root without setpriv, so permissions cannot be tested"
    exit 77
  fi
  base
  # the input from the world-readable temporary folder: the other user may not be able to reach
  # the source tree (a clone under /root, mode 700)
  in=$T/copies.csv
  cp "$REF/h200-pcie-copies.csv" "$in"
  chmod 644 "$in"
  chmod 444 "$DB"
  # sysexits' EX_CANTCREAT (73): the user's output cannot be written, not an internal error (70)
  expect_fail 73 "r.db: database is read-only" as_user "$FUSIM" import --db "$DB" "$in"
  expect_fail 73 "r.db: database is read-only" as_user "$FUSIM" fit --db "$DB"
  # calib checks the database before any GPU work: the same status (it exited 70)
  expect_fail 73 "r.db: database is not writable" as_user "$FUSIM" calib --db "$DB"
  chmod 644 "$DB"
  unchanged
  # writable file in a folder we may not write (no room for the WAL files)
  mkdir "$T/ro"
  cp "$DB" "$T/ro/r.db"
  chmod 666 "$T/ro/r.db"
  chmod 555 "$T/ro"
  S1=$(sha256sum "$T/ro/r.db")
  expect_fail 73 "r.db: database is read-only" as_user "$FUSIM" import --db "$T/ro/r.db" "$in"
  expect_fail 73 "is not writable" as_user "$FUSIM" calib --db "$T/ro/r.db"
  [ "$(sha256sum "$T/ro/r.db")" = "$S1" ] || fail "database in the read-only folder changed"
  # ... but it can be read (report opens it as immutable there)
  [ "$(as_user "$FUSIM" report --db "$T/ro/r.db" --format csv sql "SELECT count(*) FROM samples" | tail -n +2)" = 22 ] ||
    fail "cannot report from a database in a read-only folder"
  # ... and checked whole, not called broken for want of its -shm file
  as_user "$FUSIM" report --db "$T/ro/r.db" check >"$T/out" 2>&1 || fail "report check in a read-only folder: $(cat "$T/out")"
  [ "$(sha256sum "$T/ro/r.db")" = "$S1" ] || fail "report changed the database"
  # a database file named ':memory:' there: read as that file, not as SQLite's in-memory database
  # (the immutable reopen built "file::memory:?immutable=1" from the name as given)
  chmod 755 "$T/ro" && cp "$DB" "$T/ro/:memory:" && chmod 644 "$T/ro/:memory:" && chmod 555 "$T/ro"
  abs=$(cd "$(dirname "$FUSIM")" && pwd)/$(basename "$FUSIM")
  [ "$(cd "$T/ro" && as_user "$abs" report --db :memory: --format csv sql "SELECT count(*) FROM samples" | tail -n +2)" = 22 ] ||
    fail "a database named ':memory:' in a read-only folder not read as that file"
  echo "ok [$CASE]"
  ;;
locked)
  base
  # another process holds the write lock for 4 s; fusim gives up after 300 ms
  hold_lock 4
  FUSIM_DB_BUSY_MS=300 expect_fail 75 "r.db: database is locked by another process; gave up after 300 ms" \
    env FUSIM_DB_BUSY_MS=300 "$FUSIM" import --db "$DB" "$REF/h200-pcie-copies.csv"
  wait $HOLDER
  unchanged
  # with the default timeout a writer waits for the lock and succeeds
  hold_lock 1
  "$FUSIM" import --db "$DB" "$REF/h200-pcie-copies.csv" >/dev/null || fail "waiting writer failed"
  wait $HOLDER
  [ "$(q "SELECT count(*) FROM samples")" = 67 ] || fail "waiting writer stored $(q "SELECT count(*) FROM samples")"
  # several files: a database busy past the timeout stops the import at once (exit 75, not 65
  # with every file waiting and counted failed); run again, it stores the rest (the Azure CSV's
  # 24 rows: 67 + 24 = 91) and skips the file already stored
  BEFORE=$(snapshot)
  AZ=$REF/azure-nd-h200-v5-allreduce-nvls-8gpu.csv
  hold_lock 3
  env FUSIM_DB_BUSY_MS=300 "$FUSIM" import --db "$DB" "$REF/h200-pcie-copies.csv" "$AZ" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 75 ] || fail "busy import of two files: exit $rc, want 75: $(cat "$T/err")"
  [ "$(grep -c . "$T/err")" = 2 ] && grep -q "r.db: database is locked by another process" "$T/err" &&
    grep -q "^fusim: import: 2 files: 0 imported .*, 0 failed; stopped: database busy (run again to import the rest)$" "$T/err" ||
    fail "busy import of two files: stderr $(cat "$T/err")"
  wait $HOLDER
  unchanged
  "$FUSIM" import --db "$DB" "$REF/h200-pcie-copies.csv" "$AZ" >/dev/null 2>"$T/err" || fail "the retry failed: $(cat "$T/err")"
  grep -q "2 files: 1 imported (24 samples, 0 measured times, 0 bad rows skipped), 1 already imported, 0 failed$" "$T/err" ||
    fail "the retry: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = 91 ] || fail "the retry stored $(q "SELECT count(*) FROM samples")"
  echo "ok [$CASE]"
  ;;
concurrent)
  # eight processes import into one fresh database at once (they also race to create it and
  # to switch it to WAL); every one must succeed and every sample must be there
  for round in 1 2 3 4 5; do
    rm -f "$DB" "$DB-wal" "$DB-shm"
    pids=""
    for k in 1 2; do
      for f in "$A100" "$PUB/h100x16-2node-a3mega-allreduce.txt" "$PUB/rtx5090x8-pcie-allreduce.txt" "$REF/h200-pcie-copies.csv"; do
        "$FUSIM" import --db "$DB" "$f" >/dev/null 2>"$T/err.$round.$k.$(basename "$f")" &
        pids="$pids $!"
      done
    done
    for p in $pids; do wait "$p" || fail "round $round: a concurrent import failed: $(cat "$T"/err.$round.*)"; done
    # each file's content once: the second process to import it finds it (inside its write
    # transaction) and skips it
    [ "$(q "SELECT count(*) FROM samples")" = $((22 + 62 + 50 + 45)) ] || fail "round $round: $(q "SELECT count(*) FROM samples") samples"
    [ "$(q "SELECT count(*) FROM runs")" = 4 ] || fail "round $round: runs"
    [ "$(cat "$T"/err.$round.* | grep -c "already imported (run")" = 4 ] || fail "round $round: skip notes"
  done
  echo "ok [$CASE]"
  ;;
lenient)
  base
  sed 's/ 108.8 / nan   /' "$A100" >"$T/a-nvlink-allreduce.txt"
  expect_fail 65 ":21: out-of-place time 'nan'" "$FUSIM" import --db "$DB" "$T/a-nvlink-allreduce.txt"
  unchanged
  "$FUSIM" import --db "$DB" --lenient "$T/a-nvlink-allreduce.txt" >"$T/out" 2>"$T/err" || fail "lenient import failed"
  grep -q "skipped 1 row" "$T/err" || fail "no skip count: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = $((22 + 20)) ] || fail "lenient stored $(q "SELECT count(*) FROM samples")"
  echo "ok [$CASE]"
  ;;
corrupt)
  base
  for i in 1 2 3 4 5 6 7 8; do echo "this is not a database file at all, just text" ; done >"$T/bad.db"
  S1=$(sha256sum "$T/bad.db")
  expect_fail 65 "bad.db: not a fusim database" "$FUSIM" import --db "$T/bad.db" "$REF/h200-pcie-copies.csv"
  [ "$(sha256sum "$T/bad.db")" = "$S1" ] || fail "corrupt file changed"
  # an SQLite database of someone else
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.commit()" "$T/other.db"
  expect_fail 65 "other.db: an SQLite database, but not a fusim one" "$FUSIM" import --db "$T/other.db" "$REF/h200-pcie-copies.csv"
  ;;
report)
  base
  expect_fail 64 "only read-only queries" "$FUSIM" report --db "$DB" sql "DELETE FROM samples"
  expect_fail 64 "only read-only queries" "$FUSIM" report --db "$DB" sql "PRAGMA user_version = 7"
  expect_fail 64 "one statement only" "$FUSIM" report --db "$DB" sql "SELECT 1; DROP TABLE samples"
  expect_fail 64 "no such table" "$FUSIM" report --db "$DB" sql "SELECT * FROM nosuchtable"
  expect_fail 66 "no such database" "$FUSIM" report --db "$T/none.db" runs
  expect_fail 64 "not a report" "$FUSIM" report --db "$DB" everything
  unchanged
  [ ! -e "$T/none.db" ] || fail "report created a database"
  "$FUSIM" report --help | grep -q "v_fit_quality" || fail "report --help"
  "$FUSIM" import --help | grep -q "lenient" || fail "import --help"
  ;;
usage)
  base
  printf '# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n           8             2     float     sum      -1    12.25    0.00    0.00      0    12.00    0.00    0.00      0\n' >"$T/run.log"
  expect_fail 64 "run.log:4: cannot tell which collective" "$FUSIM" import --db "$DB" "$T/run.log"
  expect_fail 64 "run.log:4: the log does not say which link" "$FUSIM" import --db "$DB" --op allreduce "$T/run.log"
  "$FUSIM" import --db "$DB" --op all_reduce_perf --link pcie "$T/run.log" >/dev/null || fail "with --op and --link"
  [ "$(q "SELECT count(*) FROM samples WHERE link = 'pcie' AND ranks = 2")" = 2 ] || fail "pcie samples"
  BEFORE=$(snapshot)
  expect_fail 64 "--link" "$FUSIM" import --db "$DB" --link warp-drive "$T/run.log"
  expect_fail 64 "--op" "$FUSIM" import --db "$DB" --op hypercube "$T/run.log"
  expect_fail 64 "lists 8 ranks but --ranks says 4" "$FUSIM" import --db "$DB" --ranks 4 "$A100"
  # report's filters select samples; another report refuses them rather than print every row
  expect_fail 64 "filter the samples report only" "$FUSIM" report --db "$DB" fits --op allreduce
  expect_fail 64 "filter the samples report only" "$FUSIM" report --db "$DB" fit-error --ranks 8
  [ "$("$FUSIM" report --db "$DB" --format csv samples --link pcie | tail -n +2 | wc -l)" = 2 ] || fail "samples --link"
  unchanged
  ;;
roundtrip)
  # report samples --format csv imports back as the same samples, nodes and process layout with
  # them. By hand from the files: the DGX pair log has 31 sizes x 2 columns = 62 samples, Rank
  # lines on 2 hosts (dgx-06, dgx-07) and "# nThread 1 nGpus 2": 2 nodes, 2 GPUs a process; the
  # a100 log 22 on one host, -g 8: 8; the copies CSV 45, layout unknown; layout.csv 2 rows on 2
  # nodes, 4 GPUs a process and unknown. Before, the report had neither column and the re-import
  # put every sample on one node with no layout
  printf 'op,ranks,bytes,time_us,link,nodes,gpus_per_process\nallreduce,8,1048576,100,net,2,4\nallreduce,8,2097152,150,net,2,\n' >"$T/layout.csv"
  "$FUSIM" import --db "$DB" "$PUB/multi-node/mghpcc-dgxh100-4gpu-2node-allreduce.txt" "$A100" \
    "$PUB/../v1/h200-pcie-copies.csv" "$T/layout.csv" >/dev/null 2>&1 || fail "import"
  "$FUSIM" report --db "$DB" --format csv samples >"$T/a.csv" || fail "report"
  head -1 "$T/a.csv" | grep -q ",n_wrong,nodes,gpus_per_process,nccl_version$" || fail "header: $(head -1 "$T/a.csv")"
  [ "$(q "SELECT count(*) FROM samples WHERE nccl_version = '2.18.3'")" = 62 ] || fail "the DGX log's NCCL"
  DB=$T/b.db
  "$FUSIM" import --db "$DB" "$T/a.csv" >/dev/null 2>&1 || fail "re-import"
  "$FUSIM" report --db "$DB" --format csv samples >"$T/b.csv" || fail "report b"
  [ "$(cut -d, -f3- "$T/a.csv")" = "$(cut -d, -f3- "$T/b.csv")" ] ||
    fail "samples differ after the round trip: $(diff "$T/a.csv" "$T/b.csv" | head -3)"
  [ "$(q "SELECT nodes || '/' || coalesce(gpus_per_proc, '-') || '/' || count(*) FROM samples GROUP BY nodes, gpus_per_proc ORDER BY 1" | tr '\n' ' ')" = \
    "1/-/45 1/8/22 2/-/1 2/2/62 2/4/1 " ] || fail "re-imported layouts: $(q "SELECT nodes, gpus_per_proc, count(*) FROM samples GROUP BY 1, 2")"
  # a schema 1 file that cannot be written is read as it is: nodes from its host rows (one
  # host each), no layout or NCCL column
  cp "$PUB/../v1/v1.db" "$T/v1.db" && chmod 444 "$T/v1.db" || fail "copy v1"
  as_user "$FUSIM" report --db "$T/v1.db" --format csv samples >"$T/v1.csv" || fail "report on schema 1"
  [ "$(as_user "$FUSIM" report --db "$T/v1.db" --format csv sql "PRAGMA user_version" | tail -1)" = 1 ] || fail "v1 migrated"
  [ "$(tail -n +2 "$T/v1.csv" | awk -F, '{print $(NF-2) "/" $(NF-1) "/" $NF}' | sort | uniq -c | tr -s ' ')" = " 101 1//" ] ||
    fail "schema 1 nodes/layout/NCCL: $(tail -n +2 "$T/v1.csv" | awk -F, '{print $(NF-2) "/" $(NF-1) "/" $NF}' | sort | uniq -c)"
  echo "ok [$CASE]"
  ;;
log-layout)
  # a log's GPUs a process that do not divide a node's GPUs (as the CSV column must) are stored
  # as unknown, with one warning; the samples stay. Text: the DGX pair log (4 Rank lines on 2
  # hosts: 2 GPUs a node) made to say nGpus 4; JSON: the seed's one process of 2 GPUs made three
  # on hosts a, a, b (6 ranks, 3 a node). Before, both stored the layout (4, 2)
  sed 's/^# nThread 1 nGpus 2 /# nThread 1 nGpus 4 /' "$PUB/multi-node/mghpcc-dgxh100-4gpu-2node-allreduce.txt" >"$T/g4.txt"
  grep -q "nGpus 4 " "$T/g4.txt" || fail "no nThread line to change"
  SEEDS=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/fuzz/seeds
  python3 - "$SEEDS/nccl-tests-J.json" "$T/uneven.json" <<'PY' || fail "make the JSON"
import json, sys
j = json.load(open(sys.argv[1]))
d = j["config"]["devices"][0]
j["config"]["devices"] = [dict(d, rank=2 * i, pid=40 + i, hostname=h) for i, h in enumerate("aab")]
json.dump(j, open(sys.argv[2], "w"))
PY
  for f in g4.txt uneven.json; do
    "$FUSIM" import --db "$DB" --link net --op allreduce "$T/$f" >/dev/null 2>"$T/err" || fail "$f: import failed: $(cat "$T/err")"
    [ "$(grep -c . "$T/err")" = 1 ] && grep -q "$f.*do not divide the GPUs of a node.*stored as unknown" "$T/err" ||
      fail "$f: want one warning: $(cat "$T/err")"
  done
  [ "$(q "SELECT r.source_file LIKE '%.json', s.ranks, count(*), count(s.gpus_per_proc) FROM samples s JOIN runs r ON r.id = s.run_id GROUP BY 1, 2 ORDER BY 1" | tr '\n' ' ')" = \
    "0,4,62,0 1,6,4,0 " ] || fail "stored: $(q "SELECT s.ranks, count(*), count(s.gpus_per_proc) FROM samples s GROUP BY 1")"
  # a log on more than 4 hosts: its nodes are its hosts (the a3mega log's 16 Rank lines put on 8
  # hosts, node0-node7, two ranks each). Before, 4: the nodes were read from the run's host row,
  # which names only the first 4
  python3 - "$PUB/h100x16-2node-a3mega-allreduce.txt" "$T/h8.txt" <<'PY' || fail "make the 8-host log"
import re, sys
rank = re.compile(r"(#\s+Rank\s+(\d+) .* on\s+)\S+( .*)")
with open(sys.argv[2], "w") as out:
    for l in open(sys.argv[1]):
        m = rank.match(l)
        out.write("%snode%d%s\n" % (m.group(1), int(m.group(2)) // 2, m.group(3)) if m else l)
PY
  # and the JSON seed's process of 2 GPUs made 12 placed round robin on 6 hosts (h1 .. h6)
  python3 - "$SEEDS/nccl-tests-J.json" "$T/h6.json" <<'PY' || fail "make the 6-host JSON"
import json, sys
j = json.load(open(sys.argv[1]))
d = j["config"]["devices"][0]
j["config"]["devices"] = [dict(d, rank=2 * i, pid=40 + i, hostname="h%d" % (1 + i % 6)) for i in range(12)]
json.dump(j, open(sys.argv[2], "w"))
PY
  "$FUSIM" import --db "$T/h8.db" --op allreduce "$T/h8.txt" "$T/h6.json" >/dev/null 2>&1 || fail "8-host log, 6-host JSON"
  [ "$("$FUSIM" report --db "$T/h8.db" --format csv samples | tail -n +2 | cut -d, -f5,18,19 | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" = \
    " 62 16,8,1  4 24,6,2 " ] ||
    fail "many hosts' nodes: $("$FUSIM" report --db "$T/h8.db" --format csv samples | tail -n +2 | cut -d, -f5,18,19 | sort | uniq -c)"
  # the layouts that do divide are kept (the unchanged log: 2)
  "$FUSIM" import --db "$DB" "$PUB/multi-node/mghpcc-dgxh100-4gpu-2node-allreduce.txt" >/dev/null 2>"$T/err" || fail "plain log"
  [ ! -s "$T/err" ] || fail "warning on a plain log: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples WHERE gpus_per_proc = 2")" = 62 ] || fail "plain log's layout"
  echo "ok [$CASE]"
  ;;
nccl-version)
  # the NCCL each sample's run used (schema 5, samples.nccl_version): what NCCL printed
  # ("NCCL version 2.29.2+cuda12.9"), else nccl-tests' "nccl-library=22907", a JSON log's
  # nccl_version code, a CSV's nccl_version column, else a comment naming one ("## software:
  # NCCL 2.29.2"); what NCCL printed wins over a comment; a malformed one is ignored
  MN=$PUB/multi-node
  SEEDS=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/fuzz/seeds
  nv() { q "SELECT group_concat(DISTINCT coalesce(s.nccl_version, 'NULL')) || '/' || count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%$1'"; }
  sed 's/^## software: NCCL 2.29.2+cuda12.9/## software: NCCL 2.18.1/' "$MN/mit-b200-16gpu-2node-allreduce.txt" >"$T/printed-over-comment-allreduce.txt"
  sed -e 's/^NCCL version 2.29.2+cuda12.9/NCCL version 2.29+cuda12.9/' -e '/^## software/d' "$MN/mit-b200-16gpu-2node-allreduce.txt" >"$T/malformed-allreduce.txt"
  sed -e 's/^NCCL version 2.29.2+cuda12.9/NCCL version banana 2..2.x/' -e '/^## software/d' "$MN/mit-b200-16gpu-2node-allreduce.txt" >"$T/garbled-allreduce.txt"
  printf 'op,ranks,bytes,time_us,link,nccl_version\nallreduce,8,1048576,40,nvlink,2.27.3+cuda12.4\nallreduce,8,4194304,60,nvlink,\n' >"$T/v.csv"
  for f in "$MN/mit-b200-16gpu-2node-allreduce.txt" "$MN/mit-b200-8gpu-1node-allreduce.txt" "$PUB/rtx5090x8-pcie-allreduce.txt" \
           "$T/printed-over-comment-allreduce.txt" "$T/malformed-allreduce.txt" "$T/garbled-allreduce.txt" "$T/v.csv"; do
    "$FUSIM" import --db "$DB" --link nvlink "$f" >/dev/null 2>"$T/err" || fail "import $f: $(cat "$T/err")"
  done
  "$FUSIM" import --db "$DB" --link nvlink "$SEEDS/nccl-tests-J.json" >/dev/null || fail "JSON import"
  [ "$(q "PRAGMA user_version")" = 8 ] || fail "schema $(q "PRAGMA user_version")"
  [ "$(nv 16gpu-2node-allreduce.txt)" = 2.29.2/16 ] || fail "printed line: $(nv 16gpu-2node-allreduce.txt)"
  [ "$(nv 8gpu-1node-allreduce.txt)" = 2.29.2/16 ] || fail "comment: $(nv 8gpu-1node-allreduce.txt)"
  [ "$(nv rtx5090x8-pcie-allreduce.txt)" = 2.29.7/50 ] || fail "nccl-library=22907: $(nv rtx5090x8-pcie-allreduce.txt)"
  [ "$(nv nccl-tests-J.json)" = 2.28.3/4 ] || fail "JSON 22803: $(nv nccl-tests-J.json)"
  [ "$(nv printed-over-comment-allreduce.txt)" = 2.29.2/16 ] || fail "printed over comment: $(nv printed-over-comment-allreduce.txt)"
  [ "$(q "SELECT h.nccl FROM hosts h JOIN runs r ON r.host_id = h.id WHERE r.source_file LIKE '%printed-over-comment-allreduce.txt'")" = 2.29.2 ] || fail "host row: the printed version"
  [ "$(nv malformed-allreduce.txt)" = NULL/16 ] || fail "2.29 (no patch) not ignored: $(nv malformed-allreduce.txt)"
  [ "$(nv garbled-allreduce.txt)" = NULL/16 ] || fail "garbled not ignored: $(nv garbled-allreduce.txt)"
  [ "$(q "SELECT coalesce(nccl_version, 'NULL') FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%v.csv' ORDER BY bytes" | tr '\n' ' ')" = "2.27.3 NULL " ] || fail "CSV column"
  # two runs concatenated, each printing its own NCCL: each run's rows keep their own (all 32
  # were stored as the first run's 2.27.3)
  { grep -v '^##' "$MN/mit-b200-16gpu-2node-allreduce.txt" | sed 's/^NCCL version 2.29.2/NCCL version 2.27.3/'
    grep -v '^##' "$MN/mit-b200-16gpu-2node-allreduce.txt"; } >"$T/two-runs-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/two-runs-allreduce.txt" >/dev/null 2>"$T/err" || fail "two runs: $(cat "$T/err")"
  [ "$(q "SELECT group_concat(coalesce(s.nccl_version, 'NULL'), ' ') FROM (SELECT s.nccl_version FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%two-runs-allreduce.txt' AND s.in_place = 0 AND s.bytes = 1048576 ORDER BY s.id) s")" = "2.27.3 2.29.2" ] ||
    fail "runs' own NCCL: $(q "SELECT s.nccl_version, count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.source_file LIKE '%two-runs-allreduce.txt' GROUP BY 1")"
  # a CSV cell that is not a version: the row refused in one line, nothing stored
  BEFORE=$(snapshot)
  printf 'op,ranks,bytes,time_us,link,nccl_version\nallreduce,8,1048576,40,nvlink,2.27\n' >"$T/bad.csv"
  expect_fail 65 "nccl_version '2.27' is not an NCCL version" "$FUSIM" import --db "$DB" "$T/bad.csv"
  unchanged
  echo "ok [$CASE]"
  ;;
old-formats)
  # real logs that failed whole: Open MPI's unprefixed "8 more processes have sent help message"
  # line inside the table (read as a row: exit 65), and an older alltoall_perf table whose redop
  # column is blank (rows a field short of the header)
  n0=$("$FUSIM" import --db "$T/a.db" "$A100" >/dev/null && "$FUSIM" report --db "$T/a.db" --format csv sql "SELECT count(*) FROM samples" | tail -1)
  sed '20i 8 more processes have sent help message help-mtl-ofi.txt / OFI call fail' "$A100" >"$T/noise-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/noise-allreduce.txt" >/dev/null 2>"$T/err" || fail "help line in the table: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = "$n0" ] || fail "help line: $(q "SELECT count(*) FROM samples") samples, not $n0"
  { sed -n '1,17p' "$A100"
    echo '#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error'
    echo '#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)'
    awk '$3 == "float" { printf "%12s %13s %9s %8s %7s %7s %6s %8s %7s %7s %6s\n", $1, $2, $3, $6, $7, $8, "N/A", $10, $11, $12, "N/A" }' "$A100"
  } >"$T/old-alltoall.txt"
  "$FUSIM" import --db "$DB" --link nvlink "$T/old-alltoall.txt" >/dev/null 2>"$T/err" || fail "blank redop: $(cat "$T/err")"
  [ "$(q "SELECT count(*) || ' ' || min(bytes) || ' ' || round(min(t_median_us), 2) FROM samples WHERE op = 'alltoall'")" = "$(( n0 )) 1048576 78.77" ] ||
    fail "blank redop: $(q "SELECT count(*) || ' ' || min(bytes) || ' ' || round(min(t_median_us), 2) FROM samples WHERE op = 'alltoall'")"
  # a short row of an op that reduces is still refused (its redop is never blank)
  sed '20s/ sum / /' "$A100" >"$T/short-allreduce.txt"
  expect_fail 65 "row has 12 fields, the header has 13" "$FUSIM" import --db "$T/s.db" "$T/short-allreduce.txt"
  echo "ok [$CASE]"
  ;;
measured-fields)
  # refused CSV-TEXT PATTERN: the measured-times CSV (backslash escapes read) refused in one line
  # holding PATTERN, exit 65, the database as it was
  refused() {
    printf '%b' "$1" >"$T/m.csv"
    expect_fail 65 "m.csv:2: $2" "$FUSIM" import --db "$DB" "$T/m.csv"
    unchanged
  }
  base
  # a row with more or fewer fields than its header, as in the samples CSV (its gpus or framework
  # went to another column, or were dropped: it joined other predictions)
  refused 'workload,plan,measured_us\nresnet50,single,100,8,ddp,"run 1"\n' "row has 6 fields, the header has 3"
  refused 'workload,plan,measured_us,spread_us,gpus\nresnet50,single,100\n' "row has 3 fields, the header has 5"
  # a framework column fusim does not know, or one its plan contradicts, naming the column (it was
  # reported as the plan, or stored to join nothing)
  refused 'workload,plan,measured_us,framework\nresnet50,single,100,pytorch\n' "framework 'pytorch': expected ideal, ddp or hooks"
  refused 'workload,plan,measured_us,framework\nresnet50,"single framework=ddp",100,hooks\n' \
    "the plan says framework=ddp, the framework column hooks"
  # FUSIM_DB_BUSY_MS that is not whole milliseconds is said, not replaced in silence
  FUSIM_DB_BUSY_MS=5s "$FUSIM" report --db "$DB" runs >/dev/null 2>"$T/err" || fail "report with a bad FUSIM_DB_BUSY_MS"
  grep -q "FUSIM_DB_BUSY_MS='5s' is not whole milliseconds" "$T/err" || fail "FUSIM_DB_BUSY_MS=5s: $(cat "$T/err")"
  echo "ok [$CASE]"
  ;;
measured-beside)
  # a measured-times CSV naming its workload by a relative path: the CSV's own folder first, so
  # it imports from any folder (before, only from the one the path was relative to). A decoy of
  # the same name in the current folder (BERT) loses to the one beside the CSV (ResNet-50).
  SRC=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}
  abs=$(cd "$(dirname "$FUSIM")" && pwd)/$(basename "$FUSIM")
  mkdir "$T/run" "$T/elsewhere"
  cp "$SRC/data/workloads/resnet50.json" "$T/run/wl.json" &&
    cp "$SRC/data/workloads/bert_large.json" "$T/elsewhere/wl.json" || fail "fixtures"
  printf 'workload,plan,measured_us\nwl.json,single,11000\n' >"$T/run/m.csv"
  (cd "$T/elsewhere" && "$abs" import --db "$DB" ../run/m.csv) >"$T/out" 2>"$T/err" ||
    fail "import from another folder: $(cat "$T/err")"
  [ "$(q "SELECT w.name FROM measurements m JOIN workloads w ON w.id = m.workload_id")" = resnet50_b64 ] ||
    fail "the workload stored is not the one beside the CSV: $(q "SELECT name FROM workloads")"
  # ... the current folder's still serves a CSV that has none beside it
  rm "$T/run/wl.json"
  (cd "$T/elsewhere" && "$abs" import --db "$DB" ../run/m.csv --again) >"$T/out" 2>"$T/err" ||
    fail "import with the workload in the current folder: $(cat "$T/err")"
  [ "$(q "SELECT w.name FROM measurements m JOIN workloads w ON w.id = m.workload_id ORDER BY m.id DESC LIMIT 1")" = bert_large_b8 ] ||
    fail "the current folder's workload not used"
  # README's worked example, from a folder other than the checkout: every data row stored
  CSV=$SRC/data/validation/torch_h200_run2/resnet50_ddp_measured.csv
  rows=$(grep -v '^#' "$CSV" | tail -n +2 | grep -c .)
  (cd "$T" && "$abs" import --db "$T/readme.db" "$CSV") >"$T/out" 2>"$T/err" || fail "README example: $(cat "$T/err")"
  [ "$("$FUSIM" report --db "$T/readme.db" --format csv sql "SELECT count(*) FROM measurements" | tail -n +2)" = "$rows" ] ||
    fail "README example: not $rows measurements"
  echo "ok [$CASE]"
  ;;
migrate-report)
  # the first report on an older database migrates it and answers from the migrated views (it
  # printed the old views' columns once, the current ones from the next run on)
  SRC=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/data
  cp "$SRC/v1/v1.db" "$T/v1.db" && cp "$SRC/v5/v5.db" "$T/v5.db" || fail "fixtures"
  h1=$("$FUSIM" report --db "$T/v1.db" errors --format csv | head -1)
  case $h1 in *,workload_hash,profile_hash,framework,gpus,notes,source) ;; *) fail "v1 errors header: $h1" ;; esac
  h5=$("$FUSIM" report --db "$T/v5.db" fits --format csv | head -1)
  case $h5 in *,nodes,gpus_per_proc,gpu,in_place,dtype,graph) ;; *) fail "v5 fits header: $h5" ;; esac
  # report check prints text: a --format it cannot honour is refused (JSON was asked, text came)
  expect_fail 64 "report check prints its findings as text" "$FUSIM" report --db "$T/v5.db" check --format json
  # an empty database (an older fusim's first command that failed before storing anything left
  # one; so does a reader racing the command creating one): report check says so as the other
  # reports do (66), not "user_version 0: not a schema version this fusim knows" (65)
  python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA user_version = 0')" "$T/empty.db"
  expect_fail 66 "an empty database: nothing has been stored in it yet" "$FUSIM" report --db "$T/empty.db" check
  echo "ok [$CASE]"
  ;;
concat-gpus)
  # logs concatenated into one file: runs on one GPU model import as before; a run on another
  # model is refused in one line (the file's samples share one host row, so the B200 rows were
  # stored, and fitted, as H100 ones) and nothing is stored
  MN=$PUB/multi-node
  cat "$MN/mghpcc-dgxh100-2gpu-1node-allreduce.txt" "$MN/mghpcc-dgxh100-4gpu-2node-allreduce.txt" >"$T/same-allreduce.txt"
  "$FUSIM" import --db "$DB" "$T/same-allreduce.txt" >/dev/null 2>"$T/err" || fail "one model: $(cat "$T/err")"
  [ "$(q "SELECT count(*) FROM samples")" = 124 ] || fail "one model: $(q "SELECT count(*) FROM samples") samples"
  BEFORE=$(snapshot)
  cat "$MN/mghpcc-dgxh100-2gpu-1node-allreduce.txt" "$MN/mit-b200-8gpu-1node-allreduce.txt" >"$T/two-allreduce.txt"
  expect_fail 65 "this run's GPU is 'NVIDIA B200' but the rows above ran on 'NVIDIA H100 80GB HBM3'" \
    "$FUSIM" import --db "$DB" "$T/two-allreduce.txt"
  unchanged
  echo "ok [$CASE]"
  ;;
more-sweeps)
  # the held-out sweeps of public-nccl-tests/more (cluster_bench's EXTRA cases) import as their
  # "## " headers say: collective, ranks, nodes, GPUs a process (nThread x nGpus), link, the
  # NCCL the log printed or its "## software" line names, and the rows of both columns
  M=$PUB/more
  while read -r f want; do
    rm -f "$DB"
    "$FUSIM" import --db "$DB" "$M/$f" >/dev/null 2>"$T/err" || fail "$f: $(cat "$T/err")"
    cols="op || '/' || ranks || '/' || nodes || '/' || gpus_per_proc || '/' || link"
    got=$(q "SELECT $cols || '/' || coalesce(nccl_version, '-') || '/' || count(*) FROM samples GROUP BY op, ranks")
    [ "$got" = "$want" ] || fail "$f: $got, want $want"
  done <<EOF
lambda-h100-2gpu-1node-allreduce.txt allreduce/2/1/2/nvlink/-/62
lambda-h100-2gpu-2node-allreduce.txt allreduce/2/2/1/net/-/64
lambda-h100-4gpu-2node-allreduce.txt allreduce/4/2/2/net/-/64
lambda-h100-8gpu-2node-allreduce.txt allreduce/8/2/4/net/-/64
lambda-h100-16gpu-2node-allreduce.txt allreduce/16/2/8/net/-/62
orcd-b200-rocky-8gpu-1node-allreduce.txt allreduce/8/1/8/nvlink/2.29.2/16
orcd-b200-rocky-8gpu-1node-allgather.txt allgather/8/1/8/nvlink/2.29.2/16
orcd-b200-rocky-8gpu-1node-reducescatter.txt reducescatter/8/1/8/nvlink/2.29.2/16
orcd-b200-rocky-16gpu-2node-allreduce.txt allreduce/16/2/8/net/2.29.2/16
orcd-b200-rocky-16gpu-2node-allgather.txt allgather/16/2/8/net/2.29.2/16
orcd-b200-rocky-16gpu-2node-reducescatter.txt reducescatter/16/2/8/net/2.29.2/16
EOF
  echo "ok [$CASE]"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
