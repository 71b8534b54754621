#!/usr/bin/env bash
# Imports generated users into a fresh SQLite store with `passkeyd admin import`, under /usr/bin/time -v: wall time
# and peak RSS for passkeyd's NDJSON export and a Firebase JSON file. Not part of `make test`.
#
#   bench/import/run.sh [BINARY] [USERS]     default .build/release/passkeyd, 1,000,000 users
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/passkeyd}
users=${2:-1000000}
work=$(mktemp -d /tmp/passkeyd-bench-import.XXXXXX)
trap 'rm -rf "$work"' EXIT
for kind in export firebase; do
  python3 bench/import/generate.py "$kind" "$users" "$work/$kind"
  mkdir -p "$work/$kind-data"
  printf '{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "dataDirectory": "%s"}' "$work/$kind-data" > "$work/$kind.json"
  option=()
  [ "$kind" = firebase ] && option=(--firebase)
  /usr/bin/time -v "$binary" admin import "${option[@]}" "$work/$kind" --config "$work/$kind.json" > "$work/$kind.out" 2> "$work/$kind.err" || {
    tail -5 "$work/$kind.err" >&2
    exit 1
  }
  size=$(stat -c %s "$work/$kind")
  wall=$(grep 'Elapsed (wall clock)' "$work/$kind.err" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$work/$kind.err" | awk '{print $NF}')
  echo "IMPORT $kind users=$users file_bytes=$size wall=$wall peak_rss_kib=$rss"
  head -1 "$work/$kind.out"
done
