#!/usr/bin/env bash
# passkeyd stall benchmark: passkey sign-in latency with one dependency made slow, against the same server and load
# undisturbed, in alternating rounds of one run. The slow dependency is Apple's key endpoint: `apple.jwksURL` points
# at a loopback socket that accepts connections and never answers, and while the passkey load runs, a steady stream
# of `POST /auth/apple` requests (tokens naming an unknown key: the server can only answer them after fetching keys)
# goes on more connections than the server has workers, so a server whose requests waited for the fetch (5 s
# deadline) would fill its worker pool and queue every passkey request behind them.
# Prints `RATIO stall-p99-undisturbed-vs-disturbed` (median undisturbed p99 ÷ median disturbed p99; goal ≥ 0.5).
# Everything listens on 127.0.0.1; the server and the silent listener are stopped by pid on exit. Knobs (environment):
# STALL_ROUNDS (default 3), LOAD_CONNECTIONS (8), LOAD_SECONDS (8), APPLE_CONNECTIONS (32), APPLE_INTERVAL (seconds
# between one connection's Apple requests, 0.1), APPLE_KEYS (never, or served-once: see the listener), BENCH_TMPDIR (parent of the data folder), PASSKEYD_BIN.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

STALL_ROUNDS=${STALL_ROUNDS:-3}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}
APPLE_CONNECTIONS=${APPLE_CONNECTIONS:-32}
APPLE_INTERVAL=${APPLE_INTERVAL:-0.1}

build_release

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-stall.XXXXXX")
passkeyd_pid=""
silent_pid=""
stream_pid=""
stop() {
    for pid in $stream_pid $passkeyd_pid $silent_pid; do stop_process "$pid"; done
    rm -rf "$work"
}
trap stop EXIT

# Apple's key endpoint, made slow: accepts every connection, reads nothing, answers nothing, holds it open. With
# APPLE_KEYS=served-once it first answers one fetch with a key set (one RSA key), so the server holds keys that the
# tokens' kid is not among, and each unknown kid sends it back to the silent endpoint (at most once a minute).
jwks=""
if [ "${APPLE_KEYS:-never}" = served-once ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/apple-rsa.pem" 2>/dev/null
    modulus=$(openssl rsa -in "$work/apple-rsa.pem" -noout -modulus | cut -d= -f2)
    jwks=$(python3 -c 'import base64, sys; n = base64.urlsafe_b64encode(bytes.fromhex(sys.argv[1])).rstrip(b"=").decode()
print("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"stall-benchmark-served\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"AQAB\"}]}" % n)' "$modulus")
fi
python3 -c '
import os, socket, sys
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1024)
with open(sys.argv[1] + ".partial", "w") as port_file:
    port_file.write(str(listener.getsockname()[1]))
os.rename(sys.argv[1] + ".partial", sys.argv[1])
keys = sys.argv[2].encode()
held = []
while True:
    connection = listener.accept()[0]
    if keys:
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=3600\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(keys), keys))
        connection.close()
        keys = b""
    else:
        held.append(connection)
' "$work/silent-port" "$jwks" &
silent_pid=$!
for _ in $(seq 100); do [ -s "$work/silent-port" ] && break; sleep 0.1; done
silent_port=$(cat "$work/silent-port")

# passkeyd with Sign in with Apple configured against the silent endpoint (a throwaway .p8 signs client secrets).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
audience=com.example.app
port=$(free_port)
write_config "$port" "$work/data" "$work/passkeyd.json" \
    "\"apple\": {\"teamID\": \"ABCDE12345\", \"bundleIDs\": [\"$audience\"], \"keyID\": \"KEY1234567\", \"privateKey\": \"$work/AuthKey.p8\", \"jwksURL\": \"http://127.0.0.1:$silent_port/auth/keys\"}"
"$PASSKEYD_BIN" serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
passkeyd_pid=$!
wait_for "https://127.0.0.1:$port/healthz" "$work/passkeyd.log"

# ceremony_line: the passkey load's rate, p99 (ms) and failures (non-200 answers, 503 server_busy included).
ceremony_line() {
    { ./.build/release/passkeyd-loadgen --port "$port" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 || true; } \
        | awk '/^login ceremonies:/ { sub("/s", "", $3); sub(",", "", $14); print $3, $14, $17 }'
}
median() { sort -n | awk '{ values[NR] = $1 } END { print (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2 }'; }

echo "stall: $STALL_ROUNDS alternating rounds of $LOAD_SECONDS s, $LOAD_CONNECTIONS passkey connections, undisturbed vs" \
    "Apple's key URL silent with $APPLE_CONNECTIONS connections sending POST /auth/apple every $APPLE_INTERVAL s each" \
    "(server: 2 threads, default workers, 5 s Apple deadline; APPLE_KEYS=${APPLE_KEYS:-never})"
undisturbed_p99s=()
disturbed_p99s=()
failures=0
for round in $(seq "$STALL_ROUNDS"); do
    read -r quiet_rate quiet_p99 quiet_failures < <(ceremony_line) || { echo "no undisturbed passkey ceremony succeeded" >&2; exit 1; }
    # The Apple stream runs for the whole passkey run (its registration, warm-up and raw verify rounds included) and
    # reports when it is stopped, counting what the server has not answered yet instead of waiting for it.
    ./.build/release/passkeyd-loadgen --mode apple-stream --port "$port" --audience "$audience" --connections "$APPLE_CONNECTIONS" \
        --seconds 3600 --interval "$APPLE_INTERVAL" >"$work/stream-$round.txt" 2>&1 &
    stream_pid=$!
    sleep 0.5
    if ! read -r busy_rate busy_p99 busy_failures < <(ceremony_line); then
        echo "  round $round: no passkey ceremony ended within its phase while Apple was silent: the server stalled"
        kill -TERM "$stream_pid"
        wait "$stream_pid" || true
        stream_pid=""
        echo "    $(cat "$work/stream-$round.txt")"
        printf 'RATIO stall-p99-undisturbed-vs-disturbed %.3f\n' 0
        exit 1
    fi
    kill -TERM "$stream_pid"
    wait "$stream_pid" || { cat "$work/stream-$round.txt" >&2; exit 1; }
    stream_pid=""
    echo "  round $round: undisturbed $quiet_rate/s p99 $quiet_p99 ms (failures $quiet_failures)," \
        "disturbed $busy_rate/s p99 $busy_p99 ms (failures $busy_failures)"
    echo "    $(cat "$work/stream-$round.txt")"
    undisturbed_p99s+=("$quiet_p99")
    disturbed_p99s+=("$busy_p99")
    failures=$((failures + quiet_failures + busy_failures))
done
undisturbed_p99=$(printf '%s\n' "${undisturbed_p99s[@]}" | median)
disturbed_p99=$(printf '%s\n' "${disturbed_p99s[@]}" | median)
echo "  median p99: undisturbed $undisturbed_p99 ms, disturbed $disturbed_p99 ms; failed passkey ceremonies: $failures;" \
    "key fetches that timed out: $(grep -c "apple keys: fetch failed" "$work/passkeyd.log" || true);" \
    "server_busy logged: $(grep -c server_busy "$work/passkeyd.log" || true)"
printf 'RATIO stall-p99-undisturbed-vs-disturbed %.3f\n' "$(echo "$undisturbed_p99 / $disturbed_p99" | bc -l)"
