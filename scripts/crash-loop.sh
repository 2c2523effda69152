#!/usr/bin/env bash
# The kill -9 crash loop at scale (issue 18; tests/crash/): `crash_writer run`
# on one data directory, killed with SIGKILL after a random 0.5-2 s, --rounds
# times (100 by default), with transactions, GSIs (one added by a backfill that
# a kill interrupts), streams (trimmed as they go), time to live and the graph
# layer's edge sets all active; after every kill `dynarock check` and
# `crash_writer verify` (the model of acknowledged writes) must pass. Prints
# one line per cycle, then the cycles, failures and time; exits 1 at the first
# failing cycle, naming the seed that replays it (and keeping the data). The
# default test run (ctest crash_recovery) does the same for 10 cycles.
#
#   scripts/crash-loop.sh [--rounds 100] [--seed N] [--retention SECONDS]
#
# Uses build/dynarock and build/tests/crash_writer (DYNAROCK_BIN and
# CRASH_WRITER_BIN override them), building them first when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=100
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seed) export CRASH_SEED=$2; shift 2 ;;
    --retention) export CRASH_STREAM_RETENTION=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "crash-loop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
export DYNAROCK_BIN=${DYNAROCK_BIN:-$PWD/build/dynarock}
export CRASH_WRITER_BIN=${CRASH_WRITER_BIN:-$PWD/build/tests/crash_writer}
if [ ! -x "$DYNAROCK_BIN" ] || [ ! -x "$CRASH_WRITER_BIN" ]; then
  scripts/build.sh
fi
# Private copies: a build in the shared tree during the loop must not swap the
# binaries under it.
bin=$(mktemp -d /tmp/dynarock-crash-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
cp "$DYNAROCK_BIN" "$bin/dynarock"
cp "$CRASH_WRITER_BIN" "$bin/crash_writer"
export DYNAROCK_BIN=$bin/dynarock CRASH_WRITER_BIN=$bin/crash_writer
export CRASH_ROUNDS=$rounds
python3 tests/crash/test_crash_recovery.py CrashRecoveryTest.test_kill9_rounds_then_check
