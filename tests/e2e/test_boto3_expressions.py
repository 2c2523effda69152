"""Expression e2e tests (condition / update / filter / projection, legacy
parameters) via boto3.

Asserts real Amazon DynamoDB behaviour (API reference PutItem/UpdateItem/
DeleteItem/Query/Scan; developer guide "Condition expressions", "Update
expressions", "Projection expressions", "Expression attribute names/values",
"Reserved words", "Legacy conditional parameters").
Run standalone: python3 tests/e2e/test_boto3_expressions.py

Known moto 5.x deviations from the AWS docs (these tests fail on moto, on
purpose): undefined #name/:value and N-vs-S '<' comparisons give HTTP 500;
unused :values in ConditionExpression and values-without-expression are
accepted; reserved-word message lacks the "Invalid ProjectionExpression: "
prefix; FilterExpression on key attributes and overlapping projection paths
accepted; legacy ConditionalOperator=OR ignored; AttributesToGet returns all
attributes; legacy+expression mixes accepted for Expected/QueryFilter/
ScanFilter; the two operand-type messages (ADD vs arithmetic) are swapped.
"""

import decimal
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from boto3.dynamodb.conditions import Attr, Key  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
R = None
T = None      # pk S
TR = None     # pk S, sk N


def setUpModule():
    global C, R, T, TR
    harness.start()
    C = harness.client()
    R = harness.resource()
    T = harness.create_table(C, hash_key=("pk", "S"))
    TR = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "N"))


def tearDownModule():
    try:
        for t in (T, TR):
            if t:
                C.delete_table(TableName=t)
    finally:
        harness.stop()


def _needs_rvoccf(fn):
    """Skip when the installed botocore predates ReturnValuesOnConditionCheckFailure."""
    def wrapper(self):
        if not harness.model_has(C, "PutItemInput", "ReturnValuesOnConditionCheckFailure"):
            self.skipTest("botocore too old for ReturnValuesOnConditionCheckFailure")
        return fn(self)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _uid():
    return harness.table_name("k")


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


class Base(unittest.TestCase):
    def put(self, **attrs):
        pk = _uid()
        item = {"pk": S(pk)}
        item.update(attrs)
        C.put_item(TableName=T, Item=item)
        return pk

    def get(self, pk):
        return C.get_item(TableName=T, Key={"pk": S(pk)}, ConsistentRead=True).get("Item")

    def assertError(self, fn, code, message=None, contains=()):
        with self.assertRaises(ClientError) as cm:
            fn()
        got, msg = harness.error_of(cm.exception)
        self.assertEqual(got, code, msg)
        if message is not None:
            self.assertEqual(msg, message)
        if isinstance(contains, str):
            contains = [contains]
        for c in contains:
            self.assertIn(c, msg)
        return cm.exception

    def assertCCF(self, fn):
        e = self.assertError(fn, "ConditionalCheckFailedException")
        self.assertIn("The conditional request failed", harness.error_of(e)[1])
        return e

    def assertValidation(self, fn, message=None, contains=()):
        return self.assertError(fn, "ValidationException", message, contains)


