"""One test module, run unchanged against two clients: boto3 talking to
dynarock.serve() (an endpoint inside this process) and the package's
in-process client. It is the package's promise: swap one line, keep the tests.

tests/python/test_python_package.py runs it both ways (unittest), and under
pytest with the package's fixtures (test_with_fixtures.py).
"""

import unittest

import dynarock

try:
    import boto3
except ImportError:  # the in-process half still runs
    boto3 = None


def exercise_orders(test, client):
    """What code written for boto3 does with DynamoDB; asserts DynamoDB's answers."""
    client.create_table(
        TableName="orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "customer", "KeyType": "HASH"},
                   {"AttributeName": "order", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "customer", "AttributeType": "S"},
                              {"AttributeName": "order", "AttributeType": "N"}])
    client.get_waiter("table_exists").wait(TableName="orders")
    for n in range(1, 6):
        client.put_item(TableName="orders", Item={
            "customer": {"S": "ann"}, "order": {"N": str(n)}, "amount": {"N": str(n * 10)},
            "receipt": {"B": bytes([n, 0, 255])}})
    got = client.get_item(TableName="orders", Key={"customer": {"S": "ann"}, "order": {"N": "3"}})
    test.assertEqual(got["Item"]["receipt"], {"B": bytes([3, 0, 255])})
    test.assertEqual(got["ResponseMetadata"]["HTTPStatusCode"], 200)

    q = client.query(TableName="orders", KeyConditionExpression="customer = :c AND #o >= :o",
                     ExpressionAttributeNames={"#o": "order"},
                     ExpressionAttributeValues={":c": {"S": "ann"}, ":o": {"N": "4"}},
                     ScanIndexForward=False)
    test.assertEqual([i["order"]["N"] for i in q["Items"]], ["5", "4"])

    pages = list(client.get_paginator("scan").paginate(TableName="orders", Limit=2))
    test.assertEqual(sum(p["Count"] for p in pages), 5)

    u = client.update_item(TableName="orders", Key={"customer": {"S": "ann"}, "order": {"N": "1"}},
                           UpdateExpression="SET amount = amount + :d", ReturnValues="UPDATED_NEW",
                           ExpressionAttributeValues={":d": {"N": "5"}})
    test.assertEqual(u["Attributes"], {"amount": {"N": "15"}})

    with test.assertRaises(client.exceptions.ConditionalCheckFailedException) as e:
        client.put_item(TableName="orders", Item={"customer": {"S": "ann"}, "order": {"N": "1"}},
                        ConditionExpression="attribute_not_exists(customer)")
    test.assertEqual(e.exception.response["Error"]["Code"], "ConditionalCheckFailedException")
    test.assertEqual(e.exception.response["Error"]["Message"], "The conditional request failed")

    with test.assertRaises(client.exceptions.TransactionCanceledException) as e:
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"customer": {"S": "bob"}, "order": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": "orders",
                                "Key": {"customer": {"S": "ann"}, "order": {"N": "2"}},
                                "ConditionExpression": "amount > :t",
                                "ExpressionAttributeValues": {":t": {"N": "1000"}}}}])
    reasons = [r["Code"] for r in e.exception.response["CancellationReasons"]]
    test.assertEqual(reasons, ["None", "ConditionalCheckFailed"])
    test.assertNotIn("Item", client.get_item(TableName="orders",
                                             Key={"customer": {"S": "bob"}, "order": {"N": "1"}}))

    with test.assertRaises(client.exceptions.ResourceNotFoundException):
        client.describe_table(TableName="missing")
    with test.assertRaises(client.exceptions.ClientError) as e:
        client.query(TableName="orders", KeyConditionExpression="amount = :t",
                     ExpressionAttributeValues={":t": {"N": "1"}})
    test.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
    test.assertEqual(client.list_tables()["TableNames"], ["orders"])


class InProcess(unittest.TestCase):
    def test_orders(self):
        with dynarock.open() as db:
            exercise_orders(self, db.client())


@unittest.skipIf(boto3 is None, "boto3 is not installed for this python")
class Boto3OverServe(unittest.TestCase):
    def test_orders(self):
        with dynarock.serve() as url:
            client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                                  aws_access_key_id="test", aws_secret_access_key="test")
            exercise_orders(self, client)


class PackageBasics(unittest.TestCase):
    def test_version_and_files(self):
        self.assertRegex(dynarock.library_version(), r"^\d+\.\d+\.\d+$")

    def test_closed_database_is_an_error_not_a_crash(self):
        db = dynarock.open()
        client = db.client()
        db.close()
        with self.assertRaises(dynarock.DynarockError):
            client.list_tables()

    def test_bad_options_are_refused(self):
        with self.assertRaises(dynarock.DynarockError):
            dynarock.open(colour="blue")

    def test_graph(self):
        with dynarock.open() as db:
            db.graph("PutNode", {"Id": "USER#a"})
            db.graph("PutNode", {"Id": "USER#b"})
            db.graph("AddEdge", {"Source": "USER#a", "Type": "KNOWS", "Target": "USER#b"})
            out = db.graph("OutEdges", {"Node": "USER#a", "Type": "KNOWS"})
            self.assertEqual([e["Target"] for e in out["Edges"]], ["USER#b"])
            walk = db.graph("Traverse", {"Start": ["USER#b"],
                                         "Steps": [{"Direction": "IN", "Types": ["KNOWS"]}]})
            self.assertEqual(walk["Results"], ["USER#a"])
            self.assertEqual([s["Requests"] for s in walk["Steps"]], [1, 1])
            with self.assertRaises(dynarock.ClientError) as missing:
                db.graph("Traverse", {"Start": ["USER#zed"], "Steps": [{"Types": ["KNOWS"]}]})
            self.assertEqual(missing.exception.response["Error"]["Code"], "ResourceNotFoundException")


if __name__ == "__main__":
    unittest.main(verbosity=2)
