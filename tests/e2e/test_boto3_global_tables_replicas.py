"""Global tables, version 2019.11.21, through boto3, as a two-region
application meets them: one `dynarock serve` holds us-east-1 and eu-west-1
(each region a namespace, chosen by the request's SigV4 region). UpdateTable's
ReplicaUpdates creates, updates and deletes replicas; DescribeTable reports
Replicas and GlobalTableVersion in every member; writes in either region reach
the other after the replication lag; writes racing on the same items converge
on the last writer's in both regions; replication resumes after kill -9 with
no acknowledged write lost; bad replica requests get DynamoDB's errors and
change nothing; MultiRegionConsistency STRONG (three regions) makes a write
visible everywhere when acknowledged and refuses a conflicting one.
Run standalone: python3 tests/e2e/test_boto3_global_tables_replicas.py
"""

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

LAG_MS = 600
PROC = URL = None


def region_client(url, region, key="gtkey"):
    import boto3
    from botocore.config import Config
    return boto3.client("dynamodb", endpoint_url=url, region_name=region,
                        aws_access_key_id=key, aws_secret_access_key="secret",
                        config=Config(retries={"max_attempts": 1}, read_timeout=60))


def setUpModule():
    global PROC, URL
    # Several server threads: two regions' writes run at the same time (a
    # write held by an injected latency holds its thread).
    PROC, URL = harness.launch(extra_args=["--replication-lag-ms", str(LAG_MS), "--threads", "8"])


def tearDownModule():
    harness.stop_process(PROC)


def wait_for(fn, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def make_table(c, name, billing="PAY_PER_REQUEST"):
    kw = {}
    if billing == "PROVISIONED":
        kw["ProvisionedThroughput"] = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    c.create_table(
        TableName=name, BillingMode=billing,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"},
                                 **({"ProvisionedThroughput": kw["ProvisionedThroughput"]} if kw else {})}],
        **kw)


def get(c, table, pk):
    return c.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")


