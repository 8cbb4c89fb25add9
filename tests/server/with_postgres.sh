#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL cluster (Debian's postgresql package): initdb into a
# temporary directory, the server listening only on a Unix socket there, stopped and removed on exit.
# The command finds the socket directory in SW_TEST_POSTGRES_SOCKET; the cluster's superuser is `sw`,
# with trust authentication on that socket. As root, the cluster runs as the `postgres` user (initdb
# refuses root). SW_TEST_POSTGRES_SETTINGS adds server settings (-c name=value ...); by default the
# cluster does not fsync (a test cluster is thrown away). $SW_TEST_POSTGRES_SOCKET/ctl.sh start|stop starts and
# stops it again.
# Usage: with_postgres.sh COMMAND [ARGS...]
set -euo pipefail
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bindir/initdb" ] || { echo "with_postgres.sh: no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }
dir=$(mktemp -d /tmp/swpg.XXXXXX)
chmod 755 "$dir"
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$dir"
  as_owner=(runuser -u postgres --)
fi
cleanup() {
  "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
if ! "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U sw --auth=trust --locale=C --encoding=UTF8 \
    >"$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log" >&2
  exit 1
fi
settings=${SW_TEST_POSTGRES_SETTINGS:-"-c fsync=off -c synchronous_commit=off -c full_page_writes=off"}
# $dir/ctl.sh start|stop: the cluster started as here, or stopped (fast), for tests of a database outage.
cat >"$dir/ctl.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
case "\$1" in
  start) ${as_owner[*]} "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \\
           -o "-k $dir -c listen_addresses= -c max_connections=300 $settings" start >/dev/null ;;
  stop) ${as_owner[*]} "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null ;;
  *) echo "usage: \$0 start|stop" >&2; exit 2 ;;
esac
EOF
chmod 755 "$dir/ctl.sh"
if ! bash "$dir/ctl.sh" start; then
  cat "$dir/server.log" >&2
  exit 1
fi
export SW_TEST_POSTGRES_SOCKET=$dir
"$@"
