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
# LOAD_PASSKEYS (default LOAD_CONNECTIONS: each connection signs in with a passkey of its own account, as different
# people do; with 1, every ceremony signs in with the same passkey, so every final write updates one credential row
# and, on PostgreSQL, waits for the row lock of the one before it until that one's commit is flushed).
# Each round also prints the server CPU per ceremony (user + system time from /proc: the SQLite node; the two
# PostgreSQL nodes and PostgreSQL's processes apart) and, for PostgreSQL, the commits and WAL flushes per ceremony
# (pg_stat_database, pg_stat_wal): where the two-node figure's time goes on a machine whose cores they all share.
# At the end, PostgreSQL's own floor on the same cluster: pgbench's simple-update transaction, its CPU per transaction
# next to the PostgreSQL CPU per ceremony of the two-node rounds.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ROUNDS=${ROUNDS:-2}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}
LOAD_PASSKEYS=${LOAD_PASSKEYS:-$LOAD_CONNECTIONS}

build_release

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-nodes.XXXXXX")
passkeyd_pids=""
stop() {
    for pid in $passkeyd_pids; do stop_process "$pid"; done
    stop_postgres_cluster
    rm -rf "$work"
}
trap stop EXIT

# The throwaway cluster (bench/lib.sh): trust authentication, TCP on 127.0.0.1 only, no Unix socket, default durability.
start_postgres_cluster "$work"
cluster=$postgres_cluster
database=$postgres_database

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
sqlite_pid=$!
start_node postgres-node-1 "$database"
postgres_ports=$node_port
postgres_node_pids=$!
start_node postgres-node-2 "$database"
postgres_ports=$postgres_ports,$node_port
postgres_node_pids="$postgres_node_pids $!"

# cpu_ticks PID...: user + system clock ticks of the processes, with those of their waited-for children (the
# postmaster's exited backends).
cpu_ticks() {
    local pid total=0 fields
    for pid in "$@"; do
        read -r -a fields <"/proc/$pid/stat" || continue
        total=$((total + fields[13] + fields[14] + fields[15] + fields[16]))
    done
    echo "$total"
}
tick_milliseconds=$(echo "1000 / $(getconf CLK_TCK)" | bc -l)
# PostgreSQL's processes now: the postmaster and its children (backends, WAL writer, checkpointer, …).
postgres_pids() {
    local postmaster
    postmaster=$(head -n 1 "$cluster/data/postmaster.pid")
    echo "$postmaster" $(pgrep -P "$postmaster")
}
postgres_counters() {
    "$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d passkeyd -At -F ' ' \
        -c "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), wal_sync FROM pg_stat_wal"
}

