#!/usr/bin/env bash
# Sign-in ceremonies end to end on two passkeyd nodes sharing one PostgreSQL database, next to one node on SQLite,
# in the same run. Starts a throwaway PostgreSQL cluster (PostgreSQL's default durability: fsync and
# synchronous_commit on), one node on SQLite and two on the cluster's database (each 2 event-loop threads, its own
# data folder, rate limits lifted), then runs passkeyd-loadgen in alternating rounds against the SQLite node and
# against both PostgreSQL nodes at once, each ceremony taking its options from one node and posting its
# verification to the other. Prints every round, the means, and
# `RATIO two-nodes-postgres-vs-one-node-sqlite <ceremonies/s on the two PostgreSQL nodes ÷ on the SQLite node>`.
# Everything listens on 127.0.0.1; on exit the nodes are stopped by pid, PostgreSQL with `pg_ctl -m fast stop`, and
# the temporary folder is removed. Knobs (environment): ROUNDS (default 2), LOAD_CONNECTIONS (8), LOAD_SECONDS (8),
# BENCH_TMPDIR (parent of the temporary folder, which holds both databases), PASSKEYD_BIN (a passkeyd to measure),
# LOAD_PASSKEYS (1: every ceremony signs in with the same passkey, so every final write updates one credential row;
# with N, the connections sign in with N passkeys of N accounts).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ROUNDS=${ROUNDS:-2}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}
LOAD_PASSKEYS=${LOAD_PASSKEYS:-1}

# PostgreSQL's server programs: `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
postgres_bin=$(pg_config --bindir 2>/dev/null || true)
if [ ! -x "$postgres_bin/initdb" ]; then
    postgres_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
[ -x "$postgres_bin/initdb" ] || { echo "no PostgreSQL server (initdb) found: install Debian's postgresql" >&2; exit 1; }

# PostgreSQL refuses to run as root: as root, its programs run as the postgres system user.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

build_release

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-nodes.XXXXXX")
cluster=$work/postgres
passkeyd_pids=""
stop() {
    for pid in $passkeyd_pids; do stop_process "$pid"; done
    if [ -f "$cluster/data/postmaster.pid" ]; then
        as_postgres "$postgres_bin/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$work"
}
trap stop EXIT

# The throwaway cluster: trust authentication, TCP on 127.0.0.1 only, no Unix socket, default durability.
mkdir "$cluster"
if [ "$(id -u)" = 0 ]; then
    chmod 711 "$work"
    chown postgres:postgres "$cluster"
fi
as_postgres "$postgres_bin/initdb" -D "$cluster/data" -U passkeyd -A trust -E UTF8 >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; exit 1; }
postgres_port=$(free_port)
as_postgres "$postgres_bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w start \
    -o "-c listen_addresses=127.0.0.1 -p $postgres_port -c unix_socket_directories='' -c max_connections=200" >/dev/null \
    || { cat "$cluster/server.log" >&2; exit 1; }
"$postgres_bin/createdb" -h 127.0.0.1 -p "$postgres_port" -U passkeyd passkeyd
database="\"database\": {\"postgres\": \"host=127.0.0.1 port=$postgres_port user=passkeyd dbname=passkeyd\"}"

# start_node NAME [MEMBER]: one passkeyd node with its own data folder, configuration and log; sets node_port.
start_node() {
    node_port=$(free_port)
    write_config "$node_port" "$work/$1" "$work/$1.json" "${2:-}"
    "$PASSKEYD_BIN" serve --config "$work/$1.json" 2>"$work/$1.log" &
    passkeyd_pids="$passkeyd_pids $!"
    wait_for "https://127.0.0.1:$node_port/healthz" "$work/$1.log"
}
start_node sqlite-node
sqlite_port=$node_port
start_node postgres-node-1 "$database"
postgres_ports=$node_port
start_node postgres-node-2 "$database"
postgres_ports=$postgres_ports,$node_port

# load SETUP PORTS: one loadgen run, its output indented; appends "SETUP ceremonies/s p50 p99" to the results.
# On failure, the end of each node's log too (a refused verification names its step there).
load() {
    local output status=0
    output=$(./.build/release/passkeyd-loadgen --ports "$2" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 --passkeys "$LOAD_PASSKEYS") || status=$?
    sed 's/^/    /' <<<"$output"
    if [ "$status" != 0 ]; then tail -n 5 "$work"/*-node*.log >&2; exit "$status"; fi
    sed -n 's|^login ceremonies: \([0-9.]*\)/s.* p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*|'"$1"' \1 \2 \3|p' <<<"$output" >>"$work/results"
}

echo "login ceremonies: $ROUNDS alternating rounds of $LOAD_SECONDS s on $LOAD_CONNECTIONS connections;" \
    "one node on SQLite (port $sqlite_port), two nodes on PostgreSQL (ports $postgres_ports; the database on $postgres_port)"
for round in $(seq "$ROUNDS"); do
    echo "  round $round, one node on SQLite:"
    load one-node-sqlite "$sqlite_port"
    echo "  round $round, two nodes on PostgreSQL:"
    load two-nodes-postgres "$postgres_ports"
done
awk -v rounds="$ROUNDS" '
    { rate[$1] += $2; p50[$1] += $3; p99[$1] += $4; runs[$1]++ }
    END {
        if (runs["one-node-sqlite"] != rounds || runs["two-nodes-postgres"] != rounds) { print "missing results" > "/dev/stderr"; exit 1 }
        split("one-node-sqlite two-nodes-postgres", setups, " ")
        for (i = 1; i <= 2; i++) {
            s = setups[i]
            printf "%s %.0f ceremonies/s, p50 %.2f ms, p99 %.2f ms (means of %d rounds)\n", s, rate[s] / rounds, p50[s] / rounds, p99[s] / rounds, rounds
        }
        printf "RATIO two-nodes-postgres-vs-one-node-sqlite %.3f\n", rate["two-nodes-postgres"] / rate["one-node-sqlite"]
    }' "$work/results"
for pid in $passkeyd_pids; do kill -0 "$pid" 2>/dev/null || { echo "a passkeyd node (pid $pid) is no longer running" >&2; exit 1; }; done
echo "server errors logged: $(cat "$work"/*-node*.log | grep -c -e storage_unavailable -e internal_error || true)"
