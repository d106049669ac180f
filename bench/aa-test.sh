#!/usr/bin/env bash
# Does keybench name false winners? An A/A test: the same key twice
# (bigint and bigint#2, two tables, the same workload) in interleaved
# rounds, RUNS times; every run's verdict on the pair is printed with its
# test, p-value and effect interval. A sound method calls the two different
# in about 5% of runs (at α = 0.05); before rounds, 4 of 6 such runs did.
#
# Usage: bench/aa-test.sh [RUNS] [SECONDS] [CLIENTS] [ROUNDS]   (defaults 10 5 8 5)
runs=${1:-10}; secs=${2:-5}; clients=${3:-8}; rounds=${4:-5}
source "$(dirname "$0")/lib.sh"
echo "A/A: keybench run insert --keys bigint,bigint -c $clients --rounds $rounds -T ${secs}s --rows 0, $runs runs"
: >"$WORK/verdicts"
for i in $(seq "$runs"); do
  "$KB" run insert --dsn "$DSN" --schema kbaa --keys bigint,bigint -c "$clients" --rounds "$rounds" -T "${secs}s" --rows 0 \
    --out "$WORK/aa$i" --json >"$WORK/aa$i.json" 2>"$WORK/aa$i.err" || { echo "run $i failed: $(tail -1 "$WORK/aa$i.err")"; continue; }
  python3 - "$WORK/aa$i.json" "$i" >>"$WORK/verdicts" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["groups"][1]["compared"][0]
rates = lambda c: " ".join("%.0f" % x["rate"] for x in c["rounds"])
print("run %2s: bigint#2 / bigint %.3f [%.3f, %.3f], %s p %.4f (adjusted %.4f), %s; rounds %s | %s" % (
    sys.argv[2], v["effect"], v.get("lo", 0), v.get("hi", 0), v.get("test", "?"), v["p"], v["p_adjusted"],
    "SIGNIFICANT" if v["significant"] else "~", rates(r["cells"][0]), rates(r["cells"][1])))
PY
  tail -1 "$WORK/verdicts"
done
echo "called significantly different in $(grep -c SIGNIFICANT "$WORK/verdicts") of $(wc -l <"$WORK/verdicts") runs"
