"""DynamoDB Streams e2e tests via boto3: the "dynamodb" client writes, the
"dynamodbstreams" client (same endpoint) reads.

Asserts real Amazon DynamoDB Streams behaviour (Streams API reference:
ListStreams, DescribeStream, GetShardIterator, GetRecords, StreamRecord,
Record, Shard, SequenceNumberRange; developer guide "Change data capture for
DynamoDB Streams" — a record only when a write changes the item, the records of
an item in the order of its writes, each record exactly once, a disabled or
deleted table's stream kept readable, a new stream each time one is enabled).
Run standalone: python3 tests/e2e/test_boto3_streams.py

Shard roll-over (about every four hours on AWS) and the 24-hour retention
(TrimmedDataAccessException, a disabled stream deleted once its retention
passed) are tested on servers of their own started with
`--stream-shard-seconds 1` and `--stream-retention-seconds 1`.
Not covered (it needs 15 minutes): ExpiredIteratorException.

Known moto 5.x deviations (these tests fail on moto, on purpose): records for
writes that change nothing (identical puts, no-op updates, deletes of missing
items); ListStreams ignores Limit and DescribeStream ExclusiveStartShardId; an
unknown stream label of an existing table is found; no parameter validation
(Limit 0 / 1001, iterator types without their SequenceNumber, StreamEnabled
without a view type); garbage iterators and malformed ARNs give HTTP 500;
disabling a stream or deleting its table leaves no readable closed stream;
enabling an enabled stream is ResourceInUseException.
"""

import datetime
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import assert_error  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None    # dynamodb
CNV = None  # dynamodb without botocore's parameter validation
S = None    # dynamodbstreams
SNV = None  # dynamodbstreams without botocore's parameter validation

ARN_RE = re.compile(r"^arn:aws:dynamodb:%s:(\d{12}):table/([A-Za-z0-9_.-]+)/stream/(.+)$"
                    % re.escape(harness.REGION))
SEQ_RE = re.compile(r"^\d{21,40}$")
EVENT_ID_RE = re.compile(r"^[0-9a-f]{32}$")
VIEW_TYPES = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")
RECORD_MEMBERS = {"ApproximateCreationDateTime", "Keys", "NewImage", "OldImage",
                  "SequenceNumber", "SizeBytes", "StreamViewType"}


def setUpModule():
    global C, CNV, S, SNV
    harness.start()
    C = harness.client()
    CNV = harness.client(validate=False)
    S = harness.streams_client()
    SNV = harness.streams_client(validate=False)


def tearDownModule():
    harness.stop()


# ------------------------------------------------------------------ helpers

def stream_table(view, range_key=None, c=None):
    """An on-demand table (pk S [, range_key]) with a stream of `view`; returns
    (name, LatestStreamArn)."""
    c = c or C
    name = harness.create_table(c, range_key=range_key,
                                StreamSpecification={"StreamEnabled": True,
                                                     "StreamViewType": view})
    return name, c.describe_table(TableName=name)["Table"]["LatestStreamArn"]


def describe(arn, s=None, **kw):
    return (s or S).describe_stream(StreamArn=arn, **kw)["StreamDescription"]


def all_shards(arn, s=None):
    """DescribeStream paged by ExclusiveStartShardId: (last description, shards)."""
    shards, start = [], None
    for _ in range(100):
        d = describe(arn, s, **({"ExclusiveStartShardId": start} if start else {}))
        shards += d["Shards"]
        start = d.get("LastEvaluatedShardId")
        if not start:
            return d, shards
    raise AssertionError("DescribeStream paging did not end")


def lineage(shards):
    """The shards, every parent before its children."""
    ids = {s["ShardId"] for s in shards}
    done, ordered, pending = set(), [], list(shards)
    while pending:
        ready = [s for s in pending
                 if s.get("ParentShardId") not in ids or s["ParentShardId"] in done]
        if not ready:
            raise AssertionError("shard lineage has a cycle: %r" % pending)
        for s in ready:
            ordered.append(s)
            done.add(s["ShardId"])
            pending.remove(s)
    return ordered


def iterator(arn, shard_id, kind="TRIM_HORIZON", seq=None, s=None):
    kw = {"SequenceNumber": seq} if seq is not None else {}
    return (s or S).get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                       ShardIteratorType=kind, **kw)["ShardIterator"]


def first_shard(arn, s=None):
    return all_shards(arn, s)[1][0]["ShardId"]


def drain(it, limit=None, until_closed=False, max_calls=200, s=None):
    """GetRecords from iterator `it` until the response has no
    NextShardIterator (a closed shard read to its end) or, unless
    `until_closed`, a page is empty (an open shard caught up). Returns
    (records, the last NextShardIterator or None, the page sizes)."""
    records, pages = [], []
    for _ in range(max_calls):
        resp = (s or S).get_records(ShardIterator=it, **({"Limit": limit} if limit else {}))
        records += resp["Records"]
        pages.append(len(resp["Records"]))
        nxt = resp.get("NextShardIterator")
        if nxt is None or (not resp["Records"] and not until_closed):
            return records, nxt, pages
        it = nxt
    raise AssertionError("shard not read to its end after %d GetRecords calls" % max_calls)


def read_stream(arn, s=None):
    """Every record of the stream: the shards in lineage order, each from
    TRIM_HORIZON (a closed one to its end, an open one until caught up)."""
    records = []
    for sh in lineage(all_shards(arn, s)[1]):
        closed = "EndingSequenceNumber" in sh["SequenceNumberRange"]
        records += drain(iterator(arn, sh["ShardId"], s=s), until_closed=closed, s=s)[0]
    return records


def seq(rec):
    return int(rec["dynamodb"]["SequenceNumber"])


def events(records, key="pk"):
    """(eventName, the key attribute's value) of each record."""
    return [(r["eventName"], next(iter(r["dynamodb"]["Keys"][key].values()))) for r in records]


def _norm_value(v):
    (t, x), = v.items()
    if t in ("SS", "NS", "BS"):
        return {t: sorted(x)}
    if t == "L":
        return {t: [_norm_value(e) for e in x]}
    if t == "M":
        return {t: norm(x)}
    return v


def norm(image):
    """An item with its sets sorted (a set has no order in DynamoDB)."""
    return None if image is None else {k: _norm_value(v) for k, v in image.items()}


def wait_for_error(test, call, code, timeout=5):
    """Repeats `call` (every 0.1 s, `timeout` s at most) until it fails with
    the error `code`; any other error fails the test."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            call()
        except ClientError as e:
            test.assertEqual(harness.error_of(e)[0], code, harness.error_of(e))
            return
        if time.monotonic() > deadline:
            test.fail("no %s after %ss" % (code, timeout))
        time.sleep(0.1)


def wait_stream_status(test, arn, status, timeout=10, s=None):
    """DescribeStream until StreamStatus is `status` (ENABLING / DISABLING on
    the way are accepted, as on AWS); returns the description."""
    deadline = time.monotonic() + timeout
    while True:
        d = describe(arn, s)
        if d["StreamStatus"] == status:
            return d
        test.assertIn(d["StreamStatus"], ("ENABLING", "DISABLING"))
        if time.monotonic() > deadline:
            test.fail("stream %s still %s after %ss" % (arn, d["StreamStatus"], timeout))
        time.sleep(0.1)


class StreamsTestCase(unittest.TestCase):
    def assert_record_shape(self, rec, view, t0, t1):
        """What every record of a user's write carries (Record, StreamRecord)."""
        self.assertRegex(rec["eventID"], EVENT_ID_RE)
        self.assertIn(rec["eventName"], ("INSERT", "MODIFY", "REMOVE"))
        self.assertEqual(rec["eventVersion"], "1.1")
        self.assertEqual(rec["eventSource"], "aws:dynamodb")
        self.assertEqual(rec["awsRegion"], harness.REGION)
        self.assertNotIn("userIdentity", rec, "only deletions by TTL name a userIdentity")
        d = rec["dynamodb"]
        self.assertLessEqual(set(d), RECORD_MEMBERS)
        when = d["ApproximateCreationDateTime"]
        self.assertIsInstance(when, datetime.datetime)
        ts = when.timestamp()
        self.assertEqual(ts, math.floor(ts), "rounded down to the closest second")
        self.assertGreaterEqual(ts, math.floor(t0) - 1)
        self.assertLessEqual(ts, t1 + 1)
        self.assertRegex(d["SequenceNumber"], SEQ_RE)
        self.assertIsInstance(d["SizeBytes"], int)
        self.assertGreater(d["SizeBytes"], 0)
        self.assertEqual(d["StreamViewType"], view)
        new = view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") and rec["eventName"] != "REMOVE"
        old = view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") and rec["eventName"] != "INSERT"
        self.assertEqual("NewImage" in d, new, rec)
        self.assertEqual("OldImage" in d, old, rec)

    def assert_increasing(self, records):
        numbers = [seq(r) for r in records]
        self.assertEqual(numbers, sorted(set(numbers)), "sequence numbers strictly increase")
        ids = [r["eventID"] for r in records]
        self.assertEqual(len(ids), len(set(ids)), "eventIDs are unique")


