#!/usr/bin/env bash
# The scale of advise over a fleet (issue 79): DBS databases of TABLES tables
# each (default 100 × 100) on one PostgreSQL 15 (Debian's where installed,
# else the embedded 15), read as one fleet from a --dsn-file, a few at a
# time (--parallel), over one short sample window. Each database holds the
# same shapes, copied from a template:
#   sessions_N   a uuid v4 key, 40,000 rows (it pays in size), TABLES/20 of them;
#   tickets      an int4 serial key, 1,000 rows, its sequence near its end;
#   orders_N     a bigint identity key, 200 rows, the rest of the tables.
# In database 57 a pgbench writer inserts into tickets at 50/s during the run:
# its key runs out in about 20 minutes, and the fleet's list must lead with it.
# A side session looks at pg_stat_activity every 100 ms for advise's open
# transactions and keeps the longest it saw.
# It prints the wall time, the time per database, keybench's own CPU, the
# time to the window (every database's tables read) and the window's own,
# the longest transaction of advise's seen, and what the list leads with;
# and the machine's load average before, since the machine may be shared.
#
# Usage: bench/advise-fleet.sh [DBS] [TABLES] [SAMPLE] [PARALLEL...]   (default 100 100 5s 4; several
# --parallel values, quoted ("4 8"), each read the same databases in turn)
set -euo pipefail
DBS=${1:-100}
TABLES=${2:-100}
SAMPLE=${3:-5s}
PARALLEL=${4:-4}
PG15=/usr/lib/postgresql/15/bin
if [ -x "$PG15/postgres" ]; then PG="--pg-bin $PG15"; else PG="--pg-version 15"; fi
KB_SERVER_ARGS="$PG --cache-mode warm --pg-conf max_connections=100"
source "$(dirname "$0")/lib.sh"
PSQL=$(need_pg_tool psql)
PGBENCH=$(need_pg_tool pgbench)
RANDOM_TABLES=$((TABLES / 20))
ORDERED_TABLES=$((TABLES - RANDOM_TABLES - 1))

echo "advise-fleet: making $DBS databases of $TABLES tables ($RANDOM_TABLES uuid v4, 1 int4 serial, $ORDERED_TABLES bigint identity)"
made=$(date +%s.%N)
"$PSQL" -qX -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE fleet_template"
"$PSQL" -qX -v ON_ERROR_STOP=1 -d fleet_template <<SQL
DO \$\$
BEGIN
  FOR i IN 1..$RANDOM_TABLES LOOP
    EXECUTE format('CREATE TABLE sessions_%s (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text)', i);
    EXECUTE format('INSERT INTO sessions_%s (note) SELECT ''session '' || g FROM generate_series(1, 40000) g', i);
  END LOOP;
  FOR i IN 1..$ORDERED_TABLES LOOP
    EXECUTE format('CREATE TABLE orders_%s (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text)', i);
    EXECUTE format('INSERT INTO orders_%s (note) SELECT ''order '' || g FROM generate_series(1, 200) g', i);
  END LOOP;
END \$\$;
CREATE TABLE tickets (id serial PRIMARY KEY, note text NOT NULL);
INSERT INTO tickets (note) SELECT 'ticket ' || g FROM generate_series(1, 1000) g;
SELECT setval('tickets_id_seq', 2147483647 - 60000);
VACUUM ANALYZE;
SQL
for i in $(seq -w 1 "$DBS"); do
  echo "CREATE DATABASE app$i TEMPLATE fleet_template STRATEGY FILE_COPY;"
done | "$PSQL" -qX -v ON_ERROR_STOP=1 -d postgres
echo "advise-fleet: made in $(python3 -c "print(f'{$(date +%s.%N) - $made:.1f}')") s"

: >"$WORK/fleet.txt"
echo "# the fleet: one database a line" >>"$WORK/fleet.txt"
for i in $(seq -w 1 "$DBS"); do
  echo "host=$PGHOST port=$PGPORT user=keybench dbname=app$i" >>"$WORK/fleet.txt"
done
HOT=app$(printf "%0${#DBS}d" 57)
[ "$DBS" -ge 57 ] || HOT=app$(printf "%0${#DBS}d" "$DBS")
echo "INSERT INTO tickets (note) VALUES ('new ticket');" >"$WORK/tickets.sql"
"$PGBENCH" -n -f "$WORK/tickets.sql" -c 1 -R 50 -T 3600 "$HOT" >"$WORK/pgbench.out" 2>&1 & WRITER=$!

