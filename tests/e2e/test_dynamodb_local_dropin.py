"""`dynarock serve` as a drop-in for DynamoDB Local, via boto3: its flags
(-port, -inMemory, -dbPath, -sharedDb, -delayTransientStatuses, -cors,
-optimizeDbBeforeStartup, -disableTelemetry, -help), tables kept apart per
access key and region unless -sharedDb (DynamoDB Local's behaviour), the
transient statuses SDK waiters wait through, the first stdout line a harness
reads the port from, the control API's clock (/_dynarock/clock) driving
time to live, and the consistency simulation (--gsi-lag, --stale-reads).
Run standalone: python3 tests/e2e/test_dynamodb_local_dropin.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402


def client(url, key, region=harness.REGION):
    import boto3
    from botocore.config import Config
    return boto3.client("dynamodb", endpoint_url=url, region_name=region,
                        aws_access_key_id=key, aws_secret_access_key="secret",
                        config=Config(retries={"max_attempts": 1}))


def make_table(c, name):
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])


def control(url, path, body=None, method=None):
    req = urllib.request.Request(url + "/_dynarock/" + path,
                                 data=None if body is None else json.dumps(body).encode(),
                                 method=method or ("GET" if body is None else "POST"))
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class DropInTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dynarock-local-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def launch(self, *args):
        # DynamoDB Local's own flags only: the harness adds --port, so pass -port 0 last.
        proc, url = harness.launch(None, list(args), port=None)
        self.addCleanup(harness.stop_process, proc)
        return url

    def test_help_and_flags_of_dynamodb_local(self):
        out = subprocess.run([harness._find_binary(), "serve", "-help"], capture_output=True,
                             text=True, timeout=10)
        self.assertEqual(out.returncode, 0)
        self.assertIn("-sharedDb", out.stdout)
        db_path = os.path.join(self.dir, "nested", "db")
        proc = subprocess.Popen([harness._find_binary(), "serve", "-port", "0", "-dbPath", db_path,
                                 "-cors", "*", "-optimizeDbBeforeStartup", "-disableTelemetry"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            first = proc.stdout.readline()
            # The first line says where it listens, machine-readably.
            self.assertRegex(first, r"^dynarock listening on http://127\.0\.0\.1:(\d+) ")
            url = first.split()[3]
            c = client(url, "somekey")
            make_table(c, "local1")
            self.assertEqual(c.list_tables()["TableNames"], ["local1"])
            self.assertTrue(os.path.isdir(os.path.join(db_path, "namespaces", "somekey_us-east-1")))
        finally:
            harness.stop_process(proc)

    def test_namespaces_per_access_key_and_region(self):
        url = self.launch("-inMemory")
        alice, bob = client(url, "alice"), client(url, "bob")
        alice_eu = client(url, "alice", "eu-west-1")
        make_table(alice, "mine")
        self.assertEqual(alice.list_tables()["TableNames"], ["mine"])
        self.assertEqual(bob.list_tables()["TableNames"], [])
        self.assertEqual(alice_eu.list_tables()["TableNames"], [])
        with self.assertRaises(ClientError) as e:
            bob.describe_table(TableName="mine")
        self.assertEqual(harness.error_of(e.exception)[0], "ResourceNotFoundException")
        make_table(bob, "mine")  # the same name, another namespace
        bob.put_item(TableName="mine", Item={"pk": {"S": "b"}})
        self.assertEqual(alice.scan(TableName="mine")["Count"], 0)
        arn = alice_eu.create_table(
            TableName="regional", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        )["TableDescription"]["TableArn"]
        self.assertTrue(arn.startswith("arn:aws:dynamodb:eu-west-1:"), arn)

    def test_shared_db_is_one_namespace(self):
        url = self.launch("-inMemory", "-sharedDb")
        make_table(client(url, "alice"), "shared1")
        self.assertEqual(client(url, "bob", "eu-west-1").list_tables()["TableNames"], ["shared1"])

    def test_transient_statuses_for_waiters(self):
        url = self.launch("--in-memory", "--delay-transient-statuses", "0.6")
        c = client(url, "waiter")
        make_table(c, "slow")
        self.assertEqual(c.describe_table(TableName="slow")["Table"]["TableStatus"], "CREATING")
        with self.assertRaises(ClientError) as e:
            c.put_item(TableName="slow", Item={"pk": {"S": "x"}})
        self.assertEqual(harness.error_of(e.exception)[0], "ResourceNotFoundException")
        start = time.monotonic()
        c.get_waiter("table_exists").wait(TableName="slow", WaiterConfig={"Delay": 0.2})
        self.assertGreaterEqual(time.monotonic() - start, 0.3)
        c.put_item(TableName="slow", Item={"pk": {"S": "x"}})
        c.update_table(TableName="slow", BillingMode="PROVISIONED",
                       ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        self.assertEqual(c.describe_table(TableName="slow")["Table"]["TableStatus"], "UPDATING")
        c.delete_table(TableName="slow")
        self.assertEqual(c.describe_table(TableName="slow")["Table"]["TableStatus"], "DELETING")
        self.assertIn("slow", c.list_tables()["TableNames"])
        with self.assertRaises(ClientError) as e:
            make_table(c, "slow")
        self.assertEqual(harness.error_of(e.exception)[0], "ResourceInUseException")
        c.get_waiter("table_not_exists").wait(TableName="slow", WaiterConfig={"Delay": 0.2})
        self.assertNotIn("slow", c.list_tables()["TableNames"])

    def test_control_clock_drives_time_to_live(self):
        url = self.launch("--in-memory", "--ttl-sweep-seconds", "1")
        c = client(url, "clock")
        make_table(c, "ttl1")
        c.update_time_to_live(TableName="ttl1", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        now = control(url, "clock")["now"]
        self.assertAlmostEqual(now, time.time(), delta=5)
        c.put_item(TableName="ttl1", Item={"pk": {"S": "a"}, "expires": {"N": str(int(now) + 3600)}})
        time.sleep(1.5)
        self.assertEqual(c.scan(TableName="ttl1")["Count"], 1)  # not yet expired
        moved = control(url, "clock", {"advanceSeconds": 7200})
        self.assertAlmostEqual(moved["offsetSeconds"], 7200, delta=0.01)
        deadline = time.monotonic() + 10
        while c.scan(TableName="ttl1")["Count"] and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(c.scan(TableName="ttl1")["Count"], 0)
        with self.assertRaises(urllib.error.HTTPError) as e:
            control(url, "clock", {"advanceSeconds": -5})
        self.assertEqual(e.exception.code, 400)

    def test_reset_and_snapshots_through_the_control_api(self):
        url = self.launch("--in-memory")
        a, b = client(url, "alice"), client(url, "bob")
        make_table(a, "snapme")
        for i in range(0, 200, 25):
            a.batch_write_item(RequestItems={"snapme": [
                {"PutRequest": {"Item": {"pk": {"S": "k%d" % j}}}} for j in range(i, i + 25)]})
        make_table(b, "bobs")
        saved = control(url, "snapshots", {"name": "start"})
        self.assertEqual(saved["saved"], "start")
        listed = control(url, "snapshots")["snapshots"]
        self.assertEqual([s["name"] for s in listed], ["start"])
        self.assertEqual(listed[0]["tables"], 2)
        self.assertEqual(listed[0]["items"], 200)
        # Changes, then back to the snapshot.
        a.delete_item(TableName="snapme", Key={"pk": {"S": "k1"}})
        make_table(a, "extra")
        b.delete_table(TableName="bobs")
        restored = control(url, "snapshots/start/restore", {})
        self.assertEqual(restored["restored"], "start")
        self.assertEqual(a.list_tables()["TableNames"], ["snapme"])
        self.assertEqual(a.scan(TableName="snapme", Select="COUNT")["Count"], 200)
        self.assertEqual(b.list_tables()["TableNames"], ["bobs"])
        # Reset one namespace, then all.
        self.assertEqual(control(url, "reset", {"namespace": "bob_us-east-1"})["reset"],
                         ["bob_us-east-1"])
        self.assertEqual(b.list_tables()["TableNames"], [])
        self.assertEqual(a.list_tables()["TableNames"], ["snapme"])
        control(url, "reset", {})
        self.assertEqual(a.list_tables()["TableNames"], [])
        with self.assertRaises(urllib.error.HTTPError) as e:
            control(url, "snapshots/nope/restore", {})
        self.assertEqual(e.exception.code, 404)
        with self.assertRaises(urllib.error.HTTPError) as e:
            control(url, "snapshots", {"name": "bad name"})
        self.assertEqual(e.exception.code, 400)
        self.assertEqual(control(url, "snapshots/start", method="DELETE")["deleted"], "start")
        self.assertEqual(control(url, "snapshots")["snapshots"], [])

    def test_gsi_read_after_write_under_lag_is_stale(self):
        url = self.launch("--in-memory", "--gsi-lag", "1.5", "--consistency-seed", "7")
        c = client(url, "lag")
        c.create_table(
            TableName="lagged", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}])

        def on_index():
            return c.query(TableName="lagged", IndexName="by_g", KeyConditionExpression="g = :g",
                           ExpressionAttributeValues={":g": {"S": "x"}})["Count"]
        c.put_item(TableName="lagged", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        # The table has it at once; the index does not yet: the stale read.
        self.assertIn("Item", c.get_item(TableName="lagged", Key={"pk": {"S": "a"}},
                                         ConsistentRead=True))
        self.assertEqual(on_index(), 0)
        deadline = time.monotonic() + 10
        while on_index() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(on_index(), 1)

    def test_eventually_consistent_reads_may_be_stale(self):
        url = self.launch("--in-memory", "--stale-reads", "2")
        c = client(url, "stale")
        make_table(c, "stale1")
        c.put_item(TableName="stale1", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        c.put_item(TableName="stale1", Item={"pk": {"S": "a"}, "v": {"N": "2"}})
        # Within the window: the eventually consistent read is behind.
        self.assertNotIn("Item", c.get_item(TableName="stale1", Key={"pk": {"S": "a"}}))
        self.assertEqual(c.get_item(TableName="stale1", Key={"pk": {"S": "a"}},
                                    ConsistentRead=True)["Item"]["v"], {"N": "2"})
        control(url, "clock", {"advanceSeconds": 3})
        self.assertEqual(c.get_item(TableName="stale1", Key={"pk": {"S": "a"}})["Item"]["v"],
                         {"N": "2"})

    def test_eventually_consistent_query_scan_and_batch_get_may_be_stale(self):
        # A window far longer than the test, moved past with the control clock.
        url = self.launch("--in-memory", "--stale-reads", "30")
        c = client(url, "stale")
        c.create_table(TableName="stale2", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                             {"AttributeName": "sk", "AttributeType": "N"}])

        def put(sk, v):
            c.put_item(TableName="stale2",
                       Item={"pk": {"S": "a"}, "sk": {"N": str(sk)}, "v": {"S": v}})

        def rows(items):
            return sorted((int(i["sk"]["N"]), i["v"]["S"]) for i in items)

        def query(**kw):
            pages, items, start = 0, [], None
            while True:
                args = dict(TableName="stale2", KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": {"S": "a"}}, **kw)
                if start:
                    args["ExclusiveStartKey"] = start
                r = c.query(**args)
                pages += 1
                items += r["Items"]
                start = r.get("LastEvaluatedKey")
                if not start:
                    return rows(items), pages

        def batch_get(consistent):
            keys = [{"pk": {"S": "a"}, "sk": {"N": str(sk)}} for sk in (1, 2, 3)]
            r = c.batch_get_item(RequestItems={"stale2": {"Keys": keys,
                                                          "ConsistentRead": consistent}})
            return rows(r["Responses"]["stale2"])

        put(1, "old")
        put(2, "old")
        control(url, "clock", {"advanceSeconds": 60})
        put(1, "new")  # updated
        put(3, "new")  # created
        c.delete_item(TableName="stale2", Key={"pk": {"S": "a"}, "sk": {"N": "2"}})
        before, latest = [(1, "old"), (2, "old")], [(1, "new"), (3, "new")]
        # Within the window: eventually consistent reads are behind, page by page too.
        self.assertEqual(query(), (before, 1))
        self.assertEqual(query(Limit=1)[0], before)
        self.assertEqual(rows(c.scan(TableName="stale2")["Items"]), before)
        self.assertEqual(c.scan(TableName="stale2", Select="COUNT")["Count"], 2)
        self.assertEqual(batch_get(False), before)
        self.assertEqual(query(ConsistentRead=True)[0], latest)
        self.assertEqual(rows(c.scan(TableName="stale2", ConsistentRead=True)["Items"]), latest)
        self.assertEqual(batch_get(True), latest)
        control(url, "clock", {"advanceSeconds": 60})
        self.assertEqual(query()[0], latest)
        self.assertEqual(rows(c.scan(TableName="stale2")["Items"]), latest)
        self.assertEqual(batch_get(False), latest)

    def test_control_api_can_be_turned_off(self):
        url = self.launch("--in-memory", "--no-control-api")
        with self.assertRaises(urllib.error.HTTPError) as e:
            control(url, "clock")
        self.assertEqual(e.exception.code, 404)


if __name__ == "__main__":
    unittest.main()
