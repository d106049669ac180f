#!/usr/bin/env bash
# How long does keybench take, and does it say so beforehand? For the
# default run (`keybench run`, war on the embedded server), every preset's
# --quick, `advise --lab` on a test schema of its own, and the test suite
# (`go test ./...` with -count=1), under each condition: quiet (the
# machine as it is), busy (a loop on one core beside it), busy2 (two
# loops: both cores taken once over). Per run it prints the estimate
# printed before the run, the estimate after the first round (or the
# first group: the time so far plus "the run (ends) in about"), the wall
# time, each estimate's error (wall over estimate), and the machine's
# 1-minute load average at the end; the test suite has no estimate of its
# own (the README's quoted range is its promise). At the end, per
# condition, how many runs ended within ±30% of their first estimate and
# of their estimate after the first round.
#
# Usage: bench/times.sh [WHAT...]   WHAT: default quick advise tests (default: all)
# Environment: CONDITIONS (default "quiet busy"); PRESETS (default: every preset);
# REPEAT (default 1): how many times each runs under each condition.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${*:-default quick advise tests}
conditions=${CONDITIONS:-quiet busy}
WORK=$(mktemp -d)
hogs=()
stop_hogs() {
  for h in "${hogs[@]:-}"; do
    [ -n "$h" ] && { kill -- "-$h" 2>/dev/null || kill "$h" 2>/dev/null || true; wait "$h" 2>/dev/null || true; }
  done
  hogs=()
}
server=""
trap 'stop_hogs; [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench
KB="$WORK/keybench"
# The one-time download of the server's binaries is nobody's wait.
"$KB" run --quick --keys bigint --out "$WORK/warm-cache" >/dev/null 2>&1 || true
presets=${PRESETS:-$("$KB" scenarios --wide 2>/dev/null | sed -n 's/^│ \([a-z-]*\) *│ preset.*/\1/p' | tr '\n' ' ')}

start_hogs() { # CONDITION
  local n=0
  case $1 in busy) n=1 ;; busy2) n=2 ;; esac
  for _ in $(seq "$n"); do set -m; ( while :; do :; done ) & hogs+=($!); set +m; done
}

# estimates LOG WALL: the first estimate, the one after the first round (or
# group), each with its error against WALL, from the run's log.
estimates() {
  python3 - "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
wall = float(sys.argv[2])
def dur(s):  # a Go duration: 1h2m3s, 1m6s, 40s, 500ms
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[u] for n, u in re.findall(r"([\d.]+)(h|ms|m|s)", s))
def at(line):
    m = re.match(r"(\d\d):(\d\d):(\d\d) ", line)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) if m else None
stamps = [at(l) for l in lines if at(l) is not None]
t0 = stamps[0] if stamps else None
# advise --lab prints one estimate per lab: their sum is its estimate.
first = sum(dur(m.group(1)) for l in lines for m in [re.search(r"estimated time: about ([0-9hms.]+)", l)] if m)
after = None
for l in lines:
    m = re.search(r"the run (?:ends )?in about ([0-9hms.]+)", l) or re.search(r"rounds 1/\d+ done in \S+; this group ends in about ([0-9hms.]+)", l)
    if m and at(l) is not None and t0 is not None:
        d = at(l) - t0
        after = (d + 86400 if d < 0 else d) + dur(m.group(1))
        break
def err(e):
    return "%+.0f%%" % (100 * (wall / e - 1)) if e else "-"
print("%s %s %s %s" % ("%.0f" % first if first else "-", err(first), "%.0f" % after if after else "-", err(after)))
PY
}

row() { # WHAT CONDITION LOG WALL RC
  local est load
  est=$(estimates "$3" "$4")
  load=$(cut -d' ' -f1 /proc/loadavg)
  # shellcheck disable=SC2086
  printf '%-24s %-6s %8s %6s %9s %6s %7.0f %6s %s\n' "$1" "$2" $est "$4" "$load" "$5" | tee -a "$WORK/rows"
}

timed() { # WHAT CONDITION LOG CMD...: runs CMD beside the condition's load and prints its row
  local name=$1 cond=$2 log=$3; shift 3
  start_hogs "$cond"
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  "$@" >"$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  stop_hogs
  row "$name" "$cond" "$log" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')" "rc=$rc"
}

# The advise lab's schema: a table keyed by gen_random_uuid() of 300,000
# rows (the shape of the advise tests' labbed table), on a PostgreSQL 15
# server of its own; psql from Debian's client package (installed if missing).
DSN=""
advise_schema() {
  local psql
  psql=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$psql" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-client >/dev/null
    psql=$(command -v psql)
  fi
  "$KB" server --pg-version 15 >"$WORK/server.out" 2>"$WORK/server.err" & server=$!
  for _ in $(seq 600); do grep -q '^DSN: ' "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
  DSN=$(sed -n 's/^DSN: //p' "$WORK/server.out")
  [ -n "$DSN" ] || { echo "server did not start: $(cat "$WORK/server.err")" >&2; exit 1; }
  "$psql" -qX -v ON_ERROR_STOP=1 -d "$DSN" -c "CREATE SCHEMA app;
    CREATE TABLE app.labbed (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL);
    INSERT INTO app.labbed (n) SELECT g FROM generate_series(1, 300000) g; ANALYZE app.labbed;"
}

printf '%-24s %-6s %8s %6s %9s %6s %7s %6s %s\n' WHAT LOAD "EST(S)" ERR "1ST-R(S)" ERR "WALL(S)" LOAD1 ""
for cond in $conditions; do
  for rep in $(seq "${REPEAT:-1}"); do
  for w in $what; do
    case $w in
      default) timed "run (war)" "$cond" "$WORK/default-$cond-$rep.log" "$KB" run --out "$WORK/default-$cond-$rep" ;;
      quick)
        for p in $presets; do
          timed "run $p --quick" "$cond" "$WORK/$p-$cond-$rep.log" "$KB" run "$p" --quick --out "$WORK/$p-$cond-$rep"
        done ;;
      advise)
        [ -n "$DSN" ] || advise_schema
        timed "advise --lab" "$cond" "$WORK/advise-$cond-$rep.log" "$KB" advise --dsn "$DSN" --table app.labbed --sample 1s --lab --lab-out "$WORK/lab-$cond-$rep" ;;
      tests) timed "go test ./..." "$cond" "$WORK/tests-$cond.log" env GOFLAGS=-count=1 go test ./... ;;
      *) echo "times.sh: no $w (default, quick, advise, tests)" >&2; exit 2 ;;
    esac
  done
  done
done

echo
python3 - "$WORK/rows" <<'PY'
import sys, collections
by = collections.defaultdict(lambda: [0, 0, 0, 0])
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 8:
        continue
    cond, e1, a1 = f[-8], f[-6], f[-4]  # ... LOAD EST ERR 1ST ERR WALL LOAD1 rc
    s = by[cond]
    for i, e in ((0, e1), (2, a1)):
        if e != "-":
            s[i + 1] += 1
            s[i] += abs(float(e.rstrip("%"))) <= 30
for cond, (w1, n1, w2, n2) in by.items():
    print("%-6s within ±30%% of the first estimate: %d of %d; of the estimate after the first round: %d of %d" % (cond, w1, n1, w2, n2))
PY
echo "($(nproc) cores; the runs' logs were in $WORK, removed on exit)"
