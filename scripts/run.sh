#!/usr/bin/env bash
# Installs what is missing, builds, and starts the DynamoDB-compatible endpoint on
# 127.0.0.1:8000 with its data in ./data. Extra arguments go to `dynarock serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/dynarock serve --host 127.0.0.1 --port 8000 --data ./data "$@"
