"""The Python binding's fault injection (Database.set_faults / faults) and
capacity enforcement (Database.set_capacity): the
same rules as `serve --faults`, applied to execute(), client() and serve();
boto3 against serve() sees a dropped connection, the in-process client sees
the InternalServerError that stands for it; a bad rule set raises and changes
nothing.

Run: DYNAROCK_LIBRARY=build/libdynarock.so python3 tests/python/test_faults_binding.py
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "bindings", "python")))
os.environ.setdefault("DYNAROCK_LIBRARY", os.path.normpath(
    os.path.join(HERE, "..", "..", "build", "libdynarock.so")))

import dynarock  # noqa: E402

TABLE = {"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


class FaultsBindingTest(unittest.TestCase):
    def setUp(self):
        self.db = dynarock.open()
        self.db.execute("CreateTable", TABLE)

    def tearDown(self):
        self.db.close()

    def get(self, pk):
        return self.db.execute("GetItem", {"TableName": "things", "Key": {"pk": {"S": pk}},
                                           "ConsistentRead": True})

    def test_errors_drops_and_counters(self):
        state = self.db.set_faults({"seed": 3, "rules": [
            {"name": "thr", "operation": "PutItem", "first_n": 1, "error": "ThrottlingException"},
            {"name": "lost", "key_prefix": "after", "action": "drop_after_apply"}]})
        self.assertEqual(state["seed"], 3)
        c = self.db.client()
        with self.assertRaises(Exception) as cm:
            c.put_item(TableName="things", Item={"pk": {"S": "a"}})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ThrottlingException")
        c.put_item(TableName="things", Item={"pk": {"S": "a"}})
        with self.assertRaises(Exception) as cm:
            c.put_item(TableName="things", Item={"pk": {"S": "after"}})
        self.assertEqual(cm.exception.response["Error"]["Code"], "InternalServerError")
        self.assertEqual([(r["name"], r["fired"]) for r in self.db.faults()["rules"]],
                         [("thr", 1), ("lost", 1)])
        self.db.set_faults(None)
        self.assertIn("Item", self.get("after"))

    def test_bad_rules_raise_and_change_nothing(self):
        self.db.set_faults({"rules": [{"name": "keep", "table": "x"}]})
        with self.assertRaises(Exception) as cm:
            self.db.set_faults({"rules": [{"action": "explode"}]})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ValidationException")
        self.assertEqual([r["name"] for r in self.db.faults()["rules"]], ["keep"])

    def test_capacity_enforcement_throttles_a_provisioned_table(self):
        self.assertFalse(self.db.set_capacity()["enforce"])  # off when opened
        self.db.execute("CreateTable", dict(
            TABLE, TableName="slow", BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}))
        state = self.db.set_capacity(enforce=True)
        self.assertEqual((state["enforce"], state["partitionLimits"]), (True, False))
        put = {"TableName": "slow", "Item": {"pk": {"S": "a"}}}
        self.db.execute("PutItem", put)
        with self.assertRaises(Exception) as cm:
            self.db.execute("PutItem", put)
        err = cm.exception.response
        self.assertEqual(err["Error"]["Code"], "ProvisionedThroughputExceededException")
        self.assertEqual(err["ThrottlingReasons"][0]["reason"], "TableWriteProvisionedThroughputExceeded")
        self.assertEqual([b["kind"] for b in self.db.set_capacity()["buckets"]], ["write"])
        self.db.set_capacity(enforce=False)
        self.db.execute("PutItem", put)

    def test_serve_drops_the_connection(self):
        try:
            import boto3
            from botocore.config import Config
            from botocore.exceptions import ConnectionClosedError, HTTPClientError
        except ImportError:
            self.skipTest("no boto3")
        self.db.set_faults({"rules": [{"key_prefix": "before", "action": "drop_before_apply"}]})
        with self.db.serve() as url:
            c = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                             aws_access_key_id="x", aws_secret_access_key="x",
                             config=Config(retries={"total_max_attempts": 1}))
            with self.assertRaises((ConnectionClosedError, HTTPClientError)):
                c.put_item(TableName="things", Item={"pk": {"S": "before"}})
        self.db.set_faults(None)
        self.assertNotIn("Item", self.get("before"))


if __name__ == "__main__":
    unittest.main()
