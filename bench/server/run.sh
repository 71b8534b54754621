#!/usr/bin/env bash
# passkeyd server benchmarks, each against a reference measured in the same run:
#   1. wrk on GET /.well-known/apple-app-site-association over HTTPS keep-alive, passkeyd next to nginx serving
#      the same bytes with the same certificate and key (alternating rounds, same wrk parameters);
#   2. passkeyd-loadgen: full sign-in ceremonies over HTTPS keep-alive, next to OpenSSL's raw ES256 verify rate, and
#      the server's CPU time per ceremony (from /proc) next to one raw ES256 verify (ceremony-cpu-efficiency);
#      then nginx answering the same requests with passkeyd's recorded replies: the ceremony's CPU floor (those HTTPS
#      exchanges, one raw ES256 verify and one raw ES256 signature) next to passkeyd's CPU per ceremony;
#   3. the same ceremonies on a server with two webhook endpoints (one answering, one unreachable) next to none;
#   4. the same ceremonies with metrics counted (the default) next to a server with "metrics": {"enabled": false};
#   5. the same ceremonies with the data on disk (BENCH_TMPDIR) next to the data in /dev/shm, alternating rounds
#      (login-disk-vs-memory), and the memory rounds' own login-vs-raw-verify (login-vs-raw-verify-memory).
# Everything listens on 127.0.0.1; both servers are stopped by pid on exit. Knobs (environment): ROUNDS,
# WRK_ARGUMENTS, LOAD_CONNECTIONS, LOAD_SECONDS, BENCH_TMPDIR (parent of the data folder, e.g. /dev/shm),
# PASSKEYD_BIN (a passkeyd binary to measure instead of building one, e.g. an older build for before/after).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
WRK_ARGUMENTS=${WRK_ARGUMENTS:--t1 -c50 -d8s}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}

build_release

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-bench.XXXXXX")
passkeyd_pid=""
nginx_pid=""
stop() {
    for pid in $passkeyd_pid $nginx_pid; do stop_process "$pid"; done
    rm -rf "$work"
}
trap stop EXIT
# The nginx servers run as nobody when this runs as root: the temporary folder must let them through.
if [ "$(id -u)" = 0 ]; then chmod 711 "$work"; fi

# start_nginx FOLDER [COMMAND...]: nginx in the foreground of a background job with FOLDER/nginx.conf, its log in
# FOLDER, through COMMAND when given (e.g. `nice -n 10`); as root as nobody, the folder then theirs. Sets nginx_pid.
start_nginx() {
    local folder=$1
    shift
    if [ "$(id -u)" = 0 ]; then
        chown -R nobody:nogroup "$folder"
        "$@" setpriv --reuid=nobody --regid=nogroup --clear-groups nginx -p "$folder/" -c "$folder/nginx.conf" -e "$folder/error.log" &
    else
        "$@" nginx -p "$folder/" -c "$folder/nginx.conf" -e "$folder/error.log" &
    fi
    nginx_pid=$!
}

# passkeyd, release build, with an associatedDomains block; rate limits lifted: every request comes from 127.0.0.1
# and every sign-in from one account.
passkeyd_port=$(free_port)
write_config "$passkeyd_port" "$work/data" "$work/passkeyd.json"
"$PASSKEYD_BIN" serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
passkeyd_pid=$!
aasa_path=/.well-known/apple-app-site-association
wait_for "https://127.0.0.1:$passkeyd_port/healthz"

# nginx: the same bytes, certificate and key; unprivileged, in the foreground, 2 workers.
mkdir -p "$work/nginx"
curl -sk "https://127.0.0.1:$passkeyd_port$aasa_path" -o "$work/nginx/aasa.json"
cp "$work/data/tls-certificate.pem" "$work/data/tls-private-key.pem" "$work/nginx/"
nginx_port=$(free_port)
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$nginx_port ssl;
        ssl_certificate $work/nginx/tls-certificate.pem;
        ssl_certificate_key $work/nginx/tls-private-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location = $aasa_path {
            default_type application/json;
            add_header Cache-Control "public, max-age=3600";
            alias $work/nginx/aasa.json;
        }
    }
}
CONF
start_nginx "$work/nginx"
wait_for "https://127.0.0.1:$nginx_port$aasa_path"
cmp -s <(curl -sk "https://127.0.0.1:$passkeyd_port$aasa_path") <(curl -sk "https://127.0.0.1:$nginx_port$aasa_path") \
    || { echo "passkeyd and nginx serve different bytes" >&2; exit 1; }

