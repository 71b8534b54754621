#!/usr/bin/env bash
# Instructions per sign-in ceremony (issue 44), which the machine's load does not change: passkeyd run under
# valgrind's callgrind while `passkeyd-loadgen` runs ceremonies (options + verify) on LOAD_CONNECTIONS connection(s).
# The counters are zeroed once the loadgen's registration is done (`callgrind_control -z`, during its warm-up) and
# dumped when it ends; the ceremonies in between are counted in the database (its sessions). Prints the server
# process's instructions per ceremony, the share of each object (OpenSSL, SQLite, libc, the Swift runtime,
# passkeyd itself) and the functions costing the most, self and inclusive. Callgrind slows the server some fifty
# times: the rate under it means nothing, the count per ceremony is the figure (repeatable to about 1 %).
# Needs valgrind and sqlite3. Knobs (environment): COUNT_SECONDS (default 20), LOAD_CONNECTIONS (1),
# BENCH_TMPDIR (default /dev/shm), PASSKEYD_BIN and LOADGEN_BIN (binaries to measure; else release builds),
# PASSKEYD_MEMBER (one more top-level configuration member), COUNT_TOP (functions listed, 40), COUNT_KEEP=1 (keep the
# work folder: callgrind's file, for `callgrind_annotate --inclusive=yes`).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

COUNT_SECONDS=${COUNT_SECONDS:-20}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-1}
COUNT_TOP=${COUNT_TOP:-40}
for tool in objcopy valgrind callgrind_control callgrind_annotate sqlite3; do
    command -v "$tool" >/dev/null || { echo "bench/counts/instructions.sh needs $tool" >&2; exit 1; }
done
if [ -z "${PASSKEYD_BIN:-}" ] || [ -z "${LOADGEN_BIN:-}" ]; then
    build_release
    LOADGEN_BIN=${LOADGEN_BIN:-./.build/release/passkeyd-loadgen}
fi

work=$(mktemp -d "${BENCH_TMPDIR:-/dev/shm}/passkeyd-instructions.XXXXXX")
server_pid=""
loadgen_pid=""
stop() {
    [ -z "$loadgen_pid" ] || stop_process "$loadgen_pid"
    [ -z "$server_pid" ] || stop_process "$server_pid"
    if [ -n "${COUNT_KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap stop EXIT

# Valgrind 3.19 gives up on the DWARF 5 debug information Swift writes: a copy without it (the symbols stay).
objcopy --strip-debug "$PASSKEYD_BIN" "$work/passkeyd"
port=$(free_port)
write_config "$port" "$work/data" "$work/passkeyd.json" "${PASSKEYD_MEMBER:-}"
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --log-file="$work/valgrind.log" \
    "$work/passkeyd" serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
server_pid=$!
for _ in $(seq 600); do curl -sk -o /dev/null "https://127.0.0.1:$port/healthz" && break; sleep 0.1; done
curl -sk -o /dev/null "https://127.0.0.1:$port/healthz" || { echo "no answer from passkeyd under callgrind" >&2; cat "$work/passkeyd.log" >&2; exit 1; }

sessions() { sqlite3 "$work/data/passkeyd.sqlite" "SELECT count(*) FROM sessions"; }

# The loadgen registers its passkey (a session of its own), then warms up for a third of the time: the counters are
# zeroed in the warm-up, once that first session exists.
warm_up=$((COUNT_SECONDS / 3 + 1))
"$LOADGEN_BIN" --port "$port" --connections "$LOAD_CONNECTIONS" --seconds "$COUNT_SECONDS" --warm-up "$warm_up" \
    >"$work/loadgen.txt" 2>&1 &
loadgen_pid=$!
for _ in $(seq 300); do [ "$(sessions 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
callgrind_control -z "$server_pid" >/dev/null
before=$(sessions)
wait "$loadgen_pid" || { cat "$work/loadgen.txt" >&2; exit 1; }
loadgen_pid=""
after=$(sessions)
callgrind_control -d "$server_pid" >/dev/null
ceremonies=$((after - before))
[ "$ceremonies" -gt 0 ] || { echo "no ceremony ended while counted" >&2; cat "$work/loadgen.txt" >&2; exit 1; }
# The file `callgrind_control -d` wrote (callgrind.out.1); the one of the exit is left alone.
dump=$work/callgrind.out.1

echo "passkeyd: $PASSKEYD_BIN ($(git rev-parse --short HEAD 2>/dev/null || echo unknown)); data in ${BENCH_TMPDIR:-/dev/shm}, $LOAD_CONNECTIONS connection(s)"
python3 bench/counts/callgrind_costs.py "$dump" "$ceremonies" "$COUNT_TOP"
if [ -n "${COUNT_KEEP:-}" ]; then echo "callgrind file: $dump"; fi
