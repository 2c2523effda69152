#!/usr/bin/env bash
# Configures and builds Dynarock into ./build (Release with debug info).
# DYNAROCK_CMAKE_ARGS: more cmake arguments, used when ./build is configured
# the first time (scripts/test.sh leaves the benchmarks out that way).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  # shellcheck disable=SC2086  # the arguments are words
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${DYNAROCK_CMAKE_ARGS:-} >/dev/null
fi
cmake --build build -j "$jobs"
