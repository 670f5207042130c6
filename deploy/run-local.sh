#!/usr/bin/env bash
# Several nomercy servers on one PostgreSQL database, as plain processes (no containers).
#
#   deploy/run-local.sh            # 2 servers on 127.0.0.1:8001 and :8002, PostgreSQL on :5433
#   NOMERCY_SERVERS=3 NOMERCY_HOST=0.0.0.0 deploy/run-local.sh
#
# Needs PostgreSQL's server (Debian: apt-get install postgresql) and nomercy with the web-pg
# extra on PATH. The cluster lives in $NOMERCY_PG_DATA (./nomercy-pg by default) and is made
# on the first run (as root it runs as the postgres user: initdb refuses root). Put a proxy in
# front (deploy/nginx.conf: round robin over the servers, WebSocket upgrades). Ctrl-C or
# SIGTERM stops the servers one by one (each hands its rooms to the others), then PostgreSQL.
set -euo pipefail

servers=${NOMERCY_SERVERS:-2}
first_port=${NOMERCY_PORT:-8001}
host=${NOMERCY_HOST:-127.0.0.1}
pg_port=${NOMERCY_PG_PORT:-5433}
data=$(realpath -m "${NOMERCY_PG_DATA:-./nomercy-pg}")
bin=${NOMERCY_PG_BIN:-$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)")}
[ -x "$bin/initdb" ] || { echo "run-local: PostgreSQL's server is not installed" >&2; exit 2; }
url="postgresql://nomercy@127.0.0.1:$pg_port/nomercy"

as_pg=()
if [ "$(id -u)" -eq 0 ]; then
    as_pg=(runuser -u postgres --)
fi
mkdir -p "$data"
[ "$(id -u)" -eq 0 ] && chown postgres: "$data"
chmod 700 "$data"
if [ ! -f "$data/PG_VERSION" ]; then
    "${as_pg[@]}" "$bin/initdb" -D "$data" -U nomercy --auth=trust -E UTF8 --locale=C >/dev/null
fi
"${as_pg[@]}" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w \
    -o "-p $pg_port -k $data -c listen_addresses=127.0.0.1" start >/dev/null
pids=()
stop() {
    trap - INT TERM EXIT
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -m fast stop >/dev/null || true
}
trap stop INT TERM EXIT
"${as_pg[@]}" "$bin/psql" -h 127.0.0.1 -p "$pg_port" -U nomercy -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname='nomercy'" | grep -q 1 ||
    "${as_pg[@]}" "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U nomercy nomercy
nomercy db migrate "$url"
for ((i = 0; i < servers; i++)); do
    port=$((first_port + i))
    # --ws-ping 1: deploy/nginx.conf leaves a server silent for 3 s (a frozen one).
    nomercy serve --host "$host" --port "$port" --database "$url" --ws-ping 1 "$@" &
    pids+=($!)
done
echo "run-local: ${servers} servers on ports ${first_port}-$((first_port + servers - 1)), database $url"
wait -n "${pids[@]}" || true
