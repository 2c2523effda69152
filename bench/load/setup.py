#!/usr/bin/env python3
"""Creates the load benchmark's tables and loads their items through boto3.

    python3 bench/load/setup.py --endpoint http://127.0.0.1:8000
    python3 bench/load/setup.py --ceiling-replies    # the nginx ceiling's bodies, no server
    python3 bench/load/setup.py --nginx-maps [--fixed-ceiling]   # run.sh's nginx map blocks

Table "bench": pk (S, HASH) + sk (S, RANGE), on-demand. Items (the key spaces
common.lua draws from):
  G#0..G#999   sk "0"           read by get_item.lua
  Q#0..Q#49    sk "00".."19"    20 items per partition, read by query.lua
  C#0..C#999   sk "0", n >= 0   overwritten by cond_put.lua under a condition
put_item.lua writes P#* keys. Each item carries ~200 bytes of data.

Table "bench_mixed" (same schema), only with --mixed-items N (run.sh passes
100000 when the mixed op is in the run):
  M#0..M#N-1   sk "0"           read and overwritten by mixed.lua
A table of its own, so that the other ops run on the same small table whether
or not the mixed op is in the run.

The mixed items go in BatchWriteItems of 25 from --workers processes (default
4): boto3's own Python work per batch is the bottleneck against a fast server,
and the round trips of a slow one overlap.

Idempotent: an existing table is reused and the items are rewritten, so one
server can be set up more than once.
"""

import argparse
import concurrent.futures
import json
import sys
import time

import boto3
import botocore

TABLE = "bench"
MIXED_TABLE = "bench_mixed"
GET_ITEMS = 1000
QUERY_PARTITIONS = 50
QUERY_ITEMS = 20
COND_ITEMS = 1000
DATA = "d" * 200
BATCH = 25


def client(endpoint, validate=True):
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        config=botocore.config.Config(
            retries={"max_attempts": 10, "mode": "standard"},
            read_timeout=120,
            parameter_validation=validate,
        ),
    )


def create_table(ddb, table):
    try:
        ddb.create_table(
            TableName=table,
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
        status = ddb.describe_table(TableName=table)["Table"]["TableStatus"]
        if status == "ACTIVE":
            return
        time.sleep(0.1)
    raise SystemExit(f"table {table} did not become ACTIVE")


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


def mixed_items(lo, hi):
    for i in range(lo, hi):
        yield {"pk": {"S": f"M#{i}"}, "sk": {"S": "0"}, "n": {"N": str(i)}, "data": {"S": DATA}}


def batches(it):
    batch = []
    for item in it:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def write_batch(ddb, batch, table=TABLE):
    request = {table: [{"PutRequest": {"Item": it}} for it in batch]}
    for attempt in range(20):
        out = ddb.batch_write_item(RequestItems=request)
        request = out.get("UnprocessedItems") or {}
        if not request:
            return len(batch)
        time.sleep(0.05 * (attempt + 1))
    raise SystemExit("batch_write_item kept returning UnprocessedItems")


def load(ddb):
    return sum(write_batch(ddb, batch) for batch in batches(items()))


def load_range(endpoint, lo, hi):
    """Loads M#lo..M#hi-1 with a client of its own (run in a worker process)."""
    ddb = client(endpoint, validate=False)
    return sum(write_batch(ddb, batch, MIXED_TABLE) for batch in batches(mixed_items(lo, hi)))


def load_mixed(endpoint, n, workers):
    """Loads M#0..M#n-1 from `workers` processes, each a contiguous slice of
    the keys: boto3 spends ~3 ms of Python per 25-item batch, so one process
    (or threads, under the GIL) would take 15 s for 100k items."""
    bounds = [n * w // workers for w in range(workers + 1)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(load_range, endpoint, lo, hi)
                   for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
        return sum(f.result() for f in futures)


def ceiling_replies():
    """The bodies DynamoDB (and Dynarock) answer each op's requests with, for
    the nginx ceiling: a GetItem of one G# item, a Query of one whole Q#
    partition, and the empty object PutItem answers with. Deterministic, built
    from the same items the tables hold, attribute names in order, no spaces."""
    def item_json(it):
        return {k: it[k] for k in sorted(it)}
    get = next(it for it in items() if it["pk"]["S"] == "G#7")
    part = [item_json(it) for it in items() if it["pk"]["S"] == "Q#7"]
    compact = {"separators": (",", ":")}
    return {
        "GetItem": json.dumps({"Item": item_json(get)}, **compact),
        "Query": json.dumps({"Items": part, "Count": len(part), "ScannedCount": len(part)},
                            **compact),
        "PutItem": "{}",
    }


def nginx_maps(fixed):
    """nginx `map` blocks choosing the ceiling's reply by X-Amz-Target (the
    GetItem-sized one for every request when `fixed`), then a line
    "# return: $reply0$reply1..." naming what `return 200` sends. nginx's
    parser takes no quoted string over 4 KB, so each body is cut into pieces,
    one map variable each."""
    replies = ceiling_replies()
    bodies = {"default": replies["GetItem"]}
    if not fixed:
        bodies["DynamoDB_20120810.Query"] = replies["Query"]
        bodies["DynamoDB_20120810.PutItem"] = replies["PutItem"]
    piece = 2000
    pieces = max((len(b) + piece - 1) // piece for b in bodies.values())
    lines = []
    for i in range(pieces):
        lines.append("  map $http_x_amz_target $reply%d {" % i)
        for key, body in bodies.items():
            lines.append("    %s '%s';" % (key, body[i * piece:(i + 1) * piece]))
        lines.append("  }")
    lines.append("  # return: " + "".join("$reply%d" % i for i in range(pieces)))
    return "\n".join(lines)


def check(ddb, mixed):
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
    if mixed > 0:
        for i in (0, mixed // 2, mixed - 1):
            got = ddb.get_item(TableName=MIXED_TABLE, Key={"pk": {"S": f"M#{i}"}, "sk": {"S": "0"}})
            if "Item" not in got:
                raise SystemExit(f"check failed: M#{i} not found after loading")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", help="e.g. http://127.0.0.1:8000")
    ap.add_argument("--ceiling-replies", action="store_true",
                    help="print the replies the nginx ceiling answers with, one "
                         "'TARGET<tab>BODY' line each, and exit")
    ap.add_argument("--nginx-maps", action="store_true",
                    help="print the nginx map blocks run.sh's ceiling answers with, and exit")
    ap.add_argument("--fixed-ceiling", action="store_true",
                    help="with --nginx-maps: the GetItem-sized reply to every request")
    ap.add_argument("--mixed-items", type=int, default=0, metavar="N",
                    help="also load M#0..M#N-1 for the mixed op (default 0: none)")
    ap.add_argument("--workers", type=int, default=4,
                    help="processes loading the mixed items (default 4)")
    args = ap.parse_args()
    if args.nginx_maps:
        print(nginx_maps(args.fixed_ceiling))
        return
    if args.ceiling_replies:
        for target, body in ceiling_replies().items():
            print(f"{target}\t{body}")
        return
    if not args.endpoint:
        ap.error("--endpoint is required")
    ddb = client(args.endpoint)
    t0 = time.time()
    create_table(ddb, TABLE)
    n = load(ddb)
    tables = TABLE
    if args.mixed_items > 0:
        create_table(ddb, MIXED_TABLE)
        m = load_mixed(args.endpoint, args.mixed_items, max(1, args.workers))
        tables += f" and {m} in {MIXED_TABLE}"
    check(ddb, args.mixed_items)
    print(f"setup: {n} items in {tables} at {args.endpoint} ({time.time() - t0:.1f}s)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
