#!/usr/bin/env bash
# Does keybench leave a user's database exactly as it found it? The trials of
# issue 10, with the real pg_dump: a role with only CREATE on a database of
# "someone else's" (a table of orders, a schema of theirs), then
#   1. run --keep, the user puts a table in the kept schema and a view on it
#      in public, then a second run in that schema (refused), then --force;
#   2. SIGINT during a 2M-row prefill;
#   3. pg_terminate_backend of keybench's backends during a prefill.
# pg_dump of the database before and after each is compared (pg_dump's
# random \restrict lines aside). Needs Debian's pg_dump (installed if
# missing); the server is an embedded PostgreSQL of the same major.
#
# Usage: bench/user-data-trial.sh
set -euo pipefail
major=$( (pg_dump --version 2>/dev/null || echo "pg_dump (PostgreSQL) 15") | sed 's/.*) \([0-9]*\).*/\1/')
KB_SERVER_ARGS="--pg-version $major --tcp"
source "$(dirname "$0")/lib.sh"
PG_DUMP=$(need_pg_tool pg_dump)
PSQL=$(need_pg_tool psql)
tcp=$(sed -n 's/^TCP: //p' "$WORK/server.out")
hostport=${tcp#*@}; hostport=${hostport%%/*}
user_dsn="postgres://kbuser:Trial-pw-1@$hostport/appdb?sslmode=disable"
sql() { "$PSQL" -qXAt -v ON_ERROR_STOP=1 -d "${2:-appdb}" -c "$1"; }
dump() { "$PG_DUMP" -d appdb | grep -v '^\\\(un\)\?restrict' >"$WORK/$1.sql"; }
same() {
  if cmp -s "$WORK/$1.sql" "$WORK/$2.sql"; then echo "  pg_dump $1 = $2: identical ($(wc -l <"$WORK/$1.sql") lines)"
  else echo "  pg_dump $1 != $2:"; diff "$WORK/$1.sql" "$WORK/$2.sql" | head -20; fail=1; fi
}
fail=0
"$PSQL" -qX -v ON_ERROR_STOP=1 -d postgres <<SQL
CREATE DATABASE appdb;
CREATE ROLE kbuser LOGIN PASSWORD 'Trial-pw-1' NOSUPERUSER NOCREATEDB NOCREATEROLE;
GRANT CREATE ON DATABASE appdb TO kbuser;
SQL
"$PSQL" -qX -v ON_ERROR_STOP=1 -d appdb <<SQL
CREATE SCHEMA app;
CREATE TABLE app.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
INSERT INTO app.orders (note) SELECT 'order ' || i FROM generate_series(1, 5000) i;
CREATE VIEW app.recent AS SELECT * FROM app.orders WHERE id > 4000;
CREATE SCHEMA theirs; GRANT USAGE, CREATE ON SCHEMA theirs, public TO kbuser;
CREATE TABLE theirs.keep_me AS SELECT 1 AS x;
SQL
kb() { "$KB" run "$@" --dsn "$user_dsn" --out "$WORK/out-$RANDOM" >/dev/null 2>"$WORK/kb.err"; }
echo "server: PostgreSQL $(sql 'show server_version' postgres); pg_dump: $("$PG_DUMP" --version)"

echo "1. --keep, the user's table and view, a second run, --force"
kb insert --schema kbkeep --keep --keys bigint -T 1s --rows 0 || { echo "  --keep run failed: $(tail -1 "$WORK/kb.err")"; fail=1; }
PGUSER=kbuser PGPASSWORD=Trial-pw-1 PGHOST=127.0.0.1 PGPORT=${hostport##*:} "$PSQL" -qX -v ON_ERROR_STOP=1 -d appdb \
  -c "CREATE TABLE kbkeep.userdata AS SELECT i, md5(i::text) AS v FROM generate_series(1, 100) i" \
  -c "CREATE VIEW public.userview AS SELECT * FROM kbkeep.userdata"
dump keep-before
set +e; kb insert --schema kbkeep --keys bigint -T 1s --rows 0; code=$?; set -e
echo "  second run in the kept schema: exit $code: $(tail -1 "$WORK/kb.err")"
[ "$code" = 2 ] || fail=1
dump keep-after; same keep-before keep-after
set +e; kb insert --schema kbkeep --force --keys bigint,seq-uuid-time:gen=server -T 1s --rows 0; code=$?; set -e
echo "  --force beside the user's objects: exit $code; userview rows: $(sql 'SELECT count(*) FROM public.userview'); keybench objects left in kbkeep: $(sql "SELECT count(*) FROM pg_class WHERE relnamespace = 'kbkeep'::regnamespace AND relname LIKE 'kb\_%'") relations, $(sql "SELECT count(*) FROM pg_extension WHERE extnamespace = 'kbkeep'::regnamespace") extensions"
sql "DROP VIEW public.userview; DROP SCHEMA kbkeep CASCADE"

for trial in sigint terminate; do
  echo "2/3. $trial during a 2M-row prefill"
  dump $trial-before
  "$KB" run insert-read --dsn "$user_dsn" --schema kbtrial --rows 2000000 --keys uuidv4:as=text -T 5s --out "$WORK/out-$trial" >/dev/null 2>"$WORK/kb.err" & pid=$!
  for _ in $(seq 600); do
    [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'keybench%' AND (query ILIKE 'copy%' OR query ILIKE 'insert%') AND state = 'active'")" -gt 0 ] && break; sleep 0.1
  done
  sleep 0.5
  if [ $trial = sigint ]; then kill -INT $pid; else sql "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'keybench%'" >/dev/null; fi
  set +e; wait $pid; code=$?; set -e
  echo "  exit $code: $(grep -h 'keybench: \|left' "$WORK/kb.err" | tail -1)"
  dump $trial-after; same $trial-before $trial-after
done
[ $fail = 0 ] && echo "all trials: the user's database as it was" || { echo "a trial changed the database"; exit 1; }