class ConditionExpressionTest(Base):
    def test_put_if_not_exists(self):
        pk = _uid()
        C.put_item(TableName=T, Item={"pk": S(pk), "v": N(1)},
                   ConditionExpression="attribute_not_exists(pk)")
        self.assertCCF(lambda: C.put_item(TableName=T, Item={"pk": S(pk), "v": N(2)},
                                          ConditionExpression="attribute_not_exists(pk)"))
        self.assertEqual(self.get(pk)["v"], N(1))

    @_needs_rvoccf
    def test_put_condition_failure_returns_old_item(self):
        pk = self.put(v=N(1), s=S("x"))
        e = self.assertCCF(lambda: C.put_item(
            TableName=T, Item={"pk": S(pk), "v": N(2)},
            ConditionExpression="v = :two", ExpressionAttributeValues={":two": N(2)},
            ReturnValuesOnConditionCheckFailure="ALL_OLD"))
        self.assertEqual(e.response.get("Item"), {"pk": S(pk), "v": N(1), "s": S("x")})

    @_needs_rvoccf
    def test_condition_failure_without_return_has_no_item(self):
        pk = self.put(v=N(1))
        e = self.assertCCF(lambda: C.put_item(
            TableName=T, Item={"pk": S(pk)}, ConditionExpression="attribute_not_exists(v)",
            ReturnValuesOnConditionCheckFailure="NONE"))
        self.assertNotIn("Item", e.response)

    @_needs_rvoccf
    def test_update_condition_failure_returns_old_item(self):
        pk = self.put(v=N(5))
        e = self.assertCCF(lambda: C.update_item(
            TableName=T, Key={"pk": S(pk)}, UpdateExpression="SET v = :n",
            ConditionExpression="v > :lim",
            ExpressionAttributeValues={":n": N(6), ":lim": N(10)},
            ReturnValuesOnConditionCheckFailure="ALL_OLD"))
        self.assertEqual(e.response.get("Item"), {"pk": S(pk), "v": N(5)})
        self.assertEqual(self.get(pk)["v"], N(5))

    @_needs_rvoccf
    def test_delete_condition(self):
        pk = self.put(state=S("open"))
        e = self.assertCCF(lambda: C.delete_item(
            TableName=T, Key={"pk": S(pk)}, ConditionExpression="#s = :closed",
            ExpressionAttributeNames={"#s": "state"},
            ExpressionAttributeValues={":closed": S("closed")},
            ReturnValuesOnConditionCheckFailure="ALL_OLD"))
        self.assertEqual(e.response.get("Item"), {"pk": S(pk), "state": S("open")})
        self.assertIsNotNone(self.get(pk))
        C.delete_item(TableName=T, Key={"pk": S(pk)}, ConditionExpression="#s = :open",
                      ExpressionAttributeNames={"#s": "state"},
                      ExpressionAttributeValues={":open": S("open")})
        self.assertIsNone(self.get(pk))

    @_needs_rvoccf
    def test_condition_on_missing_item(self):
        # The condition is evaluated against an empty item.
        pk = _uid()
        self.assertCCF(lambda: C.delete_item(TableName=T, Key={"pk": S(pk)},
                                             ConditionExpression="attribute_exists(pk)"))
        self.assertCCF(lambda: C.update_item(
            TableName=T, Key={"pk": S(pk)}, UpdateExpression="SET a = :v",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":v": N(1)}))
        self.assertIsNone(self.get(pk))
        e = self.assertCCF(lambda: C.put_item(
            TableName=T, Item={"pk": S(pk)}, ConditionExpression="attribute_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD"))
        self.assertNotIn("Item", e.response)

    def test_condition_functions(self):
        pk = self.put(s=S("hello world"), n=N(7), l={"L": [S("a"), N(1)]},
                      ss={"SS": ["x", "y"]}, m={"M": {"k": S("v")}}, b={"BOOL": True},
                      z={"NULL": True})
        passing = [
            ("attribute_exists(s)", {}),
            ("attribute_not_exists(nope)", {}),
            ("attribute_type(s, :t)", {":t": S("S")}),
            ("attribute_type(ss, :t)", {":t": S("SS")}),
            ("attribute_type(z, :t)", {":t": S("NULL")}),
            ("attribute_type(m, :t)", {":t": S("M")}),
            ("begins_with(s, :p)", {":p": S("hello")}),
            ("contains(s, :p)", {":p": S("o w")}),
            ("contains(ss, :p)", {":p": S("y")}),
            ("contains(l, :p)", {":p": N(1)}),
            ("size(s) = :n", {":n": N(11)}),
            ("size(l) = :n", {":n": N(2)}),
            ("size(ss) = :n", {":n": N(2)}),
            ("size(m) = :n", {":n": N(1)}),
            ("n BETWEEN :a AND :b", {":a": N(7), ":b": N(8)}),
            ("n IN (:a, :b, :c)", {":a": N(1), ":b": N(7), ":c": N(9)}),
            ("n <> :a", {":a": N(8)}),
            ("NOT n = :a", {":a": N(8)}),
            ("n < :a AND (s = :x OR b = :t)", {":a": N(8), ":x": S("no"), ":t": {"BOOL": True}}),
            ("m.k = :v", {":v": S("v")}),
            ("l[0] = :v", {":v": S("a")}),
            ("n > :s", {":s": N("6.99")}),
            ("s > :s", {":s": S("hello")}),
        ]
        for expr, vals in passing:
            kw = {"ExpressionAttributeValues": vals} if vals else {}
            C.put_item(TableName=T, Item=self.get(pk), ConditionExpression=expr, **kw)
        failing = [
            ("attribute_exists(nope)", {}),
            ("attribute_type(n, :t)", {":t": S("S")}),
            ("begins_with(s, :p)", {":p": S("world")}),
            ("contains(ss, :p)", {":p": S("q")}),
            ("size(s) > :n", {":n": N(11)}),
            ("n IN (:a, :b)", {":a": N(1), ":b": N(2)}),
            ("n = :s", {":s": S("7")}),          # different types never compare equal
            ("n < :s", {":s": S("8")}),
            ("nope = :v", {":v": N(1)}),
            ("NOT attribute_exists(s)", {}),
            # AND binds tighter than OR: false OR (true AND false)
            ("n = :x OR n = :y AND n = :x", {":x": N(1), ":y": N(7)}),
        ]
        for expr, vals in failing:
            kw = {"ExpressionAttributeValues": vals} if vals else {}
            with self.subTest(expr=expr):
                self.assertCCF(lambda: C.put_item(TableName=T, Item=self.get(pk),
                                                  ConditionExpression=expr, **kw))

    def test_condition_precedence_and_passes(self):
        # true OR (false AND false) => true
        pk = self.put(n=N(1))
        C.put_item(TableName=T, Item={"pk": S(pk), "n": N(1)},
                   ConditionExpression="n = :one OR n = :two AND n = :three",
                   ExpressionAttributeValues={":one": N(1), ":two": N(2), ":three": N(3)})

    def test_resource_conditions(self):
        t = R.Table(T)
        pk = _uid()
        t.put_item(Item={"pk": pk, "v": 1}, ConditionExpression=Attr("pk").not_exists())
        with self.assertRaises(ClientError) as cm:
            t.put_item(Item={"pk": pk, "v": 2},
                       ConditionExpression=Attr("v").gt(5) | Attr("missing").exists())
        self.assertEqual(harness.error_of(cm.exception)[0], "ConditionalCheckFailedException")
        t.put_item(Item={"pk": pk, "v": 3}, ConditionExpression=Attr("v").eq(1) & Attr("v").lt(2))
        self.assertEqual(t.get_item(Key={"pk": pk})["Item"]["v"], 3)

    def test_modeled_exception_class(self):
        pk = self.put()
        with self.assertRaises(C.exceptions.ConditionalCheckFailedException):
            C.put_item(TableName=T, Item={"pk": S(pk)},
                       ConditionExpression="attribute_not_exists(pk)")


