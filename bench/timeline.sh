#!/usr/bin/env bash
# Where does a run's wall time go? For each preset given (default: the
# default run), alone and beside a busy loop on one core, this runs
# `keybench run PRESET` and reads its progress log's timestamps into
# phases: the server's start, pricing the disk and planning, the fills
# (prefills and index builds, the restarts around them), the rounds
# (warm-ups and windows), and the evidence, analysis and writing after the
# last round; each with its seconds and share of the wall time, then the
# round's mean length. Phases a preset repeats (growth's sizes, scale's
# caches) are summed. The log's timestamps are whole seconds: a phase is
# good to a second.
#
# Usage: bench/timeline.sh [PRESET...]   Environment: CONDITIONS (default "quiet busy"), EXTRA (more run flags)
set -euo pipefail
cd "$(dirname "$0")/.."
presets=${*:-default}
conditions=${CONDITIONS:-quiet busy}
WORK=$(mktemp -d)
hog=""
stop_hog() { if [ -n "$hog" ]; then kill -- "-$hog" 2>/dev/null || kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; fi; hog=""; }
trap 'stop_hog; rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench

phases() { # LOG WALL: the phases of one run's log
  python3 - "$1" "$2" <<'PY'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if re.match(r"^\d\d:\d\d:\d\d ", l)]
wall = float(sys.argv[2])
def t(l):
    h, m, s = map(int, l[:8].split(":"))
    return h * 3600 + m * 60 + s
spent = {"server start": 0, "pricing and plan": 0, "fills and restarts": 0, "rounds": 0, "evidence, analysis, writing": 0}
rounds = 0
phase, at = "server start", t(lines[0]) if lines else 0
def to(p, when):
    global phase, at
    spent[phase] += max(0, when - at)
    phase, at = p, when
for l in lines:
    body, now = l[9:], t(l)
    if body.startswith("PostgreSQL") and "ready" in body and phase == "server start":
        to("pricing and plan", now)
    elif "for the evidence" in body or "collecting evidence" in body:
        if phase != "evidence, analysis, writing":
            to("evidence, analysis, writing", now)
    elif ("prefill" in body or "restarted PostgreSQL with buffered" in body or "restarting PostgreSQL" in body) and phase != "fills and restarts":
        to("fills and restarts", now)
    elif re.search(r"round \d+/\d+:", body) and phase != "rounds":
        to("rounds", now)
    elif re.search(r"rounds \d+/\d+ done|the rounds stop", body):
        rounds += "done" in body
        to("evidence, analysis, writing", now)
end = t(lines[-1]) if lines else 0
to(phase, end)
counted = sum(spent.values())
spent["evidence, analysis, writing"] += max(0, wall - counted)
for k, v in spent.items():
    print("  %-28s %5.0f s  %3.0f%%" % (k, v, 100 * v / wall if wall else 0))
if rounds:
    print("  %-28s %5.1f s" % ("a round (mean)", spent["rounds"] / rounds))
PY
}

for preset in $presets; do
  for cond in $conditions; do
    args=(run); [ "$preset" != default ] && args+=("$preset")
    [ "$cond" = busy ] && { set -m; ( while :; do :; done ) & hog=$!; set +m; }
    t0=$(date +%s.%N)
    "$WORK/keybench" "${args[@]}" ${EXTRA:-} --out "$WORK/$preset-$cond" >"$WORK/$preset-$cond.out" 2>"$WORK/$preset-$cond.log" || true
    t1=$(date +%s.%N); stop_hog
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
    echo "$preset, $cond: $wall s wall"
    phases "$WORK/$preset-$cond.log" "$wall"
  done
done
