#!/usr/bin/env bash
# Sign-in ceremonies end to end on two passkeyd nodes sharing one PostgreSQL database, next to one node on SQLite,
# in the same run. Starts a throwaway PostgreSQL cluster (PostgreSQL's default durability: fsync and
# synchronous_commit on) with PgBouncer in transaction mode in front of it, one node on SQLite and three pairs of
# nodes on the cluster's database (each 2 event-loop threads, its own data folder): one pair direct with the rate
# limits lifted, one pair through PgBouncer, one pair direct with shared rate limits that draw from the database as
# often as the default budgets do. Runs passkeyd-loadgen in alternating rounds against the SQLite node and against
# each pair (each ceremony taking its options from one node and posting its verification to the other), and prints
# every round, the means, and
# `RATIO two-nodes-postgres-vs-one-node-sqlite <ceremonies/s on the two PostgreSQL nodes ÷ on the SQLite node>`,
# `RATIO pgbouncer-vs-direct <ceremonies/s through PgBouncer ÷ direct>` and the cost of the shared limits (PostgreSQL
# transactions and CPU per ceremony, limits drawing ÷ lifted).
# Everything listens on 127.0.0.1; on exit the nodes are stopped by pid, PgBouncer by its pid file, PostgreSQL with
# `pg_ctl -m fast stop`, and the temporary folder is removed. Knobs (environment): ROUNDS (default 2), LOAD_CONNECTIONS
# (8), LOAD_SECONDS (8), BENCH_TMPDIR (parent of the temporary folder, which holds both databases), PASSKEYD_BIN (a
# passkeyd to measure), LOAD_PASSKEYS (default LOAD_CONNECTIONS: each connection signs in with a passkey of its own
# account, as different people do; with 1, every ceremony signs in with the same passkey, so every final write updates
# one credential row and, on PostgreSQL, waits for the row lock of the one before it until that one's commit is
# flushed), IDLE_SECONDS (60), SHARED_BUDGET (600), SHARED_REQUESTS (three times SHARED_BUDGET), ONLY_TEN_NODES (1: skip
# the ceremonies and pgbench, measure only the ten nodes), IDLE_STATEMENTS (1: log every statement of the idle minute,
# `log_statement = all`, and print how many of each kind the ten nodes sent), TEN_NODES_MEMBERS (configuration members
# added to the ten nodes', such as a `"webhooks": […]` endpoint whose idle claims to count), STATS_SETTLE (11: seconds
# between the load and each reading of PostgreSQL's and PgBouncer's counters).
# Each round also prints the server CPU per ceremony (user + system time from /proc: the SQLite node; the PostgreSQL
# nodes, PgBouncer and PostgreSQL's processes apart) and, for PostgreSQL, the commits and WAL flushes per ceremony
# (pg_stat_database, pg_stat_wal): where the two-node figure's time goes on a machine whose cores they all share.
# Then PostgreSQL's own floor on the same cluster: pgbench's simple-update transaction, its CPU per transaction next to
# the PostgreSQL CPU per ceremony of the two-node rounds. Last, with every other node stopped, ten nodes on one new
# database of the cluster: PostgreSQL's transactions and CPU per second while they idle, then SHARED_REQUESTS
# rate-limited requests spread over the ten at once against a per-address budget of SHARED_BUDGET, and the share of
# the budget that got through (`RATIO shared-limit-ten-nodes-budget-share`).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ROUNDS=${ROUNDS:-2}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}
LOAD_PASSKEYS=${LOAD_PASSKEYS:-$LOAD_CONNECTIONS}
IDLE_SECONDS=${IDLE_SECONDS:-60}
SHARED_BUDGET=${SHARED_BUDGET:-600}
SHARED_REQUESTS=${SHARED_REQUESTS:-$((3 * SHARED_BUDGET))}

# The ten idle nodes alone need no loadgen: with ONLY_TEN_NODES=1 and PASSKEYD_BIN, nothing is built.
if [ "${ONLY_TEN_NODES:-0}" != 1 ] || [ -z "${PASSKEYD_BIN:-}" ]; then build_release; fi

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-nodes.XXXXXX")
passkeyd_pids=""
stop() {
    for pid in $passkeyd_pids; do stop_process "$pid"; done
    stop_pgbouncer
    stop_postgres_cluster
    rm -rf "$work"
}
trap stop EXIT

