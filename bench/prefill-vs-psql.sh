#!/usr/bin/env bash
# Is keybench's prefill at least as fast as doing it by hand? Loads the same
# rows into the same index-less table (id, data bigint, payload text) by
#   server-made keys: keybench's chunked INSERT ... SELECT vs one psql INSERT ... SELECT;
#   client-made keys: keybench's binary COPY vs psql \copy of a CSV file made beforehand
# and prints keybench's rows/s divided by psql's.
#
# Usage: bench/prefill-vs-psql.sh [ROWS]   (default 1000000)
rows=${1:-1000000}
source "$(dirname "$0")/lib.sh"
PSQL=$(need_pg_tool psql)
now() { date +%s.%N; }

kb_rate() { # KEY -> keybench's prefill rows/s
  rm -rf "$WORK/kb"; "$KB" run insert --dsn "$DSN" --schema kbpre --keys "$1" -c 1 -T 1s --warmup 0s --rows "$rows" --out "$WORK/kb" --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["cells"][0]["prefill"]["rows_per_s"])'
}
fresh() { # TABLE KEYDEF
  "$PSQL" -qX -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<SQL
CREATE SCHEMA IF NOT EXISTS kbpsql; DROP TABLE IF EXISTS kbpsql.$1;
CREATE TABLE kbpsql.$1 (id $2 NOT NULL, data bigint NOT NULL, payload text);
CHECKPOINT;
SQL
}

# Server-made keys (uuidv4 by gen_random_uuid()).
fresh s "uuid DEFAULT gen_random_uuid()"
t0=$(now)
"$PSQL" -qX -v ON_ERROR_STOP=1 -c "INSERT INTO kbpsql.s (data, payload) SELECT (i % $rows) * 2147483647 % $rows + 1, left(repeat(md5(i::text), 1), 32) FROM generate_series(1::bigint, $rows) i" >/dev/null
t1=$(now)
psql_is=$(python3 -c "print($rows/($t1-$t0))")
kb_is=$(kb_rate uuidv4)
printf 'INSERT ... SELECT (uuidv4 made by the server): psql %9.0f rows/s   keybench %9.0f rows/s   ratio %.3f\n' "$psql_is" "$kb_is" "$(python3 -c "print($kb_is/$psql_is)")"

# Client-made keys (uuidv7 by keybench's generator): the CSV is made before the clock starts.
"$KB" gen uuidv7 -n "$rows" | python3 -c '
import sys, hashlib
n = int(sys.argv[1])
out = sys.stdout
for i, line in enumerate(sys.stdin, 1):
    out.write("%s,%d,%s\n" % (line.strip(), (i % n) * 2147483647 % n + 1, hashlib.md5(str(i).encode()).hexdigest()))
' "$rows" >"$WORK/rows.csv"
fresh c uuid
t0=$(now)
"$PSQL" -qX -v ON_ERROR_STOP=1 -c "\\copy kbpsql.c FROM '$WORK/rows.csv' WITH (FORMAT csv)" >/dev/null
t1=$(now)
psql_copy=$(python3 -c "print($rows/($t1-$t0))")
kb_copy=$(kb_rate uuidv7:gen=client)
printf 'COPY (uuidv7 made by keybench):                psql %9.0f rows/s   keybench %9.0f rows/s   ratio %.3f\n' "$psql_copy" "$kb_copy" "$(python3 -c "print($kb_copy/$psql_copy)")"
