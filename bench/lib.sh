# Shared by the bench scripts: build keybench, start one embedded server, export its PG* variables.
# Sets: KB (the keybench binary), DSN, WORK (a temporary directory removed on exit).
# KB_SERVER_ARGS are passed to 'keybench server' (e.g. --pg-version 15 --tcp).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
WORK=$(mktemp -d)
trap 'kill $KB_SERVER 2>/dev/null; wait $KB_SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
go build -o "$WORK/keybench" ./cmd/keybench
KB="$WORK/keybench"
"$KB" server ${KB_SERVER_ARGS:-} >"$WORK/server.out" 2>"$WORK/server.err" & KB_SERVER=$!
for _ in $(seq 600); do grep -q '^DSN: ' "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
DSN=$(sed -n 's/^DSN: //p' "$WORK/server.out")
[ -n "$DSN" ] || { echo "server did not start: $(cat "$WORK/server.err")" >&2; exit 1; }
export PGHOST=$(sed 's/.*host=\([^ ]*\).*/\1/' <<<"$DSN") PGPORT=$(sed 's/.*port=\([^ ]*\).*/\1/' <<<"$DSN") PGUSER=keybench PGDATABASE=postgres

# psql from Debian's PostgreSQL client packages, installed if missing.
find_pg_tool() {
  local t=$1
  command -v "$t" >/dev/null 2>&1 && "$t" --version >/dev/null 2>&1 && { command -v "$t"; return; }
  ls /usr/lib/postgresql/*/bin/"$t" 2>/dev/null | sort -V | tail -1
}
need_pg_tool() {
  local p; p=$(find_pg_tool "$1" || true)
  if [ -z "$p" ]; then
    echo "installing $1 from Debian's PostgreSQL packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq postgresql-client >/dev/null
    p=$(find_pg_tool "$1" || true)
    if [ -z "$p" ]; then apt-get install -y -qq --no-install-recommends postgresql >/dev/null; p=$(find_pg_tool "$1"); fi
  fi
  echo "$p"
}
# kb_json FILE EXPR: evaluate a Python expression over results.json (as r).
kb_json() { python3 -c "import json,sys; r=json.load(open('$1')); print($2)"; }

# statements_db NAME: a database NAME with pg_stat_statements and a uuid7()
# SQL function (a uuid v7 from the clock), made the session's PGDATABASE;
# PSQL and PGBENCH set to Debian's tools.
statements_db() {
  PSQL=$(need_pg_tool psql)
  PGBENCH=$(need_pg_tool pgbench)
  "$PSQL" -qX -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $1"
  export PGDATABASE=$1
  "$PSQL" -qX -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION pg_stat_statements;
CREATE FUNCTION uuid7() RETURNS uuid LANGUAGE sql VOLATILE AS
  $$SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
     substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::int8) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid$$;
SQL
}