# ------------------------------------------------------------------ records

class ViewTypeTest(StreamsTestCase):
    """Insert, modify, identical put, delete of a missing item, delete, under
    each StreamViewType."""

    def _run(self, view):
        t0 = time.time()
        name, arn = stream_table(view, range_key=("sk", "N"))
        key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
        first = dict(key, v={"N": "1.50"}, tags={"SS": ["x", "y"]}, note={"S": "first"},
                     m={"M": {"l": {"L": [{"N": "1"}, {"BOOL": True}]}}})
        second = dict(key, v={"N": "2"}, note={"S": "second"})
        C.put_item(TableName=name, Item=first)                                  # INSERT
        # The same item again (1.5 is 1.50; a set has no order): no record.
        C.put_item(TableName=name, Item=dict(first, v={"N": "1.5"}, tags={"SS": ["y", "x"]}))
        C.put_item(TableName=name, Item=second)                                 # MODIFY
        C.delete_item(TableName=name, Key={"pk": {"S": "missing"}, "sk": {"N": "1"}})  # none
        C.delete_item(TableName=name, Key=key)                                  # REMOVE
        C.put_item(TableName=name, Item={"pk": {"S": "z"}, "sk": {"N": "0"}})   # sentinel
        t1 = time.time()

        records = read_stream(arn)
        self.assertEqual(events(records), [("INSERT", "a"), ("MODIFY", "a"), ("REMOVE", "a"),
                                           ("INSERT", "z")])
        self.assert_increasing(records)
        for r in records:
            self.assert_record_shape(r, view, t0, t1)
        ins, mod, rem = (r["dynamodb"] for r in records[:3])
        for d in (ins, mod, rem):
            self.assertEqual(d["Keys"], key)
        stored_first = norm(dict(first, v={"N": "1.5"}))
        if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES"):
            self.assertEqual(norm(ins["NewImage"]), stored_first)
            self.assertEqual(mod["NewImage"], second)
        if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES"):
            self.assertEqual(norm(mod["OldImage"]), stored_first)
            self.assertEqual(rem["OldImage"], second)

    def test_keys_only(self):
        self._run("KEYS_ONLY")

    def test_new_image(self):
        self._run("NEW_IMAGE")

    def test_old_image(self):
        self._run("OLD_IMAGE")

    def test_new_and_old_images(self):
        self._run("NEW_AND_OLD_IMAGES")

    def test_size_bytes_counts_the_images(self):
        # The same MODIFY (a large old item, a small new one) under each view:
        # SizeBytes is the record's size, so it grows with what it carries.
        sizes = {}
        for view in VIEW_TYPES:
            name, arn = stream_table(view)
            C.put_item(TableName=name, Item={"pk": {"S": "k"}, "big": {"S": "x" * 300}})
            C.put_item(TableName=name, Item={"pk": {"S": "k"}, "small": {"S": "y"}})
            records = read_stream(arn)
            self.assertEqual(events(records), [("INSERT", "k"), ("MODIFY", "k")])
            sizes[view] = records[1]["dynamodb"]["SizeBytes"]
        self.assertLess(sizes["KEYS_ONLY"], sizes["NEW_IMAGE"], sizes)
        self.assertLess(sizes["NEW_IMAGE"], sizes["OLD_IMAGE"], sizes)
        self.assertLess(sizes["OLD_IMAGE"], sizes["NEW_AND_OLD_IMAGES"], sizes)
        self.assertGreater(sizes["OLD_IMAGE"], 300)

    def test_create_table_response_names_the_stream(self):
        name = harness.table_name()
        td = C.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            StreamSpecification={"StreamEnabled": True,
                                 "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]
        harness.wait_active(C, name)
        self.assertEqual(td["StreamSpecification"],
                         {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        m = ARN_RE.match(td["LatestStreamArn"])
        self.assertIsNotNone(m, td["LatestStreamArn"])
        self.assertEqual(m.group(2), name)
        self.assertEqual(m.group(3), td["LatestStreamLabel"])
        self.assertTrue(td["LatestStreamArn"].startswith(td["TableArn"] + "/stream/"))
        desc = C.describe_table(TableName=name)["Table"]
        self.assertEqual(desc["LatestStreamArn"], td["LatestStreamArn"])
        self.assertEqual(desc["LatestStreamLabel"], td["LatestStreamLabel"])
        self.assertEqual(desc["StreamSpecification"], td["StreamSpecification"])

    def test_table_without_stream_has_none(self):
        name = harness.create_table(C)
        td = C.describe_table(TableName=name)["Table"]
        self.assertNotIn("LatestStreamArn", td)
        self.assertNotIn("LatestStreamLabel", td)
        self.assertFalse(td.get("StreamSpecification", {}).get("StreamEnabled", False))
        self.assertEqual(S.list_streams(TableName=name)["Streams"], [])


class WriteOperationsTest(StreamsTestCase):
    """UpdateItem, conditional writes, BatchWriteItem and TransactWriteItems."""

    def test_update_item(self):
        t0 = time.time()
        name, arn = stream_table("NEW_AND_OLD_IMAGES")
        k = {"pk": {"S": "u"}}

        def update(expr, values=None, **kw):
            if values:
                kw["ExpressionAttributeValues"] = values
            C.update_item(TableName=name, Key=k, UpdateExpression=expr, **kw)

        update("SET a = :one", {":one": {"N": "1"}})                 # INSERT
        update("SET a = :one", {":one": {"N": "1.0"}})               # unchanged: none
        update("REMOVE nothing_here")                                # unchanged: none
        with self.assertRaises(ClientError) as ctx:                  # condition fails: none
            update("SET b = :x", {":x": {"S": "x"}, ":two": {"N": "2"}},
                   ConditionExpression="a = :two")
        assert_error(self, ctx, "ConditionalCheckFailedException")
        update("ADD a :one SET b = :x", {":one": {"N": "1"}, ":x": {"S": "x"}})  # MODIFY
        update("REMOVE a")                                           # MODIFY
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})          # sentinel
        t1 = time.time()

        records = read_stream(arn)
        self.assertEqual(events(records), [("INSERT", "u"), ("MODIFY", "u"), ("MODIFY", "u"),
                                           ("INSERT", "z")])
        self.assert_increasing(records)
        for r in records:
            self.assert_record_shape(r, "NEW_AND_OLD_IMAGES", t0, t1)
        d = [r["dynamodb"] for r in records]
        self.assertEqual(d[0]["NewImage"], {"pk": {"S": "u"}, "a": {"N": "1"}})
        self.assertEqual(d[1]["OldImage"], {"pk": {"S": "u"}, "a": {"N": "1"}})
        self.assertEqual(d[1]["NewImage"], {"pk": {"S": "u"}, "a": {"N": "2"}, "b": {"S": "x"}})
        self.assertEqual(d[2]["OldImage"], d[1]["NewImage"])
        self.assertEqual(d[2]["NewImage"], {"pk": {"S": "u"}, "b": {"S": "x"}})

    def test_key_only_item(self):
        # UpdateItem without an update expression creates an item of just its
        # key (INSERT); its images hold the key even when nothing else is left.
        name, arn = stream_table("NEW_AND_OLD_IMAGES")
        k = {"pk": {"S": "e"}}
        C.update_item(TableName=name, Key=k)                                   # INSERT
        C.update_item(TableName=name, Key=k, UpdateExpression="SET a = :a",
                      ExpressionAttributeValues={":a": {"N": "1"}})           # MODIFY
        C.update_item(TableName=name, Key=k, UpdateExpression="REMOVE a")     # MODIFY
        C.update_item(TableName=name, Key=k)                                   # unchanged: none
        C.put_item(TableName=name, Item=k)                                     # unchanged: none
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})
        records = read_stream(arn)
        self.assertEqual(events(records), [("INSERT", "e"), ("MODIFY", "e"), ("MODIFY", "e"),
                                           ("INSERT", "z")])
        d = [r["dynamodb"] for r in records]
        self.assertEqual(d[0]["NewImage"], k)
        self.assertNotIn("OldImage", d[0])
        self.assertEqual(d[1]["OldImage"], k)
        self.assertEqual(d[1]["NewImage"], dict(k, a={"N": "1"}))
        self.assertEqual(d[2]["OldImage"], dict(k, a={"N": "1"}))
        self.assertEqual(d[2]["NewImage"], k)

    def test_failed_conditional_put_and_delete_write_no_record(self):
        name, arn = stream_table("KEYS_ONLY")
        C.put_item(TableName=name, Item={"pk": {"S": "c"}, "v": {"N": "1"}})
        with self.assertRaises(ClientError) as ctx:
            C.put_item(TableName=name, Item={"pk": {"S": "c"}, "v": {"N": "2"}},
                       ConditionExpression="attribute_not_exists(pk)")
        assert_error(self, ctx, "ConditionalCheckFailedException")
        with self.assertRaises(ClientError) as ctx:
            C.delete_item(TableName=name, Key={"pk": {"S": "c"}},
                          ConditionExpression="v = :n",
                          ExpressionAttributeValues={":n": {"N": "9"}})
        assert_error(self, ctx, "ConditionalCheckFailedException")
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})
        self.assertEqual(events(read_stream(arn)), [("INSERT", "c"), ("INSERT", "z")])

    def test_batch_write_item(self):
        name, arn = stream_table("NEW_IMAGE")

        def put(pk, **attrs):
            return {"PutRequest": {"Item": dict({"pk": {"S": pk}}, **attrs)}}

        def delete(pk):
            return {"DeleteRequest": {"Key": {"pk": {"S": pk}}}}

        r = C.batch_write_item(RequestItems={name: [put("b1"), put("b2", n={"N": "2"}),
                                                    put("b3")]})
        self.assertEqual(r["UnprocessedItems"], {})
        r = C.batch_write_item(RequestItems={name: [
            put("b4"), delete("b1"), delete("bx"),   # bx does not exist: no record
            put("b2", n={"N": "2"}),                 # identical: no record
            put("b3", n={"N": "3"})]})
        self.assertEqual(r["UnprocessedItems"], {})
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})
        records = read_stream(arn)
        self.assert_increasing(records)
        ev = events(records)
        self.assertEqual(len(ev), 7, ev)
        # Within a batch the order across items is not specified.
        self.assertCountEqual(ev[:3], [("INSERT", "b1"), ("INSERT", "b2"), ("INSERT", "b3")])
        self.assertCountEqual(ev[3:6], [("INSERT", "b4"), ("REMOVE", "b1"), ("MODIFY", "b3")])
        self.assertEqual(ev[6], ("INSERT", "z"))
        by_key = {(e, k): r["dynamodb"] for (e, k), r in zip(ev, records)}
        self.assertEqual(by_key[("MODIFY", "b3")]["NewImage"],
                         {"pk": {"S": "b3"}, "n": {"N": "3"}})
        self.assertNotIn("NewImage", by_key[("REMOVE", "b1")])

    def test_transact_write_items(self):
        name, arn = stream_table("NEW_AND_OLD_IMAGES")
        plain = harness.create_table(C)   # a table without a stream in the same transaction
        for pk in ("t1", "t2", "t3"):
            C.put_item(TableName=name, Item={"pk": {"S": pk}, "x": {"N": "1"}})
        C.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"S": "t4"}}}},
            {"Update": {"TableName": name, "Key": {"pk": {"S": "t1"}},
                        "UpdateExpression": "SET x = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}}}},
            {"Delete": {"TableName": name, "Key": {"pk": {"S": "t2"}}}},
            {"ConditionCheck": {"TableName": name, "Key": {"pk": {"S": "t3"}},
                                "ConditionExpression": "attribute_exists(pk)"}},
            {"Put": {"TableName": plain, "Item": {"pk": {"S": "elsewhere"}}}},
        ])
        # A cancelled transaction writes nothing, so no record.
        with self.assertRaises(ClientError) as ctx:
            C.transact_write_items(TransactItems=[
                {"Put": {"TableName": name, "Item": {"pk": {"S": "t5"}}}},
                {"ConditionCheck": {"TableName": name, "Key": {"pk": {"S": "t3"}},
                                    "ConditionExpression": "attribute_not_exists(pk)"}},
            ])
        assert_error(self, ctx, "TransactionCanceledException")
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})
        records = read_stream(arn)
        self.assert_increasing(records)
        ev = events(records)
        self.assertEqual(ev[:3], [("INSERT", "t1"), ("INSERT", "t2"), ("INSERT", "t3")])
        self.assertCountEqual(ev[3:-1], [("INSERT", "t4"), ("MODIFY", "t1"), ("REMOVE", "t2")])
        self.assertEqual(ev[-1], ("INSERT", "z"))
        mod = records[3 + ev[3:-1].index(("MODIFY", "t1"))]["dynamodb"]
        self.assertEqual(mod["OldImage"]["x"], {"N": "1"})
        self.assertEqual(mod["NewImage"]["x"], {"N": "2"})

    def test_idempotent_retry_and_index_backfill_write_no_record(self):
        # A transaction retried with its ClientRequestToken is not applied
        # again; building a new GSI and enabling TTL change no item.
        name, arn = stream_table("NEW_IMAGE")
        for i in range(3):
            C.put_item(TableName=name, Item={"pk": {"S": "g%d" % i}, "g": {"S": "G"}})
        tx = dict(TransactItems=[{"Put": {"TableName": name, "Item": {"pk": {"S": "tx"}}}}],
                  ClientRequestToken="streams-e2e-token-1")
        C.transact_write_items(**tx)
        C.transact_write_items(**tx)
        C.update_table(TableName=name,
                       AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "by-g", "Projection": {"ProjectionType": "ALL"},
                           "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}}])
        deadline = time.monotonic() + 10
        while C.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0][
                "IndexStatus"] != "ACTIVE":
            self.assertLess(time.monotonic(), deadline, "GSI never ACTIVE")
            time.sleep(0.1)
        C.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        C.put_item(TableName=name, Item={"pk": {"S": "z"}})
        self.assertEqual(events(read_stream(arn)), [("INSERT", "g0"), ("INSERT", "g1"),
                                                    ("INSERT", "g2"), ("INSERT", "tx"),
                                                    ("INSERT", "z")])

    def test_concurrent_writers_and_reader_each_record_once_in_item_order(self):
        # Developer guide: each stream record appears exactly once, and the
        # records of an item appear in the order of its modifications. A reader
        # following NextShardIterator while the writes happen misses none.
        name, arn = stream_table("NEW_IMAGE")
        shard = first_shard(arn)
        writers, per_writer = 6, 25
        clients = [harness.client() for _ in range(writers)]
        reader = harness.streams_client()
        got, errors, done = [], [], threading.Event()

        def write(i):
            try:
                for v in range(per_writer):
                    clients[i].put_item(TableName=name,
                                        Item={"pk": {"S": "w%d" % i}, "v": {"N": str(v)}})
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        def read():
            try:
                it = reader.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                               ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                while True:
                    finished = done.is_set()
                    resp = reader.get_records(ShardIterator=it, Limit=7)
                    got.extend(resp["Records"])
                    it = resp["NextShardIterator"]
                    if finished and not resp["Records"]:
                        return
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        rt = threading.Thread(target=read)
        rt.start()
        wts = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for t in wts:
            t.start()
        for t in wts:
            t.join(60)
        done.set()
        rt.join(60)
        self.assertFalse(rt.is_alive())
        self.assertEqual(errors, [])
        self.assertEqual(len(got), writers * per_writer)
        self.assert_increasing(got)
        for i in range(writers):
            mine = [r for r in got if r["dynamodb"]["Keys"]["pk"]["S"] == "w%d" % i]
            self.assertEqual([r["eventName"] for r in mine],
                             ["INSERT"] + ["MODIFY"] * (per_writer - 1))
            self.assertEqual([int(r["dynamodb"]["NewImage"]["v"]["N"]) for r in mine],
                             list(range(per_writer)))


