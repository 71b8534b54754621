#!/usr/bin/env bash
# Counts per sign-in ceremony (issue 44), which the machine's load does not change: passkeyd's system calls
# (`strace -f`), its WAL frames per commit (the 24-byte frame-header `pwrite64`s per `fdatasync`), and its SQLite
# statements and bindings (uprobes on libsqlite3's `sqlite3_reset`, one per statement run, and `sqlite3_bind_*`,
# through `perf stat`), over COUNT_SECONDS of `passkeyd-loadgen` ceremonies (options + verify) on LOAD_CONNECTIONS
# connections. Ceremonies are counted in the database (the sessions stored, less one per registration). Both tracers slow
# the server many times over: the rate under them means nothing, the counts per ceremony are the figure. Then, with
# no tracer, one more loadgen run for the server threads' context switches per ceremony (/proc).
# Needs root (uprobes, ptrace), strace, perf and sqlite3. The uprobes it defines are removed on exit.
# Knobs (environment): COUNT_SECONDS (default 4), LOAD_CONNECTIONS (8), LOAD_PASSKEYS (LOAD_CONNECTIONS),
# BENCH_TMPDIR (default /dev/shm), PASSKEYD_BIN and LOADGEN_BIN (binaries to measure; else release builds),
# PASSKEYD_MEMBER (one more top-level configuration member, e.g. '"metrics": {"enabled": false}'), COUNT_KEEP=1 (keep
# the work folder: the strace log, perf's counts, the server's log).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

COUNT_SECONDS=${COUNT_SECONDS:-4}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_PASSKEYS=${LOAD_PASSKEYS:-$LOAD_CONNECTIONS}
for tool in strace perf sqlite3; do
    command -v "$tool" >/dev/null || { echo "bench/counts needs $tool" >&2; exit 1; }
done
if [ -z "${PASSKEYD_BIN:-}" ] || [ -z "${LOADGEN_BIN:-}" ]; then
    build_release
    LOADGEN_BIN=${LOADGEN_BIN:-./.build/release/passkeyd-loadgen}
fi

