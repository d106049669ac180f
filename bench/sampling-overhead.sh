#!/usr/bin/env bash
# How much do keybench's samplers (wait events every 500 ms, buffer cache
# every 2 s) cost the measurement? Runs the same cell with sampling on and off
# in turn (on off, off on, ...) on one server and prints tps(on) / tps(off).
#
# Usage: bench/sampling-overhead.sh [ROUNDS] [SECONDS]   (defaults 4 15)
rounds=${1:-4}; secs=${2:-15}
source "$(dirname "$0")/lib.sh"
run() {
  "$KB" run insert-read --dsn "$DSN" --schema kbsamp --keys uuidv4 -c 10 -T "${secs}s" --warmup 2s --rows 200000 \
    --sampling "$1" --out "$WORK/$1-$RANDOM" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["cells"][0]["tps"])'
}
on_sum=0; off_sum=0
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then a=$(run on); b=$(run off); else b=$(run off); a=$(run on); fi
  printf 'round %d: sampling on %8.1f tps   off %8.1f tps   ratio %.3f\n' "$r" "$a" "$b" "$(python3 -c "print($a/$b)")"
  on_sum=$(python3 -c "print($on_sum+$a)"); off_sum=$(python3 -c "print($off_sum+$b)")
done
python3 -c "print('sampling on/off tps ratio: %.3f (overhead %.1f%%)' % ($on_sum/$off_sum, (1-$on_sum/$off_sum)*100))"
