#!/usr/bin/env bash
# keybench on a real Citus: builds Citus from its source against Debian's
# PostgreSQL 15, starts a coordinator and two workers on loopback (each its
# own PostgreSQL 15 cluster, run as an unprivileged user), and runs a
# keybench preset against the coordinator twice: distributed by the key
# (--distribute) and by a tenant (--distribute-by tenant, Citus's
# multi-tenant model). keybench reads each worker (its key index, splits,
# images, WAL and CPU there, each shard's rows and each round's inserts:
# the spread); the script prints those tables, then checks that nothing of
# keybench is left on any node. keybench's own statements on a worker only
# read (and its CHECKPOINT before and after each round); what the workers
# receive of its run comes through the coordinator — its schema's CREATE
# and DROP, the extensions it creates, each cell's shards (CREATE TABLE,
# indexes, COPY, the evidence's REINDEX, DROP) — and the script prints it. CI cannot fetch Citus's source, so this is
# a bench script, not a test.
#
# Usage: bench/citus.sh CITUS_SOURCE_DIR [PRESET] [keybench run flags...]
#   CITUS_SOURCE_DIR  a checkout of github.com/citusdata/citus at a release
#                     that supports PostgreSQL 15 (13.2.x: git checkout v13.2.2)
#   PRESET            war (default) or reads, or any scenario
# Environment: SHARDS (default 8) is --shard-count; TENANTS (default 1000)
# --tenants of the second run (TENANTS=0 skips it); SHARED_BUFFERS (default
# 64MB) each node's shared_buffers; KEEP=1 leaves the
# cluster running (its directory is printed); PG_BIN overrides
# /usr/lib/postgresql/15/bin.
#
# Needs (as root, once): apt-get install postgresql-15 postgresql-server-dev-15
#   liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev build-essential
set -euo pipefail
src=${1:?usage: bench/citus.sh CITUS_SOURCE_DIR [PRESET] [flags...]}
shift
preset=${1:-war}
[ $# -gt 0 ] && shift
src=$(cd "$src" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG=$PG_BIN/pg_config
[ -x "$PG_CONFIG" ] || { echo "citus.sh: no $PG_CONFIG (apt-get install postgresql-server-dev-15)" >&2; exit 2; }
shards=${SHARDS:-8}
user=${PGUSER_OS:-keybench-pg}

# 1. Build and install Citus (skipped when this very source is installed).
stamp="$($PG_CONFIG --pkglibdir)/citus.so.keybench-src"
want="$src $(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== building Citus from $src against $($PG_CONFIG --version)"
  # Recent PostgreSQL 15 releases (15.20 here) export have_createdb_privilege(), which
  # Citus 13.2's compatibility header still defines as a static copy for
  # 15: the two clash. Rename Citus's copy (unused then); PostgreSQL's own
  # is the same function.
  compat=$src/src/include/pg_version_compat.h
  if grep -q "extern bool have_createdb_privilege" "$($PG_CONFIG --includedir-server)/commands/dbcommands.h" &&
     grep -q "^have_createdb_privilege(void)" "$compat"; then
    echo "   patching $compat: PostgreSQL $($PG_CONFIG --version | awk '{print $2}') has have_createdb_privilege() of its own"
    sed -i 's/^have_createdb_privilege(void)/citus_compat_have_createdb_privilege_unused(void)/' "$compat"
  fi
  (cd "$src" && ./configure PG_CONFIG="$PG_CONFIG" >/tmp/citus-configure.log 2>&1 \
     || { tail -20 /tmp/citus-configure.log; exit 1; }
   make -s -j"$(nproc)" >/tmp/citus-make.log 2>&1 || { tail -30 /tmp/citus-make.log; exit 1; }
   make -s install >/tmp/citus-install.log 2>&1 || { tail -20 /tmp/citus-install.log; exit 1; })
  echo "$want" >"$stamp"
fi

# 2. A coordinator and two workers, each a PostgreSQL 15 cluster on loopback.
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
dir=$(mktemp -d /tmp/keybench-citus-XXXXXX)
chown "$user" "$dir"
as() { runuser -u "$user" -- "$@"; }
ports=(0 0 0)
for i in 0 1 2; do ports[$i]=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'); done
names=(coordinator worker1 worker2)
stop() {
  for i in 0 1 2; do as "$PG_BIN/pg_ctl" -D "$dir/${names[$i]}" -m fast stop >/dev/null 2>&1 || true; done
  rm -rf "$dir"
}
if [ "${KEEP:-0}" != 1 ]; then trap stop EXIT; fi
for i in 0 1 2; do
  n=${names[$i]}
  as "$PG_BIN/initdb" -D "$dir/$n" -U postgres --auth=trust --no-sync -E UTF8 --locale=C >/dev/null
  cat >>"$dir/$n/postgresql.conf" <<CONF
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
port = ${ports[$i]}
unix_socket_directories = '$dir'
shared_buffers = ${SHARED_BUFFERS:-64MB}
max_wal_size = 4GB
checkpoint_timeout = 30min
max_connections = 200
track_io_timing = on
track_wal_io_timing = on
CONF
  as "$PG_BIN/pg_ctl" -D "$dir/$n" -l "$dir/$n.log" -w start >/dev/null
done
psqlc() { as "$PG_BIN/psql" -qAtX -h 127.0.0.1 -p "$1" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "$2"; }
for i in 0 1 2; do psqlc "${ports[$i]}" "CREATE EXTENSION citus"; done
psqlc "${ports[0]}" "SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]})" >/dev/null
for i in 1 2; do psqlc "${ports[0]}" "SELECT citus_add_node('127.0.0.1', ${ports[$i]})" >/dev/null; done
echo "== Citus $(psqlc "${ports[0]}" "SELECT extversion FROM pg_extension WHERE extname = 'citus'") on PostgreSQL $(psqlc "${ports[0]}" "SHOW server_version"): coordinator :${ports[0]}, workers :${ports[1]} :${ports[2]} ($dir)"
psqlc "${ports[0]}" "SELECT nodename || ':' || nodeport || ' ' || noderole FROM pg_dist_node ORDER BY nodeid"

# 3. keybench against the coordinator, each cell's table distributed on its
#    key, then on a tenant; each run's tables of every worker.
out=$dir/results
(cd "$here" && go build -o "$dir/keybench" ./cmd/keybench)
dsn="postgres://postgres@127.0.0.1:${ports[0]}/postgres?sslmode=disable"
runs=(key)
[ "${TENANTS:-1000}" != 0 ] && runs+=(tenant)
for by in "${runs[@]}"; do
  extra=()
  [ "$by" = tenant ] && extra=(--distribute-by tenant --tenants "${TENANTS:-1000}")
  echo "== $preset, distributed by $by"
  "$dir/keybench" --wide run "$preset" --dsn "$dsn" --distribute --shard-count "$shards" "${extra[@]}" --out "$out/$by" "$@"
  echo "== $preset, distributed by $by: what each worker saw"
  "$dir/keybench" --wide report "$out/$by/results.json" | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
start = [i for i, l in enumerate(lines) if "WORKERS: KEY" in l]
end = [i for i, l in enumerate(lines) if "│ KEY " in l and "│ COLUMN " in l] + [len(lines) + 1]
print("\n".join(lines[start[0] - 1:end[0] - 1]) if start else "no worker was read")'
done

# 4. Nothing of keybench left: no shard on the coordinator's books, no
#    schema or relation of keybench's on any node.
left=$(psqlc "${ports[0]}" "SELECT count(*) FROM pg_dist_shard s JOIN pg_class c ON c.oid = s.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'keybench'")
echo "== left behind: $left shards of keybench's on the coordinator's books"
echo "   what a run makes happen on a worker: keybench reads there (its collectors, pgstatindex, pg_walinspect, pg_stat_*) and runs a CHECKPOINT before and after each round;"
echo "   through the coordinator, Citus passes on keybench's CREATE SCHEMA and DROP SCHEMA, its CREATE EXTENSION of pg_buffercache, pgstattuple and pg_walinspect"
echo "   (left there with the schema under --keep), and each cell's shards: CREATE TABLE, their indexes, the prefill's COPY, the evidence's REINDEX, DROP TABLE"
for i in 0 1 2; do
  n=$(psqlc "${ports[$i]}" "SET citus.show_shards_for_app_name_prefixes = '*'; SELECT count(*) FROM pg_namespace WHERE nspname = 'keybench'")
  r=$(psqlc "${ports[$i]}" "SET citus.show_shards_for_app_name_prefixes = '*'; SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'keybench'")
  x=$(psqlc "${ports[$i]}" "SELECT count(*) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE n.nspname = 'keybench'")
  echo "   ${names[$i]} :${ports[$i]}: keybench schema $n, relations in it $r, extensions in it $x"
done
echo "== results: $out"
cp -r "$out" "/tmp/keybench-citus-results-$(date +%s)"
