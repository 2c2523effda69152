"""Kinesis streaming destinations through boto3: EnableKinesisStreamingDestination,
DescribeKinesisStreamingDestination, UpdateKinesisStreamingDestination and
DisableKinesisStreamingDestination (API reference), and the records delivered
to `serve --kinesis-dir`.

Asserted: Enable answers ENABLING and echoes its configuration, the table then
lists the destination ACTIVE; a second Enable while one is live, Disable or
Update of a destination that is not ACTIVE, an Update to the precision in
force or with an empty configuration are ValidationException with DynamoDB's
messages and change nothing; unknown tables are ResourceNotFoundException, a
short StreamArn and an unknown precision ValidationException. Every write
while the destination is ACTIVE arrives once, in order, in
<dir>/<stream name>.jsonl, shaped as DynamoDB's Kinesis records (awsRegion,
eventID as a UUID, eventName, userIdentity null, recordFormat, tableName,
dynamodb with ApproximateCreationDateTime in milliseconds or, after an Update
to MICROSECOND, microseconds, Keys, NewImage, OldImage, SizeBytes, and
eventSource); writes after Disable are not delivered; the destination, and the
records not yet delivered, survive a kill -9 and a restart.
Run standalone: python3 tests/e2e/test_boto3_kinesis.py
"""

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

STREAM = "arn:aws:kinesis:us-east-1:000000000000:stream/orders-feed"
OTHER = "arn:aws:kinesis:us-east-1:000000000000:stream/other-feed"


def read_records(path, count, timeout=10):
    """The JSON records in `path` once there are at least `count`."""
    deadline = time.time() + timeout
    while True:
        lines = []
        if os.path.exists(path):
            with open(path) as f:
                lines = [json.loads(l) for l in f if l.strip()]
        if len(lines) >= count or time.time() > deadline:
            return lines
        time.sleep(0.05)


class KinesisTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="dynarock-kinesis-")
        self.sink = os.path.join(self.root, "kinesis")
        self.proc, self.url = harness.launch(data_dir=os.path.join(self.root, "db"),
                                             extra_args=["--kinesis-dir", self.sink])
        self.c = harness.client(self.url)

    def tearDown(self):
        harness.stop_process(self.proc)
        shutil.rmtree(self.root, ignore_errors=True)

    def expect(self, fn, code, message=None):
        with self.assertRaises(ClientError) as ctx:
            fn()
        return harness.assert_error(self, ctx, code, message)

    def test_settings_and_errors(self):
        c = self.c
        t = harness.create_table(c, range_key=("sk", "N"))
        d = c.describe_kinesis_streaming_destination(TableName=t)
        self.assertEqual(d["TableName"], t)
        self.assertEqual(d["KinesisDataStreamDestinations"], [])

        r = c.enable_kinesis_streaming_destination(TableName=t, StreamArn=STREAM)
        self.assertEqual(r["DestinationStatus"], "ENABLING")
        self.assertEqual(r["StreamArn"], STREAM)
        self.assertEqual(r["TableName"], t)
        dest = c.describe_kinesis_streaming_destination(TableName=t)["KinesisDataStreamDestinations"]
        self.assertEqual(len(dest), 1)
        self.assertEqual(dest[0]["StreamArn"], STREAM)
        self.assertEqual(dest[0]["DestinationStatus"], "ACTIVE")
        self.assertNotIn("ApproximateCreationDateTimePrecision", dest[0])

        live = ("Table is not in a valid state to enable Kinesis Streaming Destination: "
                "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform "
                "ENABLE operation.")
        self.expect(lambda: c.enable_kinesis_streaming_destination(TableName=t, StreamArn=OTHER),
                    "ValidationException", live)
        self.expect(lambda: c.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MILLISECOND"}),
            "ValidationException")
        m = self.expect(lambda: c.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM, UpdateKinesisStreamingConfiguration={}),
            "ValidationException")
        self.assertIn("cannot be null or contain only null values", m)
        self.expect(lambda: c.disable_kinesis_streaming_destination(TableName=t, StreamArn=OTHER),
                    "ValidationException",
                    "Table is not in a valid state to disable Kinesis Streaming Destination: "
                    "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
        self.expect(lambda: c.describe_kinesis_streaming_destination(TableName="nosuchtable"),
                    "ResourceNotFoundException",
                    "Requested resource not found: Table: nosuchtable not found")
        self.expect(lambda: c.enable_kinesis_streaming_destination(TableName="nosuchtable",
                                                                   StreamArn=STREAM),
                    "ResourceNotFoundException")
        raw = harness.client(self.url, validate=False)
        m = self.expect(lambda: raw.enable_kinesis_streaming_destination(TableName=t, StreamArn="arn:short"),
                        "ValidationException")
        self.assertIn("Member must have length greater than or equal to 37", m)
        m = self.expect(lambda: raw.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "SECOND"}),
            "ValidationException")
        self.assertIn("Member must satisfy enum value set: [MILLISECOND, MICROSECOND]", m)

        u = c.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
        self.assertEqual(u["DestinationStatus"], "UPDATING")
        self.assertEqual(u["UpdateKinesisStreamingConfiguration"],
                         {"ApproximateCreationDateTimePrecision": "MICROSECOND"})
        dest = c.describe_kinesis_streaming_destination(TableName=t)["KinesisDataStreamDestinations"]
        self.assertEqual(dest[0]["ApproximateCreationDateTimePrecision"], "MICROSECOND")

        r = c.disable_kinesis_streaming_destination(TableName=t, StreamArn=STREAM)
        self.assertEqual(r["DestinationStatus"], "DISABLING")
        dest = c.describe_kinesis_streaming_destination(TableName=t)["KinesisDataStreamDestinations"]
        self.assertEqual([(x["StreamArn"], x["DestinationStatus"]) for x in dest],
                         [(STREAM, "DISABLED")])
        self.expect(lambda: c.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MILLISECOND"}),
            "ValidationException",
            "Table is not in a valid state to update Kinesis Streaming Destination: Kinesis "
            "streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. "
            "TableName: " + t)
        # Another destination may now be enabled; the first stays listed.
        r = c.enable_kinesis_streaming_destination(
            TableName=t, StreamArn=OTHER,
            EnableKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MILLISECOND"})
        self.assertEqual(r["EnableKinesisStreamingConfiguration"],
                         {"ApproximateCreationDateTimePrecision": "MILLISECOND"})
        dest = c.describe_kinesis_streaming_destination(TableName=t)["KinesisDataStreamDestinations"]
        self.assertEqual(sorted((x["StreamArn"], x["DestinationStatus"]) for x in dest),
                         sorted([(STREAM, "DISABLED"), (OTHER, "ACTIVE")]))
        # No DynamoDB stream appears for the delivery log.
        self.assertEqual(harness.streams_client(self.url).list_streams(TableName=t)["Streams"], [])

    def test_records_delivered(self):
        c = self.c
        t = harness.create_table(c, range_key=("sk", "N"))
        c.put_item(TableName=t, Item={"pk": {"S": "before"}, "sk": {"N": "0"}})
        c.enable_kinesis_streaming_destination(TableName=t, StreamArn=STREAM)
        c.put_item(TableName=t, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "one"}})
        c.update_item(TableName=t, Key={"pk": {"S": "a"}, "sk": {"N": "1"}},
                      UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"S": "two"}})
        c.delete_item(TableName=t, Key={"pk": {"S": "a"}, "sk": {"N": "1"}})
        path = os.path.join(self.sink, "orders-feed.jsonl")
        recs = read_records(path, 3)
        self.assertEqual([r["eventName"] for r in recs], ["INSERT", "MODIFY", "REMOVE"])
        first = recs[0]
        self.assertEqual(list(first.keys()), ["awsRegion", "eventID", "eventName", "userIdentity",
                                              "recordFormat", "tableName", "dynamodb", "eventSource"])
        self.assertEqual(first["awsRegion"], harness.REGION)
        self.assertRegex(first["eventID"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")  # version 4
        self.assertIsNone(first["userIdentity"])
        self.assertEqual(first["recordFormat"], "application/json")
        self.assertEqual(first["tableName"], t)
        self.assertEqual(first["eventSource"], "aws:dynamodb")
        ddb = first["dynamodb"]
        self.assertEqual(ddb["Keys"], {"pk": {"S": "a"}, "sk": {"N": "1"}})
        self.assertEqual(ddb["NewImage"], {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "one"}})
        self.assertNotIn("OldImage", ddb)
        self.assertGreater(ddb["SizeBytes"], 0)
        self.assertLess(abs(ddb["ApproximateCreationDateTime"] / 1000 - time.time()), 120)
        self.assertEqual(recs[1]["dynamodb"]["OldImage"]["v"], {"S": "one"})
        self.assertEqual(recs[1]["dynamodb"]["NewImage"]["v"], {"S": "two"})
        self.assertEqual(recs[2]["dynamodb"]["OldImage"]["v"], {"S": "two"})
        self.assertNotIn("NewImage", recs[2]["dynamodb"])
        self.assertEqual(len({r["eventID"] for r in recs}), 3)

        c.update_kinesis_streaming_destination(
            TableName=t, StreamArn=STREAM,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
        c.put_item(TableName=t, Item={"pk": {"S": "b"}, "sk": {"N": "2"}})
        recs = read_records(path, 4)
        self.assertEqual(len(recs), 4)
        micro = recs[3]["dynamodb"]
        self.assertEqual(micro["ApproximateCreationDateTimePrecision"], "MICROSECOND")
        self.assertLess(abs(micro["ApproximateCreationDateTime"] / 1e6 - time.time()), 120)

        # Killed with records waiting: after the restart they arrive, and the
        # destination is still ACTIVE.
        for i in range(50):
            c.put_item(TableName=t, Item={"pk": {"S": "k%d" % i}, "sk": {"N": str(i)}})
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=5)
        self.proc, self.url = harness.launch(data_dir=os.path.join(self.root, "db"),
                                             extra_args=["--kinesis-dir", self.sink])
        c = self.c = harness.client(self.url)
        dest = c.describe_kinesis_streaming_destination(TableName=t)["KinesisDataStreamDestinations"]
        self.assertEqual(dest[0]["DestinationStatus"], "ACTIVE")
        recs = read_records(path, 54)
        keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in recs]
        # Every write once at least, in order (a crash may repeat the last few).
        firsts = []
        for k in keys:
            if k not in firsts:
                firsts.append(k)
        self.assertEqual(firsts, ["a", "b"] + ["k%d" % i for i in range(50)])

        c.disable_kinesis_streaming_destination(TableName=t, StreamArn=STREAM)
        c.put_item(TableName=t, Item={"pk": {"S": "after"}, "sk": {"N": "9"}})
        time.sleep(0.8)
        after = read_records(path, 0)
        self.assertNotIn("after", [r["dynamodb"]["Keys"]["pk"]["S"] for r in after])


if __name__ == "__main__":
    unittest.main()
