"""ReturnConsumedCapacity through boto3: DynamoDB's billing rules on the wire.

Pins the JSON shape (TableName, CapacityUnits, Read/WriteCapacityUnits, and with
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
        self.assertEqual(cc["WriteCapacityUnits"], 3.0)
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
        self.assertEqual(r["ConsumedCapacity"]["ReadCapacityUnits"], 0.5)
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
        r = C.transact_get_items(
            TransactItems=[{"Get": {"TableName": T, "Key": {"pk": {"S": "t"}, "sk": {"N": "1"}}}}],
            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"][0]["CapacityUnits"], 2.0)


if __name__ == "__main__":
    unittest.main()
