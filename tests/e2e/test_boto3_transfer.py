"""Exports and imports via boto3 against `dynarock serve --s3-root DIR`
(DynamoDB API reference: ExportTableToPointInTime, DescribeExport,
ListExports, ImportTable, DescribeImport, ListImports; developer guide
"DynamoDB table export output format"): an export of a PITR-enabled table
writes DynamoDB's layout, that export's data/ folder imports unchanged into a
new table with every attribute type equal, CSV imports count bad rows in
ErrorCount and complete, and the documented errors (PITR not enabled, bad
bucket names, unknown ARNs, a taken table name, ClientToken conflicts).
Run standalone: python3 tests/e2e/test_boto3_transfer.py
"""

import os
import shutil
import sys
import tempfile
import time
import unittest
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import assert_error  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
PROC = None
ROOT = None


def setUpModule():
    global C, PROC, ROOT
    ROOT = tempfile.mkdtemp(prefix="dynarock-s3-")
    os.makedirs(os.path.join(ROOT, "bucket1"))
    PROC, url = harness.launch(extra_args=["--s3-root", ROOT])
    C = harness.client(url)


def tearDownModule():
    harness.stop_process(PROC)
    shutil.rmtree(ROOT, ignore_errors=True)


def expect(test, fn, code):
    with test.assertRaises(ClientError) as ctx:
        fn()
    assert_error(test, ctx, code)


def wait(describe, key, status_key):
    for _ in range(300):
        d = describe()[key]
        if d[status_key] != "IN_PROGRESS":
            return d
        time.sleep(0.1)
    raise AssertionError("job did not finish")


EVERY = {
    "pk": {"S": "k1"}, "s": {"S": "h\u00e9llo \"q\""}, "n": {"N": "-12.5"},
    "b": {"B": b"\x00\x01\xff"}, "t": {"BOOL": True}, "z": {"NULL": True},
    "l": {"L": [{"S": "a"}, {"N": "1"}]}, "m": {"M": {"x": {"SS": ["p", "q"]}}},
    "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2"]}, "bs": {"BS": [b"\x01", b"\x02"]},
}