requests_per_second() {
    wrk $WRK_ARGUMENTS "$1" | awk '/^Requests\/sec:/ { print $2 } /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }'
}

echo "aasa-https: wrk $WRK_ARGUMENTS, $ROUNDS alternating rounds, $(wc -c <"$work/nginx/aasa.json") bytes, 2 threads / 2 workers"
# One unmeasured second on each first, so that no round includes a server's first connections and first requests
# (before this warm-up, the first round was the lowest in about half of the runs).
wrk -t1 -c50 -d1s "https://127.0.0.1:$passkeyd_port$aasa_path" >/dev/null
wrk -t1 -c50 -d1s "https://127.0.0.1:$nginx_port$aasa_path" >/dev/null
passkeyd_total=0
nginx_total=0
round_ratios=""
for round in $(seq "$ROUNDS"); do
    passkeyd_rate=$(requests_per_second "https://127.0.0.1:$passkeyd_port$aasa_path")
    nginx_rate=$(requests_per_second "https://127.0.0.1:$nginx_port$aasa_path")
    round_ratio=$(echo "$passkeyd_rate / $nginx_rate" | bc -l)
    printf '  round %d: passkeyd %s req/s, nginx %s req/s, ratio %.3f\n' "$round" "$passkeyd_rate" "$nginx_rate" "$round_ratio"
    passkeyd_total=$(echo "$passkeyd_total + $passkeyd_rate" | bc -l)
    nginx_total=$(echo "$nginx_total + $nginx_rate" | bc -l)
    round_ratios="$round_ratios $round_ratio"
done
printf 'aasa-https passkeyd %.0f req/s, nginx %.0f req/s (means)\n' "$(echo "$passkeyd_total / $ROUNDS" | bc -l)" "$(echo "$nginx_total / $ROUNDS" | bc -l)"
# The issue's figure: the median of the rounds' ratios (the lower middle one for an even count).
printf 'RATIO aasa-https-vs-nginx %.3f\n' "$(tr ' ' '\n' <<<"$round_ratios" | grep . | sort -g | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }')"

# nginx is not needed for the ceremonies: stop it so that it does not share the cores.
kill -TERM "$nginx_pid"
wait "$nginx_pid" 2>/dev/null || true
nginx_pid=""

mkdir -p "$work/replies"
./.build/release/passkeyd-loadgen --port "$passkeyd_port" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 \
    --server-pid "$passkeyd_pid" --record-replies "$work/replies" | tee "$work/load.txt"

# 2b. The ceremony's CPU floor: nginx, one process, answering the same four requests with the replies passkeyd gave
#     (recorded by the run above: same status, header fields and body), under the same load paced to passkeyd's rate;
#     its CPU per ceremony is what the two HTTPS exchanges cost without any work behind them. With one raw ES256
#     verify (the assertion) and one raw ES256 signature (the access token), measured in the same run, it is the least
#     a server that answers these requests can spend: what ceremony-cpu-efficiency could reach if the store, the
#     JSON, the sessions and the threads cost nothing.
floor_port=$(free_port)
mkdir -p "$work/floor"
cp "$work/data/tls-certificate.pem" "$work/data/tls-private-key.pem" "$work/floor/"
python3 bench/server/floor_nginx.py "$work/replies" "$work/floor" "$floor_port" >"$work/floor/nginx.conf"
start_nginx "$work/floor"
wait_for "https://127.0.0.1:$floor_port/webauthn/authentication/options" "$work/floor/error.log"
for route in registration-options registration-verify authentication-options authentication-verify; do
    cmp -s <(curl -sk -X POST -d '{}' "https://127.0.0.1:$floor_port/webauthn/${route/-//}") "$work/replies/$route.body" \
        || { echo "the floor server's $route answer differs from passkeyd's" >&2; exit 1; }
done
# At passkeyd's rate: a server that waits between requests pays for being woken (at full speed nginx answered
# 13-14k ceremonies/s at about half the CPU per ceremony).
passkeyd_rate=$(sed -n 's|^login ceremonies: \([0-9]*\)/s.*|\1|p' "$work/load.txt")
echo "ceremony CPU floor: nginx (one process) answering the same requests with passkeyd's recorded replies, at passkeyd's $passkeyd_rate ceremonies/s"
./.build/release/passkeyd-loadgen --port "$floor_port" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 \
    --server-pid "$nginx_pid" --rate "$passkeyd_rate" | tee "$work/floor.txt" | sed 's/^RATIO /  nginx /; s/^\([^ ]\)/  \1/'
