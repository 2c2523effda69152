#!/usr/bin/env python3
"""Creates the load benchmark's table and loads its items through boto3.

    python3 bench/load/setup.py --endpoint http://127.0.0.1:8000

Table "bench": pk (S, HASH) + sk (S, RANGE), on-demand. Items (the key spaces
common.lua draws from):
  G#0..G#999   sk "0"           read by get_item.lua
  Q#0..Q#49    sk "00".."19"    20 items per partition, read by query.lua
  C#0..C#999   sk "0", n >= 0   overwritten by cond_put.lua under a condition
put_item.lua writes P#* keys. Each item carries ~200 bytes of data.

Idempotent: an existing table is reused and the items are rewritten, so one
server (moto in run.sh) can be set up more than once.
"""

import argparse
import sys
import time

import boto3
import botocore

TABLE = "bench"
GET_ITEMS = 1000
QUERY_PARTITIONS = 50
QUERY_ITEMS = 20
COND_ITEMS = 1000
DATA = "d" * 200


def client(endpoint):
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        config=botocore.config.Config(retries={"max_attempts": 10, "mode": "standard"}),
    )


def create_table(ddb):
    try:
        ddb.create_table(
            TableName=TABLE,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
    except ddb.exceptions.ResourceInUseException:
        pass
    for _ in range(100):
        status = ddb.describe_table(TableName=TABLE)["Table"]["TableStatus"]
        if status == "ACTIVE":
            return
        time.sleep(0.1)
    raise SystemExit(f"table {TABLE} did not become ACTIVE")


def items():
    for i in range(GET_ITEMS):
        yield {"pk": {"S": f"G#{i}"}, "sk": {"S": "0"}, "n": {"N": str(i)}, "data": {"S": DATA}}
    for p in range(QUERY_PARTITIONS):
        for j in range(QUERY_ITEMS):
            yield {
                "pk": {"S": f"Q#{p}"},
                "sk": {"S": f"{j:02d}"},
                "n": {"N": str(j)},
                "data": {"S": DATA},
            }
    for i in range(COND_ITEMS):
        yield {"pk": {"S": f"C#{i}"}, "sk": {"S": "0"}, "n": {"N": str(i)}, "data": {"S": DATA}}


def load(ddb):
    batch, count = [], 0

    def flush(batch):
        request = {TABLE: [{"PutRequest": {"Item": it}} for it in batch]}
        for attempt in range(20):
            out = ddb.batch_write_item(RequestItems=request)
            request = out.get("UnprocessedItems") or {}
            if not request:
                return
            time.sleep(0.05 * (attempt + 1))
        raise SystemExit("batch_write_item kept returning UnprocessedItems")

    for it in items():
        batch.append(it)
        if len(batch) == 25:
            flush(batch)
            count += len(batch)
            batch = []
    if batch:
        flush(batch)
        count += len(batch)
    return count


def check(ddb):
    got = ddb.get_item(TableName=TABLE, Key={"pk": {"S": "G#7"}, "sk": {"S": "0"}})
    if "Item" not in got:
        raise SystemExit("check failed: G#7 not found after loading")
    q = ddb.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "Q#3"}},
    )
    if q["Count"] != QUERY_ITEMS:
        raise SystemExit(f"check failed: Query of Q#3 returned {q['Count']} items")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", required=True, help="e.g. http://127.0.0.1:8000")
    args = ap.parse_args()
    ddb = client(args.endpoint)
    t0 = time.time()
    create_table(ddb)
    n = load(ddb)
    check(ddb)
    print(f"setup: {n} items in table {TABLE} at {args.endpoint} ({time.time() - t0:.1f}s)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