# measure P: the fleet read with --parallel P, and what it took.
measure() {
  local parallel=$1
  # The longest transaction of advise's open at any look, and its statement.
  "$PSQL" -qXAt -d postgres >"$WORK/longest.txt" 2>&1 <<'SQL' & WATCH=$!
CREATE TEMP TABLE seen (ms float8, query text);
DO $$
BEGIN
  LOOP
    INSERT INTO seen SELECT extract(epoch FROM clock_timestamp() - xact_start) * 1000, state || ': ' || left(regexp_replace(query, '\s+', ' ', 'g'), 60)
      FROM pg_stat_activity WHERE application_name = 'keybench advise' AND xact_start IS NOT NULL;
    COMMIT; -- a new transaction: pg_stat_activity read anew
    PERFORM pg_sleep(0.1);
    EXIT WHEN EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'advise-fleet done');
  END LOOP;
END $$;
SELECT (SELECT count(*) FROM seen) || ' ' || coalesce((SELECT ms::int || ' ' || query FROM seen ORDER BY ms DESC LIMIT 1), '0 -');
SQL
  sleep 2
  local load start end code window_at server_cpu
  load=$(cut -d' ' -f1 /proc/loadavg)
  server_cpu=$(children_cpu)
  start=$(date +%s.%N)
  set +e
  /usr/bin/time -f "%U %S" -o "$WORK/cpu.txt" "$KB" advise --dsn-file "$WORK/fleet.txt" --sample "$SAMPLE" --parallel "$parallel" --json \
    >"$WORK/fleet.json" 2> >(stamp >"$WORK/advise.err")
  code=$?
  set -e
  end=$(date +%s.%N)
  PGAPPNAME='advise-fleet done' "$PSQL" -qXAt -d postgres -c "SELECT pg_sleep(0.5)" >/dev/null
  wait $WATCH || true
  server_cpu=$(python3 -c "print(f'{$(children_cpu) - $server_cpu:.1f}')")
  window_at=$(grep -m1 'over one window' "$WORK/advise.err" | cut -d' ' -f1)
  python3 - "$WORK/fleet.json" "$start" "$end" "$window_at" "$code" "$DBS" "$TABLES" "$SAMPLE" "$parallel" "$(tail -1 "$WORK/longest.txt")" "$load" "$(cat "$WORK/cpu.txt")" "$server_cpu" <<'PY'
import json, sys
path, start, end, window_at, code, dbs, tables, sample, parallel, longest, load, cpu, server_cpu = sys.argv[1:]
start, end, window_at = float(start), float(end), float(window_at or end)
f = json.load(open(path))
wall = end - start
read = [d for d in f["databases"] if d.get("report")]
tables_read = sum(len(d["report"]["tables"]) for d in read)
spans = [d["report"]["sample"]["seconds"] for d in read]
first = f["tables"][0] if f["tables"] else None
lead = "nothing"
if first:
    d = f["databases"][first["database"]]
    lead = f'{d["database"]}.{d["report"]["tables"][first["table"]]["name"]} ({first["class"]})'
looks, ms, query = (longest.split(" ", 2) + ["?", "?", "?"])[:3]
user, sys_ = (cpu.split() + ["?", "?"])[:2]
print(f"advise-fleet: {dbs} databases x {tables} tables, --sample {sample}, --parallel {parallel}: exit {code}, status {f['status']} (load average {load} before)")
print(f"  wall time            {wall:.1f} s ({wall / int(dbs) * 1000:.0f} ms a database)")
print(f"  CPU                  keybench {user} s user, {sys_} s system; the server's sessions {server_cpu} s (the watch's with them)")
print(f"  tables read          {tables_read} in {len(read)} databases, {len(f['databases']) - len(read)} not read")
print(f"  to the window        {window_at - start:.1f} s ({(window_at - start) / int(dbs) * 1000:.0f} ms a database: its tables read, {parallel} at a time)")
print(f"  window and after     {end - window_at:.1f} s (each database's sample spans {min(spans):.1f}-{max(spans):.1f} s)")
print(f"  longest transaction  {ms} ms of advise's open ({looks} looks at its sessions every 100 ms; it was {query})")
print(f"  the list leads with  {lead}; {len(f['tables'])} tables listed; {f.get('others_by_class', {})}")
PY
  [ "$code" = 0 ] || { tail -5 "$WORK/advise.err"; exit 1; }
}

stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }
# children_cpu: the CPU seconds of the server's ended sessions (its postmaster's children's, user and system).
POSTMASTER=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$WORK/server.out" | head -1)
children_cpu() { python3 -c "import os; f=open('/proc/$POSTMASTER/stat').read().rsplit(')', 1)[1].split(); print((int(f[13]) + int(f[14])) / os.sysconf('SC_CLK_TCK'))"; }
for p in $PARALLEL; do measure "$p"; done
kill $WRITER 2>/dev/null || true
