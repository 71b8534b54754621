#!/usr/bin/env bash
# make test-upgrade: a rolling upgrade from the previous release to this tree, two nodes on one PostgreSQL database,
# with ceremonies and webhooks running throughout. The previous release is the newest one that left upgrade fixtures
# (its commit is in Tests/UpgradeFixtures/<release>/postgres/manifest.json); PREVIOUS_COMMIT overrides it. It is built
# once from a git worktree in .build/previous-<commit> (kept for the next run).
#
#   1. two nodes of the previous release serve; the load runs across both;
#   2. node B is replaced by this tree's binary, which migrates the schema; the load runs across the old node A and
#      the new node B, each ceremony taking its options from one node and posting its verification to the other;
#   3. node A is replaced too; the load runs across both new nodes.
# Every node delivers webhooks to one receiver that verifies each delivery with the `standardwebhooks` library.
# It passes when no ceremony of any phase failed (passkeyd-loadgen exits non-zero on the first failure), no node
# logged a server error, and every event written in the run was delivered, verified, with no delivery dead.
# Everything listens on 127.0.0.1; on exit the nodes, the receiver and PostgreSQL are stopped and the temporary
# folder removed. Knobs: LOAD_SECONDS (default 6 per phase), LOAD_RATE (ceremonies a second, default 40).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

LOAD_SECONDS=${LOAD_SECONDS:-6}
LOAD_RATE=${LOAD_RATE:-40}
newest=$(ls Tests/UpgradeFixtures | grep -v '\.md$' | sort -V | tail -n 1)
PREVIOUS_COMMIT=${PREVIOUS_COMMIT:-$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["commit"])' \
    "Tests/UpgradeFixtures/$newest/postgres/manifest.json")}

# The previous release's binary, built from its own worktree (kept in .build, which git ignores).
previous_source=$PWD/.build/previous-$PREVIOUS_COMMIT
if [ ! -d "$previous_source" ]; then git worktree add --detach "$previous_source" "$PREVIOUS_COMMIT" >/dev/null; fi
echo "building the previous release ($newest, $PREVIOUS_COMMIT) and this tree"
(cd "$previous_source" && swift build -c release --product passkeyd >/dev/null)
PREVIOUS_BIN=$previous_source/.build/release/passkeyd
build_release
CURRENT_BIN=$PASSKEYD_BIN

work=$(mktemp -d "${TMPDIR:-/tmp}/passkeyd-upgrade.XXXXXX")
node_pids=()
receiver_pid=""
stop() {
    for pid in "${node_pids[@]}"; do stop_process "$pid"; done
    [ -n "$receiver_pid" ] && stop_process "$receiver_pid"
    stop_postgres_cluster
    rm -rf "$work"
}
trap stop EXIT
start_postgres_cluster "$work"

# The webhook receiver of Tests/Python/webhooks (its venv: make webhook-deps).
secret=$(python3 -c 'import base64; print("whsec_" + base64.b64encode(bytes((i * 7) & 0xFF for i in range(32))).decode())')
receiver_port=$(free_port)
.venv-webhooks/bin/python Tests/Python/webhooks/receiver.py --port "$receiver_port" --secret "$secret" --log "$work/receiver.jsonl" &
receiver_pid=$!
for _ in $(seq 100); do [ -e "$work/receiver.jsonl.ready" ] && break; sleep 0.1; done
members="$postgres_database, \"webhooks\": [{\"url\": \"http://127.0.0.1:$receiver_port/hooks\", \"secret\": \"$secret\", \"firstRetrySeconds\": 1, \"maximumRetrySeconds\": 2}]"

# start_node INDEX BINARY: node INDEX (0 or 1) on its own port, data folder and log; the port is kept across restarts.
ports=("$(free_port)" "$(free_port)")
start_node() {
    write_config "${ports[$1]}" "$work/node-$1" "$work/node-$1.json" "$members"
    "$2" serve --config "$work/node-$1.json" 2>>"$work/node-$1.log" &
    node_pids[$1]=$!
    wait_for "https://127.0.0.1:${ports[$1]}/readyz" "$work/node-$1.log"
}

# load PHASE: ceremonies across both nodes; fails the run on the first failed ceremony.
load() {
    echo "  $1"
    ./.build/release/passkeyd-loadgen --ports "${ports[0]},${ports[1]}" --connections 4 --seconds "$LOAD_SECONDS" --warm-up 0 \
        --rate "$LOAD_RATE" | sed 's/^/    /' || { tail -n 20 "$work"/node-*.log >&2; exit 1; }
}

start_node 0 "$PREVIOUS_BIN"
start_node 1 "$PREVIOUS_BIN"
load "1. two nodes of $newest"
stop_process "${node_pids[1]}"
start_node 1 "$CURRENT_BIN"
load "2. node A of $newest, node B of this tree (its start ran the migrations)"
stop_process "${node_pids[0]}"
start_node 0 "$CURRENT_BIN"
load "3. two nodes of this tree"

# Every event written in the run is delivered, verified, and no delivery is dead.
sql() { "$postgres_bin/psql" -h 127.0.0.1 -p "$postgres_port" -U passkeyd -d passkeyd -At -c "$1"; }
for _ in $(seq 600); do [ "$(sql "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")" = 0 ] && break; sleep 0.1; done
events=$(sql "SELECT count(*) FROM events")
delivered=$(sql "SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'")
dead=$(sql "SELECT count(*) FROM webhook_deliveries WHERE status = 'dead'")
pending=$(sql "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
received=$(python3 -c '
import json, sys
ids = {json.loads(line)["id"] for line in open(sys.argv[1]) if line.strip() and json.loads(line).get("verified")}
print(len(ids))' "$work/receiver.jsonl")
errors=$(cat "$work"/node-*.log | grep -c -e internal_error -e storage_unavailable || true)
echo "events $events; deliveries: $delivered delivered, $pending pending, $dead dead; verified by the receiver: $received distinct; server errors logged: $errors"
[ "$events" -gt 0 ] && [ "$delivered" = "$events" ] && [ "$pending" = 0 ] && [ "$dead" = 0 ] && [ "$received" = "$events" ] && [ "$errors" = 0 ] \
    || { echo "rolling upgrade: FAILED" >&2; exit 1; }
echo "rolling upgrade from $newest: passed"
