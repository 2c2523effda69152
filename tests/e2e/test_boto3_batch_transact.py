"""Batch and transaction e2e tests via boto3 client and resource.

Asserts real Amazon DynamoDB behaviour (API reference BatchGetItem,
BatchWriteItem, TransactWriteItems, TransactGetItems, CancellationReason;
developer guide "Batch operations", "Amazon DynamoDB Transactions: How it
works" — idempotency, error handling, isolation).
Run standalone: python3 tests/e2e/test_boto3_batch_transact.py

botocore (>= 1.2x) puts the modeled members of an error into the response, so
TransactionCanceledException's CancellationReasons is e.response
["CancellationReasons"]: one entry per action, in request order, Code "None"
for actions that did not fail, and the old item with
ReturnValuesOnConditionCheckFailure=ALL_OLD.

Known moto 5.x deviations (these tests fail on moto, on purpose): a key that
does not match the schema gives "Validation Exception"; 101 BatchGetItem keys
give a per-table length message; BatchWriteItem accepts 26 requests, duplicate
keys and a wrong index-key type; ClientRequestToken is ignored (no idempotency,
no IdempotentParameterMismatchException); TransactGetItems ignores
ProjectionExpression, caps at 25 items and accepts two Gets of one item.
"""

import decimal
import os
import sys
import threading
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import assert_error  # noqa: E402
from boto3.dynamodb.conditions import Key  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
CN = None     # client without botocore's parameter validation
R = None
T1 = None     # pk S
T2 = None     # pk S, sk N
TG = None     # pk S with a GSI on g (S)


def setUpModule():
    harness.start()
    try:
        _setup()
    except BaseException:
        harness.stop()
        raise