# load SETUP PORTS PIDS: one loadgen run, its output indented, then the CPU per ceremony of the nodes PIDS (and for
# PostgreSQL of its processes, with commits and WAL flushes per ceremony); appends "SETUP ceremonies/s p50 p99" to
# the results. The warm-up is run and measured apart. On failure, the end of each node's log too (a refused
# verification names its step there).
load() {
    local output status=0 nodes_before postgres_before counters_before ceremonies line
    ./.build/release/passkeyd-loadgen --ports "$2" --connections "$LOAD_CONNECTIONS" --seconds 2 --warm-up 0 --passkeys "$LOAD_PASSKEYS" >/dev/null \
        || { tail -n 5 "$work"/*-node*.log >&2; exit 1; }
    nodes_before=$(cpu_ticks $3)
    if [ "$1" = two-nodes-postgres ]; then postgres_before=$(cpu_ticks $(postgres_pids)); counters_before=$(postgres_counters); fi
    output=$(./.build/release/passkeyd-loadgen --ports "$2" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 0 --passkeys "$LOAD_PASSKEYS") || status=$?
    sed 's/^/    /' <<<"$output"
    if [ "$status" != 0 ]; then tail -n 5 "$work"/*-node*.log >&2; exit "$status"; fi
    ceremonies=$(sed -n 's|^login ceremonies: \([0-9.]*\)/s.*|\1|p' <<<"$output")
    ceremonies=$(echo "$ceremonies * $LOAD_SECONDS" | bc -l)
    line=$(printf 'server CPU per ceremony: nodes %.3f ms' "$(echo "($(cpu_ticks $3) - $nodes_before) * $tick_milliseconds / $ceremonies" | bc -l)")
    if [ "$1" = two-nodes-postgres ]; then
        read -r commits_before syncs_before <<<"$counters_before"
        read -r commits_after syncs_after <<<"$(postgres_counters)"
        postgres_milliseconds=$(echo "($(cpu_ticks $(postgres_pids)) - $postgres_before) * $tick_milliseconds / $ceremonies" | bc -l)
        echo "$postgres_milliseconds" >>"$work/postgres-cpu"
        line=$(printf '%s, PostgreSQL %.3f ms; per ceremony %.2f commits, %.2f WAL flushes' "$line" "$postgres_milliseconds" \
            "$(echo "($commits_after - $commits_before) / $ceremonies" | bc -l)" "$(echo "($syncs_after - $syncs_before) / $ceremonies" | bc -l)")
    fi
    echo "    $line"
    sed -n 's|^login ceremonies: \([0-9.]*\)/s.* p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*|'"$1"' \1 \2 \3|p' <<<"$output" >>"$work/results"
}

echo "login ceremonies: $ROUNDS alternating rounds of $LOAD_SECONDS s on $LOAD_CONNECTIONS connections;" \
    "one node on SQLite (port $sqlite_port), two nodes on PostgreSQL (ports $postgres_ports; the database on $postgres_port)"
for round in $(seq "$ROUNDS"); do
    echo "  round $round, one node on SQLite:"
    load one-node-sqlite "$sqlite_port" "$sqlite_pid"
    echo "  round $round, two nodes on PostgreSQL:"
    load two-nodes-postgres "$postgres_ports" "$postgres_node_pids"
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

# PostgreSQL's own floor on this machine: pgbench's simple-update transaction (-N: one UPDATE, one SELECT, one INSERT
# and the commit, prepared statements, LOAD_CONNECTIONS clients) on the same cluster, with the nodes idle. One such
# transaction does less than the ceremony's final write (a spent challenge, the credential's counter, a session and an
# event), so its CPU is a floor for what a ceremony costs PostgreSQL.
"$postgres_bin/createdb" -h 127.0.0.1 -p "$postgres_port" -U passkeyd pgbench
"$postgres_bin/pgbench" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -i -s 8 -q pgbench >"$work/pgbench-init.log" 2>&1 \
    || { cat "$work/pgbench-init.log" >&2; exit 1; }
postgres_before=$(cpu_ticks $(postgres_pids))
"$postgres_bin/pgbench" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -M prepared -N -c "$LOAD_CONNECTIONS" -j "$((LOAD_CONNECTIONS < 2 ? 1 : 2))" -T "$LOAD_SECONDS" pgbench \
    >"$work/pgbench.log" 2>&1 || { cat "$work/pgbench.log" >&2; exit 1; }
transactions=$(sed -n 's|^number of transactions actually processed: \([0-9]*\).*|\1|p' "$work/pgbench.log")
floor=$(echo "($(cpu_ticks $(postgres_pids)) - $postgres_before) * $tick_milliseconds / $transactions" | bc -l)
measured=$(awk '{ total += $1 } END { print total / NR }' "$work/postgres-cpu")
printf 'PostgreSQL floor: pgbench simple-update %.0f transactions/s, PostgreSQL CPU %.3f ms per transaction; ' \
    "$(echo "$transactions / $LOAD_SECONDS" | bc -l)" "$floor"
printf 'the two-node rounds used %.3f ms of PostgreSQL CPU per ceremony (%.2f times that)\n' "$measured" "$(echo "$measured / $floor" | bc -l)"
echo "server errors logged: $(cat "$work"/*-node*.log | grep -c -e storage_unavailable -e internal_error || true)"
