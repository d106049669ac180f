#!/usr/bin/env bash
# Does the default run name a verdict on a busy machine, and only a true one?
# RUNS times, the default `keybench run` (war, embedded server) while a
# process of this script keeps one core busy (a plain busy loop, started
# before and stopped after each run); then RUNS A/A runs the same way
# (--keys bigint,bigint,bigint,bigint: four tables of one key, where any
# difference named is a false one). For each run it prints whether uuidv4
# was named costlier (server time per transaction) than bigint and than
# uuidv7, the rate verdicts beside, the machine's load the run recorded and
# its wall time; at the end the counts and the median wall time.
#
# Usage: bench/busy-verdict.sh [RUNS] [EXTRA RUN FLAGS...]   (default 10)
set -euo pipefail
runs=${1:-10}; shift || true
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
busy=""
stop_busy() { if [ -n "$busy" ]; then kill "$busy" 2>/dev/null || true; wait "$busy" 2>/dev/null || true; fi; busy=""; }
trap 'stop_busy; rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench
KB="$WORK/keybench"

verdict() { # FILE MODE: one line on the run's verdict
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); mode = sys.argv[2]
groups = {g["key"]: g for g in r["groups"]}
def cost(a, b):
    g = groups.get(a)
    for v in (g or {}).get("cost", {}).get("compared", []):
        if v["key"] == b:
            return v
    return None
def rate(a, b):
    for v in groups.get(a, {}).get("compared", []):
        if v["key"] == b:
            return v
    return None
def said(v):
    if v is None: return "-"
    s = "%.2f" % v["effect"]
    return s + ("*" if v["significant"] else "~")
loads = [rd["cost"].get("others_cpu_share") for c in r["cells"] for rd in c.get("rounds", []) if "cost" in rd]
loads = sorted(x for x in loads if isinstance(x, (int, float)))
load = "others %.0f%%" % (100 * loads[len(loads) // 2]) if loads else "others ?"
if mode == "war":
    vb, v7 = cost("uuidv4", "bigint"), cost("uuidv4", "uuidv7")
    ok = all(v is not None and v["significant"] and v["effect"] > 1 for v in (vb, v7))
    print("%s uuidv4 cost/bigint %s, /uuidv7 %s; rate/bigint %s, /uuidv7 %s; %s" % (
        "NAMED" if ok else "not named", said(vb), said(v7), said(rate("uuidv4", "bigint")), said(rate("uuidv4", "uuidv7")), load))
else:
    found = [g["key"] + " vs " + v["key"] + " (" + fam + ")" for g in r["groups"] for fam, vs in
             (("rate", g.get("compared", [])), ("cost", g.get("cost", {}).get("compared", []))) for v in vs if v["significant"]]
    print("%s %s; %s" % ("FALSE" if found else "none", ", ".join(found[:2]), load))
PY
}

run_all() { # MODE ARGS...
  local mode=$1; shift
  : >"$WORK/$mode.lines"; : >"$WORK/$mode.times"
  for i in $(seq "$runs"); do
    ( while :; do :; done ) & busy=$!
    local t0 t1
    t0=$(date +%s.%N)
    if "$KB" run "$@" --out "$WORK/$mode$i" >"$WORK/$mode$i.log" 2>&1; then
      t1=$(date +%s.%N); stop_busy
      awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", b - a}' >>"$WORK/$mode.times"
      line="$(verdict "$WORK/$mode$i/results.json" "$mode")"
    else
      stop_busy; line="FAILED: $(tail -1 "$WORK/$mode$i.log")"
    fi
    printf '%s run %2d (%5.1f s): %s\n' "$mode" "$i" "$(tail -1 "$WORK/$mode.times" 2>/dev/null || echo 0)" "$line" | tee -a "$WORK/$mode.lines"
  done
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {if (NR==0) print "?"; else if (NR%2) printf "%.1f", a[(NR+1)/2]; else printf "%.1f", (a[NR/2]+a[NR/2+1])/2}'; }

echo "busy verdict: $runs default runs, then $runs A/A runs, each beside a busy loop on one core"
run_all war "$@"
run_all aa --keys bigint,bigint,bigint,bigint "$@"
echo "default run: uuidv4 named costlier than bigint and uuidv7 in $(grep -c ' NAMED' "$WORK/war.lines" || true) of $runs runs; median wall time $(median "$WORK/war.times") s"
echo "A/A: a difference named in $(grep -c ' FALSE' "$WORK/aa.lines" || true) of $runs runs; median wall time $(median "$WORK/aa.times") s"