library=$(ldd "$PASSKEYD_BIN" | awk '/libsqlite3/ { print $3 }')
[ -n "$library" ] || { echo "$PASSKEYD_BIN does not load libsqlite3" >&2; exit 1; }
probes="sqlite3_reset sqlite3_bind_blob sqlite3_bind_text sqlite3_bind_int64 sqlite3_bind_double sqlite3_bind_null sqlite3_bind_zeroblob"
added=""
work=$(mktemp -d "${BENCH_TMPDIR:-/dev/shm}/passkeyd-counts.XXXXXX")
server_pid=""
loadgen_pid=""
stop() {
    [ -z "$loadgen_pid" ] || stop_process "$loadgen_pid"
    [ -z "$server_pid" ] || stop_process "$server_pid"
    for probe in $added; do perf probe -q -d "probe_libsqlite3:$probe" || true; done
    if [ -n "${COUNT_KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap stop EXIT
for probe in $probes; do
    if ! perf probe -l 2>/dev/null | grep -q "probe_libsqlite3:$probe "; then
        perf probe -q -x "$library" -a "$probe"
        added="$added $probe"
    fi
done

port=$(free_port)
write_config "$port" "$work/data" "$work/passkeyd.json" "${PASSKEYD_MEMBER:-}"
"$PASSKEYD_BIN" serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
server_pid=$!
wait_for "https://127.0.0.1:$port/healthz" "$work/passkeyd.log"

sessions() { sqlite3 "$work/data/passkeyd.sqlite" "SELECT count(*) FROM sessions"; }

strace -f -qq -y -s 0 -o "$work/strace.txt" -p "$server_pid" &
strace_pid=$!
perf_events=$(for probe in $probes; do printf -- '-e probe_libsqlite3:%s ' "$probe"; done)
# shellcheck disable=SC2086
perf stat -x, $perf_events -p "$server_pid" -o "$work/perf.txt" &
perf_pid=$!
sleep 1
# The whole run is traced: its registrations (one per passkey, each storing a session) are subtracted.
"$LOADGEN_BIN" --port "$port" --connections "$LOAD_CONNECTIONS" --passkeys "$LOAD_PASSKEYS" \
    --seconds "$COUNT_SECONDS" --warm-up 0 >"$work/loadgen.txt" 2>&1 &
loadgen_pid=$!
# Halfway, a copy of the database and its WAL, whose frames are the sign-ins' commits (once the load ends, the
# server's background work writes its own).
sleep $((COUNT_SECONDS / 2 + 1))
mkdir "$work/copy"
cp "$work/data/passkeyd.sqlite" "$work/data/passkeyd.sqlite-wal" "$work/copy/"
wait "$loadgen_pid" || { cat "$work/loadgen.txt" >&2; exit 1; }
loadgen_pid=""
kill -INT "$strace_pid" "$perf_pid"
wait "$strace_pid" "$perf_pid" || true
before=$LOAD_PASSKEYS
after=$(sessions)
ceremonies=$((after - before))
[ "$ceremonies" -gt 0 ] || { echo "no ceremony ended while traced" >&2; cat "$work/loadgen.txt" >&2; exit 1; }

echo "passkeyd: $PASSKEYD_BIN ($(git rev-parse --short HEAD 2>/dev/null || echo unknown)); data in ${BENCH_TMPDIR:-/dev/shm}"
echo "counts per sign-in ceremony: $ceremonies ceremonies in $COUNT_SECONDS s traced, $LOAD_CONNECTIONS connections, $LOAD_PASSKEYS passkeys"
# System calls: a line per call, or per call's start when another thread's call interrupted its line (`-y` names
# each descriptor's file: the database's reads and writes are told apart by file).
awk -v n="$ceremonies" '
    /resumed>/ || /^[0-9]+ \+\+\+/ || /^[0-9]+ ---/ { next }
    { name = $2; sub(/\(.*/, "", name); calls[name]++; total++
      file = ""
      if (match($0, /\(-?[0-9]+<[^>]*>/)) { file = substr($0, RSTART, RLENGTH); sub(/.*\//, "", file); sub(/>$/, "", file) }
      if (name == "fdatasync" && file == "passkeyd.sqlite") databaseSyncs[$1]++
      if ((name == "pwrite64" || name == "pread64") && file ~ /\.sqlite/) {
          sub(/^passkeyd\.sqlite/, "database", file); byFile[name " " file]++
          if (name == "pwrite64" && file == "database-wal" && $0 ~ /, 24[,)]/ ) { frames++; committing[$1] = 1 }
      } }
    END {
      printf "  system calls: %.1f\n", total / n
      for (name in calls) if (calls[name] / n >= 0.05) printf "    %-14s %6.2f\n", name, calls[name] / n | "sort -k2 -g -r"
      close("sort -k2 -g -r")
      for (key in byFile) printf "    %-24s %6.2f\n", key, byFile[key] / n | "sort"
      close("sort")
      for (thread in databaseSyncs) { syncs += databaseSyncs[thread]; if (thread in committing) inCommits += databaseSyncs[thread] }
      printf "  checkpoints that synced the database: %.1f per 1,000 ceremonies, %.1f of them in a committing thread\n", 1000 * syncs / n, 1000 * inCommits / n
      printf "  WAL frames: %.2f per ceremony, %.1f per fdatasync (%d frames, %d fdatasync)\n", frames / n, (calls["fdatasync"] ? frames / calls["fdatasync"] : 0), frames, calls["fdatasync"]
    }' "$work/strace.txt"
awk -F, -v n="$ceremonies" '
    $3 ~ /sqlite3_reset/ { statements += $1 }
    $3 ~ /sqlite3_bind_/ { bindings += $1 }
    END { printf "  SQLite statements run: %.2f, bindings: %.2f\n", statements / n, bindings / n }' "$work/perf.txt"
python3 bench/counts/wal_owners.py "$work/copy/passkeyd.sqlite"

# Context switches, untraced (a tracer stops every system call, each stop a switch): the server's threads' voluntary
# (a wait: a futex, epoll_wait, the disk) and involuntary (preempted) switches from /proc over one more loadgen run of
# COUNT_SECONDS, whose registrations are subtracted as above; in all, then by the threads' names (`passkeyd-loop`,
# `passkeyd-worker`, `passkeyd-writer`, ...: what `top -H` shows).
switches() {
    for task in /proc/"$server_pid"/task/*; do
        awk -v name="$(cat "$task/comm" 2>/dev/null)" '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 }
            END { print name, v + 0, n + 0 }' "$task/status" 2>/dev/null || true
    done | awk '{ v[$1] += $2; n[$1] += $3 } END { for (name in v) print name, v[name], n[name] }'
}
switches >"$work/switches-before.txt"
sessions_before=$(sessions)
"$LOADGEN_BIN" --port "$port" --connections "$LOAD_CONNECTIONS" --passkeys "$LOAD_PASSKEYS" \
    --seconds "$COUNT_SECONDS" --warm-up 0 >"$work/loadgen-untraced.txt" 2>&1 || { cat "$work/loadgen-untraced.txt" >&2; exit 1; }
switches >"$work/switches-after.txt"
untraced=$(($(sessions) - sessions_before - LOAD_PASSKEYS))
[ "$untraced" -gt 0 ] || { echo "no ceremony ended untraced" >&2; exit 1; }
awk -v n="$untraced" '
    FNR == NR { v0[$1] = $2; n0[$1] = $3; next }
    { v[$1] = $2 - v0[$1]; i[$1] = $3 - n0[$1]; tv += v[$1]; ti += i[$1] }
    END {
        printf "  context switches (untraced, %d ceremonies): %.2f voluntary, %.2f involuntary\n", n, tv / n, ti / n
        for (name in v) if (v[name] + i[name] > 0) printf "    %-24s %6.2f %6.2f\n", name, v[name] / n, i[name] / n | "sort -k2 -g -r"
    }' "$work/switches-before.txt" "$work/switches-after.txt"
