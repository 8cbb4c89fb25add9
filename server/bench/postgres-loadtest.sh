#!/usr/bin/env bash
# shaderwatch-server-loadtest against PostgreSQL on this machine: a throwaway cluster with the server's
# default durability (fsync, synchronous commit), one empty database, the load test's options passed on.
# Usage: bash server/bench/postgres-loadtest.sh BUILD_DIR [--instances 2] [loadtest options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: postgres-loadtest.sh BUILD_DIR [loadtest options...]}
shift
export SW_TEST_POSTGRES_SETTINGS="-c shared_buffers=256MB"
exec bash "$here/../../tests/server/with_postgres.sh" bash -c '
  set -euo pipefail
  psql -q -h "$SW_TEST_POSTGRES_SOCKET" -U sw -d postgres -c "CREATE DATABASE load"
  host=$(printf %s "$SW_TEST_POSTGRES_SOCKET" | sed "s#/#%2F#g")
  "$0/server/shaderwatch-server-loadtest" --db "postgresql://sw@$host/load" "$@"
' "$build" "$@"
