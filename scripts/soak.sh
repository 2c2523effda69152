#!/usr/bin/env bash
# Soak: 30 minutes (--minutes N) of mixed load on `dynarock serve` with streams
# and TTL active, one row a minute (throughput, p50/p99/p99.9, errors, RSS,
# data size, items, stream records); exits 1 if RSS or throughput drift, any
# request fails or the stream reader stops. See tests/soak/soak.py.
#
#   scripts/soak.sh [--minutes 30] [--connections 16] [--out soak.tsv]
#
# Builds first (the regular build/ directory) unless DYNAROCK_BIN is set.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${DYNAROCK_BIN:-}" ]]; then
  flock /tmp/dynarock-build.lock ninja -C "$ROOT/build" dynarock >/dev/null
  export DYNAROCK_BIN="$ROOT/build/dynarock"
fi
exec python3 "$ROOT/tests/soak/soak.py" "$@"
