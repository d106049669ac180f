#!/usr/bin/env bash
# Makes vectors.json: what the reference implementations of keybench's ids
# say — their encodings of given parts, which keybench must reproduce, and
# their decoding of values keybench made, which keybench's own decoding must
# match. It runs outside CI (it needs the Go module proxy and the npm
# registry); keybench's tests read only vectors.json. Run it again after a
# change to a generator, and commit what it writes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top"
go build -o "$tmp/keybench" ./cmd/keybench
# keybench's values, twenty of each key the references can read.
{
  printf '{'
  first=1
  for k in ksuid xid typeid typeid:prefix=order_line objectid sonyflake cuid2 nanoid; do
    name=${k%%:*}
    vals=$("$tmp/keybench" gen "$k" -n 20 | sed 's/.*/"&"/' | paste -sd, -)
    [ $first = 1 ] || printf ','
    first=0
    printf '"%s":[%s]' "$k" "$vals"
  done
  printf '}\n'
} > "$tmp/made.json"
# Keys with parameters are read as their strategy's.
python3 - "$tmp/made.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
out = {}
for k, v in m.items():
    out.setdefault(k.split(':')[0], []).extend(v)
json.dump(out, open(sys.argv[1], 'w'))
PY
(cd "$here/go" && go run . < "$tmp/made.json" > "$tmp/go.json")
(cd "$here/js" && npm install --no-audit --no-fund --silent && node vectors.mjs < "$tmp/made.json" > "$tmp/js.json")
python3 - "$tmp/go.json" "$tmp/js.json" "$here/vectors.json" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
js = json.load(open(sys.argv[2]))
out['by'].update(js.pop('by'))
out.update(js)
json.dump(out, open(sys.argv[3], 'w'), indent=1, ensure_ascii=False)
open(sys.argv[3], 'a').write('\n')
PY
echo "wrote $here/vectors.json"