# ------------------------------------------------------------------ ListStreams / DescribeStream

class ListStreamsTest(StreamsTestCase):
    @classmethod
    def setUpClass(cls):
        cls.tables = [stream_table("KEYS_ONLY") for _ in range(3)]

    def test_table_name_filter(self):
        name, arn = self.tables[0]
        resp = S.list_streams(TableName=name)
        label = ARN_RE.match(arn).group(3)
        self.assertEqual(resp["Streams"], [{"StreamArn": arn, "TableName": name,
                                            "StreamLabel": label}])
        self.assertNotIn("LastEvaluatedStreamArn", resp)

    def _pages(self, limit):
        seen, start = [], None
        for _ in range(1000):
            kw = {"ExclusiveStartStreamArn": start} if start else {}
            resp = S.list_streams(Limit=limit, **kw)
            self.assertLessEqual(len(resp["Streams"]), limit)
            seen += resp["Streams"]
            start = resp.get("LastEvaluatedStreamArn")
            if not start:
                return seen
            self.assertEqual(start, resp["Streams"][-1]["StreamArn"])
        self.fail("ListStreams paging did not end")

    def test_limit_paging(self):
        everything = self._pages(100)
        for limit in (1, 2):
            with self.subTest(limit=limit):
                paged = self._pages(limit)
                arns = [s["StreamArn"] for s in paged]
                self.assertEqual(len(arns), len(set(arns)), "no stream twice")
                self.assertCountEqual(paged, everything)
                for name, arn in self.tables:
                    self.assertIn({"StreamArn": arn, "TableName": name,
                                   "StreamLabel": ARN_RE.match(arn).group(3)}, paged)

    def test_limit_out_of_range(self):
        for limit in (0, 101):
            with self.subTest(limit=limit):
                with self.assertRaises(ClientError) as ctx:
                    SNV.list_streams(Limit=limit)
                assert_error(self, ctx, "ValidationException")