def _setup():
    global C, CN, R, T1, T2, TG
    C = harness.client()
    CN = harness.client(validate=False)
    R = harness.resource()
    T1 = harness.create_table(C, hash_key=("pk", "S"))
    T2 = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "N"))
    TG = harness.table_name("tg")
    C.create_table(TableName=TG,
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "g", "AttributeType": "S"}],
                   GlobalSecondaryIndexes=[{
                       "IndexName": "byg",
                       "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                       "Projection": {"ProjectionType": "ALL"}}],
                   BillingMode="PAY_PER_REQUEST")
    harness.wait_active(C, TG)


def tearDownModule():
    try:
        for t in (T1, T2, TG):
            if t:
                try:
                    C.delete_table(TableName=t)
                except ClientError:
                    pass
    finally:
        harness.stop()


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def uid(p="k"):
    return "%s-%s" % (p, uuid.uuid4().hex[:12])


def get(table, key):
    r = C.get_item(TableName=table, Key=key, ConsistentRead=True)
    return r.get("Item")


# ================================================================== BatchGetItem

class BatchGetSixteenMegabytesTest(unittest.TestCase):
    def test_response_stops_before_16_mb(self):
        p = uid("big")
        pad = "x" * (390 * 1024)
        keys = [{"pk": S("%s-%02d" % (p, i))} for i in range(45)]
        for k in keys:
            C.put_item(TableName=T1, Item=dict(k, pad=S(pad)))
        r = C.batch_get_item(RequestItems={T1: {"Keys": keys}})
        got = r["Responses"][T1]
        left = r["UnprocessedKeys"][T1]["Keys"]
        size = sum(len("pk") + len(x["pk"]["S"]) + len("pad") + len(x["pad"]["S"]) for x in got)
        self.assertLessEqual(size, 16 * 1024 * 1024)
        self.assertEqual(len(got) + len(left), 45)
        self.assertGreater(len(left), 0)
        # Asking again for what is left gets the rest.
        r = C.batch_get_item(RequestItems={T1: {"Keys": left}})
        self.assertEqual(len(r["Responses"][T1]), len(left))


class BatchGetItemTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p = uid("bg")
        for i in range(10):
            C.put_item(TableName=T1, Item={"pk": S("%s-%d" % (cls.p, i)), "a": N(i),
                                           "b": S("b%d" % i), "c": {"M": {"d": N(i)}}})
            C.put_item(TableName=T2, Item={"pk": S(cls.p), "sk": N(i), "x": S("x%d" % i)})

    def k1(self, i):
        return {"pk": S("%s-%d" % (self.p, i))}

    def k2(self, i):
        return {"pk": S(self.p), "sk": N(i)}

    def test_several_tables(self):
        r = C.batch_get_item(RequestItems={
            T1: {"Keys": [self.k1(i) for i in (1, 3, 5)]},
            T2: {"Keys": [self.k2(i) for i in (0, 9)], "ConsistentRead": True},
        })
        self.assertEqual(r["UnprocessedKeys"], {})
        self.assertEqual(set(r["Responses"]), {T1, T2})
        got1 = sorted(r["Responses"][T1], key=lambda x: int(x["a"]["N"]))
        self.assertEqual([x["a"]["N"] for x in got1], ["1", "3", "5"])
        self.assertEqual(got1[0], {"pk": S("%s-1" % self.p), "a": N(1), "b": S("b1"),
                                   "c": {"M": {"d": N(1)}}})
        self.assertEqual(sorted(x["sk"]["N"] for x in r["Responses"][T2]), ["0", "9"])

    def test_projection_expression(self):
        r = C.batch_get_item(RequestItems={
            T1: {"Keys": [self.k1(2), self.k1(4)], "ProjectionExpression": "#a, c.d",
                 "ExpressionAttributeNames": {"#a": "a"}},
            T2: {"Keys": [self.k2(2)], "ProjectionExpression": "x"},
        })
        got = sorted(r["Responses"][T1], key=lambda x: int(x["a"]["N"]))
        self.assertEqual(got, [{"a": N(2), "c": {"M": {"d": N(2)}}},
                               {"a": N(4), "c": {"M": {"d": N(4)}}}])
        self.assertEqual(r["Responses"][T2], [{"x": S("x2")}])

    def test_missing_items_are_just_absent(self):
        r = C.batch_get_item(RequestItems={
            T1: {"Keys": [self.k1(1), {"pk": S(uid("none"))}]},
            T2: {"Keys": [{"pk": S(uid("none")), "sk": N(1)}]},
        })
        self.assertEqual(len(r["Responses"][T1]), 1)
        self.assertEqual(r["Responses"].get(T2, []), [])
        self.assertEqual(r["UnprocessedKeys"], {})

    def test_exactly_100_keys(self):
        p = uid("h")
        with R.Table(T2).batch_writer() as bw:
            for i in range(100):
                bw.put_item(Item={"pk": p, "sk": i})
        r = C.batch_get_item(RequestItems={T2: {"Keys": [{"pk": S(p), "sk": N(i)}
                                                         for i in range(100)]}})
        self.assertEqual(len(r["Responses"][T2]), 100)
        self.assertEqual(r["UnprocessedKeys"], {})

    def test_too_many_keys(self):
        keys1 = [{"pk": S("x%d" % i)} for i in range(60)]
        keys2 = [{"pk": S("y"), "sk": N(i)} for i in range(41)]
        with self.assertRaises(ClientError) as e:
            CN.batch_get_item(RequestItems={T1: {"Keys": keys1}, T2: {"Keys": keys2}})
        assert_error(self, e, "ValidationException", "Too many items requested for the BatchGetItem call")
        with self.assertRaises(ClientError) as e:
            CN.batch_get_item(RequestItems={T1: {"Keys": [{"pk": S("x%d" % i)} for i in range(101)]}})
        assert_error(self, e, "ValidationException", "Too many items requested for the BatchGetItem call")

    def test_duplicate_keys(self):
        with self.assertRaises(ClientError) as e:
            C.batch_get_item(RequestItems={T1: {"Keys": [self.k1(1), self.k1(2), self.k1(1)]}})
        assert_error(self, e, "ValidationException", "Provided list of item keys contains duplicates")

    def test_missing_table(self):
        with self.assertRaises(ClientError) as e:
            C.batch_get_item(RequestItems={T1: {"Keys": [self.k1(1)]},
                                           uid("missing"): {"Keys": [{"pk": S("a")}]}})
        assert_error(self, e, "ResourceNotFoundException", contains="Requested resource not found")

    def test_key_not_matching_schema(self):
        with self.assertRaises(ClientError) as e:
            C.batch_get_item(RequestItems={T2: {"Keys": [{"pk": S("a")}]}})
        assert_error(self, e, "ValidationException", "The provided key element does not match the schema")

    def test_resource_batch_get(self):
        r = R.batch_get_item(RequestItems={T1: {"Keys": [{"pk": "%s-%d" % (self.p, 7)}],
                                                "ProjectionExpression": "a"}})
        self.assertEqual(r["Responses"][T1], [{"a": decimal.Decimal(7)}])


# ================================================================== BatchWriteItem

class BatchWriteItemTest(unittest.TestCase):
    def test_puts_and_deletes_over_two_tables(self):
        p = uid("bw")
        C.put_item(TableName=T1, Item={"pk": S(p + "-old")})
        C.put_item(TableName=T2, Item={"pk": S(p), "sk": N(99)})
        r = C.batch_write_item(RequestItems={
            T1: [{"PutRequest": {"Item": {"pk": S(p + "-%d" % i), "v": N(i)}}} for i in range(5)]
                + [{"DeleteRequest": {"Key": {"pk": S(p + "-old")}}}],
            T2: [{"PutRequest": {"Item": {"pk": S(p), "sk": N(i)}}} for i in range(3)]
                + [{"DeleteRequest": {"Key": {"pk": S(p), "sk": N(99)}}},
                   {"DeleteRequest": {"Key": {"pk": S(p), "sk": N(1000)}}}],  # absent: fine
        })
        self.assertIn("UnprocessedItems", r)
        self.assertEqual(r["UnprocessedItems"], {})
        for i in range(5):
            self.assertEqual(get(T1, {"pk": S(p + "-%d" % i)}), {"pk": S(p + "-%d" % i), "v": N(i)})
        self.assertIsNone(get(T1, {"pk": S(p + "-old")}))
        q = C.query(TableName=T2, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": S(p)}, ConsistentRead=True)
        self.assertEqual([x["sk"]["N"] for x in q["Items"]], ["0", "1", "2"])

    def test_put_replaces_whole_item(self):
        k = uid("rep")
        C.put_item(TableName=T1, Item={"pk": S(k), "a": N(1), "b": N(2)})
        C.batch_write_item(RequestItems={T1: [{"PutRequest": {"Item": {"pk": S(k), "c": N(3)}}}]})
        self.assertEqual(get(T1, {"pk": S(k)}), {"pk": S(k), "c": N(3)})

    def test_exactly_25(self):
        p = uid("b25")
        r = C.batch_write_item(RequestItems={
            T1: [{"PutRequest": {"Item": {"pk": S("%s-%d" % (p, i))}}} for i in range(15)],
            T2: [{"PutRequest": {"Item": {"pk": S(p), "sk": N(i)}}} for i in range(10)]})
        self.assertEqual(r["UnprocessedItems"], {})

    def test_more_than_25_refused(self):
        p = uid("b26")
        with self.assertRaises(ClientError) as e:
            CN.batch_write_item(RequestItems={
                T1: [{"PutRequest": {"Item": {"pk": S("%s-%d" % (p, i))}}} for i in range(26)]})
        assert_error(self, e, "ValidationException",
                     contains="Member must have length less than or equal to 25")
        self.assertIsNone(get(T1, {"pk": S(p + "-0")}))

    def test_more_than_25_over_two_tables_refused(self):
        p = uid("b26b")
        with self.assertRaises(ClientError) as e:
            CN.batch_write_item(RequestItems={
                T1: [{"PutRequest": {"Item": {"pk": S("%s-%d" % (p, i))}}} for i in range(13)],
                T2: [{"PutRequest": {"Item": {"pk": S(p), "sk": N(i)}}} for i in range(13)]})
        assert_error(self, e, "ValidationException", "Too many items requested for the BatchWriteItem call")
        self.assertIsNone(get(T1, {"pk": S(p + "-0")}))

    def test_empty_list_for_a_table_refused(self):
        with self.assertRaises(ClientError) as e:
            CN.batch_write_item(RequestItems={T1: []})
        assert_error(self, e, "ValidationException",
                     contains="Map value must satisfy constraint: [Member must have length less than or "
                              "equal to 25, Member must have length greater than or equal to 1]")

    def test_duplicate_keys_refused(self):
        p = uid("dup")
        with self.assertRaises(ClientError) as e:
            C.batch_write_item(RequestItems={T1: [
                {"PutRequest": {"Item": {"pk": S(p), "v": N(1)}}},
                {"PutRequest": {"Item": {"pk": S(p), "v": N(2)}}}]})
        assert_error(self, e, "ValidationException", "Provided list of item keys contains duplicates")
        with self.assertRaises(ClientError) as e:
            C.batch_write_item(RequestItems={T2: [
                {"PutRequest": {"Item": {"pk": S(p), "sk": N(1)}}},
                {"DeleteRequest": {"Key": {"pk": S(p), "sk": N(1)}}}]})
        assert_error(self, e, "ValidationException", "Provided list of item keys contains duplicates")
        self.assertIsNone(get(T1, {"pk": S(p)}))

    def test_missing_table_rejects_whole_batch(self):
        p = uid("mt")
        with self.assertRaises(ClientError) as e:
            C.batch_write_item(RequestItems={
                T1: [{"PutRequest": {"Item": {"pk": S(p)}}}],
                uid("missing"): [{"PutRequest": {"Item": {"pk": S(p)}}}]})
        assert_error(self, e, "ResourceNotFoundException", contains="Requested resource not found")
        self.assertIsNone(get(T1, {"pk": S(p)}))

    def test_bad_key_rejects_whole_batch(self):
        p = uid("bk")
        with self.assertRaises(ClientError) as e:
            C.batch_write_item(RequestItems={
                T1: [{"PutRequest": {"Item": {"pk": S(p)}}}],
                T2: [{"PutRequest": {"Item": {"pk": S(p)}}}]})  # no sort key
        assert_error(self, e, "ValidationException")
        self.assertIsNone(get(T1, {"pk": S(p)}))

    def test_wrong_index_key_type_rejects_whole_batch(self):
        p = uid("ik")
        with self.assertRaises(ClientError) as e:
            C.batch_write_item(RequestItems={TG: [
                {"PutRequest": {"Item": {"pk": S(p + "a"), "g": S("ok")}}},
                {"PutRequest": {"Item": {"pk": S(p + "b"), "g": N(1)}}}]})
        assert_error(self, e, "ValidationException",
                     "One or more parameter values were invalid: Type mismatch for Index Key g "
                     "Expected: S Actual: N IndexName: byg")
        self.assertIsNone(get(TG, {"pk": S(p + "a")}))

    def test_batch_write_maintains_index(self):
        p = uid("bi")
        C.batch_write_item(RequestItems={TG: [
            {"PutRequest": {"Item": {"pk": S("%s-%d" % (p, i)), "g": S(p)}}} for i in range(7)]})
        r = C.query(TableName=TG, IndexName="byg", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S(p)})
        self.assertEqual(r["Count"], 7)
        C.batch_write_item(RequestItems={TG: [
            {"DeleteRequest": {"Key": {"pk": S("%s-%d" % (p, i))}}} for i in range(3)]})
        r = C.query(TableName=TG, IndexName="byg", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S(p)})
        self.assertEqual(r["Count"], 4)