class UpdateExpressionTest(Base):
    def upd(self, pk, expr, values=None, names=None, **kw):
        args = {"TableName": T, "Key": {"pk": S(pk)}, "UpdateExpression": expr}
        if values:
            args["ExpressionAttributeValues"] = values
        if names:
            args["ExpressionAttributeNames"] = names
        args.update(kw)
        return C.update_item(**args)

    def test_upsert_creates_item(self):
        pk = _uid()
        r = self.upd(pk, "SET a = :a", {":a": S("x")})
        self.assertNotIn("Attributes", r)
        self.assertEqual(self.get(pk), {"pk": S(pk), "a": S("x")})

    def test_set_forms(self):
        pk = self.put(n=N(10), l={"L": [N(1)]}, m={"M": {"a": N(1)}})
        self.upd(pk, "SET n = n + :one, d = n - :one, l = list_append(l, :more), "
                     "f = list_append(:front, l), m.b = :b, z = if_not_exists(z, :zero), "
                     "n2 = if_not_exists(n, :zero), #r = :r",
                 {":one": N(1), ":more": {"L": [N(2)]}, ":front": {"L": [N(0)]},
                  ":b": S("bee"), ":zero": N(0), ":r": S("reserved ok")},
                 {"#r": "name"})
        it = self.get(pk)
        self.assertEqual(it["n"], N(11))
        self.assertEqual(it["d"], N(9))   # operands use the pre-update values
        self.assertEqual(it["l"], {"L": [N(1), N(2)]})
        self.assertEqual(it["f"], {"L": [N(0), N(1)]})
        self.assertEqual(it["m"], {"M": {"a": N(1), "b": S("bee")}})
        self.assertEqual(it["z"], N(0))
        self.assertEqual(it["n2"], N(10))
        self.assertEqual(it["name"], S("reserved ok"))

    def test_set_list_index_beyond_end_appends(self):
        pk = self.put(l={"L": [S("a"), S("b")]})
        self.upd(pk, "SET l[1] = :x, l[10] = :y", {":x": S("B"), ":y": S("c")})
        self.assertEqual(self.get(pk)["l"], {"L": [S("a"), S("B"), S("c")]})

    def test_decimal_arithmetic_exact(self):
        pk = self.put(n=N("0.1"))
        self.upd(pk, "SET n = n + :x", {":x": N("0.2")})
        self.assertEqual(self.get(pk)["n"], N("0.3"))
        self.upd(pk, "SET n = n - :x", {":x": N("1")})
        self.assertEqual(self.get(pk)["n"], N("-0.7"))

    def test_remove(self):
        pk = self.put(a=S("1"), b=S("2"), l={"L": [N(0), N(1), N(2)]},
                      m={"M": {"x": N(1), "y": N(2)}})
        self.upd(pk, "REMOVE a, l[0], m.x, nope")
        it = self.get(pk)
        self.assertNotIn("a", it)
        self.assertEqual(it["b"], S("2"))
        self.assertEqual(it["l"], {"L": [N(1), N(2)]})
        self.assertEqual(it["m"], {"M": {"y": N(2)}})

    def test_add_number_and_sets(self):
        pk = self.put(n=N(5), ss={"SS": ["a"]}, ns={"NS": ["1"]})
        self.upd(pk, "ADD n :d, ss :s, ns :n, newn :d, newss :s",
                 {":d": N(-2), ":s": {"SS": ["b", "a"]}, ":n": {"NS": ["2"]}})
        it = self.get(pk)
        self.assertEqual(it["n"], N(3))
        self.assertEqual(it["newn"], N(-2))   # ADD to a missing number starts at 0
        self.assertEqual(set(it["ss"]["SS"]), {"a", "b"})
        self.assertEqual(set(it["ns"]["NS"]), {"1", "2"})
        self.assertEqual(set(it["newss"]["SS"]), {"a", "b"})

    def test_delete_from_set(self):
        pk = self.put(ss={"SS": ["a", "b", "c"]}, one={"NS": ["1"]})
        self.upd(pk, "DELETE ss :x, one :y, nosuch :x",
                 {":x": {"SS": ["a", "zz"]}, ":y": {"NS": ["1"]}})
        it = self.get(pk)
        self.assertEqual(set(it["ss"]["SS"]), {"b", "c"})
        # Deleting every element removes the attribute (sets cannot be empty).
        self.assertNotIn("one", it)
        self.assertNotIn("nosuch", it)

    def test_combined_clauses(self):
        pk = self.put(a=N(1), b=S("x"), s={"SS": ["p", "q"]})
        self.upd(pk, "SET c = :c REMOVE b ADD a :one DELETE s :p",
                 {":c": S("new"), ":one": N(1), ":p": {"SS": ["p"]}})
        self.assertEqual(self.get(pk), {"pk": S(pk), "a": N(2), "c": S("new"),
                                        "s": {"SS": ["q"]}})

    def test_return_values(self):
        base = {"a": N(1), "b": S("keep"), "c": S("gone")}
        expr = "SET a = a + :one, n = :n REMOVE c"
        vals = {":one": N(1), ":n": S("new")}
        cases = {
            "NONE": None,
            "ALL_OLD": {"a": N(1), "b": S("keep"), "c": S("gone")},
            "UPDATED_OLD": {"a": N(1), "c": S("gone")},
            "ALL_NEW": {"a": N(2), "b": S("keep"), "n": S("new")},
            "UPDATED_NEW": {"a": N(2), "n": S("new")},
        }
        for rv, want in cases.items():
            with self.subTest(rv=rv):
                pk = self.put(**base)
                r = self.upd(pk, expr, vals, ReturnValues=rv)
                if want is None:
                    self.assertNotIn("Attributes", r)
                    continue
                if rv.startswith("ALL"):
                    want = dict(want, pk=S(pk))
                self.assertEqual(r["Attributes"], want)

    def test_return_values_all_old_on_new_item(self):
        r = self.upd(_uid(), "SET a = :a", {":a": N(1)}, ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)

    def test_updated_new_nested_path(self):
        pk = self.put(m={"M": {"x": N(1), "y": N(2)}})
        r = self.upd(pk, "SET m.x = :v", {":v": N(5)}, ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"m": {"M": {"x": N(5)}}})

    def test_resource_update(self):
        t = R.Table(T)
        pk = _uid()
        r = t.update_item(Key={"pk": pk}, UpdateExpression="SET #c = if_not_exists(#c, :z) + :i",
                          ExpressionAttributeNames={"#c": "count"},
                          ExpressionAttributeValues={":z": 0, ":i": 1}, ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {"pk": pk, "count": decimal.Decimal(1)})

    # ---- update errors -----------------------------------------------------

    def test_cannot_update_key(self):
        pk = self.put()
        self.assertValidation(
            lambda: self.upd(pk, "SET pk = :v", {":v": S("other")}),
            "One or more parameter values were invalid: Cannot update attribute pk. This "
            "attribute is part of the key")

    def test_overlapping_paths(self):
        pk = self.put(a={"M": {"b": N(1)}})
        self.assertValidation(
            lambda: self.upd(pk, "SET a = :v REMOVE a.b", {":v": N(1)}),
            "Invalid UpdateExpression: Two document paths overlap with each other; must "
            "remove or rewrite one of these paths; path one: [a], path two: [a, b]")

    def test_same_path_twice(self):
        pk = self.put()
        self.assertValidation(
            lambda: self.upd(pk, "SET a = :v, a = :w", {":v": N(1), ":w": N(2)}),
            contains="Two document paths overlap with each other")

    def test_arithmetic_on_missing_attribute(self):
        pk = self.put()
        self.assertValidation(
            lambda: self.upd(pk, "SET a = a + :one", {":one": N(1)}),
            "The provided expression refers to an attribute that does not exist in the item")

    def test_arithmetic_on_string(self):
        pk = self.put(a=S("x"))
        self.assertValidation(
            lambda: self.upd(pk, "SET a = a + :one", {":one": N(1)}),
            "An operand in the update expression has an incorrect data type")

    def test_add_to_string_rejected(self):
        pk = self.put(a=S("x"))
        self.assertValidation(
            lambda: self.upd(pk, "ADD a :s", {":s": S("y")}),
            contains="Incorrect operand type for operator or function")

    def test_set_nested_in_missing_map(self):
        pk = self.put()
        self.assertValidation(
            lambda: self.upd(pk, "SET m.x = :v", {":v": N(1)}),
            "The document path provided in the update expression is invalid for update")

    def test_syntax_error(self):
        pk = self.put()
        self.assertValidation(lambda: self.upd(pk, "SET a = ", None),
                              contains=["Invalid UpdateExpression: Syntax error"])

    def test_empty_set_result_of_add_not_possible_empty_value(self):
        pk = self.put()
        self.assertValidation(
            lambda: self.upd(pk, "ADD s :e", {":e": {"SS": []}}),
            contains="may not be empty")


