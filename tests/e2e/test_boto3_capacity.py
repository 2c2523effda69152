"""ReturnConsumedCapacity through boto3: DynamoDB's billing rules on the wire.

Pins the JSON shape (TableName, CapacityUnits, Read/WriteCapacityUnits on the
transactional operations only, and with
INDEXES the Table and GlobalSecondaryIndexes breakdown) and the Developer
Guide's worked figures: 4 KB read units (halved when eventually consistent),
1 KB write units, per-request rounding for Query, transactions doubled.
Run standalone: python3 tests/e2e/test_boto3_capacity.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

C = None
T = None


def setUpModule():
    global C, T
    harness.start()
    C = harness.client()
    T = harness.table_name("cap")
    C.create_table(
        TableName=T,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        BillingMode="PAY_PER_REQUEST")
    harness.wait_active(C, T)


def tearDownModule():
    harness.stop()


def item(pk, sk, size, **extra):
    body = {"pk": {"S": pk}, "sk": {"N": str(sk)}}
    body.update(extra)
    used = 2 + len(pk) + 2 + 2 + 3 + sum(len(k) + len(list(v.values())[0]) for k, v in extra.items())
    body["pad"] = {"S": "x" * max(1, size - used)}
    return body


class CapacityTest(unittest.TestCase):
    def test_put_total_and_indexes(self):
        r = C.put_item(TableName=T, Item=item("a", 1, 1500, g={"S": "x"}),
                       ReturnConsumedCapacity="TOTAL")
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["TableName"], T)
        self.assertEqual(cc["CapacityUnits"], 3.0)   # 2 on the table (1.5 KB) + 1 on the index
        # Only transactional operations split CapacityUnits into reads and writes.
        self.assertNotIn("WriteCapacityUnits", cc)
        self.assertNotIn("ReadCapacityUnits", cc)
        self.assertNotIn("Table", cc)
        r = C.put_item(TableName=T, Item=item("a", 1, 500, g={"S": "y"}),
                       ReturnConsumedCapacity="INDEXES")
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["Table"]["CapacityUnits"], 2.0)  # the larger of old and new
        self.assertEqual(cc["GlobalSecondaryIndexes"]["by_g"]["CapacityUnits"], 2.0)  # key moved
        self.assertEqual(cc["CapacityUnits"], 4.0)
        r = C.put_item(TableName=T, Item=item("a", 1, 500, g={"S": "y"}))
        self.assertNotIn("ConsumedCapacity", r)

    def test_reads(self):
        C.put_item(TableName=T, Item=item("r", 1, 3584))
        r = C.get_item(TableName=T, Key={"pk": {"S": "r"}, "sk": {"N": "1"}},
                       ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 0.5)
        self.assertNotIn("ReadCapacityUnits", r["ConsumedCapacity"])
        r = C.get_item(TableName=T, Key={"pk": {"S": "r"}, "sk": {"N": "1"}},
                       ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.0)
        for i in range(10):
            C.put_item(TableName=T, Item=item("q", i, 4178))
        r = C.query(TableName=T, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "q"}}, ConsistentRead=True,
                    ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["Count"], 10)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 11.0)  # 40.8 KB / 4 KB, rounded up

    def test_transactions_cost_double(self):
        r = C.transact_write_items(
            TransactItems=[{"Put": {"TableName": T, "Item": item("t", 1, 500)}}],
            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"][0]["CapacityUnits"], 2.0)
        self.assertEqual(r["ConsumedCapacity"][0]["WriteCapacityUnits"], 2.0)
        r = C.transact_get_items(
            TransactItems=[{"Get": {"TableName": T, "Key": {"pk": {"S": "t"}, "sk": {"N": "1"}}}}],
            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"][0]["CapacityUnits"], 2.0)
        self.assertEqual(r["ConsumedCapacity"][0]["ReadCapacityUnits"], 2.0)

    def test_deleting_a_missing_item_costs_one_unit_everywhere(self):
        key = {"pk": {"S": "ghost"}, "sk": {"N": "1"}}
        r = C.delete_item(TableName=T, Key=key, ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.0)
        r = C.batch_write_item(RequestItems={T: [{"DeleteRequest": {"Key": key}}]},
                               ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"][0]["CapacityUnits"], 1.0)
        r = C.transact_write_items(TransactItems=[{"Delete": {"TableName": T, "Key": key}}],
                                   ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"][0]["CapacityUnits"], 2.0)


class ItemCollectionMetricsTest(unittest.TestCase):
    """ReturnItemCollectionMetrics=SIZE on a table with a local secondary index:
    every write operation reports the item collection (partition) it wrote."""

    @classmethod
    def setUpClass(cls):
        cls.t = harness.table_name("icm")
        C.create_table(
            TableName=cls.t,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "N"},
                                  {"AttributeName": "l", "AttributeType": "S"}],
            LocalSecondaryIndexes=[{"IndexName": "by_l",
                                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                  {"AttributeName": "l", "KeyType": "RANGE"}],
                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            BillingMode="PAY_PER_REQUEST")
        harness.wait_active(C, cls.t)

    def check(self, metrics, pk):
        self.assertEqual(metrics["ItemCollectionKey"], {"pk": {"S": pk}})
        self.assertEqual(metrics["SizeEstimateRangeGB"], [0.0, 1.0])

    def test_every_write_operation(self):
        t = self.t
        r = C.put_item(TableName=t, Item={"pk": {"S": "p"}, "sk": {"N": "1"}, "l": {"S": "x"}},
                       ReturnItemCollectionMetrics="SIZE")
        self.check(r["ItemCollectionMetrics"], "p")
        r = C.batch_write_item(RequestItems={t: [
            {"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"N": "2"}}}},
            {"PutRequest": {"Item": {"pk": {"S": "q"}, "sk": {"N": "1"}}}}]},
            ReturnItemCollectionMetrics="SIZE")
        got = sorted(m["ItemCollectionKey"]["pk"]["S"] for m in r["ItemCollectionMetrics"][t])
        self.assertEqual(got, ["p", "q"])  # one per item collection written
        r = C.transact_write_items(TransactItems=[
            {"Update": {"TableName": t, "Key": {"pk": {"S": "q"}, "sk": {"N": "1"}},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "1"}}}}],
            ReturnItemCollectionMetrics="SIZE")
        self.check(r["ItemCollectionMetrics"][t][0], "q")
        r = C.batch_write_item(RequestItems={t: [
            {"DeleteRequest": {"Key": {"pk": {"S": "q"}, "sk": {"N": "1"}}}}]})
        self.assertNotIn("ItemCollectionMetrics", r)  # only when asked


if __name__ == "__main__":
    unittest.main()
