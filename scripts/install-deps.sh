#!/usr/bin/env bash
# Installs what Dynarock needs to build, test and run, from Debian's packages and
# (for the JavaScript SDK end-to-end tests) the npm registry. Does nothing when
# everything is already there. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config
  librocksdb-dev libsimdjson-dev libboost-dev zlib1g-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  wrk
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The end-to-end tests drive the server with boto3 and the AWS CLI.
py=$(command -v python3 || true)
if [ -z "$py" ]; then missing+=(python3); fi
if [ -n "$py" ] && ! "$py" -c 'import boto3' 2>/dev/null; then missing+=(python3-boto3); fi
command -v aws >/dev/null 2>&1 || missing+=(awscli)
# The JavaScript SDK tests need node and npm; a machine may have them from
# another source than Debian (whose npm package would then conflict).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The JavaScript SDK v3, pinned by tests/e2e/js/package-lock.json.
if [ -f tests/e2e/js/package-lock.json ] && [ ! -d tests/e2e/js/node_modules ]; then
  (cd tests/e2e/js && npm ci --no-audit --no-fund --loglevel=error)
fi