class ExpressionAttributeTest(Base):
    def test_unused_value(self):
        pk = self.put()
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S(pk)},
                               ConditionExpression="attribute_exists(pk)",
                               ExpressionAttributeValues={":unused": N(1)}),
            "Value provided in ExpressionAttributeValues unused in expressions: keys: "
            "{:unused}")

    def test_unused_name(self):
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S("x")}, ProjectionExpression="pk",
                               ExpressionAttributeNames={"#u": "u"}),
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}")

    def test_undefined_value(self):
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S("x")},
                               ConditionExpression="a = :missing",
                               ExpressionAttributeValues={":other": N(1)}),
            contains="An expression attribute value used in expression is not defined; "
                     "attribute value: :missing")

    def test_undefined_value_no_map(self):
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S("x")},
                               ConditionExpression="a = :missing"),
            "Invalid ConditionExpression: An expression attribute value used in expression "
            "is not defined; attribute value: :missing")

    def test_undefined_name(self):
        self.assertValidation(
            lambda: C.update_item(TableName=T, Key={"pk": S("x")},
                                  UpdateExpression="SET #missing = :v",
                                  ExpressionAttributeValues={":v": N(1)}),
            "Invalid UpdateExpression: An expression attribute name used in the document "
            "path is not defined; attribute name: #missing")

    def test_reserved_word_projection(self):
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S("x")}, ProjectionExpression="name"),
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: name")

    def test_reserved_word_update(self):
        self.assertValidation(
            lambda: C.update_item(TableName=T, Key={"pk": S("x")},
                                  UpdateExpression="SET status = :v",
                                  ExpressionAttributeValues={":v": N(1)}),
            "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved "
            "keyword: status")

    def test_reserved_word_condition(self):
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S("x")},
                               ConditionExpression="attribute_not_exists(data)"),
            "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: data")

    def test_values_without_expression(self):
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S("x")},
                               ExpressionAttributeValues={":v": N(1)}),
            contains="ExpressionAttributeValues can only be specified when using expressions")

    def test_names_without_expression(self):
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S("x")},
                               ExpressionAttributeNames={"#n": "n"}),
            contains="ExpressionAttributeNames can only be specified when using expressions")

    def test_name_with_special_characters(self):
        pk = _uid()
        C.put_item(TableName=T, Item={"pk": S(pk), "a.b": S("dotted"), "a": {"M": {"b": S("nested")}},
                                      "x-y": S("dash")})
        r = C.get_item(TableName=T, Key={"pk": S(pk)}, ProjectionExpression="#ab, a.b, #xy",
                       ExpressionAttributeNames={"#ab": "a.b", "#xy": "x-y"})
        self.assertEqual(r["Item"], {"a.b": S("dotted"), "a": {"M": {"b": S("nested")}},
                                     "x-y": S("dash")})


