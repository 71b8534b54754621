#!/usr/bin/env bash
# Runs fuzz targets (built by `fuzz/build.sh fuzz`) for FUZZ_SECONDS each (default 60), one after another, niced.
#
#   fuzz/run.sh [target...]        every target when none is named
#
# New corpus entries go to fuzz/corpus/<target>/ (or $FUZZ_CORPUS/<target>/, e.g. .build-fuzz/corpus-full, with
# fuzz/corpus/<target>/ then only read), crashes to fuzz/artifacts/<target>/ (git-ignored), the full log to
# .build-fuzz/logs/<target>.log, and one summary line per run to .build-fuzz/logs/summary.tsv:
# target, seconds, executions, exec/s, cov, ft, corpus files, crash files.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz/Targets && ls *.swift | sed 's/\.swift$//' | sort)
fi

# The longest input worth trying per target: a little above the largest real input of its kind.
max_len() {
  case "$1" in
    cbor|attestation-object|registration|android-safetynet|jws|apple-token|openid-token) echo 16384 ;;
    client-data) echo 2048 ;;
    tpm-structures) echo 1024 ;;
    configuration) echo 4096 ;;
    *) echo 8192 ;;
  esac
}

# The libFuzzer dictionary of a target (fuzz/dicts/), if any.
dictionary() {
  case "$1" in
    cbor|attestation-object|registration|authenticator-data|packed|fido-u2f|apple|tpm|android-key|android-safetynet|compound)
      echo fuzz/dicts/webauthn-cbor.dict ;;
    http-request|configuration|client-data) echo "fuzz/dicts/$1.dict" ;;
  esac
}

mkdir -p .build-fuzz/logs
status=0
for target in "${targets[@]}"; do
  binary=.build-fuzz/fuzz/bin/$target
  [ -x "$binary" ] || { echo "not built: $binary (run fuzz/build.sh fuzz)" >&2; exit 2; }
  corpus_dir=${FUZZ_CORPUS:-fuzz/corpus}/$target
  mkdir -p "$corpus_dir" "fuzz/corpus/$target" "fuzz/artifacts/$target"
  log=.build-fuzz/logs/$target.log
  # Regression inputs are loaded too (read-only: libFuzzer writes new entries to the first folder only).
  extra=()
  [ "$corpus_dir" != "fuzz/corpus/$target" ] && extra+=("fuzz/corpus/$target")
  [ -d "fuzz/regressions/$target" ] && extra+=("fuzz/regressions/$target")
  options=()
  [ -n "$(dictionary "$target")" ] && options+=("-dict=$(dictionary "$target")")
  echo "fuzzing $target for ${seconds}s"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} nice -n 10 "$binary" \
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$target/" "${options[@]}" \
    "$corpus_dir" "${extra[@]}" >"$log" 2>&1
  result=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  executions=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$corpus_dir" -type f | wc -l)
  crashes=$(find "fuzz/artifacts/$target" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$seconds" "${executions:-0}" "${rate:-0}" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes" \
    >>.build-fuzz/logs/summary.tsv
  echo "  $target: ${executions:-0} runs, ${rate:-0} exec/s, cov ${cov:-?} ft ${ft:-?}, corpus $corpus, crash files $crashes (exit $result)"
  if [ $result -ne 0 ]; then
    status=1
    grep -m3 -E 'ERROR|Fatal error|FUZZ INVARIANT|SUMMARY' "$log" | sed 's/^/    /'
  fi
done
exit $status
