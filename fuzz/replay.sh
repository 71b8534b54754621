#!/usr/bin/env bash
# Replays committed inputs through the replay builds (fuzz/build.sh replay; no fuzzer runtime, no sanitizer):
# every target gets every file of every fuzz/corpus/*/ and fuzz/regressions/*/ folder, so each parser also sees
# the other targets' inputs. Fails on the first crash or violated invariant.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t targets < <(cd fuzz/Targets && ls *.swift | sed 's/\.swift$//' | sort)
folders=()
for folder in fuzz/corpus/* fuzz/regressions/*; do
  [ -d "$folder" ] && folders+=("$folder")
done
start=$(date +%s%N)
for target in "${targets[@]}"; do
  SWIFT_BACKTRACE=enable=no ".build-fuzz/replay/bin/$target" "${folders[@]}"
done
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'fuzz-replay: %d targets x %d folders in %d.%03d s\n' "${#targets[@]}" "${#folders[@]}" $((elapsed / 1000)) $((elapsed % 1000))