class ReplicasTest(unittest.TestCase):
    def setUp(self):
        self.east = region_client(URL, "us-east-1")
        self.west = region_client(URL, "eu-west-1")

    def expect(self, fn, code, message=None, contains=None):
        with self.assertRaises(ClientError) as ctx:
            fn()
        return harness.assert_error(self, ctx, code, message, contains)

    def global_table(self, items=0):
        t = harness.table_name("gt")
        make_table(self.east, t)
        for i in range(items):
            self.east.put_item(TableName=t, Item={"pk": {"S": "k%d" % i}, "g": {"S": "x"}, "n": {"N": str(i)}})
        out = self.east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        return t, out["TableDescription"]

    def test_a_replica_is_made_with_the_items_and_reported_by_both(self):
        t, d = self.global_table(items=30)
        self.assertEqual(d["Replicas"], [{"RegionName": "eu-west-1", "ReplicaStatus": "ACTIVE"}])
        self.assertEqual(d["GlobalTableVersion"], "2019.11.21")
        self.assertEqual(d["StreamSpecification"],
                         {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        w = self.west.describe_table(TableName=t)["Table"]
        self.assertEqual(w["Replicas"], [{"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}])
        self.assertEqual(w["GlobalTableVersion"], "2019.11.21")
        self.assertEqual([i["IndexName"] for i in w["GlobalSecondaryIndexes"]], ["by_g"])
        self.assertIn(":eu-west-1:", w["TableArn"])
        self.assertEqual(self.west.scan(TableName=t, ConsistentRead=True)["Count"], 30)
        q = self.west.query(TableName=t, IndexName="by_g", KeyConditionExpression="g = :g",
                            ExpressionAttributeValues={":g": {"S": "x"}})
        self.assertEqual(q["Count"], 30)
        # A table without replicas reports neither member.
        plain = harness.table_name("plain")
        make_table(self.east, plain)
        pd = self.east.describe_table(TableName=plain)["Table"]
        self.assertNotIn("Replicas", pd)
        self.assertNotIn("GlobalTableVersion", pd)

    def test_writes_reach_the_other_region_after_the_lag(self):
        t, _ = self.global_table()
        start = time.monotonic()
        self.east.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "v": {"S": "one"}})
        # Not there at once: the replication lag is LAG_MS (checked only when
        # the machine was quick enough to look within it).
        early = get(self.west, t, "a")
        if time.monotonic() - start < LAG_MS / 1000.0 * 0.8:
            self.assertIsNone(early)
        self.assertTrue(wait_for(lambda: get(self.west, t, "a")))
        self.assertGreater(time.monotonic() - start, LAG_MS / 1000.0 * 0.9)
        self.assertEqual(get(self.west, t, "a")["v"], {"S": "one"})
        # Updates and deletes in the other direction.
        self.west.update_item(TableName=t, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                              ExpressionAttributeValues={":v": {"S": "two"}})
        self.assertTrue(wait_for(lambda: (get(self.east, t, "a") or {}).get("v") == {"S": "two"}))
        self.west.delete_item(TableName=t, Key={"pk": {"S": "a"}})
        self.assertTrue(wait_for(lambda: get(self.east, t, "a") is None))
        # Streams in both regions show the application's writes.
        self.assertTrue(self.west.describe_table(TableName=t)["Table"]["LatestStreamArn"])

    def test_racing_writes_converge_on_the_last_writer(self):
        t, _ = self.global_table()
        n = 12
        # Each item written in both regions within the lag: first in one, then,
        # 80 ms later, in the other. The later write wins everywhere.
        def race(i):
            first, second = (self.east, self.west) if i % 2 == 0 else (self.west, self.east)
            first.put_item(TableName=t, Item={"pk": {"S": "r%d" % i}, "g": {"S": "x"}, "by": {"S": "first"}})
            time.sleep(0.08)
            second.put_item(TableName=t, Item={"pk": {"S": "r%d" % i}, "g": {"S": "x"}, "by": {"S": "second"}})
        threads = [threading.Thread(target=race, args=(i,)) for i in range(n)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

        def converged():
            for i in range(n):
                a, b = get(self.east, t, "r%d" % i), get(self.west, t, "r%d" % i)
                if a is None or a != b:
                    return False
            return True
        self.assertTrue(wait_for(converged, timeout=15))
        time.sleep(LAG_MS / 1000.0 * 2)  # and stays so
        self.assertTrue(converged())
        for i in range(n):
            self.assertEqual(get(self.east, t, "r%d" % i)["by"], {"S": "second"}, "item r%d" % i)

    def test_a_replica_is_deleted_and_the_table_is_regional_again(self):
        t, _ = self.global_table(items=3)
        out = self.east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])
        self.assertNotIn("Replicas", out["TableDescription"])
        self.assertNotIn("GlobalTableVersion", out["TableDescription"])
        self.expect(lambda: self.west.describe_table(TableName=t), "ResourceNotFoundException")
        # Writes stay in their region now.
        self.east.put_item(TableName=t, Item={"pk": {"S": "solo"}, "g": {"S": "x"}})
        self.assertEqual(self.east.scan(TableName=t)["Count"], 4)
        # A replica made again from the other side works too; DeleteTable of a
        # member leaves the rest regional.
        self.east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        self.assertEqual(self.west.scan(TableName=t, ConsistentRead=True)["Count"], 4)
        self.west.delete_table(TableName=t)
        self.assertNotIn("Replicas", self.east.describe_table(TableName=t)["Table"])

    def test_replica_auto_scaling_describes_every_replica(self):
        t, _ = self.global_table()
        d = self.west.describe_table_replica_auto_scaling(TableName=t)["TableAutoScalingDescription"]
        self.assertEqual(d["TableName"], t)
        self.assertEqual(d["TableStatus"], "ACTIVE")
        self.assertEqual([r["RegionName"] for r in d["Replicas"]], ["eu-west-1", "us-east-1"])
        self.assertEqual(d["Replicas"][0]["GlobalSecondaryIndexes"], [{"IndexName": "by_g", "IndexStatus": "ACTIVE"}])
        self.expect(lambda: self.east.update_table_replica_auto_scaling(
            TableName=t, ReplicaUpdates=[{"RegionName": "eu-west-1", "ReplicaGlobalSecondaryIndexUpdates": []}]),
            "ValidationException", contains="PAY_PER_REQUEST")
        # A table that is no global table has none.
        plain = harness.table_name("plain")
        make_table(self.east, plain)
        self.expect(lambda: self.east.describe_table_replica_auto_scaling(TableName=plain),
                    "ResourceNotFoundException", "Global table with name: '%s' does not exist." % plain)

    def test_requests_a_member_cannot_make_are_refused_and_change_nothing(self):
        t, _ = self.global_table(items=2)
        # Checked before anything is made: the Create is not made either.
        self.expect(lambda: self.east.update_table(TableName=t, ReplicaUpdates=[
            {"Update": {"RegionName": "ap-south-1", "TableClassOverride": "STANDARD"}}]),
            "ValidationException", contains="has no replica in region ap-south-1")
        self.expect(lambda: self.east.update_table(TableName=t, ReplicaUpdates=[
            {"Create": {"RegionName": "bad_region"}}]),
            "ValidationException", "The region name 'bad_region' is not a region (such as us-east-1)")
        # The stream carries the replication.
        self.expect(lambda: self.west.update_table(TableName=t, StreamSpecification={"StreamEnabled": False}),
                    "ValidationException", contains="is a replica of a global table")
        # A table of the same name in a third region is no member of the group.
        south = region_client(URL, "ap-south-1")
        make_table(south, t)
        self.expect(lambda: south.update_table(TableName=t, ReplicaUpdates=[
            {"Delete": {"RegionName": "eu-west-1"}}]),
            "ValidationException", contains="is not a replica of the global table")
        south.put_item(TableName=t, Item={"pk": {"S": "south-only"}, "g": {"S": "x"}})
        time.sleep(LAG_MS / 1000.0 * 1.5)
        self.assertIsNone(get(self.east, t, "south-only"))
        self.assertEqual(len(self.west.describe_table(TableName=t)["Table"]["Replicas"]), 1)
        self.assertEqual(self.west.scan(TableName=t, ConsistentRead=True)["Count"], 2)

    def test_a_replica_table_class_is_its_own(self):
        t, _ = self.global_table()
        self.east.update_table(TableName=t, ReplicaUpdates=[
            {"Update": {"RegionName": "eu-west-1", "TableClassOverride": "STANDARD_INFREQUENT_ACCESS"}}])
        w = self.west.describe_table(TableName=t)["Table"]
        self.assertEqual(w["TableClassSummary"]["TableClass"], "STANDARD_INFREQUENT_ACCESS")

    def test_a_write_that_repeats_an_earlier_image_is_the_last_writer(self):
        """put v1, delete, put v1 (and v1, v2, v1), each settled in both
        regions before the next, and then all within the lag: the last write
        wins everywhere, though its image is one the regions held before."""
        t, _ = self.global_table()

        def item(pk, v):
            return {"pk": {"S": pk}, "g": {"S": "x"}, "v": {"S": v}}

        def settled(pk, v):
            want = None if v is None else item(pk, v)
            return wait_for(lambda: get(self.east, t, pk) == want and get(self.west, t, pk) == want)

        self.east.put_item(TableName=t, Item=item("r", "v1"))
        self.assertTrue(settled("r", "v1"))
        self.east.delete_item(TableName=t, Key={"pk": {"S": "r"}})
        self.assertTrue(settled("r", None))
        self.east.put_item(TableName=t, Item=item("r", "v1"))
        self.assertTrue(settled("r", "v1"))
        for v in ("v2", "v1"):
            self.west.put_item(TableName=t, Item=item("s", v))
            self.assertTrue(settled("s", v))
        self.west.put_item(TableName=t, Item=item("s", "v2"))
        self.assertTrue(settled("s", "v2"))
        for v in ("v1", "v2", "v1"):  # within the lag
            self.east.put_item(TableName=t, Item=item("q", v))
        self.assertTrue(settled("q", "v1"))
        time.sleep(LAG_MS / 1000.0 * 2)
        for pk, v in (("r", "v1"), ("s", "v2"), ("q", "v1")):
            self.assertEqual(get(self.east, t, pk), item(pk, v))
            self.assertEqual(get(self.west, t, pk), item(pk, v))

    def test_each_replica_has_its_own_read_maximums_and_class(self):
        t = harness.table_name("settings")
        make_table(self.east, t)
        d = self.east.update_table(TableName=t, ReplicaUpdates=[{"Create": {
            "RegionName": "eu-west-1", "TableClassOverride": "STANDARD_INFREQUENT_ACCESS",
            "OnDemandThroughputOverride": {"MaxReadRequestUnits": 500},
            "GlobalSecondaryIndexes": [{"IndexName": "by_g",
                                        "OnDemandThroughputOverride": {"MaxReadRequestUnits": 80}}]}}])
        [r] = d["TableDescription"]["Replicas"]
        self.assertEqual(r["RegionName"], "eu-west-1")
        self.assertEqual(r["OnDemandThroughputOverride"], {"MaxReadRequestUnits": 500})
        self.assertEqual(r["GlobalSecondaryIndexes"],
                         [{"IndexName": "by_g", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 80}}])
        self.assertEqual(r["ReplicaTableClassSummary"]["TableClass"], "STANDARD_INFREQUENT_ACCESS")
        # The replica's own table has them.
        w = self.west.describe_table(TableName=t)["Table"]
        self.assertEqual(w["OnDemandThroughput"]["MaxReadRequestUnits"], 500)
        self.assertEqual(w["GlobalSecondaryIndexes"][0]["OnDemandThroughput"]["MaxReadRequestUnits"], 80)
        self.assertNotIn("OnDemandThroughputOverride", w["Replicas"][0])  # us-east-1 has none
        # Update changes one, -1 removes one; the rest stay.
        self.east.update_table(TableName=t, ReplicaUpdates=[{"Update": {
            "RegionName": "eu-west-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 700},
            "GlobalSecondaryIndexes": [{"IndexName": "by_g",
                                        "OnDemandThroughputOverride": {"MaxReadRequestUnits": -1}}]}}])
        [r] = self.east.describe_table(TableName=t)["Table"]["Replicas"]
        self.assertEqual(r["OnDemandThroughputOverride"], {"MaxReadRequestUnits": 700})
        self.assertNotIn("GlobalSecondaryIndexes", r)
        self.assertEqual(self.west.describe_table(TableName=t)["Table"]["OnDemandThroughput"]["MaxReadRequestUnits"],
                         700)
        # Bad settings are refused and change nothing.
        self.expect(lambda: self.east.update_table(TableName=t, ReplicaUpdates=[{"Update": {
            "RegionName": "eu-west-1", "ProvisionedThroughputOverride": {"ReadCapacityUnits": 5}}}]),
            "ValidationException", contains="ProvisionedThroughputOverride is for tables in provisioned mode")
        self.expect(lambda: self.east.update_table(TableName=t, ReplicaUpdates=[{"Update": {
            "RegionName": "eu-west-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 1},
            "GlobalSecondaryIndexes": [{"IndexName": "nope",
                                        "OnDemandThroughputOverride": {"MaxReadRequestUnits": 9}}]}}]),
            "ValidationException", contains="nope is not a global secondary index")
        self.expect(lambda: self.east.update_table(TableName=t, ReplicaUpdates=[{"Update": {
            "RegionName": "eu-west-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 0}}}]),
            "ValidationException", contains="must be at least 1, or -1")
        [r] = self.east.describe_table(TableName=t)["Table"]["Replicas"]
        self.assertEqual(r["OnDemandThroughputOverride"], {"MaxReadRequestUnits": 700})
        # The settings survive in the other member's view too.
        self.assertEqual(self.west.describe_table(TableName=t)["Table"]["Replicas"][0]["RegionName"], "us-east-1")

    def test_a_reset_or_a_snapshot_restore_leaves_the_groups_the_tables_describe(self):
        east, west = region_client(URL, "us-east-1", "rskey"), region_client(URL, "eu-west-1", "rskey")
        t = harness.table_name("snapgt")
        make_table(east, t)
        east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        east.put_item(TableName=t, Item={"pk": {"S": "k1"}, "g": {"S": "x"}})
        self.assertTrue(wait_for(lambda: get(west, t, "k1")))
        self.assertEqual(harness.control(URL, "snapshots", "POST", {"name": "gt-snap"})[0], 200)
        try:
            east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])
            self.assertNotIn("Replicas", east.describe_table(TableName=t)["Table"])
            # Back to the snapshot: the replica, and replication, are back.
            self.assertEqual(harness.control(URL, "snapshots/gt-snap/restore", "POST", {})[0], 200)
            self.assertEqual(east.describe_table(TableName=t)["Table"]["Replicas"][0]["RegionName"], "eu-west-1")
            west.put_item(TableName=t, Item={"pk": {"S": "k2"}, "g": {"S": "x"}})
            self.assertTrue(wait_for(lambda: get(east, t, "k2")))
        finally:
            harness.control(URL, "snapshots/gt-snap", "DELETE")
        # One region reset: the other's table is a table of its own again,
        # and a table made anew there is no replica.
        status, _ = harness.control(URL, "reset", "POST", {"namespace": "rskey_eu-west-1"})
        self.assertEqual(status, 200)
        self.assertNotIn("Replicas", east.describe_table(TableName=t)["Table"])
        make_table(west, t)
        east.put_item(TableName=t, Item={"pk": {"S": "k3"}, "g": {"S": "x"}})
        time.sleep(LAG_MS / 1000.0 * 2)
        self.assertIsNone(get(west, t, "k3"))
        self.assertNotIn("Replicas", west.describe_table(TableName=t)["Table"])

    def test_bad_replica_requests_are_refused_and_change_nothing(self):
        t = harness.table_name("bad")
        make_table(self.east, t)
        self.expect(lambda: self.east.update_table(
            TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}]),
            "ValidationException", contains="already: a replica goes in another region")
        self.expect(lambda: self.east.update_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ValidationException", "Replica modification must be the only operation in the request")
        self.expect(lambda: self.east.update_table(
            TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}},
                                         {"Create": {"RegionName": "ap-south-1"}}]),
            "ValidationException", contains="Only one replica can be created or deleted")
        self.expect(lambda: self.east.update_table(
            TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}]),
            "ValidationException", contains="has no replica in region eu-west-1")
        self.expect(lambda: self.east.update_table(
            TableName=t, MultiRegionConsistency="STRONG",
            ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ValidationException", contains="create two replicas, or one replica and a witness, in one request")
        self.expect(lambda: self.east.update_table(
            TableName="no-such-table", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ResourceNotFoundException")
        prov = harness.table_name("prov")
        make_table(self.east, prov, billing="PROVISIONED")
        self.expect(lambda: self.east.update_table(
            TableName=prov, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ValidationException", "Table/GSI write capacity should either be Pay-Per-Request or AutoScaled.")
        # A table of that name in the other region already.
        make_table(self.west, t)
        self.expect(lambda: self.east.update_table(
            TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ValidationException", "Failed to create a the new replica of table with name: '%s' because one "
            "or more replicas already existed as tables." % t)
        for c in (self.east, self.west):
            self.assertNotIn("Replicas", c.describe_table(TableName=t)["Table"])
        self.assertNotIn("StreamSpecification", self.east.describe_table(TableName=prov)["Table"])


class StrongConsistencyTest(unittest.TestCase):
    """MultiRegionConsistency STRONG (MRSC): three replicas made together;
    a write is in every replica when it is acknowledged (no lag), a write to
    an item another region is writing is refused with
    ReplicatedWriteConflictException, replicas are deleted together."""

    def expect(self, fn, code, message=None, contains=None):
        with self.assertRaises(ClientError) as ctx:
            fn()
        return harness.assert_error(self, ctx, code, message, contains)

    def test_three_strongly_consistent_replicas(self):
        east, west, south = (region_client(URL, r) for r in ("us-east-1", "eu-west-1", "ap-south-1"))
        t = harness.table_name("mrsc")
        make_table(east, t)
        both = [{"Create": {"RegionName": "eu-west-1"}}, {"Create": {"RegionName": "ap-south-1"}}]
        east.put_item(TableName=t, Item={"pk": {"S": "x"}, "g": {"S": "x"}})
        self.expect(lambda: east.update_table(TableName=t, MultiRegionConsistency="STRONG", ReplicaUpdates=both),
                    "ValidationException", contains="only while it is empty")
        east.delete_item(TableName=t, Key={"pk": {"S": "x"}})
        self.expect(lambda: east.update_table(TableName=t, MultiRegionConsistency="STRONG",
                                              ReplicaUpdates=both[:1]),
                    "ValidationException", contains="create two replicas, or one replica and a witness, in one request")
        d = east.update_table(TableName=t, MultiRegionConsistency="STRONG", ReplicaUpdates=both)["TableDescription"]
        self.assertEqual(d["MultiRegionConsistency"], "STRONG")
        self.assertEqual(sorted(r["RegionName"] for r in d["Replicas"]), ["ap-south-1", "eu-west-1"])
        for c in (west, south):
            td = c.describe_table(TableName=t)["Table"]
            self.assertEqual(td["MultiRegionConsistency"], "STRONG")
            self.assertEqual(len(td["Replicas"]), 2)

        # Acknowledged means everywhere: no lag for a strongly consistent read.
        west.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "v": {"N": "1"}})
        self.assertEqual(get(east, t, "a")["v"], {"N": "1"})
        self.assertEqual(get(south, t, "a")["v"], {"N": "1"})
        east.update_item(TableName=t, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = v + :one",
                         ExpressionAttributeValues={":one": {"N": "1"}})
        self.assertEqual(get(west, t, "a")["v"], {"N": "2"})
        east.transact_write_items(TransactItems=[
            {"Put": {"TableName": t, "Item": {"pk": {"S": "b"}, "g": {"S": "x"}}}},
            {"Delete": {"TableName": t, "Key": {"pk": {"S": "a"}}}}])
        self.assertIsNone(get(south, t, "a"))
        self.assertTrue(get(south, t, "b"))

        # A write in flight (held here by an injected latency) owns its item:
        # another region's write to it is refused at once. (Connections share
        # the server's threads: a write queued behind the slow one on its
        # thread meets no claim, so each try uses a new item, until one ran
        # beside it.)
        status, _ = harness.control(URL, "faults", "PUT", {"rules": [
            {"operation": "PutItem", "key_prefix": "slow", "action": "latency", "latency_ms": 1000}]})
        self.assertEqual(status, 200)
        conflicts = 0
        try:
            for attempt in range(6):
                key = "slow-%d" % attempt
                slow = threading.Thread(target=lambda k=key: east.put_item(
                    TableName=t, Item={"pk": {"S": k}, "g": {"S": "x"}, "by": {"S": "east"}}))
                slow.start()
                time.sleep(0.3)
                west_client = region_client(URL, "eu-west-1")  # a new connection
                try:
                    west_client.put_item(TableName=t, Item={"pk": {"S": key}, "g": {"S": "x"}, "by": {"S": "west"}})
                except ClientError as e:
                    self.assertEqual(harness.error_of(e)[0], "ReplicatedWriteConflictException")
                    self.assertEqual(harness.error_of(e)[1], "One or more items in this request are being "
                                     "modified by a request in another Region.")
                    conflicts += 1
                slow.join()
                # Whatever the order, all three replicas hold the same item.
                items = [get(c, t, key) for c in (east, west, south)]
                self.assertEqual(items[0], items[1])
                self.assertEqual(items[0], items[2])
                if conflicts:
                    self.assertEqual(items[0]["by"], {"S": "east"})
                    break
        finally:
            harness.control(URL, "faults", "DELETE")
        self.assertEqual(conflicts, 1)
        west.put_item(TableName=t, Item={"pk": {"S": "slow-0"}, "g": {"S": "x"}, "by": {"S": "west"}})
        self.assertEqual(get(south, t, "slow-0")["by"], {"S": "west"})

        # Replicas go together.
        self.expect(lambda: east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}]),
                    "ValidationException", "Deletion of only one table replica is not supported for global tables "
                    "with MultiRegionConsistency set to STRONG.")
        d = east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}},
                                                          {"Delete": {"RegionName": "ap-south-1"}}])
        self.assertNotIn("Replicas", d["TableDescription"])
        self.assertNotIn("MultiRegionConsistency", d["TableDescription"])
        self.expect(lambda: west.describe_table(TableName=t), "ResourceNotFoundException")
        east.put_item(TableName=t, Item={"pk": {"S": "alone"}, "g": {"S": "x"}})
        self.assertEqual(east.scan(TableName=t)["Count"], 3)


