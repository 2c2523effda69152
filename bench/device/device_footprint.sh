#!/usr/bin/env bash
# File: bench/device/device_footprint.sh
#
# The device-sized build's footprint, for docs/embedding.md: builds the
# engine-only C library (DYNAROCK_ENGINE_ONLY, MinSizeRel, LTO) in
# build-device/, reports the stripped size of libdynarock.so (its own code:
# RocksDB, simdjson and OpenSSL are shared libraries of their own) and of the
# full `dynarock` tool from build/, and runs device_rss: the resident memory of
# an app holding 10,000 items with the small-device options.
#
#   bash bench/device/device_footprint.sh [ITEMS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ITEMS=${1:-10000}
DEV=$ROOT/build-device
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake -S "$ROOT" -B "$DEV" -G Ninja -DDYNAROCK_ENGINE_ONLY=ON -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON >/dev/null
ninja -C "$DEV" dynarock_c >/dev/null

size_of() { strip -o "$WORK/stripped" "$1" && stat -c %s "$WORK/stripped"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
LIB=$(readlink -f "$DEV/libdynarock.so")
echo "engine-only libdynarock.so, stripped: $(mib "$(size_of "$LIB")") ($(basename "$LIB"))"
echo "  needs: $(readelf -d "$LIB" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
if [ -x "$ROOT/build/dynarock" ]; then
  echo "full dynarock tool (build/, $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$ROOT/build/CMakeCache.txt")), stripped: $(mib "$(size_of "$ROOT/build/dynarock")")"
fi
RDB=$(readelf -d "$LIB" | sed -n 's/.*Shared library: \[\(librocksdb[^]]*\)\]/\1/p')
[ -n "$RDB" ] && echo "  librocksdb (Debian's, shared): $(mib "$(stat -c %s "$(readlink -f /usr/lib/x86_64-linux-gnu/$RDB)")")"

cc -Os "$ROOT/bench/device/device_rss.c" -I"$ROOT/bindings/c/include" -I"$DEV/include" \
  -L"$DEV" -ldynarock -Wl,-rpath,"$DEV" -o "$WORK/device_rss"
"$WORK/device_rss" "$WORK/data" "$ITEMS"
echo "on disk: $(du -sk "$WORK/data" | cut -f1) KiB"
