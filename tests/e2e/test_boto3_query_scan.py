"""Query and Scan e2e tests via boto3 client and resource.

Asserts real Amazon DynamoDB behaviour (API reference Query/Scan, developer
guide "Query", "Scan", "Key condition expressions", "Parallel scan").
Run standalone: python3 tests/e2e/test_boto3_query_scan.py

Known moto 5.x deviations from the AWS docs (these tests fail on moto, on
purpose): numbers are not normalised; no LastEvaluatedKey when Limit ends
exactly at the last item; Select=COUNT still returns Items on Scan; several
KeyConditionExpression validations missing or answered with HTTP 500 (OR,
begins_with on N, key type mismatch, COUNT + ProjectionExpression); "no key
condition" message differs.
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
NUM = None   # pk S, sk N
STR = None   # pk S, sk S
BIN = None   # pk S, sk B
SCAN = None  # pk S (hash only), scanned as a whole

NUM_KEYS = ["-1E+3", "-100", "-10.5", "-1", "-0.5", "0", "0.25", "1", "2", "10", "100",
            "1E+10", "123.456"]
# Sort keys that order differently by UTF-8 bytes than by UTF-16 code units
# or by case-insensitive collation.
STR_KEYS = ["a", "B", "Z", "z", "ab", "abc", "b", "\u00e9", "\uff5e", "\U0001F600", " ",
            "A", "a-1", "a_1", "~"]
BIN_KEYS = [b"\x00", b"\x01", b"\x7f", b"\x80", b"\xff", b"\x00\x00", b"\x80\x01", b"a"]
OPS_KEYS = ["a1", "a2", "a3", "b1", "b2", "ba", "bb", "c1", "c2"]
N_MANY = 57
N_SCAN = 80


def setUpModule():
    global C, R, NUM, STR, BIN, SCAN
    harness.start()
    C = harness.client()
    R = harness.resource()
    NUM = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "N"))
    STR = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "S"))
    BIN = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "B"))
    SCAN = harness.create_table(C, hash_key=("pk", "S"))
    t_num, t_str, t_bin, t_scan = (R.Table(n) for n in (NUM, STR, BIN, SCAN))
    with t_num.batch_writer() as bw:
        for k in NUM_KEYS:
            bw.put_item(Item={"pk": "nums", "sk": decimal.Decimal(k), "v": k})
        for i in range(N_MANY):
            bw.put_item(Item={"pk": "many", "sk": i, "odd": i % 2 == 1, "pad": "x" * 100})
        for i in range(5):
            bw.put_item(Item={"pk": "other", "sk": i})
    with t_str.batch_writer() as bw:
        for k in STR_KEYS:
            bw.put_item(Item={"pk": "strs", "sk": k})
        for k in OPS_KEYS:
            bw.put_item(Item={"pk": "ops", "sk": k, "data": "d-" + k})
    with t_bin.batch_writer() as bw:
        for k in BIN_KEYS:
            bw.put_item(Item={"pk": "bins", "sk": k})
    with t_scan.batch_writer() as bw:
        for i in range(N_SCAN):
            bw.put_item(Item={"pk": "item-%03d" % i, "n": i})


def tearDownModule():
    try:
        for t in (NUM, STR, BIN, SCAN):
            if t:
                C.delete_table(TableName=t)
    finally:
        harness.stop()


def utf8_sorted(keys):
    return sorted(keys, key=lambda s: s.encode("utf-8"))


def q(table, **kw):
    return C.query(TableName=table, **kw)


def sks(resp, typ):
    return [it["sk"][typ] for it in resp["Items"]]


class KeyConditionTest(unittest.TestCase):
    def ops(self, expr, values, forward=True):
        vals = {":p": {"S": "ops"}}
        vals.update({k: {"S": v} for k, v in values.items()})
        names = {"#p": "pk"}
        if "#s" in expr:
            names["#s"] = "sk"
        r = q(STR, KeyConditionExpression=expr,
              ExpressionAttributeNames=names,
              ExpressionAttributeValues=vals, ScanIndexForward=forward)
        self.assertEqual(r["Count"], len(r["Items"]))
        self.assertEqual(r["ScannedCount"], r["Count"])
        return sks(r, "S")

    def test_partition_only(self):
        self.assertEqual(self.ops("#p = :p", {}), OPS_KEYS)

    def test_eq(self):
        self.assertEqual(self.ops("#p = :p AND #s = :v", {":v": "b2"}), ["b2"])

    def test_lt(self):
        self.assertEqual(self.ops("#p = :p AND #s < :v", {":v": "b1"}), ["a1", "a2", "a3"])

    def test_le(self):
        self.assertEqual(self.ops("#p = :p AND #s <= :v", {":v": "b1"}),
                         ["a1", "a2", "a3", "b1"])

    def test_gt(self):
        self.assertEqual(self.ops("#p = :p AND #s > :v", {":v": "bb"}), ["c1", "c2"])

    def test_ge(self):
        self.assertEqual(self.ops("#p = :p AND #s >= :v", {":v": "bb"}), ["bb", "c1", "c2"])

    def test_between_inclusive(self):
        self.assertEqual(self.ops("#p = :p AND #s BETWEEN :lo AND :hi",
                                  {":lo": "a2", ":hi": "b2"}), ["a2", "a3", "b1", "b2"])

    def test_begins_with(self):
        self.assertEqual(self.ops("#p = :p AND begins_with(#s, :v)", {":v": "b"}),
                         ["b1", "b2", "ba", "bb"])

    def test_begins_with_descending(self):
        self.assertEqual(self.ops("#p = :p AND begins_with(#s, :v)", {":v": "b"},
                                  forward=False), ["bb", "ba", "b2", "b1"])

    def test_unused_name_rejected(self):
        with self.assertRaises(ClientError) as cm:
            q(STR, KeyConditionExpression="#p = :p",
              ExpressionAttributeNames={"#p": "pk", "#s": "sk"},
              ExpressionAttributeValues={":p": {"S": "ops"}})
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException")
        self.assertEqual(msg, "Value provided in ExpressionAttributeNames unused in "
                              "expressions: keys: {#s}")

    def test_no_names_needed(self):
        r = q(STR, KeyConditionExpression="pk = :p AND sk > :v",
              ExpressionAttributeValues={":p": {"S": "ops"}, ":v": {"S": "c1"}})
        self.assertEqual(sks(r, "S"), ["c2"])

    def test_parenthesised(self):
        self.assertEqual(self.ops("(#p = :p) AND (#s < :v)", {":v": "a2"}), ["a1"])

    def test_no_match(self):
        self.assertEqual(self.ops("#p = :p AND #s > :v", {":v": "zzz"}), [])
        r = q(STR, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "no-such-partition"}})
        self.assertEqual(r["Items"], [])
        self.assertEqual(r["Count"], 0)
        self.assertEqual(r["ScannedCount"], 0)
        self.assertNotIn("LastEvaluatedKey", r)

    def test_scan_index_forward_false(self):
        self.assertEqual(self.ops("#p = :p", {}, forward=False), OPS_KEYS[::-1])

    def test_resource_key_conditions(self):
        t = R.Table(STR)
        cases = [
            (Key("pk").eq("ops") & Key("sk").eq("a1"), ["a1"]),
            (Key("pk").eq("ops") & Key("sk").lt("a3"), ["a1", "a2"]),
            (Key("pk").eq("ops") & Key("sk").lte("a3"), ["a1", "a2", "a3"]),
            (Key("pk").eq("ops") & Key("sk").gt("c1"), ["c2"]),
            (Key("pk").eq("ops") & Key("sk").gte("c1"), ["c1", "c2"]),
            (Key("pk").eq("ops") & Key("sk").between("b2", "bb"), ["b2", "ba", "bb"]),
            (Key("pk").eq("ops") & Key("sk").begins_with("a"), ["a1", "a2", "a3"]),
        ]
        for cond, want in cases:
            got = [it["sk"] for it in t.query(KeyConditionExpression=cond)["Items"]]
            self.assertEqual(got, want, cond.get_expression())

    def test_resource_query_with_filter_and_projection(self):
        t = R.Table(STR)
        r = t.query(KeyConditionExpression=Key("pk").eq("ops"),
                    FilterExpression=Attr("data").begins_with("d-b"),
                    ProjectionExpression="sk")
        self.assertEqual(r["Items"], [{"sk": s} for s in ("b1", "b2", "ba", "bb")])
        self.assertEqual(r["ScannedCount"], len(OPS_KEYS))
        self.assertEqual(r["Count"], 4)


class SortOrderTest(unittest.TestCase):
    def test_numeric_order_with_negatives_and_decimals(self):
        r = q(NUM, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "nums"}})
        got = [decimal.Decimal(x) for x in sks(r, "N")]
        want = sorted(decimal.Decimal(k) for k in NUM_KEYS)
        self.assertEqual(got, want)
        # Numbers come back normalised.
        self.assertIn("-1000", sks(r, "N"))
        self.assertIn("10000000000", sks(r, "N"))

    def test_numeric_order_descending(self):
        r = q(NUM, KeyConditionExpression="pk = :p", ScanIndexForward=False,
              ExpressionAttributeValues={":p": {"S": "nums"}})
        got = [decimal.Decimal(x) for x in sks(r, "N")]
        self.assertEqual(got, sorted((decimal.Decimal(k) for k in NUM_KEYS), reverse=True))

    def test_numeric_range_conditions(self):
        r = q(NUM, KeyConditionExpression="pk = :p AND sk BETWEEN :lo AND :hi",
              ExpressionAttributeValues={":p": {"S": "nums"}, ":lo": {"N": "-10.5"},
                                         ":hi": {"N": "0.25"}})
        self.assertEqual(sks(r, "N"), ["-10.5", "-1", "-0.5", "0", "0.25"])
        r = q(NUM, KeyConditionExpression="pk = :p AND sk < :v",
              ExpressionAttributeValues={":p": {"S": "nums"}, ":v": {"N": "-1"}})
        self.assertEqual(sks(r, "N"), ["-1000", "-100", "-10.5"])
        r = q(NUM, KeyConditionExpression="pk = :p AND sk >= :v",
              ExpressionAttributeValues={":p": {"S": "nums"}, ":v": {"N": "1.0E2"}})
        self.assertEqual(sks(r, "N"), ["100", "123.456", "10000000000"])

    def test_string_order_is_utf8_bytes(self):
        r = q(STR, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "strs"}})
        self.assertEqual(sks(r, "S"), utf8_sorted(STR_KEYS))
        # U+FF5E (EF BD 9E) sorts before U+1F600 (F0 9F 98 80) in UTF-8, unlike
        # in UTF-16 where the surrogate pair D83D... comes first.
        got = sks(r, "S")
        self.assertLess(got.index("\uff5e"), got.index("\U0001F600"))
        self.assertLess(got.index("Z"), got.index("a"))

    def test_string_begins_with_multibyte(self):
        r = q(STR, KeyConditionExpression="pk = :p AND begins_with(sk, :v)",
              ExpressionAttributeValues={":p": {"S": "strs"}, ":v": {"S": "a"}})
        self.assertEqual(sks(r, "S"), utf8_sorted(["a", "ab", "abc", "a-1", "a_1"]))

    def test_binary_order_unsigned_bytes(self):
        r = q(BIN, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "bins"}})
        self.assertEqual(sks(r, "B"), sorted(BIN_KEYS))

    def test_binary_range(self):
        r = q(BIN, KeyConditionExpression="pk = :p AND sk > :v",
              ExpressionAttributeValues={":p": {"S": "bins"}, ":v": {"B": b"\x7f"}})
        self.assertEqual(sks(r, "B"), [b"\x80", b"\x80\x01", b"\xff"])
        r = q(BIN, KeyConditionExpression="pk = :p AND begins_with(sk, :v)",
              ExpressionAttributeValues={":p": {"S": "bins"}, ":v": {"B": b"\x00"}})
        self.assertEqual(sks(r, "B"), [b"\x00", b"\x00\x00"])


class QueryPaginationTest(unittest.TestCase):
    def test_limit_and_last_evaluated_key(self):
        seen, start, pages = [], None, 0
        while True:
            kw = {"Limit": 10}
            if start:
                kw["ExclusiveStartKey"] = start
            r = q(NUM, KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "many"}}, **kw)
            pages += 1
            self.assertLessEqual(r["Count"], 10)
            seen += [int(x) for x in sks(r, "N")]
            start = r.get("LastEvaluatedKey")
            if start:
                # LastEvaluatedKey holds exactly the table's key attributes of
                # the last returned item.
                self.assertEqual(set(start), {"pk", "sk"})
                self.assertEqual(start["sk"], r["Items"][-1]["sk"])
            else:
                break
            self.assertLess(pages, 100)
        self.assertEqual(seen, list(range(N_MANY)))
        self.assertEqual(pages, 6)

    def test_limit_descending(self):
        r = q(NUM, KeyConditionExpression="pk = :p", ScanIndexForward=False, Limit=3,
              ExpressionAttributeValues={":p": {"S": "many"}})
        self.assertEqual(sks(r, "N"), [str(N_MANY - 1), str(N_MANY - 2), str(N_MANY - 3)])
        r2 = q(NUM, KeyConditionExpression="pk = :p", ScanIndexForward=False, Limit=3,
               ExclusiveStartKey=r["LastEvaluatedKey"],
               ExpressionAttributeValues={":p": {"S": "many"}})
        self.assertEqual(sks(r2, "N"), [str(N_MANY - 4), str(N_MANY - 5), str(N_MANY - 6)])

    def test_limit_equal_to_remaining_still_returns_key(self):
        # When Limit stops evaluation DynamoDB returns LastEvaluatedKey even if
        # nothing is left; the next page is then empty.
        r = q(NUM, KeyConditionExpression="pk = :p", Limit=5,
              ExpressionAttributeValues={":p": {"S": "other"}})
        self.assertEqual(r["Count"], 5)
        self.assertIn("LastEvaluatedKey", r)
        r2 = q(NUM, KeyConditionExpression="pk = :p", Limit=5,
               ExclusiveStartKey=r["LastEvaluatedKey"],
               ExpressionAttributeValues={":p": {"S": "other"}})
        self.assertEqual(r2["Count"], 0)
        self.assertNotIn("LastEvaluatedKey", r2)

    def test_paginator_many_pages(self):
        pages = list(C.get_paginator("query").paginate(
            TableName=NUM, KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "many"}},
            PaginationConfig={"PageSize": 4}))
        self.assertGreaterEqual(len(pages), 15)
        got = [int(it["sk"]["N"]) for p in pages for it in p["Items"]]
        self.assertEqual(got, list(range(N_MANY)))
        for p in pages:
            self.assertLessEqual(len(p["Items"]), 4)

    def test_paginator_resource_style_key(self):
        # The paginator works with a boto3.dynamodb.conditions expression via
        # the resource-level client's serializer-aware paginate.
        t = R.Table(NUM)
        items, kw = [], {"KeyConditionExpression": Key("pk").eq("many") & Key("sk").gte(50),
                         "Limit": 2}
        while True:
            r = t.query(**kw)
            items += r["Items"]
            if "LastEvaluatedKey" not in r:
                break
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]
        self.assertEqual([int(i["sk"]) for i in items], list(range(50, N_MANY)))

    def test_select_count(self):
        r = q(NUM, KeyConditionExpression="pk = :p", Select="COUNT",
              ExpressionAttributeValues={":p": {"S": "many"}})
        self.assertNotIn("Items", r)
        self.assertEqual(r["Count"], N_MANY)
        self.assertEqual(r["ScannedCount"], N_MANY)

    def test_select_count_with_filter(self):
        r = q(NUM, KeyConditionExpression="pk = :p", Select="COUNT",
              FilterExpression="odd = :t",
              ExpressionAttributeValues={":p": {"S": "many"}, ":t": {"BOOL": True}})
        self.assertNotIn("Items", r)
        self.assertEqual(r["Count"], N_MANY // 2)
        self.assertEqual(r["ScannedCount"], N_MANY)

    def test_limit_counts_scanned_items_before_filter(self):
        # Limit caps the number of items evaluated, not the number matched.
        r = q(NUM, KeyConditionExpression="pk = :p", Limit=10,
              FilterExpression="odd = :t",
              ExpressionAttributeValues={":p": {"S": "many"}, ":t": {"BOOL": True}})
        self.assertEqual(r["ScannedCount"], 10)
        self.assertEqual(r["Count"], 5)
        self.assertEqual(r["LastEvaluatedKey"]["sk"], {"N": "9"})

    def test_select_all_attributes_and_specific(self):
        r = q(STR, KeyConditionExpression="pk = :p AND sk = :s",
              Select="ALL_ATTRIBUTES",
              ExpressionAttributeValues={":p": {"S": "ops"}, ":s": {"S": "a1"}})
        self.assertEqual(r["Items"], [{"pk": {"S": "ops"}, "sk": {"S": "a1"},
                                       "data": {"S": "d-a1"}}])
        r = q(STR, KeyConditionExpression="pk = :p AND sk = :s",
              Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="#d",
              ExpressionAttributeNames={"#d": "data"},
              ExpressionAttributeValues={":p": {"S": "ops"}, ":s": {"S": "a1"}})
        self.assertEqual(r["Items"], [{"data": {"S": "d-a1"}}])


class QueryValidationTest(unittest.TestCase):
    def assertValidation(self, fn, *contains):
        with self.assertRaises(ClientError) as cm:
            fn()
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException", msg)
        for c in contains:
            self.assertIn(c, msg)
        return msg

    def test_missing_partition_key_condition(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="sk = :v",
                      ExpressionAttributeValues={":v": {"N": "1"}}),
            "Query condition missed key schema element: pk")

    def test_partition_key_must_use_equality(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="pk > :v",
                      ExpressionAttributeValues={":v": {"S": "a"}}),
            "Query key condition not supported")

    def test_wrong_value_type_for_key(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="pk = :p AND sk = :v",
                      ExpressionAttributeValues={":p": {"S": "a"}, ":v": {"S": "x"}}),
            "One or more parameter values were invalid: Condition parameter type does not "
            "match schema type")

    def test_begins_with_on_number_sort_key(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="pk = :p AND begins_with(sk, :v)",
                      ExpressionAttributeValues={":p": {"S": "a"}, ":v": {"N": "1"}}),
            "begins_with")

    def test_or_not_allowed(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="pk = :p OR sk = :v",
                      ExpressionAttributeValues={":p": {"S": "a"}, ":v": {"N": "1"}}),
            "Invalid operator used in KeyConditionExpression: OR")

    def test_no_key_condition(self):
        self.assertValidation(
            lambda: C.query(TableName=NUM),
            "Either the KeyConditions or KeyConditionExpression parameter must be specified "
            "in the request.")

    def test_empty_key_values_rejected(self):
        for expr, values, key in (
                ("pk = :p", {":p": {"S": ""}}, "pk"),
                ("pk = :p AND sk = :s", {":p": {"S": "strs"}, ":s": {"S": ""}}, "sk"),
                ("pk = :p AND begins_with(sk, :s)", {":p": {"S": "strs"}, ":s": {"S": ""}}, "sk")):
            self.assertValidation(
                lambda: q(STR, KeyConditionExpression=expr, ExpressionAttributeValues=values),
                "One or more parameter values are not valid. The AttributeValue for a key "
                "attribute cannot contain an empty string value. Key: " + key)

    def test_select_count_with_projection_rejected(self):
        self.assertValidation(
            lambda: q(NUM, KeyConditionExpression="pk = :p", Select="COUNT",
                      ProjectionExpression="sk",
                      ExpressionAttributeValues={":p": {"S": "a"}}),
            "Cannot specify the ProjectionExpression when choosing to get only the Count")


class ScanTest(unittest.TestCase):
    ALL = {"item-%03d" % i for i in range(N_SCAN)}

    def test_scan_all(self):
        r = C.scan(TableName=SCAN)
        self.assertEqual({it["pk"]["S"] for it in r["Items"]}, self.ALL)
        self.assertEqual(r["Count"], N_SCAN)
        self.assertEqual(r["ScannedCount"], N_SCAN)
        self.assertNotIn("LastEvaluatedKey", r)

    def test_scan_limit_pagination(self):
        seen, start, pages = [], None, 0
        while True:
            kw = {"Limit": 9}
            if start:
                kw["ExclusiveStartKey"] = start
            r = C.scan(TableName=SCAN, **kw)
            pages += 1
            self.assertLessEqual(len(r["Items"]), 9)
            seen += [it["pk"]["S"] for it in r["Items"]]
            start = r.get("LastEvaluatedKey")
            if not start:
                break
            self.assertEqual(set(start), {"pk"})
            self.assertLess(pages, 100)
        self.assertEqual(len(seen), len(set(seen)))
        self.assertEqual(set(seen), self.ALL)
        self.assertGreaterEqual(pages, 9)

    def test_scan_select_count(self):
        r = C.scan(TableName=SCAN, Select="COUNT")
        self.assertNotIn("Items", r)
        self.assertEqual(r["Count"], N_SCAN)

    def test_scan_filter_count_vs_scanned(self):
        r = C.scan(TableName=SCAN, FilterExpression="n < :v",
                   ExpressionAttributeValues={":v": {"N": "10"}})
        self.assertEqual(r["Count"], 10)
        self.assertEqual(r["ScannedCount"], N_SCAN)

    def parallel(self, total, limit=None):
        segs = []
        for seg in range(total):
            keys, start = [], None
            while True:
                kw = {"Segment": seg, "TotalSegments": total}
                if limit:
                    kw["Limit"] = limit
                if start:
                    kw["ExclusiveStartKey"] = start
                r = C.scan(TableName=SCAN, **kw)
                keys += [it["pk"]["S"] for it in r["Items"]]
                start = r.get("LastEvaluatedKey")
                if not start:
                    break
            segs.append(keys)
        return segs

    def check_partition(self, segs):
        flat = [k for s in segs for k in s]
        self.assertEqual(len(flat), len(set(flat)), "segments overlap")
        self.assertEqual(set(flat), self.ALL, "segments incomplete")

    def test_parallel_scan_disjoint_and_complete(self):
        for total in (1, 2, 3, 4, 7):
            self.check_partition(self.parallel(total))

    def test_parallel_scan_with_limit(self):
        self.check_partition(self.parallel(4, limit=5))

    def test_parallel_scan_many_segments(self):
        # More segments than items: every item still appears exactly once.
        self.check_partition(self.parallel(100))

    def test_start_key_of_another_segment_rejected(self):
        # A worker handed the wrong segment's key must not silently finish early.
        first = C.scan(TableName=SCAN, Segment=3, TotalSegments=4, Limit=1)
        start = first["LastEvaluatedKey"]
        with self.assertRaises(ClientError) as cm:
            C.scan(TableName=SCAN, Segment=0, TotalSegments=4, ExclusiveStartKey=start)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException")
        self.assertEqual(msg, "The provided starting key is invalid: Invalid ExclusiveStartKey. "
                              "Please use ExclusiveStartKey with correct Segment. "
                              "TotalSegments: 4 Segment: 0")
        # The right segment accepts it.
        C.scan(TableName=SCAN, Segment=3, TotalSegments=4, ExclusiveStartKey=start)

    def test_segment_out_of_range(self):
        with self.assertRaises(ClientError) as cm:
            C.scan(TableName=SCAN, Segment=4, TotalSegments=4)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException")
        self.assertIn("The Segment parameter is zero-based and must be less than parameter "
                      "TotalSegments: Segment: 4 is not less than TotalSegments: 4", msg)

    def test_segment_without_total(self):
        with self.assertRaises(ClientError) as cm:
            C.scan(TableName=SCAN, Segment=0)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException")
        self.assertIn("The TotalSegments parameter is required but was not present in the "
                      "request when Segment parameter is present", msg)

    def test_scan_paginator(self):
        pages = list(C.get_paginator("scan").paginate(
            TableName=SCAN, PaginationConfig={"PageSize": 11}))
        got = [it["pk"]["S"] for p in pages for it in p["Items"]]
        self.assertEqual(len(got), N_SCAN)
        self.assertEqual(set(got), self.ALL)
        self.assertGreaterEqual(len(pages), 8)

    def test_resource_scan(self):
        t = R.Table(SCAN)
        r = t.scan(FilterExpression=Attr("n").between(5, 9))
        self.assertEqual(sorted(int(i["n"]) for i in r["Items"]), [5, 6, 7, 8, 9])
        self.assertEqual(r["ScannedCount"], N_SCAN)


class OneMegabyteLimitTest(unittest.TestCase):
    """A single Query/Scan response holds at most 1 MB of data."""

    @classmethod
    def setUpClass(cls):
        cls.table = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "N"))
        with R.Table(cls.table).batch_writer() as bw:
            for i in range(200):
                bw.put_item(Item={"pk": "big", "sk": i, "pad": "p" * 10000})

    @classmethod
    def tearDownClass(cls):
        C.delete_table(TableName=cls.table)

    def test_query_pages_at_1mb(self):
        r = q(self.table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "big"}})
        self.assertIn("LastEvaluatedKey", r)
        self.assertLess(r["Count"], 200)
        self.assertGreater(r["Count"], 50)
        total = r["Count"]
        while "LastEvaluatedKey" in r:
            r = q(self.table, KeyConditionExpression="pk = :p",
                  ExclusiveStartKey=r["LastEvaluatedKey"],
                  ExpressionAttributeValues={":p": {"S": "big"}})
            total += r["Count"]
        self.assertEqual(total, 200)

    def test_scan_pages_at_1mb(self):
        r = C.scan(TableName=self.table, Select="COUNT")
        self.assertIn("LastEvaluatedKey", r)
        self.assertLess(r["ScannedCount"], 200)


if __name__ == "__main__":
    unittest.main()