class WitnessTest(unittest.TestCase):
    """MRSC with two replicas and a witness region: made in one request, the
    witness listed by both replicas and holding no table, writes (PartiQL's
    too) in both replicas when acknowledged, deleted with the other replica."""

    def expect(self, fn, code, message=None, contains=None):
        with self.assertRaises(ClientError) as ctx:
            fn()
        return harness.assert_error(self, ctx, code, message, contains)

    def test_two_replicas_and_a_witness(self):
        east, west, witness = (region_client(URL, r) for r in ("us-east-1", "us-west-2", "us-east-2"))
        t = harness.table_name("wit")
        make_table(east, t)
        self.expect(lambda: east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}],
                                              GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-east-2"}}]),
                    "ValidationException", contains="A witness is added when a global table with "
                    "MultiRegionConsistency STRONG is made")
        self.expect(lambda: east.update_table(TableName=t, MultiRegionConsistency="STRONG",
                                              ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}],
                                              GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}]),
                    "ValidationException", contains="must differ from the regions of the global table's replicas")
        self.expect(lambda: east.update_table(TableName=t, MultiRegionConsistency="STRONG",
                                              ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}],
                                              GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-east-2"}},
                                                                         {"Delete": {"RegionName": "us-east-2"}}]),
                    "ValidationException", contains="Only one witness")
        self.assertNotIn("Replicas", east.describe_table(TableName=t)["Table"])
        self.expect(lambda: west.describe_table(TableName=t), "ResourceNotFoundException")
        d = east.update_table(TableName=t, MultiRegionConsistency="STRONG",
                              ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}],
                              GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-east-2"}}])["TableDescription"]
        self.assertEqual(d["MultiRegionConsistency"], "STRONG")
        self.assertEqual([r["RegionName"] for r in d["Replicas"]], ["us-west-2"])
        self.assertEqual(d["GlobalTableWitnesses"], [{"RegionName": "us-east-2", "WitnessStatus": "ACTIVE"}])
        wd = west.describe_table(TableName=t)["Table"]
        self.assertEqual([r["RegionName"] for r in wd["Replicas"]], ["us-east-1"])
        self.assertEqual(wd["GlobalTableWitnesses"], [{"RegionName": "us-east-2", "WitnessStatus": "ACTIVE"}])
        self.expect(lambda: witness.describe_table(TableName=t), "ResourceNotFoundException")

        # Acknowledged means in both replicas, for PartiQL writes too.
        west.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        self.assertTrue(get(east, t, "a"))
        east.execute_statement(Statement="INSERT INTO \"%s\" VALUE {'pk': 'p', 'g': 'x', 'n': 1}" % t)
        self.assertEqual(get(west, t, "p")["n"], {"N": "1"})
        west.execute_statement(Statement="UPDATE \"%s\" SET n = n + 1 WHERE pk = ?" % t, Parameters=[{"S": "p"}])
        self.assertEqual(get(east, t, "p")["n"], {"N": "2"})
        east.batch_execute_statement(Statements=[
            {"Statement": "DELETE FROM \"%s\" WHERE pk = 'p'" % t},
            {"Statement": "INSERT INTO \"%s\" VALUE {'pk': 'q', 'g': 'x'}" % t}])
        self.assertIsNone(get(west, t, "p"))
        self.assertTrue(get(west, t, "q"))
        east.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE \"%s\" SET m = 'tx' WHERE pk = 'q'" % t}])
        self.assertEqual(get(west, t, "q")["m"], {"S": "tx"})

        # The witness goes with the other replica, not alone; nor the replica alone.
        self.expect(lambda: east.update_table(TableName=t,
                                              GlobalTableWitnessUpdates=[{"Delete": {"RegionName": "us-east-2"}}]),
                    "ValidationException", contains="A witness is deleted together with")
        self.expect(lambda: east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "us-west-2"}}]),
                    "ValidationException", "Deletion of only one table replica is not supported for global tables "
                    "with MultiRegionConsistency set to STRONG.")
        self.expect(lambda: east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
                    "ValidationException", contains="it takes no more")
        self.assertEqual(len(west.describe_table(TableName=t)["Table"]["Replicas"]), 1)
        d = east.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "us-west-2"}}],
                              GlobalTableWitnessUpdates=[{"Delete": {"RegionName": "us-east-2"}}])["TableDescription"]
        self.assertNotIn("Replicas", d)
        self.assertNotIn("GlobalTableWitnesses", d)
        self.expect(lambda: west.describe_table(TableName=t), "ResourceNotFoundException")


