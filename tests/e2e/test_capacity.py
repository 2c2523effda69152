"""End-to-end: capacity enforcement (`serve --enforce-capacity`,
`--partition-limits`, /_dynarock/capacity) seen through boto3.

Pins: a provisioned table serves its write capacity units per second and
throttles beyond with ProvisionedThroughputExceededException carrying
ThrottlingReasons (reason and table ARN); time on the server's clock (moved by
/_dynarock/clock) refills the bucket and unused capacity is kept as burst up to
300 s; a GSI short of write capacity throttles its table's writes, and reads of
a GSI draw on the GSI's read capacity; BatchWriteItem returns the throttled
table's writes in UnprocessedItems (the exception only when every write is
throttled); a transaction on a throttled table is cancelled with
ProvisionedThroughputExceeded for that item; an on-demand table's
MaxWriteRequestUnits gives ThrottlingException; per-partition limits throttle a
hot key while other keys pass; boto3's own retries ride out the throttling and
succeed; the control API shows the buckets and turns enforcement off.

Starts its own servers, so it needs DYNAROCK_BIN (or a built binary harness.py
finds); skipped against an external endpoint.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


control = harness.control


def client(url, attempts=1):
    return harness.client_with_attempts(url, attempts)


def provisioned(c, name, rcu, wcu, gsi=None):
    kw = {}
    ad = [{"AttributeName": "pk", "AttributeType": "S"}]
    if gsi:
        gsi_name, gsi_rcu, gsi_wcu = gsi
        ad.append({"AttributeName": "g", "AttributeType": "S"})
        kw["GlobalSecondaryIndexes"] = [{
            "IndexName": gsi_name,
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": gsi_rcu, "WriteCapacityUnits": gsi_wcu}}]
    c.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=ad, BillingMode="PROVISIONED",
                   ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}, **kw)
    harness.wait_active(c, name)
    return c.describe_table(TableName=name)["Table"]


def put(c, table, pk, **more):
    item = {"pk": {"S": pk}}
    for k, v in more.items():
        item[k] = {"S": v}
    return c.put_item(TableName=table, Item=item)


@unittest.skipIf(harness.using_external_endpoint(), "starts its own server")
class CapacityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch(extra_args=["--in-memory", "--enforce-capacity"])
        cls.c = client(cls.url)

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def advance(self, seconds):
        status, _ = control(self.url, "clock", "POST", {"advanceSeconds": seconds})
        self.assertEqual(status, 200)

    def throttled(self, call, code="ProvisionedThroughputExceededException"):
        with self.assertRaises(self.c.exceptions.ClientError) as ctx:
            call()
        err = ctx.exception.response
        self.assertEqual(err["Error"]["Code"], code, err)
        return err

    def test_provisioned_writes_throttle_then_refill_on_the_clock(self):
        desc = provisioned(self.c, "cap_writes", 1, 1)
        put(self.c, "cap_writes", "a")  # the one unit a new table holds
        err = self.throttled(lambda: put(self.c, "cap_writes", "b"))
        self.assertIn("provisioned throughput for the table was exceeded", err["Error"]["Message"])
        self.assertEqual(err["ThrottlingReasons"], [
            {"reason": "TableWriteProvisionedThroughputExceeded", "resource": desc["TableArn"]}])
        # The throttled write was not applied.
        got = self.c.get_item(TableName="cap_writes", Key={"pk": {"S": "b"}}, ConsistentRead=True)
        self.assertNotIn("Item", got)
        self.advance(1.5)
        put(self.c, "cap_writes", "b")
        got = self.c.get_item(TableName="cap_writes", Key={"pk": {"S": "b"}}, ConsistentRead=True)
        self.assertIn("Item", got)

    def test_unused_capacity_is_kept_as_burst_up_to_300_seconds(self):
        provisioned(self.c, "cap_burst", 1, 2)
        self.advance(1000)  # 2000 units unused, 600 kept
        done = 0
        while done < 700:
            try:
                put(self.c, "cap_burst", "k%d" % done)
            except self.c.exceptions.ProvisionedThroughputExceededException:
                break
            done += 1
        # 600 of burst, and the few the real seconds of the loop earn.
        self.assertGreaterEqual(done, 600)
        self.assertLess(done, 640)

    def test_reads_draw_on_read_capacity_and_a_query_may_go_into_debt(self):
        provisioned(self.c, "cap_reads", 1, 50)
        for i in range(5):
            put(self.c, "cap_reads", "r%d" % i, pad="x" * 7500)
        self.advance(1.5)
        # An eventually consistent Scan of 5 * 7.5 KB: 5 units, admitted on the
        # 1.5 the table has not used.
        self.c.scan(TableName="cap_reads")
        err = self.throttled(lambda: self.c.get_item(TableName="cap_reads", Key={"pk": {"S": "r0"}}))
        self.assertEqual(err["ThrottlingReasons"][0]["reason"], "TableReadProvisionedThroughputExceeded")
        self.advance(2)  # still in debt: 1.5 - 5 + 2 < 1
        self.throttled(lambda: self.c.get_item(TableName="cap_reads", Key={"pk": {"S": "r0"}}))
        self.advance(3)
        self.c.get_item(TableName="cap_reads", Key={"pk": {"S": "r0"}})

    def test_a_gsi_short_of_write_capacity_throttles_its_tables_writes(self):
        desc = provisioned(self.c, "cap_gsi", 5, 100, gsi=("by_g", 1, 1))
        index_arn = desc["GlobalSecondaryIndexes"][0]["IndexArn"]
        put(self.c, "cap_gsi", "a", g="x")
        err = self.throttled(lambda: put(self.c, "cap_gsi", "b", g="y"))
        self.assertIn("global secondary indexes", err["Error"]["Message"])
        self.assertEqual(err["ThrottlingReasons"], [
            {"reason": "IndexWriteProvisionedThroughputExceeded", "resource": index_arn}])
        # Reads of the GSI draw on its own read capacity.
        q = lambda: self.c.query(TableName="cap_gsi", IndexName="by_g",
                                 KeyConditionExpression="g = :g",
                                 ExpressionAttributeValues={":g": {"S": "x"}})
        self.assertEqual(q()["Count"], 1)  # half a unit of the one a new index holds
        err = self.throttled(q)
        self.assertEqual(err["ThrottlingReasons"][0]["reason"], "IndexReadProvisionedThroughputExceeded")
        # The table's own reads are not held back by the index's.
        self.c.get_item(TableName="cap_gsi", Key={"pk": {"S": "a"}})

    def test_batch_write_returns_the_throttled_tables_writes_unprocessed(self):
        provisioned(self.c, "cap_batch_slow", 1, 1)
        provisioned(self.c, "cap_batch_fast", 1, 100)
        put(self.c, "cap_batch_slow", "drain")
        r = self.c.batch_write_item(RequestItems={
            "cap_batch_slow": [{"PutRequest": {"Item": {"pk": {"S": "s%d" % i}}}} for i in range(2)],
            "cap_batch_fast": [{"PutRequest": {"Item": {"pk": {"S": "f%d" % i}}}} for i in range(3)],
        })
        self.assertEqual(sorted(w["PutRequest"]["Item"]["pk"]["S"]
                                for w in r["UnprocessedItems"]["cap_batch_slow"]), ["s0", "s1"])
        self.assertNotIn("cap_batch_fast", r["UnprocessedItems"])
        self.assertEqual(self.c.scan(TableName="cap_batch_fast", ConsistentRead=True)["Count"], 3)
        # Every write throttled: the exception.
        self.throttled(lambda: self.c.batch_write_item(RequestItems={
            "cap_batch_slow": [{"PutRequest": {"Item": {"pk": {"S": "s9"}}}}]}))

    def test_a_transaction_on_a_throttled_table_is_cancelled(self):
        provisioned(self.c, "cap_tx_slow", 1, 1)
        provisioned(self.c, "cap_tx_fast", 1, 100)
        put(self.c, "cap_tx_slow", "drain")
        with self.assertRaises(self.c.exceptions.TransactionCanceledException) as ctx:
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": "cap_tx_fast", "Item": {"pk": {"S": "t1"}}}},
                {"Put": {"TableName": "cap_tx_slow", "Item": {"pk": {"S": "t2"}}}},
            ])
        reasons = ctx.exception.response["CancellationReasons"]
        self.assertEqual([r["Code"] for r in reasons], ["None", "ProvisionedThroughputExceeded"])
        got = self.c.get_item(TableName="cap_tx_fast", Key={"pk": {"S": "t1"}}, ConsistentRead=True)
        self.assertNotIn("Item", got)

    def test_on_demand_maximum_throughput_gives_throttling_exception(self):
        self.c.create_table(
            TableName="cap_max", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            OnDemandThroughput={"MaxReadRequestUnits": 100, "MaxWriteRequestUnits": 2})
        harness.wait_active(self.c, "cap_max")
        put(self.c, "cap_max", "a")
        put(self.c, "cap_max", "b")
        err = self.throttled(lambda: put(self.c, "cap_max", "c"), code="ThrottlingException")
        # (botocore keeps ThrottlingReasons of the errors PutItem models only.)
        self.assertIn("maximum OnDemandThroughput", err["Error"]["Message"])
        # Without a maximum an on-demand table is not limited.
        self.c.update_table(TableName="cap_max",
                            OnDemandThroughput={"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": -1})
        harness.wait_active(self.c, "cap_max")
        for i in range(20):
            put(self.c, "cap_max", "free%d" % i)

    def test_sdk_retries_ride_out_throttling(self):
        provisioned(self.c, "cap_retry", 1, 20)
        retrying = client(self.url, attempts=10)
        retried = 0
        for i in range(40):  # two seconds' worth of capacity, in well under that
            r = retrying.put_item(TableName="cap_retry", Item={"pk": {"S": "k%d" % i}})
            retried += r["ResponseMetadata"]["RetryAttempts"]
        self.assertGreater(retried, 0)
        self.assertEqual(self.c.scan(TableName="cap_retry", ConsistentRead=True)["Count"], 40)

    def test_control_api_shows_buckets_and_turns_enforcement_off(self):
        provisioned(self.c, "cap_control", 1, 1)
        put(self.c, "cap_control", "a")
        status, state = control(self.url, "capacity")
        self.assertEqual(status, 200)
        self.assertTrue(state["enforce"])
        mine = [b for b in state["buckets"] if b["table"] == "cap_control" and b["kind"] == "write"]
        self.assertEqual(len(mine), 1)
        self.assertLess(mine[0]["units"], 1)
        self.assertEqual(mine[0]["rate"], 1)
        self.assertEqual(mine[0]["burst"], 300)
        status, bad = control(self.url, "capacity", "PUT", {"enforce": "yes"})
        self.assertEqual(status, 400)
        self.assertIn("ValidationException", bad["__type"])
        try:
            status, state = control(self.url, "capacity", "PUT", {"enforce": False})
            self.assertEqual((status, state["enforce"]), (200, False))
            for i in range(5):
                put(self.c, "cap_control", "free%d" % i)
        finally:
            control(self.url, "capacity", "PUT", {"enforce": True})
        self.throttled(lambda: put(self.c, "cap_control", "b"))


@unittest.skipIf(harness.using_external_endpoint(), "starts its own server")
class PartitionLimitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch(
            extra_args=["--in-memory", "--enforce-capacity", "--partition-limits"])
        cls.c = client(cls.url)

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def test_a_hot_partition_key_is_throttled_while_others_pass(self):
        table = harness.create_table(self.c, range_key=("sk", "S"))
        big = "x" * (100 * 1024 - 100)  # 100 write units a put
        throttled = None
        for i in range(30):
            try:
                self.c.put_item(TableName=table, Item={"pk": {"S": "hot"}, "sk": {"S": str(i)},
                                                       "v": {"S": big}})
            except self.c.exceptions.ClientError as e:
                throttled = (i, e.response)
                break
        self.assertIsNotNone(throttled, "1,000 units a second per key were not enforced")
        i, err = throttled
        self.assertGreaterEqual(i, 10)
        self.assertEqual(err["Error"]["Code"], "ThrottlingException")  # an on-demand table
        self.assertIn("hot key", err["Error"]["Message"])
        # Another key of the same table is not held back.
        self.c.put_item(TableName=table, Item={"pk": {"S": "cold"}, "sk": {"S": "0"}, "v": {"S": big}})


if __name__ == "__main__":
    unittest.main()