# The throwaway cluster (bench/lib.sh): trust authentication, TCP on 127.0.0.1 only, no Unix socket, default durability.
start_postgres_cluster "$work"
cluster=$postgres_cluster
database=$postgres_database

# PgBouncer in transaction mode in front of it (bench/lib.sh), with as many server connections as two nodes' pools.
start_pgbouncer "$work" 20

# start_node NAME [MEMBER [RATE_LIMITS]]: one passkeyd node with its own data folder, configuration and log; sets
# node_port and node_pid.
start_node() {
    node_port=$(free_port)
    write_config "$node_port" "$work/$1" "$work/$1.json" "${2:-}" "${3:-}"
    "$PASSKEYD_BIN" serve --config "$work/$1.json" 2>"$work/$1.log" &
    node_pid=$!
    passkeyd_pids="$passkeyd_pids $node_pid"
    wait_for "https://127.0.0.1:$node_port/healthz" "$work/$1.log"
}
# start_pair NAME MEMBER [RATE_LIMITS]: two nodes NAME-node-1 and -2; sets pair_ports and pair_pids.
start_pair() {
    start_node "$1-node-1" "$2" "${3:-}"
    pair_ports=$node_port pair_pids=$node_pid
    start_node "$1-node-2" "$2" "${3:-}"
    pair_ports=$pair_ports,$node_port pair_pids="$pair_pids $node_pid"
}
if [ "${ONLY_TEN_NODES:-0}" != 1 ]; then
start_node sqlite-node
sqlite_port=$node_port sqlite_pid=$node_pid
start_pair postgres "$database"
postgres_ports=$pair_ports postgres_node_pids=$pair_pids
start_pair pgbouncer "$pgbouncer_database"
pgbouncer_ports=$pair_ports pgbouncer_node_pids=$pair_pids
# Shared limits that draw as often as the default budgets (a per-address burst of 60 is drawn one token at a time) but
# never refuse this load, which comes from one address: `nodes` makes the chunk one token (10,000 ÷ (10 × 1,000)).
limited_rate_limits='{"perAddressPerMinute": 1000000, "perAddressBurst": 10000, "perAccountPerMinute": 1000000,
                 "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000, "nodes": 1000}'
start_pair limited "$database" "$limited_rate_limits"
limited_ports=$pair_ports limited_node_pids=$pair_pids
fi

# cpu_ticks PID...: user + system clock ticks of the processes, with those of their waited-for children (the
# postmaster's exited backends).
cpu_ticks() {
    local pid total=0 fields
    for pid in "$@"; do
        read -r -a fields 2>/dev/null <"/proc/$pid/stat" || continue
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
# Transactions (commits and rollbacks) in the database `passkeyd`, WAL flushes, and the transactions PgBouncer passed
# on for its clients (SHOW STATS, refreshed every second: `stats_period` in bench/lib.sh). A busy backend reports its
# counts at most once a second, and one that goes idle less than a second after its last report waits 10 s
# (PostgreSQL 15's idle interval), so each reading waits STATS_SETTLE (11 s) after the load: with 1.2 s, as before
# 2026-12-06 evening, the counts per ceremony moved by ±10 % with the backends' report times (1.8–1.9 direct, where
# every ceremony makes 2).
postgres_counters() {
    sleep "${STATS_SETTLE:-11}"
    printf '%s %s\n' "$("$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d postgres -At -F ' ' \
        -c "SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'passkeyd'), wal_sync FROM pg_stat_wal")" \
        "$("$postgres_bin/psql" -h 127.0.0.1 -p "$pgbouncer_port" -U passkeyd -d pgbouncer -At -F ' ' -c 'SHOW STATS' \
            | awk '$1 == "passkeyd" { print $2 }')"
}
pgbouncer_pid=$(cat "$pgbouncer_folder/pgbouncer.pid")

