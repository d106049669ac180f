#!/usr/bin/env bash
# keybench beside a second published table: GUMBOKIM/database-id-benchmark's
# results/pg-full-2 (PostgreSQL 18.6, shared_buffers 128 MB; a users table
# with the id primary key, a unique email and an indexed created_at, loaded
# in multi-row INSERTs of 1,000 rows on one connection, the indexes present
# throughout; rep 3 of its summary.csv). Their primary key's leaf density
# (pgstatindex) after 10M rows, and the WAL per row of the load's last
# stretch (7.94M to 10M rows: the WAL their backend wrote, PostgreSQL 18's
# per-backend statistics, over the rows inserted), next to keybench's own
# run of the same shape:
#
#   keybench run insert --keys bigint,uuidv7,uuidv4,nanoid,cuid2 --rows ROWS
#     --fill indexed --secondary random:27,time --payload 80 --batch 1000 -c 1
#     -T 60s --rounds 1 --shared-buffers 128MB --cache-mode warm
#     --pg-conf max_wal_size=1GB --pg-conf checkpoint_timeout=5min
#
# (the prefill of ROWS, default 9M, is COPY into the indexed table, which
# grows every index as inserts do; the measured window then inserts in
# batches of 1,000 on one connection, from ROWS to about ROWS + 1M, each
# checkpoint at PostgreSQL's defaults, as theirs were). It prints both,
# with the differences of method.
#
# Usage: bench/vs-gumbokim.sh [ROWS] [OUT]   (about 45 minutes at 9M rows on 2 cores)
set -euo pipefail
rows=${1:-9000000}
out=${2:-$(mktemp -d)/run}
cd "$(dirname "$0")/.."
go build -o /tmp/keybench-vs-gumbokim ./cmd/keybench
/tmp/keybench-vs-gumbokim run insert --keys bigint,uuidv7,uuidv4,nanoid,cuid2 --rows "$rows" --fill indexed \
  --secondary random:27,time --payload 80 --batch 1000 -c 1 -T 60s --warmup 5s --rounds 1 \
  --shared-buffers 128MB --cache-mode warm --pg-conf max_wal_size=1GB --pg-conf checkpoint_timeout=5min \
  --out "$out" >/dev/null
python3 - "$out/results.json" <<'PY'
import json, sys
# GUMBOKIM/database-id-benchmark, results/pg-full-2/summary.csv, rep 3, n = 10,000,000:
# pk_leaf_density (%) and bulk_wal_bytes (WAL bytes per row of the load from 7.94M rows).
theirs = {"bigint": ("autoinc", 90.0, 9023.7), "uuidv7": ("uuidv7", 90.0, 9213.0), "uuidv4": ("uuidv4", 70.2, 14338.1),
          "nanoid": ("nanoid", 69.5, 14733.8), "cuid2": ("cuid2", 69.7, 15063.0)}
r = json.load(open(sys.argv[1]))
def get(m, k):
    v = m.get(k)
    return v if isinstance(v, (int, float)) else None
rows = {}
for c in r["cells"]:
    m = c["metrics"]
    rows[c["key"]] = (c["rows_before"], c["rows_before"] + c["rows_inserted"], get(m, "leaf_density"), get(m, "wal_bytes_per_row"), get(m, "wal_fpi_per_row"))
base = rows.get("bigint")
# The WAL a key adds over bigint's is the key's own; the rest (bigint's) is
# the table's, its email index's full-page images above all, which depend on
# how many rows fall between two checkpoints in each setup.
print("%-7s %-8s %11s %9s %16s %16s %18s %18s" % ("key", "theirs", "leaf: theirs", "keybench", "WAL/row: theirs", "keybench", "over bigint: theirs", "keybench"))
for k, (name, density, wal) in theirs.items():
    if k not in rows:
        continue
    lo, hi, d, w, fpi = rows[k]
    over = wal - theirs["bigint"][2]
    ours = (w - base[3]) if base and w is not None and base[3] is not None else float("nan")
    print("%-7s %-8s %11.1f%% %8.1f%% %14.0f B %9.0f B (%.2f FPI) %16.0f B %16.0f B" % (
        k, name, density, (d or 0) * 100, wal, w or 0, fpi or 0, over, ours))
lo = min(v[0] for v in rows.values()); hi = max(v[1] for v in rows.values())
print("keybench: %s rows before the window, %s after (theirs: 10,000,000; their WAL over 7.94M-10M rows)" % (f"{lo:,}", f"{hi:,}"))
PY