class DescribeStreamTest(StreamsTestCase):
    def test_new_stream(self):
        t0 = time.time()
        name, arn = stream_table("NEW_IMAGE", range_key=("sk", "N"))
        t1 = time.time()
        d = describe(arn)
        self.assertEqual(d["StreamArn"], arn)
        self.assertEqual(d["StreamLabel"], ARN_RE.match(arn).group(3))
        self.assertEqual(d["StreamLabel"],
                         C.describe_table(TableName=name)["Table"]["LatestStreamLabel"])
        self.assertEqual(d["StreamStatus"], "ENABLED")
        self.assertEqual(d["StreamViewType"], "NEW_IMAGE")
        self.assertEqual(d["TableName"], name)
        self.assertEqual(d["KeySchema"], [{"AttributeName": "pk", "KeyType": "HASH"},
                                          {"AttributeName": "sk", "KeyType": "RANGE"}])
        self.assertIsInstance(d["CreationRequestDateTime"], datetime.datetime)
        created = d["CreationRequestDateTime"].timestamp()
        self.assertGreaterEqual(created, t0 - 1)
        self.assertLessEqual(created, t1 + 1)
        self.assertNotIn("LastEvaluatedShardId", d)
        self.assertEqual(len(d["Shards"]), 1)
        shard = d["Shards"][0]
        self.assertTrue(shard["ShardId"].startswith("shardId-"), shard)
        self.assertTrue(28 <= len(shard["ShardId"]) <= 65, shard)
        self.assertNotIn("ParentShardId", shard)
        rng = shard["SequenceNumberRange"]
        self.assertRegex(rng["StartingSequenceNumber"], SEQ_RE)
        self.assertNotIn("EndingSequenceNumber", rng, "an open shard has no end")
        C.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
        records = read_stream(arn)
        self.assertEqual(len(records), 1)
        self.assertGreaterEqual(seq(records[0]), int(rng["StartingSequenceNumber"]))

    def test_shard_paging(self):
        _, arn = stream_table("KEYS_ONLY")
        d = describe(arn, Limit=1)
        self.assertEqual(len(d["Shards"]), 1)
        only = d["Shards"][0]["ShardId"]
        after = describe(arn, ExclusiveStartShardId=only)
        self.assertEqual(after["Shards"], [])
        self.assertNotIn("LastEvaluatedShardId", after)

    def test_shard_filter_child_shards(self):
        # ShardFilter {Type: CHILD_SHARDS, ShardId: parent} returns the
        # children of that shard only; a new stream's one shard has none.
        _, arn = stream_table("KEYS_ONLY")
        only = first_shard(arn)
        d = describe(arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": only})
        self.assertEqual(d["Shards"], [])


# ------------------------------------------------------------------ iterators and GetRecords

class ShardIteratorTest(StreamsTestCase):
    @classmethod
    def setUpClass(cls):
        cls.name, cls.arn = stream_table("NEW_IMAGE")
        for i in range(5):
            C.put_item(TableName=cls.name, Item={"pk": {"S": "k%d" % i}, "i": {"N": str(i)}})
        cls.shard = first_shard(cls.arn)
        cls.all = drain(iterator(cls.arn, cls.shard))[0]

    def test_trim_horizon_reads_every_record_in_order(self):
        self.assertEqual(events(self.all), [("INSERT", "k%d" % i) for i in range(5)])
        self.assert_increasing(self.all)
        resp = S.get_records(ShardIterator=iterator(self.arn, self.shard))
        self.assertEqual(resp["Records"], self.all)
        self.assertIn("NextShardIterator", resp, "an open shard always has a next iterator")

    def test_limit_and_next_shard_iterator_paging(self):
        records, nxt, pages = drain(iterator(self.arn, self.shard), limit=2)
        self.assertEqual(pages, [2, 2, 1, 0])
        self.assertEqual(records, self.all)
        self.assertIsNotNone(nxt, "an open shard read to its end still has a next iterator")

    def test_at_and_after_sequence_number(self):
        third = self.all[2]["dynamodb"]["SequenceNumber"]
        at = drain(iterator(self.arn, self.shard, "AT_SEQUENCE_NUMBER", third))[0]
        self.assertEqual(at, self.all[2:])
        after = drain(iterator(self.arn, self.shard, "AFTER_SEQUENCE_NUMBER", third))[0]
        self.assertEqual(after, self.all[3:])
        last = self.all[-1]["dynamodb"]["SequenceNumber"]
        resp = S.get_records(ShardIterator=iterator(self.arn, self.shard,
                                                     "AFTER_SEQUENCE_NUMBER", last))
        self.assertEqual(resp["Records"], [])
        self.assertIn("NextShardIterator", resp)
        # From the shard's StartingSequenceNumber: everything, as TRIM_HORIZON.
        start = all_shards(self.arn)[1][0]["SequenceNumberRange"]["StartingSequenceNumber"]
        self.assertEqual(drain(iterator(self.arn, self.shard, "AT_SEQUENCE_NUMBER", start))[0],
                         self.all)

    def test_latest_sees_only_later_writes(self):
        name, arn = stream_table("NEW_IMAGE")
        C.put_item(TableName=name, Item={"pk": {"S": "before"}})
        it = iterator(arn, first_shard(arn), "LATEST")
        resp = S.get_records(ShardIterator=it)
        self.assertEqual(resp["Records"], [])
        nxt = resp["NextShardIterator"]
        C.put_item(TableName=name, Item={"pk": {"S": "after"}})
        records, _, _ = drain(nxt)
        self.assertEqual(events(records), [("INSERT", "after")])
        self.assertEqual(records[0]["dynamodb"]["NewImage"], {"pk": {"S": "after"}})

    def test_caught_up_iterator_follows_later_writes(self):
        name, arn = stream_table("KEYS_ONLY")
        C.put_item(TableName=name, Item={"pk": {"S": "one"}})
        first, nxt, _ = drain(iterator(arn, first_shard(arn)))
        self.assertEqual(events(first), [("INSERT", "one")])
        C.put_item(TableName=name, Item={"pk": {"S": "two"}})
        C.delete_item(TableName=name, Key={"pk": {"S": "one"}})
        more, _, _ = drain(nxt)
        self.assertEqual(events(more), [("INSERT", "two"), ("REMOVE", "one")])
        self.assertGreater(seq(more[0]), seq(first[0]))


class GetRecordsLimitsTest(StreamsTestCase):
    """GetRecords API reference: "GetRecords can retrieve a maximum of 1 MB of
    data or 1000 stream records, whichever comes first"."""

    @classmethod
    def setUpClass(cls):
        cls.big_table, cls.big_arn = stream_table("NEW_IMAGE")
        for i in range(25):   # records of about 100 KB each
            C.put_item(TableName=cls.big_table, Item={"pk": {"S": "k%02d" % i},
                                                      "v": {"S": "x" * 100000}})

    def test_at_most_1000_records_a_call(self):
        name, arn = stream_table("KEYS_ONLY")
        keys = ["k%04d" % i for i in range(1001)]
        for b in range(0, len(keys), 25):
            r = C.batch_write_item(RequestItems={name: [
                {"PutRequest": {"Item": {"pk": {"S": k}}}} for k in keys[b:b + 25]]})
            self.assertEqual(r["UnprocessedItems"], {})
        records, nxt, pages = drain(iterator(arn, first_shard(arn)))
        self.assertEqual(pages, [1000, 1, 0])
        self.assertIsNotNone(nxt)
        self.assertCountEqual([r["dynamodb"]["Keys"]["pk"]["S"] for r in records], keys)
        self.assert_increasing(records)

    def test_large_records_are_read_over_several_calls(self):
        records, _, pages = drain(iterator(self.big_arn, first_shard(self.big_arn)))
        self.assertEqual(events(records), [("INSERT", "k%02d" % i) for i in range(25)])
        self.assertGreater(len(pages), 2, pages)
        self.assertEqual(pages[-1], 0)
        for r in records:
            self.assertGreater(r["dynamodb"]["SizeBytes"], 100000)

    def test_at_most_1_mb_of_records_a_call(self):
        it = iterator(self.big_arn, first_shard(self.big_arn))
        sizes = []
        for _ in range(30):
            resp = S.get_records(ShardIterator=it)
            if not resp["Records"]:
                break
            sizes.append(sum(r["dynamodb"]["SizeBytes"] for r in resp["Records"]))
            it = resp["NextShardIterator"]
        self.assertTrue(sizes)
        for size in sizes:
            self.assertLessEqual(size, 1 << 20, sizes)


# ------------------------------------------------------------------ stream lifecycle

class LifecycleTest(StreamsTestCase):
    def _disable(self, name):
        C.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        harness.wait_active(C, name)

    def test_disable_closes_the_shard(self):
        name, arn = stream_table("NEW_IMAGE")
        shard = first_shard(arn)
        open_it = iterator(arn, shard)
        for pk in ("a", "b"):
            C.put_item(TableName=name, Item={"pk": {"S": pk}})
        self._disable(name)
        # DynamoDB then leaves StreamSpecification out of the table's
        # description, which still names its latest (now disabled) stream.
        td = C.describe_table(TableName=name)["Table"]
        self.assertNotIn("StreamSpecification", td)
        self.assertEqual(td["LatestStreamArn"], arn)
        C.put_item(TableName=name, Item={"pk": {"S": "after-disable"}})   # no stream: no record

        d = wait_stream_status(self, arn, "DISABLED")
        self.assertEqual(d["TableName"], name)
        self.assertEqual(len(d["Shards"]), 1)
        rng = d["Shards"][0]["SequenceNumberRange"]
        self.assertRegex(rng["EndingSequenceNumber"], SEQ_RE)
        self.assertGreaterEqual(int(rng["EndingSequenceNumber"]),
                                int(rng["StartingSequenceNumber"]))

        # Read to its end, one record a page: the last response has no
        # NextShardIterator.
        records, nxt, pages = drain(iterator(arn, shard), limit=1, until_closed=True)
        self.assertIsNone(nxt)
        self.assertEqual(events(records), [("INSERT", "a"), ("INSERT", "b")])
        self.assertEqual(sum(pages), 2)
        self.assertLessEqual(seq(records[-1]), int(rng["EndingSequenceNumber"]))
        self.assertGreaterEqual(seq(records[0]), int(rng["StartingSequenceNumber"]))
        # An iterator taken while the shard was open reads the same to the end.
        again, nxt, _ = drain(open_it, until_closed=True)
        self.assertIsNone(nxt)
        self.assertEqual(again, records)

    def test_reenable_makes_a_new_stream(self):
        name, old_arn = stream_table("NEW_AND_OLD_IMAGES")
        C.put_item(TableName=name, Item={"pk": {"S": "old"}})
        self._disable(name)
        wait_stream_status(self, old_arn, "DISABLED")
        td = C.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
        harness.wait_active(C, name)
        desc = C.describe_table(TableName=name)["Table"]
        new_arn = desc["LatestStreamArn"]
        self.assertNotEqual(new_arn, old_arn)
        self.assertEqual(td["LatestStreamArn"], new_arn)
        self.assertEqual(desc["StreamSpecification"],
                         {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        self.assertEqual(ARN_RE.match(new_arn).group(3), desc["LatestStreamLabel"])
        self.assertNotEqual(desc["LatestStreamLabel"], ARN_RE.match(old_arn).group(3))

        # Both listed under the table, one a page.
        listed, start = [], None
        for _ in range(10):
            resp = S.list_streams(TableName=name, Limit=1,
                                  **({"ExclusiveStartStreamArn": start} if start else {}))
            self.assertLessEqual(len(resp["Streams"]), 1)
            listed += [s["StreamArn"] for s in resp["Streams"]]
            start = resp.get("LastEvaluatedStreamArn")
            if not start:
                break
        self.assertCountEqual(listed, [old_arn, new_arn])

        new = wait_stream_status(self, new_arn, "ENABLED")
        self.assertEqual(new["StreamViewType"], "KEYS_ONLY")
        self.assertNotIn("EndingSequenceNumber", new["Shards"][0]["SequenceNumberRange"])
        self.assertEqual(describe(old_arn)["StreamStatus"], "DISABLED")
        C.put_item(TableName=name, Item={"pk": {"S": "new"}, "extra": {"S": "x"}})
        new_records = read_stream(new_arn)
        self.assertEqual(events(new_records), [("INSERT", "new")])
        self.assertNotIn("NewImage", new_records[0]["dynamodb"])
        self.assertEqual(events(read_stream(old_arn)), [("INSERT", "old")])

    def test_other_table_changes_keep_the_stream(self):
        name, arn = stream_table("KEYS_ONLY")
        td = C.update_table(TableName=name, BillingMode="PROVISIONED", ProvisionedThroughput={
            "ReadCapacityUnits": 1, "WriteCapacityUnits": 1})["TableDescription"]
        self.assertEqual(td["LatestStreamArn"], arn)
        self.assertEqual(td["StreamSpecification"],
                         {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        harness.wait_active(C, name)
        table_arn = C.describe_table(TableName=name)["Table"]["TableArn"]
        C.tag_resource(ResourceArn=table_arn, Tags=[{"Key": "animal", "Value": "dog"}])
        self.assertEqual([s["StreamArn"] for s in S.list_streams(TableName=name)["Streams"]], [arn])
        self.assertEqual(C.describe_table(TableName=name)["Table"]["LatestStreamArn"], arn)
        self.assertEqual(describe(arn)["StreamStatus"], "ENABLED")
        C.put_item(TableName=name, Item={"pk": {"S": "p"}})
        self.assertEqual(events(read_stream(arn)), [("INSERT", "p")])

    def test_enabling_an_enabled_stream_is_refused(self):
        name, arn = stream_table("NEW_IMAGE")
        for view in ("NEW_IMAGE", "KEYS_ONLY"):
            with self.subTest(view=view):
                with self.assertRaises(ClientError) as ctx:
                    C.update_table(TableName=name, StreamSpecification={
                        "StreamEnabled": True, "StreamViewType": view})
                assert_error(self, ctx, "ValidationException",
                             contains="Table already has an enabled stream")
        self.assertEqual(C.describe_table(TableName=name)["Table"]["LatestStreamArn"], arn)
        self.assertEqual([s["StreamArn"] for s in S.list_streams(TableName=name)["Streams"]], [arn])

    def test_delete_table_keeps_the_stream_readable(self):
        name, arn = stream_table("NEW_IMAGE")
        for pk in ("x", "y"):
            C.put_item(TableName=name, Item={"pk": {"S": pk}})
        C.delete_table(TableName=name)
        C.get_waiter("table_not_exists").wait(TableName=name,
                                              WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        d = wait_stream_status(self, arn, "DISABLED")
        self.assertEqual(d["TableName"], name)
        self.assertIn("EndingSequenceNumber", d["Shards"][0]["SequenceNumberRange"])
        # Deleting the table removes no item one by one: no REMOVE records.
        records, nxt, _ = drain(iterator(arn, d["Shards"][0]["ShardId"]), until_closed=True)
        self.assertIsNone(nxt)
        self.assertEqual(events(records), [("INSERT", "x"), ("INSERT", "y")])
        listed, start = [], None
        for _ in range(1000):
            resp = S.list_streams(**({"ExclusiveStartStreamArn": start} if start else {}))
            listed += [s["StreamArn"] for s in resp["Streams"]]
            start = resp.get("LastEvaluatedStreamArn")
            if not start:
                break
        self.assertIn(arn, listed)

        # A new table of the same name gets a new stream; the old one stays.
        harness.create_table(C, name=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        new_arn = C.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        self.assertNotEqual(new_arn, arn)
        self.assertCountEqual([s["StreamArn"] for s in S.list_streams(TableName=name)["Streams"]],
                              [arn, new_arn])
        self.assertEqual(describe(new_arn)["StreamStatus"], "ENABLED")
        self.assertEqual(describe(arn)["StreamStatus"], "DISABLED")
        C.put_item(TableName=name, Item={"pk": {"S": "x"}})
        self.assertEqual(events(read_stream(new_arn)), [("INSERT", "x")])
        self.assertEqual(events(read_stream(arn)), [("INSERT", "x"), ("INSERT", "y")])


# ------------------------------------------------------------------ own server

class OwnServerTest(StreamsTestCase):
    """Each test starts its own `dynarock serve` on a data directory, in region
    eu-west-1, sweeping expired items every second; some with a 1-second
    stream retention or shard roll-over."""
    REGION = "eu-west-1"

    def setUp(self):
        if harness.using_external_endpoint():
            self.skipTest("needs its own dynarock serve")
        self.dir = tempfile.mkdtemp(prefix="dynarock-e2e-")
        self.proc = None

    def tearDown(self):
        harness.stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, *extra):
        self.proc, url = harness.launch(os.path.join(self.dir, "data"),
                                        ["--region", self.REGION, "--ttl-sweep-seconds", "1"]
                                        + list(extra))
        return harness.client(url), harness.streams_client(url)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(timeout=20), 0)
        self.proc = None

    def test_time_to_live_deletion_names_the_service(self):
        # Developer guide, "Time to Live and DynamoDB Streams": the REMOVE of
        # an expired item has userIdentity {Type: Service, PrincipalId:
        # dynamodb.amazonaws.com}; a user's delete has none.
        c, s = self.start()
        name, arn = stream_table("NEW_AND_OLD_IMAGES", c=c)
        self.assertTrue(arn.startswith("arn:aws:dynamodb:%s:" % self.REGION), arn)
        c.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        expired = {"pk": {"S": "old"}, "exp": {"N": str(int(time.time()) - 60)}}
        c.put_item(TableName=name, Item=expired)
        c.put_item(TableName=name, Item={"pk": {"S": "mine"}})
        c.delete_item(TableName=name, Key={"pk": {"S": "mine"}})
        deadline = time.monotonic() + 15
        while True:
            records = read_stream(arn, s)
            if len(records) >= 4 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        # The sweep may come at any time after the expired item's INSERT.
        self.assertCountEqual(events(records), [("INSERT", "old"), ("INSERT", "mine"),
                                                ("REMOVE", "mine"), ("REMOVE", "old")])
        by_event = dict(zip(events(records), records))
        self.assertEqual(records[0], by_event[("INSERT", "old")])
        self.assertLess(seq(by_event[("INSERT", "mine")]), seq(by_event[("REMOVE", "mine")]))
        self.assertTrue(all(r["awsRegion"] == self.REGION for r in records), records)
        for key, r in by_event.items():
            if key != ("REMOVE", "old"):
                self.assertNotIn("userIdentity", r, "a user's write names no userIdentity")
        ttl = by_event[("REMOVE", "old")]
        self.assertEqual(ttl["userIdentity"], {"Type": "Service",
                                               "PrincipalId": "dynamodb.amazonaws.com"})
        self.assertEqual(ttl["dynamodb"]["OldImage"], expired)
        self.assertNotIn("NewImage", ttl["dynamodb"])

    def test_streams_survive_a_restart(self):
        c, s = self.start()
        name, arn = stream_table("NEW_IMAGE", c=c)
        closed, closed_arn = stream_table("KEYS_ONLY", c=c)
        for pk in ("a", "b"):
            c.put_item(TableName=name, Item={"pk": {"S": pk}})
        c.put_item(TableName=closed, Item={"pk": {"S": "c"}})
        c.update_table(TableName=closed, StreamSpecification={"StreamEnabled": False})
        harness.wait_active(c, closed)
        before = describe(arn, s)
        closed_before = wait_stream_status(self, closed_arn, "DISABLED", s=s)
        shard = first_shard(arn, s)
        first = s.get_records(ShardIterator=iterator(arn, shard, s=s), Limit=1)
        self.assertEqual(events(first["Records"]), [("INSERT", "a")])
        saved = first["Records"][0]["dynamodb"]["SequenceNumber"]
        self.stop()

        c, s = self.start()
        self.assertEqual(describe(arn, s), before)
        self.assertEqual(describe(closed_arn, s), closed_before)
        self.assertEqual(c.describe_table(TableName=name)["Table"]["LatestStreamArn"], arn)
        # The iterator handed out before the restart goes on where it was.
        rest, _, _ = drain(first["NextShardIterator"], s=s)
        self.assertEqual(events(rest), [("INSERT", "b")])
        c.put_item(TableName=name, Item={"pk": {"S": "after"}})
        records = read_stream(arn, s)
        self.assertEqual(events(records), [("INSERT", "a"), ("INSERT", "b"), ("INSERT", "after")])
        self.assert_increasing(records)
        self.assertEqual(records[0]["dynamodb"]["SequenceNumber"], saved)
        # A SequenceNumber saved before the restart (a consumer's checkpoint):
        # AFTER_SEQUENCE_NUMBER reads exactly the later records, AT from it.
        after, _, _ = drain(iterator(arn, shard, "AFTER_SEQUENCE_NUMBER", saved, s=s), s=s)
        self.assertEqual(after, records[1:])
        at, _, _ = drain(iterator(arn, shard, "AT_SEQUENCE_NUMBER", saved, s=s), s=s)
        self.assertEqual(at, records)
        self.assertEqual(events(read_stream(closed_arn, s)), [("INSERT", "c")])

    def test_shard_roll_over(self):
        # Shard API reference: a shard closed by roll-over has an
        # EndingSequenceNumber; its successor names it as ParentShardId. A
        # closed shard read to its end gives no NextShardIterator.
        c, s = self.start("--stream-shard-seconds", "1")
        name, arn = stream_table("NEW_AND_OLD_IMAGES", c=c)
        c.put_item(TableName=name, Item={"pk": {"S": "one"}})
        # A reader caught up on the open shard before the roll-over.
        seen, caught_up, _ = drain(iterator(arn, first_shard(arn, s), s=s), s=s)
        self.assertEqual(events(seen), [("INSERT", "one")])
        time.sleep(1.3)
        c.put_item(TableName=name, Item={"pk": {"S": "two"}})
        c.put_item(TableName=name, Item={"pk": {"S": "three"}})

        d, shards = all_shards(arn, s)
        self.assertEqual(d["StreamStatus"], "ENABLED")
        self.assertEqual(len(shards), 2, shards)
        parents = [sh for sh in shards if "ParentShardId" not in sh]
        self.assertEqual(len(parents), 1, shards)
        parent = parents[0]
        child = [sh for sh in shards if sh is not parent][0]
        self.assertEqual(child["ParentShardId"], parent["ShardId"])
        self.assertNotEqual(child["ShardId"], parent["ShardId"])
        prng, crng = parent["SequenceNumberRange"], child["SequenceNumberRange"]
        self.assertRegex(prng["EndingSequenceNumber"], SEQ_RE)
        self.assertNotIn("EndingSequenceNumber", crng, "the child is open")
        self.assertRegex(crng["StartingSequenceNumber"], SEQ_RE)

        # The closed parent: its one record, then (perhaps after an empty
        # page) a response without NextShardIterator.
        first, nxt, pages = drain(iterator(arn, parent["ShardId"], s=s), until_closed=True, s=s)
        self.assertIsNone(nxt)
        self.assertIn(pages, ([1], [1, 0]))
        self.assertEqual(events(first), [("INSERT", "one")])
        self.assertEqual(first, seen)
        # The caught-up reader's iterator now reaches the parent's end.
        more, nxt, _ = drain(caught_up, until_closed=True, s=s)
        self.assertEqual(more, [])
        self.assertIsNone(nxt)
        # The open child: the later two, in order, and a next iterator.
        rest, nxt, _ = drain(iterator(arn, child["ShardId"], s=s), s=s)
        self.assertIsNotNone(nxt, "an open shard always has a next iterator")
        self.assertEqual(events(rest), [("INSERT", "two"), ("INSERT", "three")])
        records = first + rest
        self.assert_increasing(records)
        self.assertEqual(records, read_stream(arn, s))
        self.assertLessEqual(int(prng["StartingSequenceNumber"]), seq(first[0]))
        self.assertLessEqual(seq(first[0]), int(prng["EndingSequenceNumber"]))
        self.assertLess(int(prng["EndingSequenceNumber"]), seq(rest[0]))
        self.assertLessEqual(int(crng["StartingSequenceNumber"]), seq(rest[0]))

        # ShardFilter CHILD_SHARDS: the parent's child only; the child has none.
        kids = describe(arn, s, ShardFilter={"Type": "CHILD_SHARDS",
                                             "ShardId": parent["ShardId"]})["Shards"]
        self.assertEqual(kids, [child])
        self.assertEqual(describe(arn, s, ShardFilter={"Type": "CHILD_SHARDS",
                                                       "ShardId": child["ShardId"]})["Shards"],
                         [])
        # One shard a page: both shards, then an empty page.
        page = describe(arn, s, Limit=1)
        self.assertEqual(len(page["Shards"]), 1)
        self.assertEqual(page["LastEvaluatedShardId"], page["Shards"][0]["ShardId"])
        page2 = describe(arn, s, Limit=1, ExclusiveStartShardId=page["LastEvaluatedShardId"])
        self.assertEqual(len(page2["Shards"]), 1)
        self.assertCountEqual(page["Shards"] + page2["Shards"], shards)
        self.assertEqual(describe(arn, s, ExclusiveStartShardId=page2["Shards"][0]["ShardId"])
                         ["Shards"], [])

    def test_records_past_their_retention_are_trimmed(self):
        # GetShardIterator / GetRecords API reference:
        # TrimmedDataAccessException when a position before the oldest kept
        # record is asked for; TRIM_HORIZON starts at the oldest kept record.
        c, s = self.start("--stream-retention-seconds", "1")
        name, arn = stream_table("NEW_IMAGE", c=c)
        c.put_item(TableName=name, Item={"pk": {"S": "old"}})
        shard = first_shard(arn, s)
        old, caught_up, _ = drain(iterator(arn, shard, s=s), s=s)
        self.assertEqual(events(old), [("INSERT", "old")])
        old_seq = old[0]["dynamodb"]["SequenceNumber"]
        old_it = iterator(arn, shard, s=s)
        # Trimming runs about every retention / 8 seconds.
        wait_for_error(self, lambda: iterator(arn, shard, "AT_SEQUENCE_NUMBER", old_seq, s=s),
                       "TrimmedDataAccessException")
        with self.assertRaises(ClientError) as ctx:
            s.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                 ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=old_seq)
        assert_error(self, ctx, "TrimmedDataAccessException", contains="trimmed")
        with self.assertRaises(ClientError) as ctx:
            s.get_records(ShardIterator=old_it)
        assert_error(self, ctx, "TrimmedDataAccessException")

        # The stream and its open shard stay; TRIM_HORIZON now starts after
        # the trimmed record.
        d, shards = all_shards(arn, s)
        self.assertEqual(d["StreamStatus"], "ENABLED")
        self.assertEqual([sh["ShardId"] for sh in shards], [shard])
        self.assertEqual(drain(iterator(arn, shard, s=s), s=s)[0], [])
        c.put_item(TableName=name, Item={"pk": {"S": "new"}})
        records, nxt, _ = drain(iterator(arn, shard, s=s), s=s)
        self.assertEqual(events(records), [("INSERT", "new")])
        self.assertIsNotNone(nxt)
        self.assertGreater(seq(records[0]), int(old_seq))
        # A reader caught up before the trimming lost nothing: it goes on.
        self.assertEqual(drain(caught_up, s=s)[0], records)

    def test_disabled_stream_is_deleted_after_its_retention(self):
        # Developer guide: a disabled stream stays readable for the retention
        # period (24 hours), then it is gone. An enabled stream stays.
        c, s = self.start("--stream-retention-seconds", "1")
        name, arn = stream_table("KEYS_ONLY", c=c)
        _, live_arn = stream_table("KEYS_ONLY", c=c)
        c.put_item(TableName=name, Item={"pk": {"S": "x"}})
        shard = first_shard(arn, s)
        c.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        harness.wait_active(c, name)
        wait_stream_status(self, arn, "DISABLED", s=s)
        self.assertEqual([st["StreamArn"] for st in s.list_streams(TableName=name)["Streams"]],
                         [arn])
        wait_for_error(self, lambda: s.describe_stream(StreamArn=arn),
                       "ResourceNotFoundException")
        with self.assertRaises(ClientError) as ctx:
            s.describe_stream(StreamArn=arn)
        assert_error(self, ctx, "ResourceNotFoundException")
        with self.assertRaises(ClientError) as ctx:
            s.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        assert_error(self, ctx, "ResourceNotFoundException")
        self.assertEqual(s.list_streams(TableName=name)["Streams"], [])
        everything = [st["StreamArn"] for st in s.list_streams(Limit=100)["Streams"]]
        self.assertNotIn(arn, everything)
        self.assertIn(live_arn, everything)
        self.assertEqual(describe(live_arn, s)["StreamStatus"], "ENABLED")
        # The table itself is untouched, and can have a new stream.
        self.assertEqual(c.get_item(TableName=name, Key={"pk": {"S": "x"}})["Item"],
                         {"pk": {"S": "x"}})
        c.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        harness.wait_active(c, name)
        new_arn = c.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        self.assertNotEqual(new_arn, arn)
        c.put_item(TableName=name, Item={"pk": {"S": "y"}})
        self.assertEqual(events(read_stream(new_arn, s)), [("INSERT", "y")])


# ------------------------------------------------------------------ errors

class ErrorsTest(StreamsTestCase):
    @classmethod
    def setUpClass(cls):
        cls.name, cls.arn = stream_table("KEYS_ONLY")
        cls.shard = first_shard(cls.arn)
        cls.account = ARN_RE.match(cls.arn).group(1)

    def test_describe_unknown_stream(self):
        for arn in ("arn:aws:dynamodb:%s:%s:table/%s/stream/2000-01-01T00:00:00.000"
                    % (harness.REGION, self.account, self.name),
                    "arn:aws:dynamodb:%s:%s:table/no-such-table-here/stream/2000-01-01T00:00:00.000"
                    % (harness.REGION, self.account)):
            with self.subTest(arn=arn):
                with self.assertRaises(ClientError) as ctx:
                    S.describe_stream(StreamArn=arn)
                assert_error(self, ctx, "ResourceNotFoundException",
                             contains="Requested resource not found")

    def test_describe_malformed_arn(self):
        for arn in ("arn:aws:dynamodb:us-east-1:000000000000:not-a-stream",
                    "this is not an ARN at all, just text of some length", "short"):
            with self.subTest(arn=arn):
                with self.assertRaises(ClientError) as ctx:
                    SNV.describe_stream(StreamArn=arn)
                assert_error(self, ctx, "ValidationException")

    def test_get_shard_iterator_unknown_shard_or_stream(self):
        with self.assertRaises(ClientError) as ctx:
            S.get_shard_iterator(StreamArn=self.arn,
                                 ShardId="shardId-00000000000000000000-00000000",
                                 ShardIteratorType="TRIM_HORIZON")
        assert_error(self, ctx, "ResourceNotFoundException")
        with self.assertRaises(ClientError) as ctx:
            S.get_shard_iterator(StreamArn=self.arn[:-1] + ("1" if self.arn[-1] != "1" else "2"),
                                 ShardId=self.shard, ShardIteratorType="TRIM_HORIZON")
        assert_error(self, ctx, "ResourceNotFoundException")

    def test_sequence_number_iterator_without_sequence_number(self):
        for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
            with self.subTest(kind=kind):
                with self.assertRaises(ClientError) as ctx:
                    S.get_shard_iterator(StreamArn=self.arn, ShardId=self.shard,
                                         ShardIteratorType=kind)
                assert_error(self, ctx, "ValidationException")

    def test_sequence_number_given_to_trim_horizon_or_latest(self):
        start = all_shards(self.arn)[1][0]["SequenceNumberRange"]["StartingSequenceNumber"]
        for kind in ("TRIM_HORIZON", "LATEST"):
            with self.subTest(kind=kind):
                with self.assertRaises(ClientError) as ctx:
                    S.get_shard_iterator(StreamArn=self.arn, ShardId=self.shard,
                                         ShardIteratorType=kind, SequenceNumber=start)
                assert_error(self, ctx, "ValidationException")

    def test_malformed_arns_elsewhere(self):
        bad = "sdfadsfsdfsdgdfsgsfdabadfbabdadsfsdfsdfsdfsdfsdfsdfdfdssdffbdfdf"
        with self.assertRaises(ClientError) as ctx:
            S.get_shard_iterator(StreamArn=bad, ShardId=self.shard, ShardIteratorType="LATEST")
        assert_error(self, ctx, "ValidationException")
        with self.assertRaises(ClientError) as ctx:
            S.list_streams(TableName=self.name, ExclusiveStartStreamArn=bad)
        assert_error(self, ctx, "ValidationException")

    def test_update_table_stream_specification_errors(self):
        plain = harness.create_table(C)
        with self.assertRaises(ClientError) as ctx:
            C.update_table(TableName=plain, StreamSpecification={"StreamEnabled": False})
        self.assertRegex(assert_error(self, ctx, "ValidationException"), "stream.*disable")
        with self.assertRaises(ClientError) as ctx:
            C.update_table(TableName=plain, StreamSpecification={"StreamEnabled": True})
        assert_error(self, ctx, "ValidationException")
        with self.assertRaises(ClientError) as ctx:
            CNV.update_table(TableName=plain, StreamSpecification={
                "StreamEnabled": True, "StreamViewType": "Fisk"})
        assert_error(self, ctx, "ValidationException")
        self.assertEqual(S.list_streams(TableName=plain)["Streams"], [])

    def test_get_records_garbage_iterator(self):
        for it in ("garbage", self.arn + "|1|" + "0" * 64):
            with self.subTest(iterator=it):
                with self.assertRaises(ClientError) as ctx:
                    S.get_records(ShardIterator=it)
                assert_error(self, ctx, "ValidationException")

    def test_get_records_tampered_iterator(self):
        it = iterator(self.arn, self.shard)
        last = it[-1]
        forged = it[:-1] + ("0" if last != "0" else "1")
        with self.assertRaises(ClientError) as ctx:
            S.get_records(ShardIterator=forged)
        assert_error(self, ctx, "ValidationException")

    def test_get_records_limit_out_of_range(self):
        # botocore refuses Limit 0 itself (ParamValidationError); the
        # non-validating client sends it so that the server refuses it.
        it = iterator(self.arn, self.shard)
        for limit in (0, 1001):
            with self.subTest(limit=limit):
                with self.assertRaises(ClientError) as ctx:
                    SNV.get_records(ShardIterator=it, Limit=limit)
                assert_error(self, ctx, "ValidationException", contains="limit")
        self.assertIn("Records", S.get_records(ShardIterator=it, Limit=1000))

    def test_create_table_stream_enabled_without_view_type(self):
        with self.assertRaises(ClientError) as ctx:
            C.create_table(TableName=harness.table_name(), BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           StreamSpecification={"StreamEnabled": True})
        assert_error(self, ctx, "ValidationException")


if __name__ == "__main__":
    unittest.main()