class TransferTest(unittest.TestCase):
    def test_export_then_import_round_trip(self):
        name = harness.create_table(C)
        C.put_item(TableName=name, Item=EVERY)
        for i in range(50):
            C.put_item(TableName=name, Item={"pk": {"S": "p%d" % i}, "v": {"N": str(i)}})
        arn = C.describe_table(TableName=name)["Table"]["TableArn"]
        expect(self, lambda: C.export_table_to_point_in_time(TableArn=arn, S3Bucket="bucket1"),
                     "PointInTimeRecoveryUnavailableException")
        C.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        r = C.export_table_to_point_in_time(TableArn=arn, S3Bucket="bucket1", S3Prefix="exp",
                                            ExportFormat="DYNAMODB_JSON")["ExportDescription"]
        self.assertEqual(r["ExportStatus"], "IN_PROGRESS")
        self.assertTrue(r["ExportArn"].startswith(arn + "/export/"))
        d = wait(lambda: C.describe_export(ExportArn=r["ExportArn"]), "ExportDescription", "ExportStatus")
        self.assertEqual(d["ExportStatus"], "COMPLETED", d)
        self.assertEqual(d["ItemCount"], 51)
        self.assertTrue(os.path.exists(os.path.join(ROOT, "bucket1", d["ExportManifest"])))
        listed = C.list_exports(TableArn=arn)["ExportSummaries"]
        self.assertIn(r["ExportArn"], [e["ExportArn"] for e in listed])

        export_dir = os.path.dirname(d["ExportManifest"])
        new = harness.table_name()
        imp = C.import_table(
            S3BucketSource={"S3Bucket": "bucket1", "S3KeyPrefix": export_dir + "/data/"},
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": new, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})["ImportTableDescription"]
        self.assertIn(":table/%s/import/" % new, imp["ImportArn"])
        done = wait(lambda: C.describe_import(ImportArn=imp["ImportArn"]),
                    "ImportTableDescription", "ImportStatus")
        self.assertEqual(done["ImportStatus"], "COMPLETED", done)
        self.assertEqual(done["ImportedItemCount"], 51)
        self.assertEqual(done["ErrorCount"], 0)
        got = C.get_item(TableName=new, Key={"pk": {"S": "k1"}})["Item"]
        self.assertEqual(got, EVERY)
        self.assertIn(imp["ImportArn"], [i["ImportArn"] for i in C.list_imports()["ImportSummaryList"]])
        # The table exists now: a second import of it is refused.
        expect(self, lambda: C.import_table(
            S3BucketSource={"S3Bucket": "bucket1"}, InputFormat="CSV",
            TableCreationParameters={
                "TableName": new, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}),
            "ResourceInUseException")

    def test_csv_import_counts_errors(self):
        os.makedirs(os.path.join(ROOT, "bucket1", "csv"), exist_ok=True)
        with open(os.path.join(ROOT, "bucket1", "csv", "a.csv"), "w") as f:
            f.write("id;name\n1;one\n2;two;extra\nx;bad number\n3;\"three; quoted\"\n")
        new = harness.table_name()
        imp = C.import_table(
            S3BucketSource={"S3Bucket": "bucket1", "S3KeyPrefix": "csv/"}, InputFormat="CSV",
            InputFormatOptions={"Csv": {"Delimiter": ";"}},
            TableCreationParameters={
                "TableName": new, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})["ImportTableDescription"]
        done = wait(lambda: C.describe_import(ImportArn=imp["ImportArn"]),
                    "ImportTableDescription", "ImportStatus")
        self.assertEqual(done["ImportStatus"], "COMPLETED")
        self.assertEqual(done["ImportedItemCount"], 2)
        self.assertEqual(done["ErrorCount"], 2)
        self.assertEqual(done["ProcessedItemCount"], 4)
        item = C.get_item(TableName=new, Key={"id": {"N": "3"}})["Item"]
        self.assertEqual(item["name"], {"S": "three; quoted"})

    def test_incremental_export_has_each_items_net_change(self):
        name = harness.create_table(C)
        arn = C.describe_table(TableName=name)["Table"]["TableArn"]
        C.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})

        def next_second():  # SDKs send times in whole seconds
            now = time.time()
            time.sleep(int(now) + 1 - now + 0.05)
            return int(now) + 1
        next_second()
        for k in ("a", "b", "gone"):
            C.put_item(TableName=name, Item={"pk": {"S": k}, "v": {"N": "1"}})
        start = next_second()
        C.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "2"}})
        C.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "3"}})
        C.delete_item(TableName=name, Key={"pk": {"S": "b"}})
        C.put_item(TableName=name, Item={"pk": {"S": "c"}, "v": {"N": "1"}})
        end = next_second()
        C.put_item(TableName=name, Item={"pk": {"S": "c"}, "v": {"N": "9"}})  # after the span
        r = C.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket1", S3Prefix="inc", ExportType="INCREMENTAL_EXPORT",
            IncrementalExportSpecification={"ExportFromTime": start, "ExportToTime": end,
                                            "ExportViewType": "NEW_AND_OLD_IMAGES"})
        d = wait(lambda: C.describe_export(ExportArn=r["ExportDescription"]["ExportArn"]),
                 "ExportDescription", "ExportStatus")
        self.assertEqual(d["ExportStatus"], "COMPLETED", d)
        self.assertEqual(d["ExportType"], "INCREMENTAL_EXPORT")
        import gzip
        import json
        data = os.path.join(ROOT, "bucket1", os.path.dirname(d["ExportManifest"]), "data")
        lines = []
        for f in sorted(os.listdir(data)):
            with gzip.open(os.path.join(data, f), "rt") as fh:
                lines += [json.loads(line) for line in fh if line.strip()]
        by_key = {l["Keys"]["pk"]["S"]: l for l in lines}
        self.assertEqual(set(by_key), {"a", "b", "c"})
        self.assertEqual(by_key["a"]["OldImage"]["v"], {"N": "1"})
        self.assertEqual(by_key["a"]["NewImage"]["v"], {"N": "3"})
        self.assertEqual(by_key["b"]["OldImage"]["v"], {"N": "1"})
        self.assertNotIn("NewImage", by_key["b"])
        self.assertNotIn("OldImage", by_key["c"])
        self.assertEqual(by_key["c"]["NewImage"]["v"], {"N": "1"})
        for l in lines:
            micros = int(l["Metadata"]["WriteTimestampMicros"]["N"])
            self.assertTrue(start * 1e6 <= micros <= end * 1e6, l)

    def test_import_killed_midway_leaves_no_table(self):
        import gzip
        import json
        import signal
        root = tempfile.mkdtemp(prefix="dynarock-kill-")
        try:
            os.makedirs(os.path.join(root, "s3", "big", "data"))
            with gzip.open(os.path.join(root, "s3", "big", "data", "a.json.gz"), "wt") as f:
                for i in range(300000):
                    f.write(json.dumps({"Item": {"pk": {"S": "k%d" % i}, "v": {"S": "x" * 40}}})
                            + "\n")
            proc, url = harness.launch(data_dir=os.path.join(root, "db"),
                                       extra_args=["--s3-root", os.path.join(root, "s3")])
            try:
                c = harness.client(url)
                imp = c.import_table(
                    S3BucketSource={"S3Bucket": "big", "S3KeyPrefix": "data/"},
                    InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                    TableCreationParameters={
                        "TableName": "killed", "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
                arn = imp["ImportTableDescription"]["ImportArn"]
                # Killed as soon as records are going in: the whole import
                # takes a few tenths of a second.
                deadline = time.time() + 10
                while True:
                    mid = c.describe_import(ImportArn=arn)["ImportTableDescription"]
                    if mid.get("ProcessedItemCount", 0) > 0 or mid["ImportStatus"] != "IN_PROGRESS" \
                            or time.time() > deadline:
                        break
                    time.sleep(0.005)
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
            finally:
                harness.stop_process(proc)
            self.assertEqual(mid["ImportStatus"], "IN_PROGRESS", "the import ended too soon")
            self.assertLess(mid["ProcessedItemCount"], 300000, "the import ended too soon")
            proc, url = harness.launch(data_dir=os.path.join(root, "db"),
                                       extra_args=["--s3-root", os.path.join(root, "s3")])
            try:
                c = harness.client(url)
                with self.assertRaises(ClientError) as ctx:
                    c.describe_table(TableName="killed")
                assert_error(self, ctx, "ResourceNotFoundException")
                self.assertNotIn("killed", c.list_tables()["TableNames"])
                d = c.describe_import(ImportArn=arn)["ImportTableDescription"]
                self.assertEqual(d["ImportStatus"], "FAILED")
            finally:
                harness.stop_process(proc)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def test_errors(self):
        arn = "arn:aws:dynamodb:%s:000000000000:table/nothere" % harness.REGION
        expect(self, lambda: C.describe_export(ExportArn=arn + "/export/01234567890123-abcdef01"),
                     "ExportNotFoundException")
        expect(self, lambda: C.describe_import(ImportArn=arn + "/import/01234567890123-abcdef01"),
                     "ImportNotFoundException")
        expect(self, lambda: C.export_table_to_point_in_time(TableArn=arn, S3Bucket="bucket1"),
                     "TableNotFoundException")
        expect(self, lambda: C.export_table_to_point_in_time(TableArn=arn, S3Bucket="-x-"),
                     "ValidationException")
        params = {"TableName": harness.table_name(), "BillingMode": "PAY_PER_REQUEST",
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
        C.import_table(S3BucketSource={"S3Bucket": "nosuchbucket"}, InputFormat="ION",
                       ClientToken="tok", TableCreationParameters=params)
        expect(self, lambda: C.import_table(
            S3BucketSource={"S3Bucket": "nosuchbucket"}, InputFormat="CSV", ClientToken="tok",
            TableCreationParameters=params), "ImportConflictException")


if __name__ == "__main__":
    unittest.main()