class FilterAndProjectionTest(Base):
    @classmethod
    def setUpClass(cls):
        cls.pk = _uid()
        with R.Table(TR).batch_writer() as bw:
            for i in range(20):
                item = {"pk": cls.pk, "sk": i, "even": i % 2 == 0,
                        "tags": {"t%d" % (i % 3)}, "info": {"n": i, "lst": [i, i + 1]}}
                if i % 5 == 0:
                    item["five"] = "yes"
                bw.put_item(Item=item)

    def qry(self, **kw):
        return C.query(TableName=TR, KeyConditionExpression="pk = :p",
                       **dict(kw, ExpressionAttributeValues=dict(
                           kw.get("ExpressionAttributeValues", {}), **{":p": S(self.pk)})))

    def test_filter_count_vs_scanned(self):
        r = self.qry(FilterExpression="even = :t", ExpressionAttributeValues={":t": {"BOOL": True}})
        self.assertEqual(r["Count"], 10)
        self.assertEqual(r["ScannedCount"], 20)
        self.assertEqual([int(i["sk"]["N"]) for i in r["Items"]], list(range(0, 20, 2)))

    def test_filter_nested_and_functions(self):
        r = self.qry(FilterExpression="info.n >= :lo AND attribute_exists(five) AND "
                                      "contains(tags, :t)",
                     ExpressionAttributeValues={":lo": N(5), ":t": S("t1")})
        self.assertEqual([int(i["sk"]["N"]) for i in r["Items"]], [10])
        self.assertEqual(r["ScannedCount"], 20)

    def test_filter_on_key_attribute_rejected_for_query(self):
        self.assertValidation(
            lambda: self.qry(FilterExpression="sk > :v", ExpressionAttributeValues={":v": N(1)}),
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: sk")

    def test_scan_filter_count_vs_scanned(self):
        r = C.scan(TableName=TR, FilterExpression="pk = :p AND info.n < :n",
                   ExpressionAttributeValues={":p": S(self.pk), ":n": N(3)})
        self.assertEqual(r["Count"], 3)
        self.assertGreaterEqual(r["ScannedCount"], 20)

    def test_projection_nested_paths(self):
        r = self.qry(ProjectionExpression="sk, info.lst[1], info.n, #t",
                     ExpressionAttributeNames={"#t": "tags"}, Limit=1)
        self.assertEqual(r["Items"], [{"sk": N(0), "info": {"M": {"n": N(0), "lst": {"L": [N(1)]}}},
                                       "tags": {"SS": ["t0"]}}])

    def test_projection_missing_paths_omitted(self):
        r = C.get_item(TableName=TR, Key={"pk": S(self.pk), "sk": N(1)},
                       ProjectionExpression="nope, info.nope, info.lst[5], sk")
        self.assertEqual(r["Item"], {"sk": N(1)})

    def test_projection_overlap_rejected(self):
        self.assertValidation(
            lambda: C.get_item(TableName=TR, Key={"pk": S(self.pk), "sk": N(1)},
                               ProjectionExpression="info, info.n"),
            contains="Invalid ProjectionExpression: Two document paths overlap with each "
                     "other; must remove or rewrite one of these paths; path one: [info], "
                     "path two: [info, n]")

    def test_resource_filter_and_projection(self):
        t = R.Table(TR)
        r = t.query(KeyConditionExpression=Key("pk").eq(self.pk) & Key("sk").lt(10),
                    FilterExpression=Attr("five").exists(), ProjectionExpression="sk, five")
        self.assertEqual(r["Items"], [{"sk": 0, "five": "yes"}, {"sk": 5, "five": "yes"}])
        self.assertEqual(r["ScannedCount"], 10)


class LegacyParametersTest(Base):
    def test_expected_value_and_exists(self):
        pk = self.put(v=S("a"))
        C.put_item(TableName=T, Item={"pk": S(pk), "v": S("b")},
                   Expected={"v": {"Value": S("a")}, "nope": {"Exists": False}})
        self.assertCCF(lambda: C.put_item(TableName=T, Item={"pk": S(pk)},
                                          Expected={"v": {"Value": S("a")}}))
        self.assertCCF(lambda: C.put_item(TableName=T, Item={"pk": S(pk)},
                                          Expected={"v": {"Exists": False}}))
        self.assertEqual(self.get(pk)["v"], S("b"))

    def test_expected_comparison_operators(self):
        pk = self.put(n=N(5), s=S("hello"))
        C.delete_item(TableName=T, Key={"pk": S(pk)}, Expected={
            "n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1), N(5)]},
            "s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("he")]},
            "x": {"ComparisonOperator": "NULL"}})
        self.assertIsNone(self.get(pk))

    def test_expected_conditional_operator_or(self):
        pk = self.put(n=N(5))
        C.put_item(TableName=T, Item={"pk": S(pk), "n": N(6)}, ConditionalOperator="OR",
                   Expected={"n": {"ComparisonOperator": "GT", "AttributeValueList": [N(100)]},
                             "pk": {"ComparisonOperator": "NOT_NULL"}})
        self.assertCCF(lambda: C.put_item(
            TableName=T, Item={"pk": S(pk)}, ConditionalOperator="AND",
            Expected={"n": {"ComparisonOperator": "GT", "AttributeValueList": [N(100)]},
                      "pk": {"ComparisonOperator": "NOT_NULL"}}))

    def test_attribute_updates(self):
        pk = self.put(n=N(1), gone=S("x"), ss={"SS": ["a", "b"]})
        r = C.update_item(TableName=T, Key={"pk": S(pk)}, ReturnValues="ALL_NEW",
                          AttributeUpdates={
                              "n": {"Action": "ADD", "Value": N(4)},
                              "gone": {"Action": "DELETE"},
                              "ss": {"Action": "DELETE", "Value": {"SS": ["a"]}},
                              "p": {"Action": "PUT", "Value": S("put")},
                              "p2": {"Value": S("default action is PUT")},
                          })
        self.assertEqual(r["Attributes"], {"pk": S(pk), "n": N(5), "ss": {"SS": ["b"]},
                                           "p": S("put"), "p2": S("default action is PUT")})

    def test_attribute_updates_with_expected(self):
        pk = self.put(v=N(1))
        self.assertCCF(lambda: C.update_item(
            TableName=T, Key={"pk": S(pk)},
            AttributeUpdates={"v": {"Action": "PUT", "Value": N(2)}},
            Expected={"v": {"ComparisonOperator": "EQ", "AttributeValueList": [N(9)]}}))

    def test_attributes_to_get(self):
        pk = self.put(a=S("1"), b=S("2"), c=S("3"))
        r = C.get_item(TableName=T, Key={"pk": S(pk)}, AttributesToGet=["a", "c", "nope"])
        self.assertEqual(r["Item"], {"a": S("1"), "c": S("3")})

    def test_key_conditions_and_query_filter(self):
        pk = _uid()
        for i in range(10):
            C.put_item(TableName=TR, Item={"pk": S(pk), "sk": N(i), "v": N(i * 10)})
        r = C.query(TableName=TR, KeyConditions={
            "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S(pk)]},
            "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(2), N(7)]}},
            QueryFilter={"v": {"ComparisonOperator": "GE", "AttributeValueList": [N(50)]}},
            AttributesToGet=["sk"])
        self.assertEqual(r["Items"], [{"sk": N(i)} for i in (5, 6, 7)])
        self.assertEqual(r["Count"], 3)
        self.assertEqual(r["ScannedCount"], 6)
        r = C.query(TableName=TR, KeyConditions={
            "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S(pk)]},
            "sk": {"ComparisonOperator": "LT", "AttributeValueList": [N(2)]}},
            ScanIndexForward=False)
        self.assertEqual([i["sk"] for i in r["Items"]], [N(1), N(0)])

    def test_key_conditions_and_query_filter_refusals(self):
        eq = lambda v: {"ComparisonOperator": "EQ", "AttributeValueList": [v]}  # noqa: E731
        self.assertValidation(
            lambda: C.query(TableName=TR, KeyConditions={"pk": eq(S("x")), "sk": eq(N(1)),
                                                         "v": eq(N(1))}),
            "Conditions can be of length 1 or 2 only")
        self.assertValidation(
            lambda: C.query(TableName=TR, KeyConditions={"pk": eq(S("x"))},
                            QueryFilter={"sk": {"ComparisonOperator": "GT",
                                                "AttributeValueList": [N(1)]}}),
            "QueryFilter can only contain non-primary key attributes: Primary key attribute: sk")

    def test_scan_filter(self):
        pk = _uid()
        for i in range(6):
            C.put_item(TableName=TR, Item={"pk": S(pk), "sk": N(i), "tag": S("t%d" % (i % 2))})
        r = C.scan(TableName=TR, ScanFilter={
            "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S(pk)]},
            "tag": {"ComparisonOperator": "IN", "AttributeValueList": [S("t1"), S("zz")]}})
        self.assertEqual(sorted(int(i["sk"]["N"]) for i in r["Items"]), [1, 3, 5])
        self.assertEqual(r["Count"], 3)

    # ---- mixing legacy and expression parameters ---------------------------

    def test_mix_query_filter_and_key_condition_expression(self):
        self.assertValidation(
            lambda: C.query(TableName=TR, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": S("x")},
                            QueryFilter={"v": {"ComparisonOperator": "NOT_NULL"}}),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {QueryFilter} Expression parameters: "
            "{KeyConditionExpression}")

    def test_mix_attributes_to_get_and_projection(self):
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S("x")}, AttributesToGet=["a"],
                               ProjectionExpression="a"),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {AttributesToGet} Expression parameters: "
            "{ProjectionExpression}")

    def test_mix_expected_and_condition_expression(self):
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S("x")},
                               Expected={"a": {"Exists": False}},
                               ConditionExpression="attribute_not_exists(a)"),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {Expected} Expression parameters: "
            "{ConditionExpression}")

    def test_mix_attribute_updates_and_update_expression(self):
        self.assertValidation(
            lambda: C.update_item(TableName=T, Key={"pk": S("x")},
                                  AttributeUpdates={"a": {"Action": "PUT", "Value": N(1)}},
                                  UpdateExpression="SET b = :v",
                                  ExpressionAttributeValues={":v": N(1)}),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {AttributeUpdates} Expression parameters: "
            "{UpdateExpression}")

    def test_mix_scan_filter_and_filter_expression(self):
        self.assertValidation(
            lambda: C.scan(TableName=T, FilterExpression="attribute_exists(a)",
                           ScanFilter={"a": {"ComparisonOperator": "NOT_NULL"}}),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {ScanFilter} Expression parameters: "
            "{FilterExpression}")