# load SETUP PORTS PIDS: one loadgen run, its output indented, then the CPU per ceremony of the nodes PIDS (and on
# PostgreSQL of its processes and PgBouncer, with transactions and WAL flushes per ceremony); appends "SETUP
# ceremonies/s p50 p99 nodes-CPU PostgreSQL-CPU transactions" (milliseconds and counts per ceremony) to the results.
# The warm-up is run and measured apart. On failure, the end of each node's log too (a refused verification names
# its step there).
load() {
    local output status=0 nodes_before postgres_before bouncer_before counters_before ceremonies line nodes postgres=0 transactions=0
    ./.build/release/passkeyd-loadgen --ports "$2" --connections "$LOAD_CONNECTIONS" --seconds 2 --warm-up 0 --passkeys "$LOAD_PASSKEYS" >/dev/null \
        || { tail -n 5 "$work"/*-node*.log >&2; exit 1; }
    if [ "$1" != one-node-sqlite ]; then counters_before=$(postgres_counters); fi
    nodes_before=$(cpu_ticks $3) postgres_before=$(cpu_ticks $(postgres_pids)) bouncer_before=$(cpu_ticks "$pgbouncer_pid")
    output=$(./.build/release/passkeyd-loadgen --ports "$2" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 0 --passkeys "$LOAD_PASSKEYS") || status=$?
    sed 's/^/    /' <<<"$output"
    if [ "$status" != 0 ]; then tail -n 5 "$work"/*-node*.log >&2; exit "$status"; fi
    ceremonies=$(sed -n 's|^login ceremonies: \([0-9.]*\)/s.*|\1|p' <<<"$output")
    ceremonies=$(echo "$ceremonies * $LOAD_SECONDS" | bc -l)
    nodes=$(echo "($(cpu_ticks $3) - $nodes_before) * $tick_milliseconds / $ceremonies" | bc -l)
    line=$(printf 'server CPU per ceremony: nodes %.3f ms' "$nodes")
    if [ "$1" != one-node-sqlite ]; then
        postgres=$(echo "($(cpu_ticks $(postgres_pids)) - $postgres_before) * $tick_milliseconds / $ceremonies" | bc -l)
        line=$(printf '%s, PostgreSQL %.3f ms' "$line" "$postgres")
        if [ "$1" = two-nodes-pgbouncer ]; then
            line=$(printf '%s, PgBouncer %.3f ms' "$line" "$(echo "($(cpu_ticks "$pgbouncer_pid") - $bouncer_before) * $tick_milliseconds / $ceremonies" | bc -l)")
        fi
        read -r transactions_before syncs_before pooled_before <<<"$counters_before"
        read -r transactions_after syncs_after pooled_after <<<"$(postgres_counters)"
        transactions=$(echo "($transactions_after - $transactions_before) / $ceremonies" | bc -l)
        line=$(printf '%s; per ceremony %.2f transactions, %.2f WAL flushes' "$line" "$transactions" \
            "$(echo "($syncs_after - $syncs_before) / $ceremonies" | bc -l)")
        if [ "$1" = two-nodes-pgbouncer ]; then
            line=$(printf '%s, %.2f transactions of clients through PgBouncer' "$line" "$(echo "($pooled_after - $pooled_before) / $ceremonies" | bc -l)")
        fi
    fi
    echo "    $line"
    sed -n 's|^login ceremonies: \([0-9.]*\)/s.* p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*|'"$1"' \1 \2 \3 '"$nodes $postgres $transactions"'|p' \
        <<<"$output" >>"$work/results"
}

if [ "${ONLY_TEN_NODES:-0}" != 1 ]; then
setups="one-node-sqlite two-nodes-postgres two-nodes-pgbouncer two-nodes-limited"
echo "login ceremonies: $ROUNDS alternating rounds of $LOAD_SECONDS s on $LOAD_CONNECTIONS connections;" \
    "one node on SQLite (port $sqlite_port), two nodes on PostgreSQL (ports $postgres_ports; the database on $postgres_port)," \
    "two through PgBouncer (ports $pgbouncer_ports; PgBouncer on $pgbouncer_port), two with shared limits drawing (ports $limited_ports)"
for round in $(seq "$ROUNDS"); do
    echo "  round $round, one node on SQLite:"
    load one-node-sqlite "$sqlite_port" "$sqlite_pid"
    echo "  round $round, two nodes on PostgreSQL:"
    load two-nodes-postgres "$postgres_ports" "$postgres_node_pids"
    echo "  round $round, two nodes through PgBouncer (transaction mode):"
    load two-nodes-pgbouncer "$pgbouncer_ports" "$pgbouncer_node_pids"
    echo "  round $round, two nodes on PostgreSQL, shared rate limits drawing:"
    load two-nodes-limited "$limited_ports" "$limited_node_pids"
done
awk -v rounds="$ROUNDS" -v setups="$setups" '
    { rate[$1] += $2; p50[$1] += $3; p99[$1] += $4; nodes[$1] += $5; postgres[$1] += $6; transactions[$1] += $7; runs[$1]++
      round_rate[$1, runs[$1]] = $2 }
    END {
        count = split(setups, names, " ")
        for (i = 1; i <= count; i++) {
            s = names[i]
            if (runs[s] != rounds) { print "missing results of " s > "/dev/stderr"; exit 1 }
            printf "%s %.0f ceremonies/s, p50 %.2f ms, p99 %.2f ms; per ceremony: nodes CPU %.3f ms", s, rate[s] / rounds, p50[s] / rounds, p99[s] / rounds, nodes[s] / rounds
            if (s != "one-node-sqlite") printf ", PostgreSQL CPU %.3f ms, %.2f transactions", postgres[s] / rounds, transactions[s] / rounds
            printf " (means of %d rounds)\n", rounds
        }
        printf "RATIO two-nodes-postgres-vs-one-node-sqlite %.3f\n", rate["two-nodes-postgres"] / rate["one-node-sqlite"]
        printf "pgbouncer-vs-direct by round:"
        for (r = 1; r <= rounds; r++) printf " %.3f", round_rate["two-nodes-pgbouncer", r] / round_rate["two-nodes-postgres", r]
        printf " (the rounds of one run spread by more than most changes: compare several runs)\n"
        printf "RATIO pgbouncer-vs-direct %.3f\n", rate["two-nodes-pgbouncer"] / rate["two-nodes-postgres"]
        printf "RATIO shared-limits-transactions-cost-on-vs-off %.3f\n", transactions["two-nodes-limited"] / transactions["two-nodes-postgres"]
        printf "RATIO shared-limits-postgres-cpu-cost-on-vs-off %.3f\n", postgres["two-nodes-limited"] / postgres["two-nodes-postgres"]
        printf "RATIO shared-limits-nodes-cpu-cost-on-vs-off %.3f\n", nodes["two-nodes-limited"] / nodes["two-nodes-postgres"]
        printf "RATIO shared-limits-on-vs-off %.3f\n", rate["two-nodes-limited"] / rate["two-nodes-postgres"]
        print postgres["two-nodes-postgres"] / rounds > "'"$work/postgres-cpu"'"
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
printf 'RATIO postgres-cpu-cost-ceremony-vs-pgbench-update %.3f\n' "$(echo "$measured / $floor" | bc -l)"
echo "server errors logged: $(cat "$work"/*-node*.log | grep -c -e storage_unavailable -e internal_error || true)"
fi

# Ten nodes on one cluster, alone on it (the nodes above are stopped: their pools would count), on a database of their
# own, with a per-address budget of SHARED_BUDGET that refills by one token a minute.
for pid in $passkeyd_pids; do stop_process "$pid"; done
passkeyd_pids=""
"$postgres_bin/createdb" -h 127.0.0.1 -p "$postgres_port" -U passkeyd tennodes
ten_database="\"database\": {\"postgres\": \"host=127.0.0.1 port=$postgres_port user=passkeyd dbname=tennodes\"}"
budget_rate_limits="{\"perAddressPerMinute\": 1, \"perAddressBurst\": $SHARED_BUDGET, \"perAccountPerMinute\": 1000000,
                 \"perAccountBurst\": 1000000, \"outstandingChallengesPerAddress\": 1000000}"
ten_ports="" ten_pids=""
for node in $(seq 10); do
    start_node "ten-node-$node" "$ten_database${TEN_NODES_MEMBERS:+, $TEN_NODES_MEMBERS}" "$budget_rate_limits"
    ten_ports="$ten_ports $node_port" ten_pids="$ten_pids $node_pid"
done
ten_transactions() {
    sleep 1.2
    "$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d postgres -At \
        -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'tennodes'"
}
# What ten idle nodes cost PostgreSQL: its transactions in their database and its CPU per second, after 15 s for the
# start-up work to settle, over IDLE_SECONDS (a minute by default: the purges and leases run every minute or less).
# PostgreSQL 15 reports a backend's transactions up to 10 s late (pgstat's idle interval): after only 5 s, as before
# 2026-12-06, the start-up's last transactions (about 120) were counted as the idle minute's.
sleep 15
if [ "${IDLE_STATEMENTS:-0}" = 1 ]; then
    "$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d postgres -Atq \
        -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
    statements_from=$(wc -l <"$cluster/server.log")
fi
idle_before=$(ten_transactions) postgres_before=$(cpu_ticks $(postgres_pids)) nodes_before=$(cpu_ticks $ten_pids)
sleep "$IDLE_SECONDS"
postgres_after=$(cpu_ticks $(postgres_pids)) nodes_after=$(cpu_ticks $ten_pids) idle_after=$(ten_transactions)
idle_rate=$(echo "($idle_after - $idle_before) / $IDLE_SECONDS" | bc -l)
printf 'ten idle nodes over %d s: PostgreSQL %.2f transactions/s, PostgreSQL CPU %.2f ms/s, the nodes %.2f ms/s\n' "$IDLE_SECONDS" \
    "$idle_rate" "$(echo "($postgres_after - $postgres_before) * $tick_milliseconds / $IDLE_SECONDS" | bc -l)" \
    "$(echo "($nodes_after - $nodes_before) * $tick_milliseconds / $IDLE_SECONDS" | bc -l)"
printf 'RATIO ten-idle-nodes-transactions-per-second %.2f\n' "$idle_rate"
if [ "${IDLE_STATEMENTS:-0}" = 1 ]; then
    echo "statements of the idle nodes (log_statement = all), by kind:"
    tail -n +"$((statements_from + 1))" "$cluster/server.log" | sed -n 's/.*LOG:  \(statement\|execute [^:]*\): //p' \
        | cut -c1-60 | sort | uniq -c | sort -rn | sed 's/^/    /'
    "$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d postgres -Atq \
        -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
fi

# The shared budget: SHARED_REQUESTS rate-limited requests (a verification with an empty body: 400 when let through,
# 429 when refused), a tenth to each node, the ten at once, each over one keep-alive connection.
flood_started=$(date +%s.%N) flood_pids=""
for port in $ten_ports; do
    urls=()
    for _ in $(seq $((SHARED_REQUESTS / 10))); do urls+=(-o /dev/null "https://127.0.0.1:$port/webauthn/authentication/verify"); done
    curl -sk -X POST -H 'Content-Type: application/json' -d '{}' -w '%{http_code}\n' "${urls[@]}" >"$work/flood-$port" &
    flood_pids="$flood_pids $!"
done
for pid in $flood_pids; do wait "$pid"; done
flood_seconds=$(echo "$(date +%s.%N) - $flood_started" | bc -l)
through=$(cat "$work"/flood-* | grep -c -v -x 429 || true)
refused=$(cat "$work"/flood-* | grep -c -x 429 || true)
chunk=$((SHARED_BUDGET / 100 > 1 ? SHARED_BUDGET / 100 : 1))
printf 'shared budget of %d (a chunk of %d per draw) over ten nodes: %d let through (statuses: %s), %d refused, in %.1f s (%.2f tokens refilled meanwhile); ' \
    "$SHARED_BUDGET" "$chunk" "$through" "$(cat "$work"/flood-* | grep -v -x 429 | sort | uniq -c | awk '{ printf "%s%s × %s", sep, $1, $2; sep = ", " }')" \
    "$refused" "$flood_seconds" "$(echo "$flood_seconds / 60" | bc -l)"
printf 'at least %d (the nodes hold at most %d unspent)\n' "$((SHARED_BUDGET - 10 * (chunk - 1)))" "$((10 * (chunk - 1)))"
echo "shared-limit outages logged: $(cat "$work"/ten-node-*.log | grep -c 'shared rate limits unavailable' || true)"
printf 'RATIO shared-limit-ten-nodes-budget-share %.3f\n' "$(echo "$through / $SHARED_BUDGET" | bc -l)"
