#!/usr/bin/env bash
# Genuine users under attack (issue 44): the p99 of genuine passkey sign-ins while many source addresses flood the
# server with requests that must all be refused, next to the same genuine load undisturbed, in alternating rounds.
#   - passkeyd (release, two event loops, SQLite in BENCH_TMPDIR) with an OpenID identity provider `corp` whose issuer
#     is a stand-in on a loopback port (bench/attack/issuer.py: discovery and one RSA key), and PASSWORD_USERS users
#     imported with passlib PBKDF2-SHA256 hashes (29,000 rounds, passlib's default) before it starts; the per-address
#     rate limits are lifted (the genuine load comes from one address, and a flood spread over ATTACK_ADDRESSES
#     addresses sends each of them less than the default 240 a minute anyway); the per-account limits, the password
#     verifications' concurrency and every other defence keep their defaults.
#   - genuine: passkeyd-loadgen, LOAD_CONNECTIONS keep-alive connections from 127.0.0.1, each signing in with a passkey
#     of its own account, GENUINE_RATE ceremonies a second together (paced: a latency figure, not a throughput one).
#   - attack: passkeyd-loadgen --mode attack, ATTACK_CONNECTIONS connections bound to ATTACK_ADDRESSES addresses of
#     127.10/16 (a new address every 50 requests), ATTACK_RATE requests a second in a cycle of bad assertions (a
#     genuine challenge signed by the wrong key and naming a genuine user's passkey and user handle, or a challenge
#     never issued), ID tokens of the issuer naming unknown keys, and password guesses (imported names and unknown
#     ones); every answer must be a refusal.
# Prints every round, the attack's answers by kind and status, the server's worker-queue and suspect-lane metrics so far
# (scraped from a loopback admin listener), the key fetches the stand-in issuer saw, and
#   RATIO attack-p99-vs-quiet-p99 <median p99 under attack ÷ median p99 undisturbed>   (goal ≤ 2)
# and fails (exit 1) when any genuine sign-in was refused or any attack request was accepted.
# Knobs (environment): ATTACK_ROUNDS (3), LOAD_SECONDS (10), LOAD_CONNECTIONS (8), GENUINE_RATE (50), ATTACK_RATE
# (1200), ATTACK_CONNECTIONS (32), ATTACK_ADDRESSES (1024), ATTACK_NICE (0: the flood's niceness), ATTACK_KINDS
# (assertion,idtoken,password: the kinds the flood sends, in turn; one alone sends all of ATTACK_RATE), PASSWORD_USERS
# (16), SUSPECT_LANE (the server's `limits.suspectLane`: its default when unset, `null` for none, or an object),
# PASSWORD_CONCURRENCY (the server's `passwords.maximumConcurrentVerifications`: its default when unset),
# BENCH_TMPDIR, PASSKEYD_BIN.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh

ATTACK_ROUNDS=${ATTACK_ROUNDS:-3}
LOAD_SECONDS=${LOAD_SECONDS:-10}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}
GENUINE_RATE=${GENUINE_RATE:-50}
ATTACK_RATE=${ATTACK_RATE:-1200}
ATTACK_CONNECTIONS=${ATTACK_CONNECTIONS:-32}
ATTACK_ADDRESSES=${ATTACK_ADDRESSES:-1024}
ATTACK_NICE=${ATTACK_NICE:-0}
ATTACK_KINDS=${ATTACK_KINDS:-assertion,idtoken,password}
PASSWORD_USERS=${PASSWORD_USERS:-16}
SUSPECT_LANE=${SUSPECT_LANE:-}
PASSWORD_CONCURRENCY=${PASSWORD_CONCURRENCY:-}

build_release

work=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/passkeyd-attack.XXXXXX")
pids=""
stop() {
    for pid in $pids; do stop_process "$pid"; done
    rm -rf "$work"
}
trap stop EXIT

