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

# The rate limits of write_config: lifted, since every request comes from 127.0.0.1 and every sign-in from one account.
lifted_rate_limits='{"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "perAccountPerMinute": 1000000,
                 "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000}'

# write_config PORT DATA_DIRECTORY FILE [MEMBER [RATE_LIMITS]]: the benchmark server's configuration, release-style,
# with an associatedDomains block (so AASA is served) and the rate limits RATE_LIMITS (a JSON object; lifted by
# default). MEMBER, when given, is one more top-level JSON member, e.g. '"database": {...}'.
write_config() {
    cat >"$3" <<JSON
{
  "relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
  "listen": {"https": "127.0.0.1:$1"},
  "dataDirectory": "$2",
  "www": null,
  "threads": 2,${4:+
  $4,}
  "rateLimits": ${5:-$lifted_rate_limits},
  "associatedDomains": {
    "webcredentials": {"apps": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"]},
    "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/account/*"}, {"/": "/open/*"}]}]}
  }
}
JSON
}

# start_postgres_cluster FOLDER: a throwaway PostgreSQL cluster in FOLDER/postgres (trust authentication, TCP on
# 127.0.0.1 only, no Unix socket, default durability) with a database `passkeyd`; sets postgres_bin, postgres_port,
# postgres_cluster and postgres_database (the configuration's `database` member). stop_postgres_cluster stops it.
start_postgres_cluster() {
    postgres_bin=$(pg_config --bindir 2>/dev/null || true)
    if [ ! -x "$postgres_bin/initdb" ]; then
        postgres_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    fi
    [ -x "$postgres_bin/initdb" ] || { echo "no PostgreSQL server (initdb) found: install Debian's postgresql" >&2; exit 1; }
    postgres_cluster=$1/postgres
    mkdir "$postgres_cluster"
    if [ "$(id -u)" = 0 ]; then
        chmod 711 "$1"
        chown postgres:postgres "$postgres_cluster"
    fi
    as_postgres "$postgres_bin/initdb" -D "$postgres_cluster/data" -U passkeyd -A trust -E UTF8 >"$1/initdb.log" 2>&1 \
        || { cat "$1/initdb.log" >&2; exit 1; }
    postgres_port=$(free_port)
    as_postgres "$postgres_bin/pg_ctl" -D "$postgres_cluster/data" -l "$postgres_cluster/server.log" -w start \
        -o "-c listen_addresses=127.0.0.1 -p $postgres_port -c unix_socket_directories='' -c max_connections=200" >/dev/null \
        || { cat "$postgres_cluster/server.log" >&2; exit 1; }
    "$postgres_bin/createdb" -h 127.0.0.1 -p "$postgres_port" -U passkeyd passkeyd
    postgres_database="\"database\": {\"postgres\": \"host=127.0.0.1 port=$postgres_port user=passkeyd dbname=passkeyd\"}"
}

stop_postgres_cluster() {
    if [ -n "${postgres_cluster:-}" ] && [ -f "$postgres_cluster/data/postmaster.pid" ]; then
        as_postgres "$postgres_bin/pg_ctl" -D "$postgres_cluster/data" -m fast -w stop >/dev/null || true
    fi
}

# PostgreSQL refuses to run as root: as root, its programs run as the postgres system user.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# start_pgbouncer FOLDER SERVER_CONNECTIONS: Debian's PgBouncer in transaction mode (as Supabase's and RDS Proxy's
# poolers work) on a free port of 127.0.0.1, in front of the cluster of start_postgres_cluster, with at most
# SERVER_CONNECTIONS connections to it per database; sets pgbouncer_port and pgbouncer_database (the configuration's
# `database` member, `"pooler": "transaction"`). stop_pgbouncer stops it by the pid in its pid file.
start_pgbouncer() {
    [ -x /usr/sbin/pgbouncer ] || { echo "no /usr/sbin/pgbouncer: install Debian's pgbouncer" >&2; exit 1; }
    pgbouncer_folder=$1/pgbouncer
    mkdir "$pgbouncer_folder"
    pgbouncer_port=$(free_port)
    cat >"$pgbouncer_folder/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$postgres_port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $pgbouncer_folder/users.txt
pool_mode = transaction
default_pool_size = $2
max_client_conn = 400
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
admin_users = passkeyd
stats_period = 1
logfile = $pgbouncer_folder/pgbouncer.log
pidfile = $pgbouncer_folder/pgbouncer.pid
INI
    echo '"passkeyd" ""' >"$pgbouncer_folder/users.txt"
    if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$pgbouncer_folder"; fi
    as_postgres /usr/sbin/pgbouncer -d "$pgbouncer_folder/pgbouncer.ini" || { cat "$pgbouncer_folder/pgbouncer.log" >&2; exit 1; }
    for _ in $(seq 50); do [ -s "$pgbouncer_folder/pgbouncer.pid" ] && break; sleep 0.1; done
    pgbouncer_database="\"database\": {\"postgres\": \"host=127.0.0.1 port=$pgbouncer_port user=passkeyd dbname=passkeyd\", \"pooler\": \"transaction\"}"
}

stop_pgbouncer() {
    if [ -n "${pgbouncer_folder:-}" ] && [ -s "$pgbouncer_folder/pgbouncer.pid" ]; then
        stop_process "$(cat "$pgbouncer_folder/pgbouncer.pid")"
    fi
}