stop_process "$nginx_pid"
nginx_pid=""
passkeyd_cpu=$(awk '/^server CPU per ceremony:/ { print $5 }' "$work/load.txt")
floor_https=$(awk '/^server CPU per ceremony:/ { print $5 }' "$work/floor.txt")
raw_verify=$(awk '/^server CPU per ceremony:/ { print $(NF - 1) }' "$work/floor.txt")
raw_sign=$(awk '/^openssl raw ES256 sign/ { print $(NF - 1) }' "$work/floor.txt")
floor=$(echo "$floor_https + $raw_verify + $raw_sign" | bc -l)
printf 'ceremony CPU floor: %.3f ms (the HTTPS exchanges %.3f ms, one raw ES256 verify %.4f ms, one raw ES256 signature %.4f ms); passkeyd %.3f ms\n' \
    "$floor" "$floor_https" "$raw_verify" "$raw_sign" "$passkeyd_cpu"
printf 'RATIO ceremony-cpu-efficiency-ceiling %.3f\n' "$(echo "$raw_verify / $floor" | bc -l)"
printf 'RATIO ceremony-cpu-floor-vs-passkeyd %.3f\n' "$(echo "$floor / $passkeyd_cpu" | bc -l)"

# 3. Sign-in ceremonies with two webhook endpoints configured, one receiving (nginx answering 204 over loopback http)
#    and one unreachable (a closed port: every attempt refused, retried with backoff), next to the same server
#    without webhooks, in alternating rounds of this run. The receiver runs niced: on a real deployment it is
#    another machine, not a process competing for the server's two cores.
receiver_port=$(free_port)
closed_port=$(free_port)
mkdir -p "$work/receiver"
cat >"$work/receiver/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/receiver/nginx.pid;
error_log $work/receiver/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/receiver/body;
    proxy_temp_path $work/receiver/proxy;
    fastcgi_temp_path $work/receiver/fastcgi;
    uwsgi_temp_path $work/receiver/uwsgi;
    scgi_temp_path $work/receiver/scgi;
    server { listen 127.0.0.1:$receiver_port; location / { return 204; } }
}
CONF
start_nginx "$work/receiver" nice -n 10
secret="whsec_$(openssl rand -base64 32)"
webhooks_port=$(free_port)
write_config "$webhooks_port" "$work/data-webhooks" "$work/passkeyd-webhooks.json" \
    "\"webhooks\": [{\"url\": \"http://127.0.0.1:$receiver_port/hooks\", \"secret\": \"$secret\"}, {\"url\": \"http://127.0.0.1:$closed_port/hooks\", \"secret\": \"$secret\"}]"
"$PASSKEYD_BIN" serve --config "$work/passkeyd-webhooks.json" 2>"$work/passkeyd-webhooks.log" &
webhooks_pid=$!
passkeyd_pid="$passkeyd_pid $webhooks_pid"
wait_for "https://127.0.0.1:$webhooks_port/healthz" "$work/passkeyd-webhooks.log"

WEBHOOK_ROUNDS=${WEBHOOK_ROUNDS:-3}
# alternate_rounds ROUNDS PORT_A PORT_B NAME_A NAME_B: ceremony rates of the two servers in alternating rounds, each
# round's figures printed; their sums in first_total and second_total.
alternate_rounds() {
    first_total=0
    second_total=0
    for round in $(seq "$1"); do
        local first_rate second_rate
        first_rate=$(ceremony_rate "$2")
        second_rate=$(ceremony_rate "$3")
        echo "  round $round: $4 $first_rate/s, $5 $second_rate/s"
        first_total=$(echo "$first_total + $first_rate" | bc -l)
        second_total=$(echo "$second_total + $second_rate" | bc -l)
    done
}
ceremony_rate() {
    ./.build/release/passkeyd-loadgen --port "$1" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 \
        | awk '/^login ceremonies:/ { sub("/s", "", $3); print $3 }'
}
echo "login with webhooks: $WEBHOOK_ROUNDS alternating rounds of $LOAD_SECONDS s, two endpoints (one answering 204, one refused) vs none"
alternate_rounds "$WEBHOOK_ROUNDS" "$webhooks_port" "$passkeyd_port" "with webhooks" "without webhooks"
sleep 2
refused=$(grep -c "http.clientConnectFailed" "$work/passkeyd-webhooks.log" || true)
echo "  the unreachable endpoint's refused attempts logged: $refused; server errors: $(grep -c -i "internal_error" "$work/passkeyd-webhooks.log" || true)"
printf 'RATIO login-with-webhooks-vs-without %.3f\n' "$(echo "$first_total / $second_total" | bc -l)"

