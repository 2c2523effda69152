#!/usr/bin/env bash
# Runs every e2e suite (Python/boto3, AWS CLI, JS SDK) and reports the result.
# Each suite starts its own `$DYNAROCK_BIN serve --in-memory` on a free port,
# or uses $DYNAROCK_E2E_ENDPOINT when it is set.
#
#   DYNAROCK_BIN=build/dynarock bash tests/e2e/run_all.sh
#   DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055 bash tests/e2e/run_all.sh   # e.g. moto
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"
failed=()
run() {
  local name="$1"; shift
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then echo "=== $name: PASS ($((SECONDS - t0)) s)"; else
    echo "=== $name: FAIL ($((SECONDS - t0)) s)"; failed+=("$name"); fi
}
for f in "$HERE"/test_*.py; do run "$(basename "$f")" "$PY" "$f"; done
for f in "$HERE"/test_*.sh; do run "$(basename "$f")" bash "$f"; done
for f in "$HERE"/js/test_*.mjs; do run "js/$(basename "$f")" node "$f"; done
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "ALL PASSED"
