#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1:${PGPORT:-55432} under $1 (default .tmp/pg)
# and prints the DATABASE_URL for it. Idempotent: a cluster already running there is reused.
set -euo pipefail
dir=$(realpath -m "${1:-.tmp/pg}")
port=${PGPORT:-55432}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
run_as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then install -d -o postgres -g postgres "$dir"; else mkdir -p "$dir"; fi
if [ ! -f "$dir/data/PG_VERSION" ]; then
  run_as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! run_as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  run_as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c max_connections=200 -c fsync=on" start >/dev/null
fi
echo "postgres://postgres@127.0.0.1:$port/postgres"