# 4. Sign-in ceremonies with metrics (the first server, metrics on by default) next to a server that counts nothing,
#    in alternating rounds; the webhook server and its receiver are stopped first so that they do not share the cores.
stop_process "$webhooks_pid"
kill -TERM "$nginx_pid"
wait "$nginx_pid" 2>/dev/null || true
nginx_pid=""
unmetered_port=$(free_port)
write_config "$unmetered_port" "$work/data-unmetered" "$work/passkeyd-unmetered.json" '"metrics": {"enabled": false}'
"$PASSKEYD_BIN" serve --config "$work/passkeyd-unmetered.json" 2>"$work/passkeyd-unmetered.log" &
unmetered_pid=$!
passkeyd_pid="$passkeyd_pid $unmetered_pid"
wait_for "https://127.0.0.1:$unmetered_port/healthz" "$work/passkeyd-unmetered.log"
METRICS_ROUNDS=${METRICS_ROUNDS:-3}
echo "login with metrics: $METRICS_ROUNDS alternating rounds of $LOAD_SECONDS s, metrics counted vs metrics.enabled false"
alternate_rounds "$METRICS_ROUNDS" "$passkeyd_port" "$unmetered_port" "with metrics" "without"
printf 'RATIO login-with-metrics-vs-without %.3f\n' "$(echo "$first_total / $second_total" | bc -l)"

# 5. Durable sign-ins with the data on disk next to the same binary and load with the data in memory (/dev/shm):
#    what the fsync per commit costs once ceremonies share commits (group commit) and wait off the event loops.
if [ -d /dev/shm ]; then
    memory_work=$(mktemp -d /dev/shm/passkeyd-bench.XXXXXX)
    memory_port=$(free_port)
    write_config "$memory_port" "$memory_work/data" "$memory_work/passkeyd.json"
    "$PASSKEYD_BIN" serve --config "$memory_work/passkeyd.json" 2>"$memory_work/passkeyd.log" &
    memory_pid=$!
    passkeyd_pid="$passkeyd_pid $memory_pid"
    wait_for "https://127.0.0.1:$memory_port/healthz" "$memory_work/passkeyd.log"
    DISK_ROUNDS=${DISK_ROUNDS:-3}
    ceremony_line() {
        ./.build/release/passkeyd-loadgen --port "$1" --connections "$LOAD_CONNECTIONS" --seconds "$LOAD_SECONDS" --warm-up 2 \
            | awk '/^login ceremonies:/ { sub("/s", "", $3); sub(",", "", $14); rate = $3; p99 = $14 }
                   /^RATIO login-vs-raw-verify / { ratio = $3 } END { print rate, p99, ratio }'
    }
    echo "login disk vs memory: $DISK_ROUNDS alternating rounds of $LOAD_SECONDS s, data in ${BENCH_TMPDIR:-/tmp} vs /dev/shm"
    disk_total=0
    memory_total=0
    memory_ratio_total=0
    disk_p99=0
    for round in $(seq "$DISK_ROUNDS"); do
        read -r disk_rate disk_round_p99 _ < <(ceremony_line "$passkeyd_port")
        read -r memory_rate memory_round_p99 memory_ratio < <(ceremony_line "$memory_port")
        # A load generator that failed printed nothing to read: no figure is made up from a missing one.
        [ -n "$disk_rate" ] && [ -n "$memory_ratio" ] || { echo "login disk vs memory: round $round failed" >&2; exit 1; }
        echo "  round $round: disk $disk_rate/s (p99 $disk_round_p99 ms), memory $memory_rate/s (p99 $memory_round_p99 ms, login-vs-raw-verify $memory_ratio)"
        disk_total=$(echo "$disk_total + $disk_rate" | bc -l)
        memory_total=$(echo "$memory_total + $memory_rate" | bc -l)
        memory_ratio_total=$(echo "$memory_ratio_total + $memory_ratio" | bc -l)
        if [ "$(echo "$disk_round_p99 > $disk_p99" | bc -l)" = 1 ]; then disk_p99=$disk_round_p99; fi
    done
    stop_process "$memory_pid"
    rm -rf "$memory_work"
    echo "  worst p99 on disk: $disk_p99 ms"
    printf 'RATIO login-disk-vs-memory %.3f\n' "$(echo "$disk_total / $memory_total" | bc -l)"
    # The issue's in-memory sign-in figure: the memory rounds' own ratios (each next to the raw verifies of its run).
    printf 'RATIO login-vs-raw-verify-memory %.3f\n' "$(echo "$memory_ratio_total / $DISK_ROUNDS" | bc -l)"
fi
