#!/usr/bin/env bash
# End-to-end test through the AWS CLI (`aws dynamodb ... --endpoint-url`).
#
# Starts `$DYNAROCK_BIN serve --port P --in-memory` through tests/e2e/harness.py
# (or uses $DYNAROCK_E2E_ENDPOINT when set) and checks the CLI against the
# behaviour of real Amazon DynamoDB. Exits non-zero on the first mismatch.
#
#   DYNAROCK_BIN=build/dynarock bash tests/e2e/test_aws_cli.sh
#   DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055 bash tests/e2e/test_aws_cli.sh
#
# moto 5.x (used for development) fails this script on purpose at the number
# normalisation check (it stores "02.50" verbatim) and at the key-mismatch
# message (it says "Validation Exception").
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d)"
HARNESS_PID=""

cleanup() {
  local rc=$?
  if [[ -n "$HARNESS_PID" ]]; then
    kill "$HARNESS_PID" 2>/dev/null || true
    wait "$HARNESS_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

command -v aws >/dev/null || fail "aws CLI not found on PATH"

# Dummy credentials; never read the developer's own config.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_SESSION_TOKEN=test
export AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
export AWS_EC2_METADATA_DISABLED=true AWS_MAX_ATTEMPTS=1 AWS_PAGER=""
unset AWS_PROFILE || true

if [[ -n "${DYNAROCK_E2E_ENDPOINT:-}" ]]; then
  ENDPOINT="${DYNAROCK_E2E_ENDPOINT%/}"
else
  "$PY" "$HERE/harness.py" serve >"$WORK/url" &
  HARNESS_PID=$!
  for _ in $(seq 1 150); do
    [[ -s "$WORK/url" ]] && break
    kill -0 "$HARNESS_PID" 2>/dev/null || fail "harness exited before the server was ready"
    sleep 0.1
  done
  [[ -s "$WORK/url" ]] || fail "server not ready within 15 s"
  ENDPOINT="$(head -n1 "$WORK/url")"
fi
echo "endpoint: $ENDPOINT"

ddb() { aws dynamodb --endpoint-url "$ENDPOINT" --output json "$@"; }

# check JSON_TEXT PYTHON_EXPR [DESCRIPTION]: evaluates PYTHON_EXPR with the parsed
# JSON bound to `d`; fails the test when it is falsy.
check() {
  local json="$1" expr="$2" what="${3:-$2}"
  if ! JSON="$json" "$PY" -c '
import json, os, sys
d = json.loads(os.environ["JSON"]) if os.environ["JSON"].strip() else {}
sys.exit(0 if eval(sys.argv[1]) else 1)
' "$expr"; then
    echo "response: $json" >&2
    fail "$what"
  fi
}

# expect_error TYPE CMD...: CMD must exit non-zero and name TYPE on stderr.
expect_error() {
  local type="$1"; shift
  local rc=0
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [[ $rc -ne 0 ]] || fail "expected $type, but '$*' succeeded: $(cat "$WORK/out")"
  grep -q "$type" "$WORK/err" || fail "expected $type in stderr, got: $(cat "$WORK/err")"
  echo "   got $type (exit $rc)"
}

T="cli-$(date +%s)-$$-$RANDOM"

step "create-table $T"
out=$(ddb create-table --table-name "$T" \
  --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=N \
  --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE \
  --billing-mode PAY_PER_REQUEST)
check "$out" "d['TableDescription']['TableName'] == '$T'" "create-table echoes the name"
check "$out" "d['TableDescription']['TableStatus'] in ('CREATING', 'ACTIVE')" "status CREATING/ACTIVE"
check "$out" "d['TableDescription']['BillingModeSummary']['BillingMode'] == 'PAY_PER_REQUEST'"

step "wait table-exists"
ddb wait table-exists --table-name "$T"

step "describe-table"
out=$(ddb describe-table --table-name "$T")
check "$out" "d['Table']['TableStatus'] == 'ACTIVE'"
check "$out" "d['Table']['KeySchema'] == [{'AttributeName': 'pk', 'KeyType': 'HASH'}, {'AttributeName': 'sk', 'KeyType': 'RANGE'}]"
check "$out" "d['Table']['TableArn'].endswith(':table/$T')"
check "$out" "d['Table']['ItemCount'] == 0"

step "list-tables"
out=$(ddb list-tables)
check "$out" "'$T' in d['TableNames']" "new table is listed"
check "$out" "d['TableNames'] == sorted(d['TableNames'])" "list-tables is sorted"

step "put-item"
for i in 1 2 3 4 5; do
  ddb put-item --table-name "$T" \
    --item "{\"pk\":{\"S\":\"user\"},\"sk\":{\"N\":\"$i\"},\"name\":{\"S\":\"n$i\"},\"tags\":{\"SS\":[\"a\",\"b\"]},\"n\":{\"N\":\"0$i.50\"}}"
done
ddb put-item --table-name "$T" --item '{"pk":{"S":"other"},"sk":{"N":"1"}}'

step "put-item --return-values ALL_OLD"
out=$(ddb put-item --table-name "$T" --return-values ALL_OLD \
  --item '{"pk":{"S":"user"},"sk":{"N":"5"},"name":{"S":"five"}}')
check "$out" "d['Attributes']['name'] == {'S': 'n5'}" "ALL_OLD returns the replaced item"

step "get-item"
out=$(ddb get-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"2"}}')
check "$out" "d['Item']['name'] == {'S': 'n2'}"
check "$out" "d['Item']['n'] == {'N': '2.5'}" "numbers are normalised (02.50 -> 2.5)"
check "$out" "sorted(d['Item']['tags']['SS']) == ['a', 'b']"
out=$(ddb get-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"99"}}')
check "$out" "'Item' not in d" "missing item has no Item"

