#!/usr/bin/env bash
# Runs the cargo-fuzz targets, one at a time and niced (the CPU is shared), each for
# FUZZ_SECONDS (default 60), and prints a line per target: executions and crashes.
#   fuzz/run.sh            fuzz FUZZ_TARGETS (default: all), reading the checked-in corpus
#                          fuzz/corpus/<t> and writing what it finds to fuzz/new/<t>;
#                          exits 1 if any target crashed (inputs in fuzz/artifacts/<t>)
#   fuzz/run.sh cmin       merge fuzz/new/<t> into fuzz/corpus/<t>, minimised (cargo fuzz
#                          cmin), to be checked in; `make test` replays it on stable
# Needs nightly and cargo-fuzz: `scripts/setup.sh fuzz` installs them.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${FUZZ_SECONDS:-60}
read -r -a targets <<<"${FUZZ_TARGETS:-retry_after pushback classify status_set settings duration sim}"
# The code under test is safe Rust (the core forbids unsafe), so no sanitizer: twice the
# executions. Debug assertions and overflow checks stay on.
build=(-s none -a)

if [ "${1:-}" = cmin ]; then
  for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    if [ -d "fuzz/new/$t" ]; then cp -n fuzz/new/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true; fi
    # Every edge kept, hit counts not (-use_counters=0): a third of the files.
    nice cargo +nightly fuzz cmin "${build[@]}" "$t" "fuzz/corpus/$t" -- -use_counters=0 \
      >"fuzz/target/cmin-$t.log" 2>&1
    rm -rf "fuzz/new/$t"
    echo "fuzz cmin: $t: $(find "fuzz/corpus/$t" -type f | wc -l) files"
  done
  exit 0
fi

nice cargo +nightly fuzz build "${build[@]}"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "fuzz/new/$t" "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/target/fuzz-$t.log"
  # Inputs that grow coverage go to the first folder; the checked-in corpus is only read.
  nice cargo +nightly fuzz run "${build[@]}" "$t" "fuzz/new/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >"$log" 2>&1 || failed=1
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n1)
  crashes=$(find "fuzz/artifacts/$t" -type f | wc -l)
  printf 'fuzz: %-12s %12s executions in %s s, %s crashes (%s; log: %s)\n' \
    "$t" "${runs:-?}" "$secs" "$crashes" "${cov:-no coverage}" "$log"
done
exit "$failed"