# The stand-in issuer.
openssl genrsa -out "$work/issuer-key.pem" 2048 2>/dev/null
issuer_port=$(free_port)
python3 bench/attack/issuer.py "$issuer_port" "$work/issuer-key.pem" "$work/issuer.log" &
pids="$pids $!"
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$issuer_port/jwks" && break; sleep 0.1; done
issuer="http://127.0.0.1:$issuer_port"

port=$(free_port)
admin_port=$(free_port)
extra_members=""
if [ -n "$SUSPECT_LANE" ]; then extra_members="\"limits\": {\"suspectLane\": $SUSPECT_LANE},"; fi
if [ -n "$PASSWORD_CONCURRENCY" ]; then
    extra_members="$extra_members \"passwords\": {\"maximumConcurrentVerifications\": $PASSWORD_CONCURRENCY},"
fi
cat >"$work/passkeyd.json" <<JSON
{
  "relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
  "listen": {"https": "127.0.0.1:$port", "admin": "127.0.0.1:$admin_port"},
  "admin": {"keys": [{"name": "bench", "keySHA256": "$(head -c 32 /dev/urandom | sha256sum | cut -c1-64)"}]},
  "dataDirectory": "$work/data",
  "www": null,
  "threads": 2,
  "rateLimits": {"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "outstandingChallengesPerAddress": 1000000},
  $extra_members
  "identityProviders": {"corp": {"type": "oidc", "issuer": "$issuer", "clientID": "passkeyd"}}
}
JSON

# The imported password users: passkeyd's import format with passlib's $pbkdf2-sha256$ hashes.
python3 - "$PASSWORD_USERS" >"$work/users.jsonl" <<'PYTHON'
import base64, hashlib, json, os, sys, uuid
ab64 = lambda data: base64.b64encode(data).decode().rstrip("=").replace("+", ".")
print(json.dumps({"type": "passkeyd.export", "version": 1, "relyingPartyId": "example.com", "exportedAt": "2026-12-06T00:00:00.000Z"}))
for index in range(int(sys.argv[1])):
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", f"correct horse {index}".encode(), salt, 29000)
    print(json.dumps({"type": "user", "id": base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("="),
                      "username": f"bench-password-{index}", "displayName": f"bench-password-{index}", "displayNameIsDefault": True,
                      "appAccountToken": str(uuid.uuid4()), "emailVerified": False, "createdAt": "2026-12-06T00:00:00.000Z",
                      "passwordHash": f"$pbkdf2-sha256$29000${ab64(salt)}${ab64(digest)}"}))
PYTHON
if [ "$PASSWORD_USERS" -gt 0 ]; then
    "$PASSKEYD_BIN" admin import "$work/users.jsonl" --config "$work/passkeyd.json" >/dev/null
fi

"$PASSKEYD_BIN" serve --config "$work/passkeyd.json" 2>"$work/passkeyd.log" &
server_pid=$!
pids="$pids $server_pid"
wait_for "https://127.0.0.1:$port/healthz" "$work/passkeyd.log"
# The attack's three kinds answer as they must before anything is measured: a wrong password, an unknown key.
status=$(curl -sk -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"username": "bench-password-0", "password": "wrong"}' "https://127.0.0.1:$port/auth/password")
[ "$PASSWORD_USERS" = 0 ] || [ "$status" = 401 ] || { echo "a wrong password got $status, not 401" >&2; exit 1; }

# genuine OUTPUT [VICTIMS]: the paced genuine sign-ins, their output in OUTPUT; "p99 failures" on standard output.
genuine() {
    ./.build/release/passkeyd-loadgen --port "$port" --connections "$LOAD_CONNECTIONS" --passkeys "$LOAD_CONNECTIONS" \
        --seconds "$LOAD_SECONDS" --warm-up 2 --rate "$GENUINE_RATE" --server-pid "$server_pid" \
        ${2:+--credentials-out "$2"} >"$1" 2>&1 || true
    awk '/^login ceremonies:/ { for (i = 1; i < NF; i++) if ($i == "p99") p99 = $(i + 1); failed = $NF }
         END { if (p99 != "") print p99, failed }' "$1"
}

echo "attack: passkeyd $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $ATTACK_ROUNDS rounds of $LOAD_SECONDS s;" \
    "genuine $GENUINE_RATE ceremonies/s over $LOAD_CONNECTIONS connections; flood $ATTACK_RATE requests/s over" \
    "$ATTACK_CONNECTIONS connections from $ATTACK_ADDRESSES addresses (nice $ATTACK_NICE; $ATTACK_KINDS); $PASSWORD_USERS password users;" \
    "suspect lane ${SUSPECT_LANE:-default}; password verifications at once ${PASSWORD_CONCURRENCY:-default}"
echo "machine: $(nproc) cores; $(uptime)"
quiet_p99s=""
attack_p99s=""
refused=0
accepted=0
for round in $(seq "$ATTACK_ROUNDS"); do
    read -r quiet_p99 quiet_failed < <(genuine "$work/quiet.txt") || true
    [ -n "${quiet_p99:-}" ] || { cat "$work/quiet.txt" >&2; echo "round $round: the undisturbed run failed" >&2; exit 1; }
    sleep 1
    rm -f "$work/victims.txt"
    nice -n "$ATTACK_NICE" ./.build/release/passkeyd-loadgen --mode attack --port "$port" --connections "$ATTACK_CONNECTIONS" \
        --rate "$ATTACK_RATE" --addresses "$ATTACK_ADDRESSES" --provider corp --issuer "$issuer" --audience passkeyd \
        --password-users "$PASSWORD_USERS" --kinds "$ATTACK_KINDS" --victims "$work/victims.txt" >"$work/attack.txt" 2>&1 &
    attack_pid=$!
    read -r attack_p99 attack_failed < <(genuine "$work/under-attack.txt" "$work/victims.txt") || true
    kill -TERM "$attack_pid" 2>/dev/null || true
    attack_status=0
    wait "$attack_pid" || attack_status=$?
    [ -n "${attack_p99:-}" ] || { cat "$work/under-attack.txt" "$work/attack.txt" >&2; echo "round $round: the run under attack failed" >&2; exit 1; }
    echo "  round $round: undisturbed p99 $quiet_p99 ms ($quiet_failed refused), under attack p99 $attack_p99 ms ($attack_failed refused)"
    sed -n 's/^login ceremonies:/    genuine under attack:/p; s/^server CPU per ceremony:/    server CPU per genuine ceremony (flood included):/p' "$work/under-attack.txt"
    sed 's/^/    /' "$work/attack.txt"
    # The server's own figures so far (a loopback admin listener serves /metrics without a key).
    echo "    server metrics so far: $(curl -sk "https://127.0.0.1:$admin_port/metrics" \
        | awk '/^passkeyd_(suspect_lane_[a-z_]+|suspect_addresses|requests_busy_total|requests_queued) / { printf "%s %s, ", $1, $2 }')"
    quiet_p99s="$quiet_p99s $quiet_p99"
    attack_p99s="$attack_p99s $attack_p99"
    refused=$((refused + quiet_failed + attack_failed))
    if [ "$attack_status" != 0 ]; then accepted=$((accepted + 1)); fi
    sleep 1
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }'; }
quiet=$(median "$quiet_p99s")
attacked=$(median "$attack_p99s")
echo "  the stand-in issuer's key fetches: $(grep -c '^/jwks' "$work/issuer.log" || true); discovery reads: $(grep -c openid-configuration "$work/issuer.log" || true)"
echo "  genuine sign-ins refused: $refused; rounds with an attack request accepted: $accepted"
echo "  median p99: undisturbed $quiet ms, under attack $attacked ms"
echo "machine after: $(uptime)"
printf 'RATIO attack-p99-vs-quiet-p99 %.3f\n' "$(echo "$attacked / $quiet" | bc -l)"
[ "$refused" = 0 ] && [ "$accepted" = 0 ]
