#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the GoogleTest suites, the
# fuzzers for a bounded time, and the end-to-end suites that start `dynarock serve`
# and drive it with the AWS CLI, boto3 and the JavaScript SDK v3 (and the web
# console in headless Chromium).
# A fresh ./build is configured without the benchmarks, which no test runs
# (bench/README.md builds them in a Release tree of their own): CI's run on a
# two-core machine must stay short.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
DYNAROCK_CMAKE_ARGS="${DYNAROCK_CMAKE_ARGS:--DDYNAROCK_BUILD_BENCH=OFF}" scripts/build.sh
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
