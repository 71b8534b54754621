#!/usr/bin/env bash
# Shrinks fuzz/corpus/ to what is worth committing: the seeds (fuzz/seed.py) plus, per target, the fuzzer-found
# inputs that add coverage beyond them (libFuzzer -merge=1, which prefers smaller inputs) and are at most
# FUZZ_COMMIT_MAX_BYTES (default 384) long, which keeps the committed corpus under 2 MB. The full corpus is kept in
# .build-fuzz/corpus-full/ (git-ignored) and can be given back to the fuzzer. Needs fuzz/build.sh fuzz.
#
#   fuzz/merge.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz/Targets && ls *.swift | sed 's/\.swift$//' | sort)
fi
full=.build-fuzz/corpus-full
mkdir -p "$full"
for target in "${targets[@]}"; do
  mkdir -p "$full/$target"
  [ -d "fuzz/corpus/$target" ] && cp -n "fuzz/corpus/$target"/* "$full/$target/" 2>/dev/null || true
  rm -rf "fuzz/corpus/$target"
done
python3 fuzz/seed.py >/dev/null
for target in "${targets[@]}"; do
  before=$(ls "$full/$target" | wc -l)
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 nice -n 10 ".build-fuzz/fuzz/bin/$target" -merge=1 -max_len=16384 \
    "fuzz/corpus/$target" "$full/$target" >".build-fuzz/logs/merge-$target.log" 2>&1
  echo "$target: $before → $(ls "fuzz/corpus/$target" | wc -l) files, $(cat "fuzz/corpus/$target"/* | wc -c) bytes"
done

# Keep every seed; drop larger fuzzer-found inputs (they stay in the full corpus).
seeds=.build-fuzz/seeds
rm -rf "$seeds"
python3 fuzz/seed.py --out "$seeds" >/dev/null
limit=${FUZZ_COMMIT_MAX_BYTES:-384}
for target in "${targets[@]}"; do
  find "fuzz/corpus/$target" -type f -size +"$limit"c | while read -r file; do
    [ -e "$seeds/$target/$(basename "$file")" ] || rm "$file"
  done
done
echo "committed corpus: $(find fuzz/corpus -type f | wc -l) files, $(cat fuzz/corpus/*/* | wc -c) bytes"
