"""On-demand backups and point-in-time recovery e2e via boto3.

Asserts DynamoDB's behaviour (API reference: CreateBackup, DescribeBackup,
ListBackups, DeleteBackup, RestoreTableFromBackup, RestoreTableToPointInTime,
UpdateContinuousBackups, DescribeContinuousBackups; developer guide "Backup
and restore for DynamoDB"): backups are independent of later writes and of
the table's deletion, restored tables carry a RestoreSummary and their
secondary indexes, PITR restores give the table as it was at the instant.
A backup kept across a restart is tested on a server of its own with a data
directory, and a restore killed with SIGKILL midway is finished at the next
start, never seen half done.
Run standalone: python3 tests/e2e/test_boto3_backups.py
"""

import os
import shutil
import signal
import sys
import tempfile
import time
import unittest
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import assert_error  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
CNV = None


def setUpModule():
    global C, CNV
    harness.start()
    C = harness.client()
    CNV = harness.client(validate=False)


def tearDownModule():
    harness.stop()


def _gsi_table(c):
    """A table pk (S) with a GSI on g (S); returns its name."""
    name = harness.table_name("bk")
    c.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    harness.wait_active(c, name)
    return name


def item(i):
    return {"pk": {"S": "k%d" % i}, "g": {"S": "g%d" % (i % 3)}, "n": {"N": str(i)},
            "b": {"B": b"\x00\xff" + bytes([i % 256])}, "ss": {"SS": ["a", "b%d" % i]},
            "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"\x01", b"\x02"]},
            "t": {"BOOL": i % 2 == 0}, "z": {"NULL": True},
            "l": {"L": [{"S": "x"}, {"N": "3"}]}, "m": {"M": {"nested": {"S": "v%d" % i}}}}


def scan_all(c, name):
    out, kw = {}, {}
    while True:
        r = c.scan(TableName=name, **kw)
        for it in r["Items"]:
            out[it["pk"]["S"]] = it
        if "LastEvaluatedKey" not in r:
            return out
        kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]


def wait_backup(c, arn, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        d = c.describe_backup(BackupArn=arn)["BackupDescription"]
        if d["BackupDetails"]["BackupStatus"] == "AVAILABLE":
            return d
        if time.monotonic() > deadline:
            raise AssertionError("backup not AVAILABLE")
        time.sleep(0.1)


class BackupTest(unittest.TestCase):
    def test_backup_restore_round_trip_with_every_type_and_indexes(self):
        name = _gsi_table(C)
        for i in range(40):
            C.put_item(TableName=name, Item=item(i))
        b = C.create_backup(TableName=name, BackupName="round-trip")["BackupDetails"]
        self.assertRegex(b["BackupArn"],
                         r"^arn:aws:dynamodb:%s:\d{12}:table/%s/backup/\d{14}-[0-9a-f]{8}$"
                         % (harness.REGION, name))
        self.assertIn(b["BackupStatus"], ("CREATING", "AVAILABLE"))
        self.assertEqual(b["BackupType"], "USER")
        d = wait_backup(C, b["BackupArn"])
        self.assertEqual(d["SourceTableDetails"]["TableName"], name)
        self.assertEqual(d["SourceTableDetails"]["ItemCount"], 40)
        self.assertEqual(d["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"][0]["IndexName"],
                         "by_g")
        expected = scan_all(C, name)
        # Later writes and the table's deletion change nothing in the backup.
        C.put_item(TableName=name, Item=item(99))
        C.delete_table(TableName=name)
        target = harness.table_name("restored")
        r = C.restore_table_from_backup(TargetTableName=target, BackupArn=b["BackupArn"])
        desc = r["TableDescription"]
        self.assertEqual(desc["RestoreSummary"]["SourceBackupArn"], b["BackupArn"])
        harness.wait_active(C, target)
        self.assertEqual(scan_all(C, target), expected)
        q = C.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "g1"}})
        self.assertEqual(q["Count"], 13)
        t = C.describe_table(TableName=target)["Table"]
        self.assertFalse(t["RestoreSummary"]["RestoreInProgress"])
        self.assertEqual(t["ItemCount"], 40)
        with self.assertRaises(ClientError) as ctx:
            C.restore_table_from_backup(TargetTableName=target, BackupArn=b["BackupArn"])
        assert_error(self, ctx, "TableAlreadyExistsException", contains=target)
        deleted = C.delete_backup(BackupArn=b["BackupArn"])["BackupDescription"]
        self.assertEqual(deleted["BackupDetails"]["BackupStatus"], "DELETED")
        with self.assertRaises(ClientError) as ctx:
            C.describe_backup(BackupArn=b["BackupArn"])
        assert_error(self, ctx, "BackupNotFoundException")

    def test_list_backups_filters_and_pages(self):
        name = harness.create_table(C)
        other = harness.create_table(C)
        arns = [C.create_backup(TableName=name, BackupName="b%d-x" % i)["BackupDetails"]["BackupArn"]
                for i in range(3)]
        C.create_backup(TableName=other, BackupName="other")
        seen, kw = [], {}
        while True:
            r = C.list_backups(TableName=name, Limit=1, **kw)
            seen += [s["BackupArn"] for s in r["BackupSummaries"]]
            for s in r["BackupSummaries"]:
                self.assertEqual(s["TableName"], name)
            if "LastEvaluatedBackupArn" not in r:
                break
            kw["ExclusiveStartBackupArn"] = r["LastEvaluatedBackupArn"]
        self.assertEqual(seen, arns)
        future = datetime.now(timezone.utc) + timedelta(days=1)
        self.assertEqual(C.list_backups(TableName=name, TimeRangeLowerBound=future)
                         ["BackupSummaries"], [])
        self.assertEqual(C.list_backups(TableName=name, BackupType="SYSTEM")["BackupSummaries"], [])

    def test_errors(self):
        with self.assertRaises(ClientError) as ctx:
            C.create_backup(TableName=harness.table_name("none"), BackupName="abc")
        assert_error(self, ctx, "TableNotFoundException", contains="Table not found")
        name = harness.create_table(C)
        with self.assertRaises(ClientError) as ctx:
            CNV.create_backup(TableName=name, BackupName="a b")
        assert_error(self, ctx, "ValidationException", contains="backupName")
        with self.assertRaises(ClientError) as ctx:
            CNV.list_backups(Limit=0)
        assert_error(self, ctx, "ValidationException", contains="limit")
        missing = ("arn:aws:dynamodb:%s:000000000000:table/%s/backup/01700000000000-0000abcd"
                   % (harness.REGION, name))
        with self.assertRaises(ClientError) as ctx:
            C.restore_table_from_backup(TargetTableName=harness.table_name(), BackupArn=missing)
        assert_error(self, ctx, "BackupNotFoundException")


