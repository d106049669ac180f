#!/usr/bin/env bash
# Does the default run name its verdict on the work whatever else the
# machine does, and only a true one? RUNS times each, the default
# `keybench run` (war, embedded server) on the machine as it is, beside a
# busy loop on one core, and beside an IO hog (a loop writing 200 MB with
# O_DIRECT and fsync into the directory the embedded server's data lives
# under, the same disk); then RUNS A/A runs beside the IO hog
# (--keys bigint,bigint,bigint,bigint: four tables of one key, where any
# difference named is a false one). For each run it prints whether uuidv4
# was named to do more work per transaction than bigint and than uuidv7,
# uuidv4's work over uuidv7's, the rates' verdict beside, the machine's
# load the run recorded and its wall time; at the end, per condition, how
# often the verdict was named, the median wall time and the spread of the
# uuidv4/uuidv7 work ratio, and each hog's median ratio against the
# quiet runs'.
#
# Usage: bench/busy-verdict.sh [RUNS] [EXTRA RUN FLAGS...]   (default 10)
set -euo pipefail
runs=${1:-10}; shift || true
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
hog=""
stop_hog() { if [ -n "$hog" ]; then kill -- "-$hog" 2>/dev/null || kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; fi; hog=""; rm -f "${TMPDIR:-/tmp}/keybench-io-hog.$$"; }
trap 'stop_hog; rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench
KB="$WORK/keybench"

start_hog() { # MODE: quiet, busy (a loop on one core) or io (O_DIRECT writes with fsync)
  case $1 in
    busy) set -m; ( while :; do :; done ) & hog=$!; set +m ;;
    io) set -m; ( while :; do dd if=/dev/zero of="${TMPDIR:-/tmp}/keybench-io-hog.$$" bs=1M count=200 oflag=direct conv=fsync status=none; done ) & hog=$!; set +m ;;
  esac
}

verdict() { # FILE KIND: one line on the run's verdict
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); kind = sys.argv[2]
groups = r["analysis"]["groups"]
by = {g["key"]: g for g in groups}
def versus(fam, a, b):
    g = by.get(a) or {}
    vs = (g.get("cost") or {}).get("compared", []) if fam == "work" else g.get("compared", [])
    return next((v for v in vs if v["key"] == b), None)
def said(v):
    return "-" if v is None else "%.2f%s" % (v["effect"], "*" if v["significant"] else "~")
loads = sorted(rd["cost"]["others_cpu_share"] for c in r["cells"] for rd in c.get("rounds", []) if isinstance((rd.get("cost") or {}).get("others_cpu_share"), (int, float)))
load = "others %.0f%%" % (100 * loads[len(loads) // 2]) if loads else "others ?"
rounds = max((len(c.get("rounds", [])) for c in r["cells"]), default=0)
ans = r["analysis"].get("answer") or {}
group = "+".join(k["key"] for k in ans.get("group") or [])
chose = "chose=%s group=%s" % (ans.get("choose") or ("undecided" if ans.get("undecided") else "-"), group or "-")
if kind == "war":
    wb, w7 = versus("work", "uuidv4", "bigint"), versus("work", "uuidv4", "uuidv7")
    ok = all(v is not None and v["significant"] and v["effect"] > 1 for v in (wb, w7))
    ratio = w7["effect"] if w7 else 0
    print("%s ratio=%.3f work uuidv4/bigint %s, /uuidv7 %s; rate %s, %s; %d rounds; %s; %s" % (
        "NAMED" if ok else "not-named", ratio, said(wb), said(w7), said(versus("rate", "uuidv4", "bigint")), said(versus("rate", "uuidv4", "uuidv7")), rounds, load, chose))
else:
    found = [g["key"] + " vs " + v["key"] + " (" + fam + ")" for g in groups for fam, vs in
             (("rate", g.get("compared", [])), ("work", (g.get("cost") or {}).get("compared", []))) for v in vs if v["significant"]]
    costlier = [k["key"] for k in ans.get("costlier") or []]
    print("%s %s; %d rounds; %s; %s; costlier: %s" % ("FALSE" if found else "none", ", ".join(found[:2]), rounds, load, chose, ",".join(costlier) or "none"))
PY
}

run_all() { # NAME HOG KIND ARGS...
  local name=$1 mode=$2 kind=$3; shift 3
  : >"$WORK/$name.lines"; : >"$WORK/$name.times"
  for i in $(seq "$runs"); do
    start_hog "$mode"
    local t0 t1 line
    t0=$(date +%s.%N)
    if "$KB" run "$@" --out "$WORK/$name$i" >"$WORK/$name$i.log" 2>&1; then
      t1=$(date +%s.%N); stop_hog
      awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", b - a}' >>"$WORK/$name.times"
      line="$(verdict "$WORK/$name$i/results.json" "$kind")"
    else
      stop_hog; line="FAILED: $(tail -1 "$WORK/$name$i.log")"
    fi
    printf '%-9s run %2d (%5.1f s): %s\n' "$name" "$i" "$(tail -1 "$WORK/$name.times" 2>/dev/null || echo 0)" "$line" | tee -a "$WORK/$name.lines"
  done
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "0"; else if (NR%2) printf "%.3f", a[(NR+1)/2]; else printf "%.3f", (a[NR/2]+a[NR/2+1])/2}'; }
ratios() { sed -n 's/.*ratio=\([0-9.]*\).*/\1/p' "$WORK/$1.lines"; }

echo "busy verdict: $runs default runs quiet, beside a busy loop on one core and beside an IO hog; then $runs A/A runs beside the IO hog"
run_all quiet quiet war "$@"
run_all busy busy war "$@"
run_all iohog io war "$@"
run_all aa-iohog io aa --keys bigint,bigint,bigint,bigint "$@"
quiet=$(ratios quiet | median)
for n in quiet busy iohog; do
  m=$(ratios "$n" | median)
  lo=$(ratios "$n" | sort -n | head -1); hi=$(ratios "$n" | sort -n | tail -1)
  printf '%-6s recommended: %s\n' "$n" "$(sed -n 's/.*chose=\([^ ;]*\).*/\1/p' "$WORK/$n.lines" | sort | uniq -c | tr '\n' ' ')"
  printf '%-6s uuidv4 named doing more work than bigint and uuidv7 in %s of %s runs; uuidv4/uuidv7 work %s (%s–%s), %s of the quiet runs'"'"'; median wall time %s s\n' \
    "$n" "$(grep -c ' NAMED' "$WORK/$n.lines" || true)" "$runs" "$m" "$lo" "$hi" "$(awk -v a="$m" -v b="$quiet" 'BEGIN {printf "%.2f×", (b > 0 ? a / b : 0)}')" "$(median <"$WORK/$n.times")"
done
echo "A/A beside the IO hog: a difference named in $(grep -c ' FALSE' "$WORK/aa-iohog.lines" || true) of $runs runs; median wall time $(median <"$WORK/aa-iohog.times") s"