step "query"
out=$(ddb query --table-name "$T" \
  --key-condition-expression '#p = :p AND sk BETWEEN :lo AND :hi' \
  --expression-attribute-names '{"#p":"pk"}' \
  --expression-attribute-values '{":p":{"S":"user"},":lo":{"N":"2"},":hi":{"N":"4"}}')
check "$out" "[i['sk']['N'] for i in d['Items']] == ['2', '3', '4']" "query BETWEEN ascending"
check "$out" "d['Count'] == 3 and d['ScannedCount'] == 3"
out=$(ddb query --table-name "$T" --no-scan-index-forward \
  --key-condition-expression 'pk = :p' --expression-attribute-values '{":p":{"S":"user"}}')
check "$out" "[i['sk']['N'] for i in d['Items']] == ['5', '4', '3', '2', '1']" "query descending"
out=$(ddb query --table-name "$T" --select COUNT \
  --key-condition-expression 'pk = :p' --expression-attribute-values '{":p":{"S":"user"}}')
check "$out" "d['Count'] == 5 and 'Items' not in d" "select COUNT"
# The CLI paginates by itself; --page-size forces several requests.
out=$(ddb query --table-name "$T" --page-size 2 \
  --key-condition-expression 'pk = :p' --expression-attribute-values '{":p":{"S":"user"}}')
check "$out" "[i['sk']['N'] for i in d['Items']] == ['1', '2', '3', '4', '5']" "CLI auto-pagination"

step "scan"
out=$(ddb scan --table-name "$T")
check "$out" "d['Count'] == 6 and len(d['Items']) == 6"
out=$(ddb scan --table-name "$T" --filter-expression 'attribute_exists(tags)')
check "$out" "d['Count'] == 4 and d['ScannedCount'] == 6" "filter Count vs ScannedCount"

step "update-item"
out=$(ddb update-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"1"}}' \
  --update-expression 'SET #c = if_not_exists(#c, :z) + :one' \
  --expression-attribute-names '{"#c":"counter"}' \
  --expression-attribute-values '{":z":{"N":"0"},":one":{"N":"1"}}' --return-values UPDATED_NEW)
check "$out" "d['Attributes'] == {'counter': {'N': '1'}}"

step "delete-item"
out=$(ddb delete-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"1"}}' --return-values ALL_OLD)
check "$out" "d['Attributes']['counter'] == {'N': '1'}"
out=$(ddb get-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"1"}}')
check "$out" "'Item' not in d" "deleted item is gone"

step "error paths"
expect_error ConditionalCheckFailedException \
  ddb put-item --table-name "$T" --item '{"pk":{"S":"user"},"sk":{"N":"2"}}' \
  --condition-expression 'attribute_not_exists(pk)'
grep -q "The conditional request failed" "$WORK/err" || fail "CCF message: $(cat "$WORK/err")"
expect_error ValidationException \
  ddb get-item --table-name "$T" --key '{"pk":{"S":"user"}}'
grep -q "The provided key element does not match the schema" "$WORK/err" \
  || fail "key mismatch message: $(cat "$WORK/err")"
expect_error ResourceNotFoundException ddb describe-table --table-name "missing-$T"
expect_error ResourceInUseException ddb create-table --table-name "$T" \
  --attribute-definitions AttributeName=pk,AttributeType=S \
  --key-schema AttributeName=pk,KeyType=HASH --billing-mode PAY_PER_REQUEST

step "delete-table"
out=$(ddb delete-table --table-name "$T")
check "$out" "d['TableDescription']['TableName'] == '$T'"
ddb wait table-not-exists --table-name "$T"
expect_error ResourceNotFoundException ddb describe-table --table-name "$T"
out=$(ddb list-tables)
check "$out" "'$T' not in d['TableNames']" "deleted table is not listed"

echo "OK: AWS CLI e2e passed"
