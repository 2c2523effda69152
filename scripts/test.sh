#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the GoogleTest suites, the
# fuzzers for a bounded time, and the end-to-end suites that start `dynarock serve`
# and drive it with the AWS CLI, boto3 and the JavaScript SDK v3.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
