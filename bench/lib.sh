# Shared by the bench/*/run.sh scripts (sourced, not run).

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# wait_for URL [LOG]: waits up to 10 s for an HTTPS URL to answer; exits the script when it does not, showing LOG.
wait_for() {
    for _ in $(seq 100); do curl -sk -o /dev/null "$1" && return 0; sleep 0.1; done
    echo "no answer from $1" >&2
    if [ -n "${2:-}" ]; then cat "$2" >&2; fi
    exit 1
}

# Builds passkeyd-loadgen, and passkeyd unless PASSKEYD_BIN names a binary to measure; sets PASSKEYD_BIN.
build_release() {
    if [ -z "${PASSKEYD_BIN:-}" ]; then
        swift build -c release --product passkeyd >/dev/null
        PASSKEYD_BIN=./.build/release/passkeyd
    fi
    swift build -c release --product passkeyd-loadgen >/dev/null
}

# Stops a process by pid: SIGTERM, then waits up to 5 s for it to go. Nothing when it is already gone.
stop_process() {
    kill -TERM "$1" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
}

# write_config PORT DATA_DIRECTORY FILE [MEMBER]: the benchmark server's configuration, release-style, with an
# associatedDomains block (so AASA is served) and rate limits lifted (every request comes from 127.0.0.1 and every
# sign-in from one account). MEMBER, when given, is one more top-level JSON member, e.g. '"database": {...}'.
write_config() {
    cat >"$3" <<JSON
{
  "relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
  "listen": {"https": "127.0.0.1:$1"},
  "dataDirectory": "$2",
  "www": null,
  "threads": 2,${4:+
  $4,}
  "rateLimits": {"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "perAccountPerMinute": 1000000,
                 "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000},
  "associatedDomains": {
    "webcredentials": {"apps": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"]},
    "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/account/*"}, {"/": "/open/*"}]}]}
  }
}
JSON
}