class ValidationRulesTest(Base):
    """Refusals DynamoDB makes that a permissive emulator would let through."""

    def test_redundant_parentheses(self):
        pk = self.put(v=N(1))
        for expr in ("((attribute_exists(pk)))", "((v)) = :v", "v = ((:v))"):
            kw = {"ExpressionAttributeValues": {":v": N(1)}} if ":v" in expr else {}
            self.assertValidation(
                lambda: C.put_item(TableName=T, Item={"pk": S(pk)}, ConditionExpression=expr, **kw),
                "Invalid ConditionExpression: The expression has redundant parentheses;")
        self.assertValidation(
            lambda: C.query(TableName=T, KeyConditionExpression="((pk = :p))",
                            ExpressionAttributeValues={":p": S(pk)}),
            "Invalid KeyConditionExpression: The expression has redundant parentheses;")
        # One pair is fine.
        C.put_item(TableName=T, Item={"pk": S(pk)}, ConditionExpression="(attribute_exists(pk))")

    def test_ordering_a_literal_that_cannot_be_ordered(self):
        pk = self.put(v=N(1))
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S(pk)}, ConditionExpression="v > :b",
                               ExpressionAttributeValues={":b": {"BOOL": True}}),
            "Invalid ConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: >, operand type: BOOL")
        self.assertValidation(
            lambda: C.scan(TableName=T, FilterExpression="v BETWEEN :a AND :b",
                           ExpressionAttributeValues={":a": {"NULL": True}, ":b": {"NULL": True}}),
            contains="operator or function: BETWEEN, operand type: NULL")
        self.assertEqual(self.get(pk)["v"], N(1))

    def test_conditional_operator_rules(self):
        pk = self.put(v=N(1))
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S(pk)}, ConditionalOperator="AND"),
            "ConditionalOperator cannot be used without Filter or Expected")
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S(pk)}, ConditionalOperator="OR",
                               Expected={"v": {"Value": N(1)}}),
            "ConditionalOperator can only be used when Filter or Expected has two or more "
            "elements")
        self.assertValidation(
            lambda: C.scan(TableName=T, ConditionalOperator="OR"),
            "ConditionalOperator cannot be used without Filter or Expected")
        self.assertValidation(
            lambda: C.scan(TableName=T, ConditionalOperator="OR",
                           ScanFilter={"v": {"ComparisonOperator": "NOT_NULL"}}),
            "ConditionalOperator can only be used when Filter or Expected has two or more "
            "elements")
        # Beside an expression it is a legacy parameter: refused, and nothing is deleted.
        self.assertValidation(
            lambda: C.delete_item(TableName=T, Key={"pk": S(pk)}, ConditionalOperator="AND",
                                  ConditionExpression="attribute_exists(pk)"),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {ConditionalOperator} Expression parameters: "
            "{ConditionExpression}")
        self.assertIsNotNone(self.get(pk))

    def test_key_conditions_with_filter_and_projection_expressions(self):
        pk = _uid()
        for i in range(4):
            C.put_item(TableName=TR, Item={"pk": S(pk), "sk": N(i), "v": N(i)})
        r = C.query(TableName=TR,
                    KeyConditions={"pk": {"ComparisonOperator": "EQ",
                                          "AttributeValueList": [S(pk)]}},
                    FilterExpression="v >= :two", ProjectionExpression="sk",
                    ExpressionAttributeValues={":two": N(2)})
        self.assertEqual(r["Items"], [{"sk": N(2)}, {"sk": N(3)}])

    def test_nested_access_into_a_key_attribute(self):
        pk = self.put(v=N(1))
        msg = ("Key attributes must be scalars; list random access '[]' and map lookup '.' are "
               "not allowed: Key: pk")
        self.assertValidation(lambda: C.get_item(TableName=T, Key={"pk": S(pk)},
                                                 ProjectionExpression="pk[0]"), msg)
        self.assertValidation(lambda: C.put_item(TableName=T, Item={"pk": S(pk)},
                                                 ConditionExpression="pk.a = :v",
                                                 ExpressionAttributeValues={":v": N(1)}), msg)
        self.assertValidation(lambda: C.query(TableName=T, KeyConditionExpression="pk = :p",
                                              FilterExpression="pk.a = :v",
                                              ExpressionAttributeValues={":p": S(pk),
                                                                         ":v": N(1)}), msg)
        # Transactions and batch reads check the same, before doing anything.
        self.assertValidation(lambda: C.transact_write_items(TransactItems=[
            {"ConditionCheck": {"TableName": T, "Key": {"pk": S(pk)},
                                "ConditionExpression": "pk.a = :v",
                                "ExpressionAttributeValues": {":v": N(1)}}},
            {"Put": {"TableName": T, "Item": {"pk": S(pk + "-other")}}}]), msg)
        self.assertIsNone(self.get(pk + "-other"))
        self.assertValidation(lambda: C.transact_get_items(TransactItems=[
            {"Get": {"TableName": T, "Key": {"pk": S(pk)}, "ProjectionExpression": "v, pk.x"}}]),
            msg)
        self.assertValidation(lambda: C.batch_get_item(RequestItems={
            T: {"Keys": [{"pk": S(pk)}], "ProjectionExpression": "pk.x"}}), msg)
        # The first key attribute written is the one named.
        self.assertValidation(
            lambda: C.query(TableName=TR, KeyConditionExpression="pk = :p",
                            FilterExpression="sk.b = :v AND pk.a = :v",
                            ExpressionAttributeValues={":p": S(pk), ":v": N(1)}),
            msg.replace("Key: pk", "Key: sk"))

    def test_duplicate_attributes_to_get(self):
        pk = self.put(v=N(1))
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S(pk)}, AttributesToGet=["v", "v"]),
            "One or more parameter values were invalid: Duplicate value in attribute name: v")

    def test_request_errors_come_before_a_missing_table(self):
        self.assertValidation(
            lambda: C.update_item(TableName="no-such-table", Key={"pk": S("x")},
                                  UpdateExpression="SET"),
            contains="Invalid UpdateExpression: Syntax error")
        self.assertValidation(
            lambda: C.get_item(TableName="no-such-table", Key={"pk": S("x")},
                               ProjectionExpression="a, a.b"),
            contains="Two document paths overlap")

    def test_expected_operator_types(self):
        pk = self.put(v=N(1))
        self.assertValidation(
            lambda: C.put_item(TableName=T, Item={"pk": S(pk)}, Expected={
                "v": {"ComparisonOperator": "LT", "AttributeValueList": [{"BOOL": True}]}}),
            "One or more parameter values were invalid: ComparisonOperator LT is not valid for "
            "BOOL AttributeValue type")

    def test_expression_map_entries(self):
        pk = self.put(v=N(1))
        long_name = "#" + "a" * 255
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S(pk)}, ProjectionExpression=long_name,
                               ExpressionAttributeNames={long_name: "v"}),
            "ExpressionAttributeNames contains invalid key: The expression attribute map "
            "contains a key that is too long; size of key: 256")
        self.assertValidation(
            lambda: C.get_item(TableName=T, Key={"pk": S(pk)}, ProjectionExpression="#a",
                               ExpressionAttributeNames={"#a": ""}),
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a")
        bad = harness.client(validate=False)
        self.assertValidation(
            lambda: bad.put_item(TableName=T, Item={"pk": S(pk)}, ConditionExpression="v = :v",
                                 ExpressionAttributeValues={":v": {}}),
            "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, "
            "must contain exactly one of the supported datatypes for key :v")


if __name__ == "__main__":
    unittest.main()