class RestartTest(unittest.TestCase):
    def test_writes_pending_at_kill_9_reach_the_replica_after_restart(self):
        data = tempfile.mkdtemp(prefix="dynarock-gt-")
        try:
            args = ["--replication-lag-ms", "1500"]
            proc, url = harness.launch(data_dir=data, extra_args=args)
            east, west = region_client(url, "us-east-1"), region_client(url, "eu-west-1")
            t = "orders"
            make_table(east, t)
            east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
            for i in range(40):
                (east if i % 2 else west).put_item(
                    TableName=t, Item={"pk": {"S": "o%d" % i}, "g": {"S": "x"}, "n": {"N": str(i)}})
            # Killed while every write is still within the lag.
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc, url = harness.launch(data_dir=data, extra_args=["--replication-lag-ms", "0"])
            try:
                east, west = region_client(url, "us-east-1"), region_client(url, "eu-west-1")
                both = lambda: (east.scan(TableName=t, ConsistentRead=True)["Count"] == 40 and  # noqa: E731
                                west.scan(TableName=t, ConsistentRead=True)["Count"] == 40)
                self.assertTrue(wait_for(both, timeout=15))
                self.assertEqual(west.describe_table(TableName=t)["Table"]["Replicas"],
                                 [{"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}])
                # And it goes on replicating.
                west.put_item(TableName=t, Item={"pk": {"S": "after"}, "g": {"S": "x"}})
                self.assertTrue(wait_for(lambda: get(east, t, "after")))
            finally:
                harness.stop_process(proc)
        finally:
            shutil.rmtree(data, ignore_errors=True)

    def test_last_writer_state_survives_kill_9(self):
        """A replicated write read again after a restart keeps its own
        write's time: before, it took the time it was applied, and could beat
        a newer write made while it travelled. The clock is moved forward
        while eu-west-1 applies v2, so that time is far in the future, and
        back before v3 is written: v3 is the last writer (by v2's own time)
        and must win after kill -9 and a restart."""
        data = tempfile.mkdtemp(prefix="dynarock-gt-")
        try:
            proc, url = harness.launch(data_dir=data, extra_args=["--replication-lag-ms", "3000"])
            east, west = region_client(url, "us-east-1"), region_client(url, "eu-west-1")
            t = "lww"
            make_table(east, t)
            east.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
            time.sleep(0.5)
            east.put_item(TableName=t, Item={"pk": {"S": "k"}, "g": {"S": "x"}, "v": {"S": "v2"}})
            time.sleep(1.0)
            # A write in eu-west-1 that waits for the lag: its region's
            # checkpoint stays before what eu-west-1 records next.
            west.put_item(TableName=t, Item={"pk": {"S": "z"}, "g": {"S": "x"}})
            status, _ = harness.control(url, "clock", "POST", {"advanceSeconds": 100})
            self.assertEqual(status, 200)
            self.assertTrue(wait_for(lambda: get(west, t, "k"), timeout=5))
            status, _ = harness.control(url, "clock", "POST", {"reset": True})
            self.assertEqual(status, 200)
            east.put_item(TableName=t, Item={"pk": {"S": "k"}, "g": {"S": "x"}, "v": {"S": "v3"}})
            time.sleep(0.3)
            self.assertEqual(get(west, t, "k")["v"], {"S": "v2"})  # v3 still on its way
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc, url = harness.launch(data_dir=data, extra_args=["--replication-lag-ms", "0"])
            try:
                east, west = region_client(url, "us-east-1"), region_client(url, "eu-west-1")
                self.assertTrue(wait_for(lambda: get(west, t, "z") and get(east, t, "z"), timeout=10))
                self.assertTrue(wait_for(lambda: (get(west, t, "k") or {}).get("v") == {"S": "v3"}, timeout=10))
                time.sleep(1.0)  # and it stays so: nothing older comes back
                self.assertEqual(get(east, t, "k")["v"], {"S": "v3"})
                self.assertEqual(get(west, t, "k")["v"], {"S": "v3"})
            finally:
                harness.stop_process(proc)
        finally:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
