#!/usr/bin/env bash
# passkeyd soak run: a fixed-length mixed load (registrations, logins, AASA fetches and bad requests in fixed
# proportions) on a release `passkeyd serve`, reporting per kind the operations, the unexpected answers (0 required),
# p50/p99 latency, and the server's resident memory at start, after the warm-up, every 10 s and at the end, with
# PASS/FAIL lines for errors and for flat memory. Exits non-zero on FAIL.
# Everything listens on 127.0.0.1; the server is stopped by pid on exit. Knobs (environment): SOAK_SECONDS
# (default 60), SOAK_WARM_UP (default 10), SOAK_CONNECTIONS (default 8), BENCH_TMPDIR (parent of the data folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

SOAK_SECONDS=${SOAK_SECONDS:-60}
SOAK_WARM_UP=${SOAK_WARM_UP:-10}
SOAK_CONNECTIONS=${SOAK_CONNECTIONS:-8}

swift build -c release --product passkeyd >/dev/null
swift build -c release --product passkeyd-loadgen >/dev/null

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-soak.XXXXXX")
passkeyd_pid=""
stop() {
    if [ -n "$passkeyd_pid" ]; then stop_process "$passkeyd_pid"; fi
    rm -rf "$work"
}
trap stop EXIT

port=$(free_port)
write_config "$port" "$work/data" "$work/passkeyd.json"
./.build/release/passkeyd serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
passkeyd_pid=$!
for _ in $(seq 100); do curl -sk -o /dev/null "https://127.0.0.1:$port/healthz" && break; sleep 0.1; done
curl -sk -o /dev/null "https://127.0.0.1:$port/healthz" || { echo "passkeyd does not answer" >&2; cat "$work/passkeyd.log" >&2; exit 1; }

status=0
./.build/release/passkeyd-loadgen --mode soak --port "$port" --server-pid "$passkeyd_pid" --connections "$SOAK_CONNECTIONS" \
    --seconds "$SOAK_SECONDS" --warm-up "$SOAK_WARM_UP" || status=$?
kill -0 "$passkeyd_pid" 2>/dev/null || { echo "FAIL passkeyd is no longer running" >&2; status=1; }
echo "server log lines: $(wc -l <"$work/passkeyd.log") (errors logged: $(grep -c -e storage_unavailable -e internal_error "$work/passkeyd.log" || true))"
exit "$status"