class PitrTest(unittest.TestCase):
    def test_restore_to_instants(self):
        name = _gsi_table(C)
        d = C.update_continuous_backups(
            TableName=name, PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 3})
        pitr = d["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        self.assertEqual(pitr["PointInTimeRecoveryStatus"], "ENABLED")
        self.assertEqual(pitr["RecoveryPeriodInDays"], 3)
        # SDKs send RestoreDateTime in whole seconds: each instant is a second
        # boundary S with every write of its batch before S and none after.
        def next_second():
            now = time.time()
            boundary = int(now) + 1
            time.sleep(boundary - now + 0.05)
            return datetime.fromtimestamp(boundary, timezone.utc)
        next_second()
        instants = []  # (time, expected table)
        for step in range(3):
            for i in range(5):
                C.put_item(TableName=name, Item=item(step * 3 + i))
            if step:
                C.delete_item(TableName=name, Key={"pk": {"S": "k%d" % (step * 3)}})
            instants.append((next_second(), scan_all(C, name)))
        for n, (when, expected) in enumerate(instants):
            target = harness.table_name("pitr")
            r = C.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=target,
                                                 RestoreDateTime=when)
            self.assertTrue(r["TableDescription"]["RestoreSummary"]["SourceTableArn"]
                            .endswith(":table/" + name))
            harness.wait_active(C, target)
            self.assertEqual(scan_all(C, target), expected, "instant %d" % n)
            q = C.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "g0"}})
            self.assertEqual(q["Count"], sum(1 for v in expected.values() if v["g"]["S"] == "g0"))
        latest = harness.table_name("latest")
        C.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=latest,
                                         UseLatestRestorableTime=True)
        harness.wait_active(C, latest)
        self.assertEqual(scan_all(C, latest), scan_all(C, name))

    def test_pitr_errors(self):
        name = harness.create_table(C)
        with self.assertRaises(ClientError) as ctx:
            C.restore_table_to_point_in_time(SourceTableName=name,
                                             TargetTableName=harness.table_name(),
                                             UseLatestRestorableTime=True)
        assert_error(self, ctx, "PointInTimeRecoveryUnavailableException")
        C.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        with self.assertRaises(ClientError) as ctx:
            C.restore_table_to_point_in_time(
                SourceTableName=name, TargetTableName=harness.table_name(),
                RestoreDateTime=datetime.now(timezone.utc) - timedelta(days=2))
        assert_error(self, ctx, "InvalidRestoreTimeException", contains="RestoreDateTime")
        d = C.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
        p = d["PointInTimeRecoveryDescription"]
        self.assertLessEqual(p["EarliestRestorableDateTime"], p["LatestRestorableDateTime"])
        C.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": False})
        with self.assertRaises(ClientError) as ctx:
            C.restore_table_to_point_in_time(SourceTableName=name,
                                             TargetTableName=harness.table_name(),
                                             UseLatestRestorableTime=True)
        assert_error(self, ctx, "PointInTimeRecoveryUnavailableException")


class RestartTest(unittest.TestCase):
    def test_backup_survives_restart_and_killed_restore_finishes(self):
        data = tempfile.mkdtemp(prefix="dynarock-bk-")
        try:
            proc, url = harness.launch(data_dir=data)
            try:
                c = harness.client(url)
                name = _gsi_table(c)
                reqs = [{"PutRequest": {"Item": item(i)}} for i in range(6000)]
                for i in range(0, len(reqs), 25):
                    c.batch_write_item(RequestItems={name: reqs[i:i + 25]})
                arn = c.create_backup(TableName=name, BackupName="keep")["BackupDetails"]["BackupArn"]
                wait_backup(c, arn)
                expected = scan_all(c, name)
                target = harness.table_name("killed")
                c.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
                # Killed at once: the restore is cut short (or just done).
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
            finally:
                harness.stop_process(proc)
            proc, url = harness.launch(data_dir=data)
            try:
                c = harness.client(url)
                # Never half a table: until ACTIVE its items are not readable.
                st = c.describe_table(TableName=target)["Table"]["TableStatus"]
                if st != "ACTIVE":
                    with self.assertRaises(ClientError):
                        c.get_item(TableName=target, Key={"pk": {"S": "k1"}})
                harness.wait_active(c, target)
                self.assertEqual(scan_all(c, target), expected)
                self.assertEqual(c.describe_backup(BackupArn=arn)["BackupDescription"]
                                 ["BackupDetails"]["BackupStatus"], "AVAILABLE")
            finally:
                harness.stop_process(proc)
        finally:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
