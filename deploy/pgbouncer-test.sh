#!/usr/bin/env bash
# Runs the test suite (or the command given) with every app connection going through
# PgBouncer in transaction mode: a PgBouncer of its own, in a temp folder on a free port, in
# front of the PostgreSQL at PG_HOST:PG_PORT (default 127.0.0.1:5432, user postgres, trust).
# Databases are created and dropped on PostgreSQL directly (TEST_DATABASE_URL); the apps
# connect through PgBouncer (TEST_DATABASE_POOLER_URL) with DB_POOLER=transaction.
#
#   deploy/pgbouncer-test.sh                 # npm test
#   deploy/pgbouncer-test.sh node --import tsx --test test/api/contacts.test.ts
#
# Needs Debian's pgbouncer (1.18 on Debian 12): apt-get install -y pgbouncer.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
PGBOUNCER=${PGBOUNCER:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}
if [ ! -x "$PGBOUNCER" ]; then
  echo "pgbouncer-test: pgbouncer is not installed (Debian: apt-get install -y pgbouncer)" >&2
  exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/engage-pgbouncer.XXXXXX")
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })")
pid=''
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" # SIGINT: PgBouncer's safe shutdown
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

# `*`: every database of the server (each test file makes its own). Transaction mode, a
# pool of 10 server connections per database (the app's own pool size). PgBouncer 1.18
# refuses startup parameters it does not know, which DB_POOLER=transaction no longer sends.
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$PG_HOST port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = 10
max_client_conn = 2000
server_lifetime = 3600
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
log_connections = 0
log_disconnections = 0
INI
echo '"postgres" ""' >"$dir/userlist.txt"

# PgBouncer will not run as root: as root it runs as the postgres system user.
as_user=()
if [ "$(id -u)" = 0 ]; then
  chown -R postgres: "$dir"
  as_user=(-u postgres)
fi
"$PGBOUNCER" "${as_user[@]}" "$dir/pgbouncer.ini" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p "$port" -U postgres -d postgres && break
  sleep 0.1
done
pg_isready -q -h 127.0.0.1 -p "$port" -U postgres -d postgres || { cat "$dir/pgbouncer.log" >&2; exit 1; }
echo "pgbouncer-test: $("$PGBOUNCER" --version | head -1) in transaction mode on 127.0.0.1:$port, in front of $PG_HOST:$PG_PORT"

[ $# -gt 0 ] || set -- npm test
status=0
TEST_DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/postgres" \
TEST_DATABASE_POOLER_URL="postgres://postgres@127.0.0.1:$port/postgres" \
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379} \
  "$@" || status=$?
# Into a file, not through head: under pipefail a pipe that head closes early fails (SIGPIPE).
grep -E 'WARNING|ERROR' "$dir/pgbouncer.log" | grep -v 'client_login_timeout\|closing because: client close request' >"$dir/warnings" || true
if [ -s "$dir/warnings" ]; then
  echo "pgbouncer-test: PgBouncer's warnings and errors (first 20 of $(wc -l <"$dir/warnings")):"
  sed -n 1,20p "$dir/warnings"
fi
exit $status
