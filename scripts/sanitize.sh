#!/usr/bin/env bash
# Sanitizer runs, outside the default test run (each build takes a while on two
# cores):
#
#   scripts/sanitize.sh asan   # ASan+UBSan: the unit tests, the concurrency
#                              # history check (server and embedded driver
#                              # instrumented) and the fuzzers
#   scripts/sanitize.sh tsan   # TSan: the unit tests' concurrent suites (their
#                              # own executable, tsan_tests) and the embedded
#                              # history driver (threads on one DB)
#   scripts/sanitize.sh all    # both
#
# Builds go to build-asan/ and build-tsan/ (Debug, -O1, DYNAROCK_SANITIZE),
# sharing ccache with the regular build. Any report fails the run (halt_on_error,
# -fno-sanitize-recover). RocksDB is Debian's uninstrumented library: ASan sees
# our code's memory errors, TSan our code's races (tests/sanitize/tsan.supp lists
# what it reports inside RocksDB's own threads, which it cannot see synchronise).
# Environment: JOBS (ninja -j, default 2), FUZZ_SECONDS (default 30).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JOBS=${JOBS:-2}
what=${1:-all}
case "$what" in asan|tsan|all) ;; *) echo "usage: scripts/sanitize.sh asan|tsan|all" >&2; exit 2 ;; esac

configure() {  # dir sanitizers
  if [[ ! -f "$1/build.ninja" ]]; then
    cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
      -DDYNAROCK_SANITIZE="$2" -DDYNAROCK_BUILD_BENCH=OFF >/dev/null
  fi
}

build() {  # dir targets...
  local dir=$1; shift
  flock /tmp/dynarock-build.lock nice ninja -C "$dir" -j "$JOBS" "$@"
}

run_asan() {
  configure build-asan address,undefined
  build build-asan dynarock dynarock_tests history_driver
  export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  echo "== ASan+UBSan: unit tests"
  build-asan/tests/dynarock_tests --gtest_brief=1
  echo "== ASan+UBSan: concurrency history (server and embedded driver)"
  DYNAROCK_BIN=build-asan/dynarock HISTORY_DRIVER_BIN=build-asan/tests/history_driver \
    python3 tests/concurrency/test_history.py
  echo "== ASan+UBSan: fuzzers (${FUZZ_SECONDS:-30} s each)"
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash tests/fuzz/run_fuzzers.sh build-asan/fuzz
}

run_tsan() {
  configure build-tsan thread
  build build-tsan tsan_tests history_driver
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/sanitize/tsan.supp"
  echo "== TSan: concurrent unit suites"
  build-tsan/tests/tsan_tests --gtest_brief=1 \
    --gtest_filter='*Concurren*:*Thread*:*Parallel*:*Race*:*Lag*:ConsistencyTest.*:FaultsTest.*:CapacityLimits*'
  echo "== TSan: embedded history driver"
  local out
  out=$(mktemp -d)
  build-tsan/tests/history_driver --out "$out/history.jsonl" --threads 8 --seconds 10 \
    --data "$out/data"
  python3 tests/concurrency/checker.py "$out/history.jsonl"
  rm -rf "$out"
}

case "$what" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
esac
echo "sanitize.sh: $what clean"
