# Shared by bench/server/run.sh and bench/soak/run.sh (sourced, not run).

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# Waits up to 10 s for an HTTPS URL to answer; exits the script when it does not.
wait_for() { for _ in $(seq 100); do curl -sk -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

# write_config PORT DATA_DIRECTORY FILE: the benchmark server's configuration, release-style, with an
# associatedDomains block (so AASA is served) and rate limits lifted (every request comes from 127.0.0.1 and every
# sign-in from one account).
write_config() {
    cat >"$3" <<JSON
{
  "relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
  "listen": {"https": "127.0.0.1:$1"},
  "dataDirectory": "$2",
  "www": null,
  "threads": 2,
  "rateLimits": {"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "perAccountPerMinute": 1000000,
                 "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000},
  "associatedDomains": {
    "webcredentials": {"apps": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"]},
    "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/account/*"}, {"/": "/open/*"}]}]}
  }
}
JSON
}
