#!/usr/bin/env bash
# How long does a user wait for keybench's default verdict, and is it right?
# Runs the default 'keybench run' (war, on the embedded server, as README's
# first command does) N times and an A/A run (war's settings with the keys
# bigint,bigint) N times, alternately, and prints each run's wall time
# (the embedded server's start included; its binaries are downloaded once
# before the first run and not timed), rounds run and verdict, then: the
# median wall time, the share of war runs that called uuidv4 slower than
# bigint and than uuidv7, and how many A/A runs called the two bigints
# different (a false winner).
#
# Usage: bench/time-to-verdict.sh [N] [extra keybench run flags...]   (default N=10)
set -euo pipefail
n=${1:-10}; shift || true
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench
KB="$WORK/keybench"
# The one-time download of the server's binaries is not part of a user's wait.
"$KB" run --quick --keys bigint --out "$WORK/warm-cache" >/dev/null 2>&1 || true

now() { date +%s.%N; }
verdict() { # RESULTS KIND: one line about the run's verdict
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); kind = sys.argv[2]
groups = r["groups"]
rounds = max(len(c.get("rounds", [])) for c in r["cells"])
def verdict_of(g, other):
    for v in g.get("compared", []):
        if v["key"] == other:
            state = v.get("state", "")
            if v["significant"]:
                return ("slower" if v["effect"] < 1 else "faster"), v
            return ("same within %.0f%%" % (100 * v["margin"]) if state == "equivalent" else "~"), v
    return "?", None
if kind == "war":
    g = next(g for g in groups if g["key"] == "uuidv4")
    out = []
    for other in ("bigint", "uuidv7"):
        word, v = verdict_of(g, other)
        out.append("uuidv4 vs %s: %s (%.2f [%.2f-%.2f])" % (other, word, v["effect"], v.get("lo", 0), v.get("hi", 0)))
    hit = all(verdict_of(g, o)[0] == "slower" for o in ("bigint", "uuidv7"))
    print("%d rounds; %s; %s" % (rounds, "; ".join(out), "HIT" if hit else "MISS"))
else:
    word, v = verdict_of(groups[1], groups[0]["key"])
    false = v is not None and v["significant"]
    print("%d rounds; bigint#2 vs bigint: %s (%.3f [%.3f-%.3f]); %s" % (rounds, word, v["effect"], v.get("lo", 0), v.get("hi", 0),
          "FALSE WINNER" if false else "ok"))
PY
}
run() { # KIND I FLAGS...
  local kind=$1 i=$2; shift 2
  local out="$WORK/$kind$i" t0 t1
  t0=$(now)
  if ! "$KB" run "$@" "${EXTRA[@]}" --out "$out" >"$out.log" 2>&1; then
    echo "$kind $i: failed: $(tail -1 "$out.log")"; return
  fi
  t1=$(now)
  wall=$(python3 -c "print('%.1f' % ($t1 - $t0))")
  echo "$wall" >>"$WORK/$kind.walls"
  line=$(verdict "$out/results.json" "$kind")
  echo "$line" >>"$WORK/$kind.verdicts"
  printf '%-4s %2d: %6s s, %s\n' "$kind" "$i" "$wall" "$line"
}
EXTRA=("$@")
echo "keybench run (war) and keybench run --keys bigint,bigint (A/A), $n times each, alternately; $(nproc) cores"
for i in $(seq "$n"); do
  run war "$i"
  run aa "$i" --keys bigint,bigint
done
median() { sort -n "$1" | python3 -c 'import sys,statistics; v=[float(x) for x in sys.stdin]; print("%.1f" % statistics.median(v) if v else "-")'; }
echo "war: median wall $(median "$WORK/war.walls") s (of $(wc -l <"$WORK/war.walls") runs); uuidv4 called slower than bigint and than uuidv7 in $(grep -c HIT "$WORK/war.verdicts" || true)/$(wc -l <"$WORK/war.verdicts")"
echo "A/A: median wall $(median "$WORK/aa.walls") s; the two bigints called different in $(grep -c 'FALSE WINNER' "$WORK/aa.verdicts" || true)/$(wc -l <"$WORK/aa.verdicts")"
