#!/usr/bin/env bash
# The history checker's long run (issue 18; tests/concurrency/): boto3 client
# processes against `dynarock serve` (on disk, with fault injection delaying
# and dropping a few requests) in rounds of a minute for --seconds, then
# threads on the embedded API (history_driver) for --embedded-seconds; every
# round's history is checked for linearizable single-item operations,
# strictly serializable bank transfers and justified TransactionConflicts.
# Prints the operations checked and the anomalies found; exits 1 on any.
# The checker's self-test runs first. The bounded run is the ctest test
# concurrency_history.
#
#   scripts/history-check.sh [--seconds 600] [--embedded-seconds N]
#       [--processes 4] [--threads 2] [--round-seconds 60] [--no-faults]
#       [--in-memory] [--seed N] [--keep DIR]
#
# Uses build/dynarock and build/tests/history_driver (DYNAROCK_BIN and
# HISTORY_DRIVER_BIN override them), building them first when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600
embedded=""
faults=--faults
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --embedded-seconds) embedded=$2; shift 2 ;;
    --no-faults) faults=""; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
# The embedded rounds take a fifth of the time unless told otherwise.
embedded=${embedded:-$(python3 -c "print(max(10, $seconds / 5))")}
export DYNAROCK_BIN=${DYNAROCK_BIN:-$PWD/build/dynarock}
export HISTORY_DRIVER_BIN=${HISTORY_DRIVER_BIN:-$PWD/build/tests/history_driver}
if [ ! -x "$DYNAROCK_BIN" ] || [ ! -x "$HISTORY_DRIVER_BIN" ]; then
  scripts/build.sh
fi
python3 tests/concurrency/test_history.py CheckerSelfTest 2>&1 | tail -3
exec python3 tests/concurrency/workload.py long --seconds "$seconds" \
  --embedded-seconds "$embedded" --driver "$HISTORY_DRIVER_BIN" $faults "${args[@]}"