class BatchWriterTest(unittest.TestCase):
    def test_batch_writer_many_items_with_overwrite(self):
        p = uid("bwr")
        t = R.Table(T2)
        with t.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as bw:
            for rnd in range(3):
                for i in range(120):
                    bw.put_item(Item={"pk": p, "sk": i, "round": rnd, "pad": "x" * 50})
            for i in range(0, 120, 10):
                bw.delete_item(Key={"pk": p, "sk": i})
        items = []
        kw = dict(KeyConditionExpression=Key("pk").eq(p), ConsistentRead=True)
        while True:
            r = t.query(**kw)
            items += r["Items"]
            if "LastEvaluatedKey" not in r:
                break
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]
        self.assertEqual([int(x["sk"]) for x in items], [i for i in range(120) if i % 10])
        self.assertTrue(all(x["round"] == 2 for x in items))

    def test_batch_writer_over_250_items(self):
        p = uid("bwl")
        t = R.Table(T1)
        with t.batch_writer() as bw:
            for i in range(260):
                bw.put_item(Item={"pk": "%s-%03d" % (p, i), "n": i})
        keys = [{"pk": S("%s-%03d" % (p, i))} for i in range(0, 260, 13)]
        r = C.batch_get_item(RequestItems={T1: {"Keys": keys}})
        self.assertEqual(len(r["Responses"][T1]), 20)


