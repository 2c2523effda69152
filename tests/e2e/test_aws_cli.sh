#!/usr/bin/env bash
# End-to-end test through the AWS CLI (`aws dynamodb ... --endpoint-url`).
#
# Starts `$DYNAROCK_BIN serve --port P --in-memory` through tests/e2e/harness.py
# (or uses $DYNAROCK_E2E_ENDPOINT when set) and checks the CLI against the
# behaviour of real Amazon DynamoDB. Exits non-zero on the first mismatch.
# Covers every operation the endpoint serves: tables (incl. update-table billing
# mode / GSI create-query-delete), items, query/scan, batch-write/batch-get (16 MB
# UnprocessedKeys), transact-write/get (cancellation reasons), TTL, tags,
# continuous backups, describe-limits/endpoints, and their main error paths.
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
command -v "$PY" >/dev/null || fail "$PY not found on PATH"
# unshim NAME: NAME's executable, past a pyenv shim (the shim's extra bash start-up
# costs ~0.25 s per call, and this script makes ~150 aws / python calls).
unshim() {
  local exe
  exe="$(command -v "$1")"
  if [[ "$exe" == */shims/* ]] && command -v pyenv >/dev/null; then
    pyenv which "$1" 2>/dev/null || echo "$exe"
  else
    echo "$exe"
  fi
}
AWS_CLI="$(unshim aws)"
PY="$(unshim "$PY")"

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

ddb() { "$AWS_CLI" dynamodb --endpoint-url "$ENDPOINT" --output json "$@"; }

# holds JSON_TEXT PYTHON_EXPR: true when PYTHON_EXPR (with the parsed JSON bound
# to `d`) is truthy.
holds() {
  JSON="$1" "$PY" -c '
import json, os, sys
d = json.loads(os.environ["JSON"]) if os.environ["JSON"].strip() else {}
bag = lambda xs: sorted(json.dumps(x, sort_keys=True) for x in xs)  # order-free list compare
sys.exit(0 if eval(sys.argv[1]) else 1)
' "$2"
}

# check JSON_TEXT PYTHON_EXPR [DESCRIPTION]: fails the test when PYTHON_EXPR is falsy.
check() {
  local json="$1" expr="$2" what="${3:-$2}"
  if ! holds "$json" "$expr"; then
    echo "response: $json" >&2
    fail "$what"
  fi
}

# jget JSON_TEXT PYTHON_EXPR: prints the value of PYTHON_EXPR.
jget() {
  JSON="$1" "$PY" -c 'import json, os, sys; d = json.loads(os.environ["JSON"]); print(eval(sys.argv[1]))' "$2"
}

# poll PYTHON_EXPR CMD...: reruns CMD (a JSON-printing call) until PYTHON_EXPR holds
# for its output (10 s at most); leaves the last output in $out.
poll() {
  local expr="$1"; shift
  for _ in $(seq 1 40); do
    out=$("$@")
    holds "$out" "$expr" && return 0
    sleep 0.25
  done
  echo "response: $out" >&2
  fail "timed out waiting for: $expr"
}

# expect_error TYPE CMD...: CMD must fail the way the CLI reports a service error:
# exit status 255 (CLI v1; v2 uses 254) and "An error occurred (TYPE) when calling
# the ... operation: MESSAGE" on stderr.
expect_error() {
  local type="$1"; shift
  local rc=0
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [[ $rc -ne 0 ]] || fail "expected $type, but '$*' succeeded: $(cat "$WORK/out")"
  [[ $rc -eq 255 || $rc -eq 254 ]] || fail "expected exit status 255/254 for $type, got $rc: $(cat "$WORK/err")"
  grep -qF "An error occurred ($type) when calling the " "$WORK/err" \
    || fail "expected $type in stderr, got: $(cat "$WORK/err")"
  echo "   got $type (exit $rc)"
}

# expect_msg TEXT: the last expect_error's stderr contains TEXT verbatim.
expect_msg() {
  grep -qF -- "$1" "$WORK/err" || fail "expected '$1' in stderr, got: $(cat "$WORK/err")"
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
ARN=$(jget "$out" "d['Table']['TableArn']")

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

# ---------------------------------------------------------------- batches
step "batch-write-item (puts and a delete in one call)"
cat >"$WORK/bw.json" <<EOF
{"$T": [
  {"PutRequest": {"Item": {"pk": {"S": "batch"}, "sk": {"N": "1"}, "color": {"S": "red"}, "n": {"N": "01.50"}}}},
  {"PutRequest": {"Item": {"pk": {"S": "batch"}, "sk": {"N": "2"}, "color": {"S": "red"}}}},
  {"PutRequest": {"Item": {"pk": {"S": "batch"}, "sk": {"N": "3"}, "color": {"S": "red"}}}},
  {"PutRequest": {"Item": {"pk": {"S": "batch"}, "sk": {"N": "4"}, "color": {"N": "4"}}}},
  {"DeleteRequest": {"Key": {"pk": {"S": "other"}, "sk": {"N": "1"}}}}
]}
EOF
out=$(ddb batch-write-item --request-items "file://$WORK/bw.json")
check "$out" "d == {'UnprocessedItems': {}}" "batch-write-item: empty UnprocessedItems map"

step "batch-get-item"
out=$(ddb batch-get-item --request-items "{\"$T\": {\"Keys\": [
    {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"1\"}}, {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"2\"}},
    {\"pk\": {\"S\": \"other\"}, \"sk\": {\"N\": \"1\"}}, {\"pk\": {\"S\": \"user\"}, \"sk\": {\"N\": \"2\"}}],
  \"ProjectionExpression\": \"sk, #c, n\", \"ExpressionAttributeNames\": {\"#c\": \"color\"}}}")
check "$out" "bag(d['Responses']['$T']) == bag([{'sk': {'N': '1'}, 'color': {'S': 'red'}, 'n': {'N': '1.5'}},
  {'sk': {'N': '2'}, 'color': {'S': 'red'}}, {'sk': {'N': '2'}, 'n': {'N': '2.5'}}])" \
  "batch-get-item: projected items; the batch-deleted key is absent"
check "$out" "d['UnprocessedKeys'] == {} and list(d['Responses']) == ['$T']" "batch-get-item: empty UnprocessedKeys"
expect_error ValidationException ddb batch-get-item --request-items \
  "{\"$T\": {\"Keys\": [{\"pk\": {\"N\": \"1\"}, \"sk\": {\"N\": \"1\"}}]}}"
expect_msg "The provided key element does not match the schema"

# BatchGetItem answers at most 16 MB and hands back the rest as UnprocessedKeys,
# in RequestItems' format (ProjectionExpression etc. kept) so it can be resent.
step "batch-get-item over 16 MB returns UnprocessedKeys"
"$PY" - "$T" "$WORK" <<'EOF'
import json, sys
t, work = sys.argv[1:3]
filler = "x" * (390 * 1024)  # ~399 KB items: 48 of them are ~19 MB
for part in range(2):
    json.dump({t: [{"PutRequest": {"Item": {"pk": {"S": "big"}, "sk": {"N": str(part * 24 + i)},
                                            "filler": {"S": filler}}}} for i in range(24)]},
              open(f"{work}/big{part}.json", "w"))
json.dump({t: {"Keys": [{"pk": {"S": "big"}, "sk": {"N": str(i)}} for i in range(48)],
               "ProjectionExpression": "sk, filler"}}, open(f"{work}/bigget.json", "w"))
EOF
for part in 0 1; do
  out=$(ddb batch-write-item --request-items "file://$WORK/big$part.json")
  check "$out" "d == {'UnprocessedItems': {}}" "batch-write-item of 24 large items"
done
out=$(ddb batch-get-item --request-items "file://$WORK/bigget.json" \
  --query "{got: Responses.\"$T\"[].sk.N, blobs: Responses.\"$T\"[].length(filler.S), unprocessed: UnprocessedKeys}")
check "$out" "list(d['unprocessed']) == ['$T'] and len(d['unprocessed']['$T']['Keys']) > 0" \
  "UnprocessedKeys is {table: {Keys: [...]}} and not empty"
check "$out" "d['unprocessed']['$T'].get('ProjectionExpression') == 'sk, filler'" \
  "UnprocessedKeys keeps the request's ProjectionExpression"
check "$out" "0 < len(d['got']) and sum(d['blobs']) <= 16 * 1024 * 1024 and set(d['blobs']) == {390 * 1024}" \
  "a partial answer of whole items within 16 MB"
check "$out" "sorted(d['got'] + [k['sk']['N'] for k in d['unprocessed']['$T']['Keys']], key=int) == [str(i) for i in range(48)]" \
  "answered + unprocessed keys = requested keys, no overlap"
check "$out" "all(k['pk'] == {'S': 'big'} for k in d['unprocessed']['$T']['Keys'])" "unprocessed keys are full keys"

# ---------------------------------------------------------------- transactions
step "transact-write-items"
out=$(ddb transact-write-items --return-consumed-capacity TOTAL --transact-items "[
  {\"Put\": {\"TableName\": \"$T\", \"Item\": {\"pk\": {\"S\": \"tx\"}, \"sk\": {\"N\": \"1\"}, \"v\": {\"N\": \"1\"}},
             \"ConditionExpression\": \"attribute_not_exists(pk)\"}},
  {\"Update\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"1\"}},
                \"UpdateExpression\": \"SET color = :b\", \"ExpressionAttributeValues\": {\":b\": {\"S\": \"blue\"}}}},
  {\"Delete\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"3\"}},
                \"ConditionExpression\": \"attribute_exists(pk)\"}}]")
check "$out" "[(c['TableName'], c['CapacityUnits']) for c in d['ConsumedCapacity']] == [('$T', 6.0)]" \
  "three small transactional writes cost 2 WCU each"

step "transact-write-items cancelled (CLI prints the cancellation reasons)"
expect_error TransactionCanceledException ddb transact-write-items --transact-items "[
  {\"Put\": {\"TableName\": \"$T\", \"Item\": {\"pk\": {\"S\": \"tx\"}, \"sk\": {\"N\": \"2\"}}}},
  {\"Update\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"2\"}},
                \"UpdateExpression\": \"SET color = :g\", \"ConditionExpression\": \"color = :b\",
                \"ExpressionAttributeValues\": {\":g\": {\"S\": \"green\"}, \":b\": {\"S\": \"blue\"}}}},
  {\"ConditionCheck\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"tx\"}, \"sk\": {\"N\": \"1\"}},
                        \"ConditionExpression\": \"attribute_exists(pk)\"}}]"
expect_msg "when calling the TransactWriteItems operation: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None]"

step "transact-get-items"
out=$(ddb transact-get-items --transact-items "[
  {\"Get\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"tx\"}, \"sk\": {\"N\": \"1\"}}}},
  {\"Get\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"tx\"}, \"sk\": {\"N\": \"2\"}}}},
  {\"Get\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"1\"}}, \"ProjectionExpression\": \"color\"}},
  {\"Get\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"2\"}}, \"ProjectionExpression\": \"color\"}},
  {\"Get\": {\"TableName\": \"$T\", \"Key\": {\"pk\": {\"S\": \"batch\"}, \"sk\": {\"N\": \"3\"}}}}]")
check "$out" "d['Responses'] == [{'Item': {'pk': {'S': 'tx'}, 'sk': {'N': '1'}, 'v': {'N': '1'}}}, {},
  {'Item': {'color': {'S': 'blue'}}}, {'Item': {'color': {'S': 'red'}}}, {}]" \
  "transact-get-items: committed writes visible, cancelled ones not, {} for missing items, in request order"

# ---------------------------------------------------------------- update-table
step "update-table: PAY_PER_REQUEST -> PROVISIONED"
out=$(ddb update-table --table-name "$T" --billing-mode PROVISIONED \
  --provisioned-throughput ReadCapacityUnits=5,WriteCapacityUnits=7)
check "$out" "d['TableDescription']['TableStatus'] in ('UPDATING', 'ACTIVE')"
check "$out" "d['TableDescription']['BillingModeSummary']['BillingMode'] == 'PROVISIONED'"
check "$out" "(d['TableDescription']['ProvisionedThroughput']['ReadCapacityUnits'],
  d['TableDescription']['ProvisionedThroughput']['WriteCapacityUnits']) == (5, 7)"

step "update-table: create GSI (backfills existing items)"
out=$(ddb update-table --table-name "$T" \
  --attribute-definitions AttributeName=color,AttributeType=S \
  --global-secondary-index-updates '[{"Create": {"IndexName": "bycolor",
    "KeySchema": [{"AttributeName": "color", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]},
    "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}}]')
check "$out" "{'AttributeName': 'color', 'AttributeType': 'S'} in d['TableDescription']['AttributeDefinitions']"
check "$out" "[(g['IndexName'], g['IndexStatus']) for g in d['TableDescription']['GlobalSecondaryIndexes']] == [('bycolor', 'CREATING')]" \
  "the new index starts CREATING"
check "$out" "d['TableDescription']['GlobalSecondaryIndexes'][0]['IndexArn'] == '$ARN/index/bycolor'"
poll "d['Table']['TableStatus'] == 'ACTIVE' and d['Table']['GlobalSecondaryIndexes'][0]['IndexStatus'] == 'ACTIVE'" \
  ddb describe-table --table-name "$T"
check "$out" "(lambda g: (g['ProvisionedThroughput']['ReadCapacityUnits'], g['ProvisionedThroughput']['WriteCapacityUnits'],
  g['Projection']))(d['Table']['GlobalSecondaryIndexes'][0]) == (2, 3, {'ProjectionType': 'INCLUDE', 'NonKeyAttributes': ['n']})"

step "query the new GSI"
out=$(ddb query --table-name "$T" --index-name bycolor \
  --key-condition-expression 'color = :c' --expression-attribute-values '{":c": {"S": "red"}}')
# batch/2 was put before the index existed; batch/1 is blue now, batch/3 deleted,
# batch/4's color is a number (wrong type: left out of the index).
check "$out" "d['Items'] == [{'pk': {'S': 'batch'}, 'sk': {'N': '2'}, 'color': {'S': 'red'}}] and d['Count'] == 1" \
  "backfilled GSI answers with the INCLUDE projection"
out=$(ddb query --table-name "$T" --index-name bycolor \
  --key-condition-expression 'color = :c' --expression-attribute-values '{":c": {"S": "blue"}}')
check "$out" "d['Items'] == [{'pk': {'S': 'batch'}, 'sk': {'N': '1'}, 'color': {'S': 'blue'}, 'n': {'N': '1.5'}}]" \
  "INCLUDE projects the listed non-key attribute"
expect_error ValidationException ddb query --table-name "$T" --index-name bycolor --consistent-read \
  --key-condition-expression 'color = :c' --expression-attribute-values '{":c": {"S": "red"}}'
expect_msg "Consistent reads are not supported on global secondary indexes"
expect_error ValidationException ddb put-item --table-name "$T" \
  --item '{"pk": {"S": "batch"}, "sk": {"N": "5"}, "color": {"N": "5"}}'
expect_msg "One or more parameter values were invalid: Type mismatch for Index Key color Expected: S Actual: N IndexName: bycolor"

step "update-table: delete GSI, back to PAY_PER_REQUEST"
out=$(ddb update-table --table-name "$T" --global-secondary-index-updates '[{"Delete": {"IndexName": "bycolor"}}]')
check "$out" "[(g['IndexName'], g['IndexStatus']) for g in d['TableDescription']['GlobalSecondaryIndexes']] == [('bycolor', 'DELETING')]" \
  "the index goes DELETING"
poll "d['Table']['TableStatus'] == 'ACTIVE' and 'GlobalSecondaryIndexes' not in d['Table']" \
  ddb describe-table --table-name "$T"
expect_error ValidationException ddb query --table-name "$T" --index-name bycolor \
  --key-condition-expression 'color = :c' --expression-attribute-values '{":c": {"S": "red"}}'
expect_msg "The table does not have the specified index: bycolor"
out=$(ddb update-table --table-name "$T" --billing-mode PAY_PER_REQUEST)
check "$out" "d['TableDescription']['BillingModeSummary']['BillingMode'] == 'PAY_PER_REQUEST'"
check "$out" "'LastUpdateToPayPerRequestDateTime' in d['TableDescription']['BillingModeSummary']"
expect_error ValidationException ddb update-table --table-name "$T"
expect_msg "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"

# ---------------------------------------------------------------- TTL
step "update-time-to-live / describe-time-to-live"
out=$(ddb describe-time-to-live --table-name "$T")
check "$out" "d == {'TimeToLiveDescription': {'TimeToLiveStatus': 'DISABLED'}}" "TTL starts DISABLED"
out=$(ddb update-time-to-live --table-name "$T" --time-to-live-specification Enabled=true,AttributeName=expires)
check "$out" "d == {'TimeToLiveSpecification': {'Enabled': True, 'AttributeName': 'expires'}}"
out=$(ddb describe-time-to-live --table-name "$T")
check "$out" "d['TimeToLiveDescription']['TimeToLiveStatus'] in ('ENABLING', 'ENABLED')"
check "$out" "d['TimeToLiveDescription']['AttributeName'] == 'expires'"
expect_error ValidationException ddb update-time-to-live --table-name "$T" \
  --time-to-live-specification Enabled=true,AttributeName=expires
expect_msg "TimeToLive is already enabled"

# ---------------------------------------------------------------- tags
step "tag-resource / untag-resource / list-tags-of-resource"
ddb tag-resource --resource-arn "$ARN" --tags Key=env,Value=test Key=team,Value=storage Key=tier,Value=
ddb untag-resource --resource-arn "$ARN" --tag-keys env never-set
out=$(ddb list-tags-of-resource --resource-arn "$ARN")
check "$out" "sorted(d['Tags'], key=lambda t: t['Key']) == [{'Key': 'team', 'Value': 'storage'}, {'Key': 'tier', 'Value': ''}]" \
  "tags after tag + untag"
MISSING_ARN="${ARN%/*}/missing-$T"
expect_error ResourceNotFoundException ddb list-tags-of-resource --resource-arn "$MISSING_ARN"
expect_msg "Requested resource not found"

# ---------------------------------------------------------------- backups
step "describe-continuous-backups / update-continuous-backups"
out=$(ddb describe-continuous-backups --table-name "$T")
check "$out" "d['ContinuousBackupsDescription']['ContinuousBackupsStatus'] == 'ENABLED'"
check "$out" "d['ContinuousBackupsDescription']['PointInTimeRecoveryDescription']['PointInTimeRecoveryStatus'] == 'DISABLED'"
out=$(ddb update-continuous-backups --table-name "$T" \
  --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true)
check "$out" "(lambda p: (p['PointInTimeRecoveryStatus'], p['RecoveryPeriodInDays'], p['EarliestRestorableDateTime'] <= p['LatestRestorableDateTime']))(d['ContinuousBackupsDescription']['PointInTimeRecoveryDescription']) == ('ENABLED', 35, True)" \
  "PITR enabled with the default 35-day window"
expect_error TableNotFoundException ddb describe-continuous-backups --table-name "missing-$T"

# ---------------------------------------------------------------- account level
step "describe-limits / describe-endpoints"
out=$(ddb describe-limits)
# The documented default quotas (us-east-1): 40,000 units per table, 80,000 per account.
check "$out" "d == {'AccountMaxReadCapacityUnits': 80000, 'AccountMaxWriteCapacityUnits': 80000,
  'TableMaxReadCapacityUnits': 40000, 'TableMaxWriteCapacityUnits': 40000}"
out=$(ddb describe-endpoints)
check "$out" "len(d['Endpoints']) == 1 and d['Endpoints'][0]['CachePeriodInMinutes'] == 1440"
check "$out" "d['Endpoints'][0]['Address'] and '://' not in d['Endpoints'][0]['Address']" "Address is a host name, no scheme"

step "error paths"
expect_error ConditionalCheckFailedException \
  ddb put-item --table-name "$T" --item '{"pk":{"S":"user"},"sk":{"N":"2"}}' \
  --condition-expression 'attribute_not_exists(pk)'
expect_msg "when calling the PutItem operation: The conditional request failed"
expect_error ConditionalCheckFailedException \
  ddb delete-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"2"}}' \
  --condition-expression 'attribute_exists(nope)'
expect_msg "when calling the DeleteItem operation: The conditional request failed"
out=$(ddb get-item --table-name "$T" --key '{"pk":{"S":"user"},"sk":{"N":"2"}}' --projection-expression sk)
check "$out" "d['Item'] == {'sk': {'N': '2'}}" "a failed conditional delete leaves the item"
expect_error ValidationException \
  ddb get-item --table-name "$T" --key '{"pk":{"S":"user"}}'
expect_msg "The provided key element does not match the schema"
expect_error ResourceNotFoundException ddb describe-table --table-name "missing-$T"
expect_msg "Requested resource not found: Table: missing-$T not found"
expect_error ResourceNotFoundException ddb put-item --table-name "missing-$T" --item '{"pk":{"S":"x"}}'
expect_msg "when calling the PutItem operation: Requested resource not found"
expect_error ResourceInUseException ddb create-table --table-name "$T" \
  --attribute-definitions AttributeName=pk,AttributeType=S \
  --key-schema AttributeName=pk,KeyType=HASH --billing-mode PAY_PER_REQUEST

step "execute-statement, batch-execute-statement, execute-transaction (PartiQL)"
ddb execute-statement --statement "INSERT INTO \"$T\" VALUE {'pk': 'pq', 'sk': 1, 'n': 5}" >/dev/null
out=$(ddb execute-statement --statement "SELECT n FROM \"$T\" WHERE pk = ? AND sk = ?" \
  --parameters '[{"S":"pq"},{"N":"1"}]')
check "$out" "d['Items'] == [{'n': {'N': '5'}}]" "select by key"
expect_error DuplicateItemException \
  ddb execute-statement --statement "INSERT INTO \"$T\" VALUE {'pk': 'pq', 'sk': 1}"
expect_msg "Duplicate primary key exists in table"
out=$(ddb batch-execute-statement --statements \
  "[{\"Statement\":\"UPDATE \\\"$T\\\" SET n = n + 1 WHERE pk = 'pq' AND sk = 1\"}]")
check "$out" "'Error' not in d['Responses'][0]" "batch update"
ddb execute-transaction --transact-statements \
  "[{\"Statement\":\"DELETE FROM \\\"$T\\\" WHERE pk = 'pq' AND sk = 1\"}]" >/dev/null
out=$(ddb execute-statement --statement "SELECT * FROM \"$T\" WHERE pk = 'pq'")
check "$out" "d['Items'] == []" "deleted in a transaction"
expect_error ValidationException ddb execute-statement --statement "SELECT * FRM \"$T\""
expect_msg "Statement wasn't well formed"

step "delete-table"
out=$(ddb delete-table --table-name "$T")
check "$out" "d['TableDescription']['TableName'] == '$T'"
ddb wait table-not-exists --table-name "$T"
expect_error ResourceNotFoundException ddb describe-table --table-name "$T"
out=$(ddb list-tables)
check "$out" "'$T' not in d['TableNames']" "deleted table is not listed"

echo "OK: AWS CLI e2e passed"