# ================================================================== TransactWriteItems

def cancel_reasons(test, ctx):
    c, m = harness.error_of(ctx.exception)
    test.assertEqual(c, "TransactionCanceledException", m)
    reasons = ctx.exception.response.get("CancellationReasons")
    test.assertIsNotNone(reasons, "botocore did not expose CancellationReasons: %r"
                         % ctx.exception.response)
    codes = [r["Code"] for r in reasons]
    test.assertEqual(m, "Transaction cancelled, please refer cancellation reasons for specific "
                        "reasons [%s]" % ", ".join(codes))
    return reasons


class TransactWriteItemsTest(unittest.TestCase):
    def test_put_update_delete_condition_check_commit_together(self):
        a, b, c, d = (uid(x) for x in "abcd")
        C.put_item(TableName=T1, Item={"pk": S(b), "n": N(5)})
        C.put_item(TableName=T1, Item={"pk": S(c), "n": N(1)})
        C.put_item(TableName=T2, Item={"pk": S(d), "sk": N(1), "state": S("ok")})
        r = C.transact_write_items(TransactItems=[
            {"Put": {"TableName": T1, "Item": {"pk": S(a), "n": N(10)},
                     "ConditionExpression": "attribute_not_exists(pk)"}},
            {"Update": {"TableName": T1, "Key": {"pk": S(b)}, "UpdateExpression": "ADD n :d",
                        "ConditionExpression": "n = :five",
                        "ExpressionAttributeValues": {":d": N(3), ":five": N(5)}}},
            {"Delete": {"TableName": T1, "Key": {"pk": S(c)}}},
            {"ConditionCheck": {"TableName": T2, "Key": {"pk": S(d), "sk": N(1)},
                                "ConditionExpression": "#s = :ok",
                                "ExpressionAttributeNames": {"#s": "state"},
                                "ExpressionAttributeValues": {":ok": S("ok")}}},
        ])
        self.assertEqual(r["ResponseMetadata"]["HTTPStatusCode"], 200)
        self.assertEqual(get(T1, {"pk": S(a)}), {"pk": S(a), "n": N(10)})
        self.assertEqual(get(T1, {"pk": S(b)}), {"pk": S(b), "n": N(8)})
        self.assertIsNone(get(T1, {"pk": S(c)}))
        self.assertEqual(get(T2, {"pk": S(d), "sk": N(1)})["state"], S("ok"))

    def test_all_or_nothing_with_reasons_in_order(self):
        a, b, c = uid("a"), uid("b"), uid("c")
        C.put_item(TableName=T1, Item={"pk": S(b), "n": N(1), "tag": S("orig")})
        C.put_item(TableName=T1, Item={"pk": S(c), "n": N(7)})
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=[
                {"Put": {"TableName": T1, "Item": {"pk": S(a), "n": N(1)}}},
                {"Update": {"TableName": T1, "Key": {"pk": S(b)}, "UpdateExpression": "SET tag = :t",
                            "ExpressionAttributeValues": {":t": S("changed")}}},
                {"ConditionCheck": {"TableName": T1, "Key": {"pk": S(c)},
                                    "ConditionExpression": "n = :x",
                                    "ExpressionAttributeValues": {":x": N(8)}}},
                {"Delete": {"TableName": T2, "Key": {"pk": S(a), "sk": N(1)}}},
            ])
        reasons = cancel_reasons(self, e)
        self.assertEqual([r["Code"] for r in reasons],
                         ["None", "None", "ConditionalCheckFailed", "None"])
        self.assertEqual(reasons[2]["Message"], "The conditional request failed")
        self.assertNotIn("Item", reasons[2])  # no ReturnValuesOnConditionCheckFailure
        for i in (0, 1, 3):
            self.assertNotIn("Message", reasons[i])
            self.assertNotIn("Item", reasons[i])
        # Nothing applied.
        self.assertIsNone(get(T1, {"pk": S(a)}))
        self.assertEqual(get(T1, {"pk": S(b)})["tag"], S("orig"))

    def test_return_values_on_condition_check_failure_all_old(self):
        a, b = uid("a"), uid("b")
        C.put_item(TableName=T1, Item={"pk": S(a), "n": N(1), "m": {"L": [S("x")]}})
        C.put_item(TableName=T1, Item={"pk": S(b), "n": N(2)})
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=[
                {"Update": {"TableName": T1, "Key": {"pk": S(a)}, "UpdateExpression": "SET n = :v",
                            "ConditionExpression": "n = :old",
                            "ExpressionAttributeValues": {":v": N(5), ":old": N(99)},
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
                {"Put": {"TableName": T1, "Item": {"pk": S(b), "n": N(3)},
                         "ConditionExpression": "attribute_not_exists(pk)",
                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
                {"Delete": {"TableName": T1, "Key": {"pk": S(uid("nobody"))},
                            "ConditionExpression": "attribute_exists(pk)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            ])
        reasons = cancel_reasons(self, e)
        self.assertEqual([r["Code"] for r in reasons], ["ConditionalCheckFailed"] * 3)
        self.assertEqual(reasons[0]["Item"], {"pk": S(a), "n": N(1), "m": {"L": [S("x")]}})
        self.assertEqual(reasons[1]["Item"], {"pk": S(b), "n": N(2)})
        # No old item to return for an item that does not exist.
        self.assertNotIn("Item", reasons[2])
        self.assertEqual(get(T1, {"pk": S(a)})["n"], N(1))
        self.assertEqual(get(T1, {"pk": S(b)})["n"], N(2))

    def test_two_actions_on_one_item_refused(self):
        a = uid("a")
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=[
                {"Put": {"TableName": T1, "Item": {"pk": S(a), "n": N(1)}}},
                {"Update": {"TableName": T1, "Key": {"pk": S(a)}, "UpdateExpression": "SET n = :v",
                            "ExpressionAttributeValues": {":v": N(2)}}}])
        assert_error(self, e, "ValidationException",
                     "Transaction request cannot include multiple operations on one item")
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=[
                {"ConditionCheck": {"TableName": T2, "Key": {"pk": S(a), "sk": N(1)},
                                    "ConditionExpression": "attribute_not_exists(pk)"}},
                {"Delete": {"TableName": T2, "Key": {"pk": S(a), "sk": N(1)}}}])
        assert_error(self, e, "ValidationException",
                     "Transaction request cannot include multiple operations on one item")
        self.assertIsNone(get(T1, {"pk": S(a)}))

    def test_same_key_in_different_tables_is_fine(self):
        a = uid("a")
        C.transact_write_items(TransactItems=[
            {"Put": {"TableName": T1, "Item": {"pk": S(a)}}},
            {"Put": {"TableName": TG, "Item": {"pk": S(a), "g": S("x")}}}])
        self.assertIsNotNone(get(T1, {"pk": S(a)}))
        self.assertIsNotNone(get(TG, {"pk": S(a)}))

    def test_more_than_100_actions_refused(self):
        p = uid("many")
        with self.assertRaises(ClientError) as e:
            CN.transact_write_items(TransactItems=[
                {"Put": {"TableName": T1, "Item": {"pk": S("%s-%d" % (p, i))}}} for i in range(101)])
        assert_error(self, e, "ValidationException",
                     contains="Member must have length less than or equal to 100")
        self.assertIsNone(get(T1, {"pk": S(p + "-0")}))

    def test_100_actions_accepted(self):
        p = uid("h")
        C.transact_write_items(TransactItems=[
            {"Put": {"TableName": T1, "Item": {"pk": S("%s-%d" % (p, i))}}} for i in range(100)])
        self.assertIsNotNone(get(T1, {"pk": S(p + "-99")}))

    def test_missing_table(self):
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=[
                {"Put": {"TableName": uid("missing"), "Item": {"pk": S("a")}}}])
        assert_error(self, e, "ResourceNotFoundException", contains="Requested resource not found")

    def test_transaction_maintains_index(self):
        a, b = uid("a"), uid("b")
        g1, g2 = uid("g"), uid("g")
        C.put_item(TableName=TG, Item={"pk": S(b), "g": S(g1)})
        C.transact_write_items(TransactItems=[
            {"Put": {"TableName": TG, "Item": {"pk": S(a), "g": S(g1)}}},
            {"Update": {"TableName": TG, "Key": {"pk": S(b)}, "UpdateExpression": "SET g = :g",
                        "ExpressionAttributeValues": {":g": S(g2)}}}])

        def idx(g):
            r = C.query(TableName=TG, IndexName="byg", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": S(g)})
            return sorted(x["pk"]["S"] for x in r["Items"])
        self.assertEqual(idx(g1), [a])
        self.assertEqual(idx(g2), [b])
        # A cancelled transaction leaves the index alone too.
        with self.assertRaises(ClientError):
            C.transact_write_items(TransactItems=[
                {"Delete": {"TableName": TG, "Key": {"pk": S(a)}}},
                {"ConditionCheck": {"TableName": TG, "Key": {"pk": S(b)},
                                    "ConditionExpression": "attribute_not_exists(pk)"}}])
        self.assertEqual(idx(g1), [a])


class TransactionLimitsTest(unittest.TestCase):
    def test_four_megabytes_in_all(self):
        p = uid("t4m")
        pad = "x" * (390 * 1024)
        items = [{"Put": {"TableName": T1, "Item": {"pk": S("%s-%d" % (p, i)), "pad": S(pad)}}}
                 for i in range(11)]
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=items)
        assert_error(self, e, "ValidationException",
                     contains="The aggregate size of the items in the transaction cannot exceed 4 MB")
        self.assertIsNone(get(T1, {"pk": S(p + "-0")}))
        C.transact_write_items(TransactItems=items[:10])
        self.assertIsNotNone(get(T1, {"pk": S(p + "-0")}))

    def test_client_request_token_length(self):
        with self.assertRaises(ClientError) as e:
            CN.transact_write_items(
                TransactItems=[{"Put": {"TableName": T1, "Item": {"pk": S(uid())}}}],
                ClientRequestToken="t" * 37)
        assert_error(self, e, "ValidationException",
                     contains="at 'clientRequestToken' failed to satisfy constraint: Member must have "
                              "length less than or equal to 36")


class IdempotencyTest(unittest.TestCase):
    def items(self, k, delta=1):
        return [{"Update": {"TableName": T1, "Key": {"pk": S(k)}, "UpdateExpression": "ADD n :d",
                            "ExpressionAttributeValues": {":d": N(delta)}}}]

    def test_same_token_applies_once(self):
        k = uid("idem")
        token = uuid.uuid4().hex
        C.transact_write_items(TransactItems=self.items(k), ClientRequestToken=token)
        C.transact_write_items(TransactItems=self.items(k), ClientRequestToken=token)
        C.transact_write_items(TransactItems=self.items(k), ClientRequestToken=token)
        self.assertEqual(get(T1, {"pk": S(k)})["n"], N(1))
        # Without a token (or with another) it applies again.
        C.transact_write_items(TransactItems=self.items(k))
        C.transact_write_items(TransactItems=self.items(k), ClientRequestToken=uuid.uuid4().hex)
        self.assertEqual(get(T1, {"pk": S(k)})["n"], N(3))

    def test_same_token_different_parameters(self):
        k = uid("idem")
        token = uuid.uuid4().hex
        C.transact_write_items(TransactItems=self.items(k), ClientRequestToken=token)
        with self.assertRaises(ClientError) as e:
            C.transact_write_items(TransactItems=self.items(k, 2), ClientRequestToken=token)
        assert_error(self, e, "IdempotentParameterMismatchException")
        self.assertEqual(get(T1, {"pk": S(k)})["n"], N(1))

    def test_resource_client_token(self):
        # boto3 fills ClientRequestToken itself when not given (idempotencyToken
        # trait): two calls therefore apply twice.
        k = uid("idem")
        C.transact_write_items(TransactItems=self.items(k))
        C.transact_write_items(TransactItems=self.items(k))
        self.assertEqual(get(T1, {"pk": S(k)})["n"], N(2))


class ConcurrentTransferTest(unittest.TestCase):
    """Transfers between a few accounts from several threads: the total never
    changes; conflicts surface only as TransactionCanceledException
    (TransactionConflict) or TransactionConflictException, never as lost
    updates."""

    def test_transfers_keep_total(self):
        p = uid("acct")
        n_acct, start = 5, 100
        for i in range(n_acct):
            C.put_item(TableName=T1, Item={"pk": S("%s-%d" % (p, i)), "bal": N(start)})
        ok = [0]
        lock = threading.Lock()
        errors = []

        def worker(seed):
            c = harness.client()
            for j in range(40):
                src = (seed + j) % n_acct
                dst = (seed + 2 * j + 1) % n_acct
                if src == dst:
                    dst = (dst + 1) % n_acct
                try:
                    c.transact_write_items(TransactItems=[
                        {"Update": {"TableName": T1, "Key": {"pk": S("%s-%d" % (p, src))},
                                    "UpdateExpression": "SET bal = bal - :a",
                                    "ConditionExpression": "bal >= :a",
                                    "ExpressionAttributeValues": {":a": N(3)}}},
                        {"Update": {"TableName": T1, "Key": {"pk": S("%s-%d" % (p, dst))},
                                    "UpdateExpression": "SET bal = bal + :a",
                                    "ExpressionAttributeValues": {":a": N(3)}}}])
                    with lock:
                        ok[0] += 1
                except ClientError as ex:
                    code = harness.error_of(ex)[0]
                    if code == "TransactionCanceledException":
                        codes = {r["Code"] for r in ex.response.get("CancellationReasons", [])}
                        if not codes <= {"None", "TransactionConflict", "ConditionalCheckFailed"}:
                            errors.append(codes)
                    elif code != "TransactionConflictException":
                        errors.append(code)

        threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertFalse(errors, errors)
        self.assertGreater(ok[0], 0)
        r = C.transact_get_items(TransactItems=[
            {"Get": {"TableName": T1, "Key": {"pk": S("%s-%d" % (p, i))}}} for i in range(n_acct)])
        total = sum(int(x["Item"]["bal"]["N"]) for x in r["Responses"])
        self.assertEqual(total, n_acct * start)


# ================================================================== TransactGetItems

class TransactGetItemsTest(unittest.TestCase):
    def test_gets_with_projection_and_missing_item(self):
        a, b = uid("a"), uid("b")
        C.put_item(TableName=T1, Item={"pk": S(a), "x": N(1), "y": {"M": {"z": S("deep")}},
                                       "w": S("w")})
        C.put_item(TableName=T2, Item={"pk": S(b), "sk": N(4), "v": S("v")})
        r = C.transact_get_items(TransactItems=[
            {"Get": {"TableName": T1, "Key": {"pk": S(a)}, "ProjectionExpression": "#x, y.z",
                     "ExpressionAttributeNames": {"#x": "x"}}},
            {"Get": {"TableName": T1, "Key": {"pk": S(uid("none"))}}},
            {"Get": {"TableName": T2, "Key": {"pk": S(b), "sk": N(4)}}},
        ])
        resp = r["Responses"]
        self.assertEqual(len(resp), 3)
        self.assertEqual(resp[0], {"Item": {"x": N(1), "y": {"M": {"z": S("deep")}}}})
        self.assertEqual(resp[1], {})
        self.assertEqual(resp[2], {"Item": {"pk": S(b), "sk": N(4), "v": S("v")}})

    def test_two_gets_on_one_item_refused(self):
        a = uid("a")
        with self.assertRaises(ClientError) as e:
            C.transact_get_items(TransactItems=[
                {"Get": {"TableName": T1, "Key": {"pk": S(a)}}},
                {"Get": {"TableName": T1, "Key": {"pk": S(a)}}}])
        assert_error(self, e, "ValidationException",
                     "Transaction request cannot include multiple operations on one item")

    def test_more_than_100_refused(self):
        with self.assertRaises(ClientError) as e:
            CN.transact_get_items(TransactItems=[
                {"Get": {"TableName": T1, "Key": {"pk": S("k%d" % i)}}} for i in range(101)])
        assert_error(self, e, "ValidationException",
                     contains="Member must have length less than or equal to 100")

    def test_missing_table(self):
        with self.assertRaises(ClientError) as e:
            C.transact_get_items(TransactItems=[
                {"Get": {"TableName": uid("missing"), "Key": {"pk": S("a")}}}])
        assert_error(self, e, "ResourceNotFoundException", contains="Requested resource not found")

    def test_number_round_trips_exactly(self):
        a = uid("a")
        C.put_item(TableName=T1, Item={"pk": S(a), "big": N("123456789012345678901234567890.5")})
        r = C.transact_get_items(TransactItems=[{"Get": {"TableName": T1, "Key": {"pk": S(a)}}}])
        self.assertEqual(r["Responses"][0]["Item"]["big"], N("123456789012345678901234567890.5"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
