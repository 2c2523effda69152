"""PutItem / GetItem / DeleteItem e2e tests via boto3 client and resource.

Asserts real Amazon DynamoDB behaviour (API reference PutItem/GetItem/
DeleteItem, developer guide "Supported data types", "Service quotas").
Run standalone: python3 tests/e2e/test_boto3_items.py

Known moto 5.x deviations from the AWS docs (these tests fail on moto, on
purpose): numbers are stored verbatim (no normalisation, no 38-digit /
overflow checks, "1" and "1.0" not duplicates); no set validation (empty BS,
duplicates); empty key messages use old wording; GetItem/DeleteItem key
mismatches say "Validation Exception" or pass; item size is over-counted (a
409600-byte item is rejected); multi-typed AttributeValue accepted.
"""

import decimal
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from boto3.dynamodb.types import Binary  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
R = None
HASH = None     # table: pk (S)
COMP = None     # table: pk (S), sk (N)
BIN = None      # table: b (B)


def setUpModule():
    global C, R, HASH, COMP, BIN
    harness.start()
    C = harness.client()
    R = harness.resource()
    HASH = harness.create_table(C, hash_key=("pk", "S"))
    COMP = harness.create_table(C, hash_key=("pk", "S"), range_key=("sk", "N"))
    BIN = harness.create_table(C, hash_key=("b", "B"))


def tearDownModule():
    try:
        for t in (HASH, COMP, BIN):
            if t:
                C.delete_table(TableName=t)
    finally:
        harness.stop()


def _uid():
    return harness.table_name("k")


class ItemsTestBase(unittest.TestCase):
    def assertError(self, fn, code, message=None, contains=()):
        with self.assertRaises(ClientError) as cm:
            fn()
        got_code, msg = harness.error_of(cm.exception)
        self.assertEqual(got_code, code, msg)
        if message is not None:
            self.assertEqual(msg, message)
        if isinstance(contains, str):
            contains = [contains]
        for c in contains:
            self.assertIn(c, msg)
        return cm.exception


class RoundTripTest(ItemsTestBase):
    def test_all_ten_types(self):
        pk = _uid()
        item = {
            "pk": {"S": pk},
            "s": {"S": "hello ☃ 😀"},
            "n": {"N": "42"},
            "b": {"B": b"\x00\x01\xfe\xff"},
            "ss": {"SS": ["a", "b", "c"]},
            "ns": {"NS": ["1", "2.5", "-3"]},
            "bs": {"BS": [b"\x01", b"\x02\x03"]},
            "m": {"M": {"x": {"S": "y"}, "inner": {"M": {"z": {"N": "1"}}}}},
            "l": {"L": [{"S": "a"}, {"N": "1"}, {"NULL": True}, {"L": [{"BOOL": False}]}]},
            "null": {"NULL": True},
            "t": {"BOOL": True},
            "f": {"BOOL": False},
            "empty_s": {"S": ""},
            "empty_b": {"B": b""},
            "empty_l": {"L": []},
            "empty_m": {"M": {}},
        }
        resp = C.put_item(TableName=HASH, Item=item)
        self.assertNotIn("Attributes", resp)
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        # Sets are unordered: compare as sets.
        for k in ("ss", "ns", "bs"):
            t = list(item[k])[0]
            self.assertEqual(set(got[k][t]), set(item[k][t]), k)
        rest = {k: v for k, v in item.items() if k not in ("ss", "ns", "bs")}
        self.assertEqual({k: v for k, v in got.items() if k not in ("ss", "ns", "bs")}, rest)
        self.assertEqual(set(got), set(item))

    def test_put_overwrites_whole_item(self):
        pk = _uid()
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "a": {"S": "1"}, "b": {"S": "2"}})
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "c": {"S": "3"}})
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        self.assertEqual(got, {"pk": {"S": pk}, "c": {"S": "3"}})

    def test_put_return_values_all_old(self):
        pk = _uid()
        r = C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "v": {"N": "1"}},
                       ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)
        r = C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "v": {"N": "2"}},
                       ReturnValues="ALL_OLD")
        self.assertEqual(r["Attributes"], {"pk": {"S": pk}, "v": {"N": "1"}})

    def test_put_return_values_invalid_for_put(self):
        # PutItem only supports NONE and ALL_OLD.
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()}},
                               ReturnValues="ALL_NEW"),
            "ValidationException", contains="ReturnValues can only be ALL_OLD or NONE")

    def test_number_normalisation(self):
        pk = _uid()
        cases = {
            "a": ("01.500", "1.5"),
            "b": ("1E+2", "100"),
            "c": ("-0.0100", "-0.01"),
            "d": ("0", "0"),
            "e": ("1.0", "1"),
            "f": ("123456789012345678901234567890123456.78",
                  "123456789012345678901234567890123456.78"),
            "g": ("5e-3", "0.005"),
            "i": ("00100", "100"),
        }
        item = {"pk": {"S": pk}}
        for k, (given, _) in cases.items():
            item[k] = {"N": given}
        item["ns"] = {"NS": ["01.0", "2E0", "3.50"]}
        item["nested"] = {"M": {"x": {"N": "1.000"}}, }
        item["list"] = {"L": [{"N": "0010"}]}
        C.put_item(TableName=HASH, Item=item)
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        for k, (_, want) in cases.items():
            self.assertEqual(got[k], {"N": want}, k)
        self.assertEqual(set(got["ns"]["NS"]), {"1", "2", "3.5"})
        self.assertEqual(got["nested"], {"M": {"x": {"N": "1"}}})
        self.assertEqual(got["list"], {"L": [{"N": "10"}]})

    def test_number_key_normalised(self):
        pk = _uid()
        C.put_item(TableName=COMP, Item={"pk": {"S": pk}, "sk": {"N": "1.50"}, "v": {"S": "x"}})
        # The same number written differently addresses the same item.
        got = C.get_item(TableName=COMP, Key={"pk": {"S": pk}, "sk": {"N": "15E-1"}})
        self.assertEqual(got["Item"]["sk"], {"N": "1.5"})
        self.assertEqual(got["Item"]["v"], {"S": "x"})

    def test_ns_duplicates_after_normalisation(self):
        # "1" and "1.0" are the same number, so the set has duplicates.
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "ns": {"NS": ["1", "1.0"]}}),
            "ValidationException", contains="contains duplicates")

    def test_binary_key_round_trip(self):
        key = b"\x00\xffkey\x80"
        C.put_item(TableName=BIN, Item={"b": {"B": key}, "v": {"BS": [b"\x00", b"\xff"]}})
        got = C.get_item(TableName=BIN, Key={"b": {"B": key}})["Item"]
        self.assertEqual(got["b"], {"B": key})
        self.assertEqual(set(got["v"]["BS"]), {b"\x00", b"\xff"})

    def test_get_missing_item_has_no_item(self):
        r = C.get_item(TableName=HASH, Key={"pk": {"S": _uid()}})
        self.assertNotIn("Item", r)
        r = C.get_item(TableName=COMP, Key={"pk": {"S": _uid()}, "sk": {"N": "1"}})
        self.assertNotIn("Item", r)

    def test_consistent_read(self):
        pk = _uid()
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}})
        r = C.get_item(TableName=HASH, Key={"pk": {"S": pk}}, ConsistentRead=True)
        self.assertEqual(r["Item"], {"pk": {"S": pk}})

    def test_delete_item(self):
        pk = _uid()
        C.put_item(TableName=COMP, Item={"pk": {"S": pk}, "sk": {"N": "1"}, "a": {"S": "x"}})
        C.put_item(TableName=COMP, Item={"pk": {"S": pk}, "sk": {"N": "2"}})
        r = C.delete_item(TableName=COMP, Key={"pk": {"S": pk}, "sk": {"N": "1"}},
                          ReturnValues="ALL_OLD")
        self.assertEqual(r["Attributes"], {"pk": {"S": pk}, "sk": {"N": "1"}, "a": {"S": "x"}})
        self.assertNotIn("Item", C.get_item(TableName=COMP,
                                            Key={"pk": {"S": pk}, "sk": {"N": "1"}}))
        # The sibling item is untouched.
        self.assertIn("Item", C.get_item(TableName=COMP,
                                         Key={"pk": {"S": pk}, "sk": {"N": "2"}}))

    def test_delete_missing_item_is_not_an_error(self):
        r = C.delete_item(TableName=HASH, Key={"pk": {"S": _uid()}}, ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)

    def test_delete_without_return_values(self):
        pk = _uid()
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}})
        r = C.delete_item(TableName=HASH, Key={"pk": {"S": pk}})
        self.assertNotIn("Attributes", r)

    def test_item_exactly_400kb_ok(self):
        # Item size = UTF-8 length of attribute names + value lengths; the
        # limit is 400 KB = 409600 bytes inclusive.
        pk = _uid()
        payload = "x" * (409600 - len("pk") - len(pk) - len("d"))
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "d": {"S": payload}})
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        self.assertEqual(len(got["d"]["S"]), len(payload))


class ResourceApiTest(ItemsTestBase):
    def test_resource_round_trip(self):
        t = R.Table(HASH)
        pk = _uid()
        item = {
            "pk": pk,
            "s": "str",
            "n": decimal.Decimal("3.14"),
            "i": 7,
            "b": Binary(b"\x00\x01"),
            "ss": {"x", "y"},
            "ns": {1, 2},
            "bs": {Binary(b"\x01"), Binary(b"\x02")},
            "m": {"k": "v", "deep": {"n": 1}},
            "l": ["a", 1, None, True],
            "null": None,
            "bool": False,
        }
        t.put_item(Item=item)
        got = t.get_item(Key={"pk": pk})["Item"]
        self.assertEqual(got["s"], "str")
        self.assertEqual(got["n"], decimal.Decimal("3.14"))
        self.assertEqual(got["i"], decimal.Decimal(7))
        self.assertEqual(got["b"], Binary(b"\x00\x01"))
        self.assertEqual(got["ss"], {"x", "y"})
        self.assertEqual(got["ns"], {decimal.Decimal(1), decimal.Decimal(2)})
        self.assertEqual(got["bs"], {Binary(b"\x01"), Binary(b"\x02")})
        self.assertEqual(got["m"], {"k": "v", "deep": {"n": decimal.Decimal(1)}})
        self.assertEqual(got["l"], ["a", decimal.Decimal(1), None, True])
        self.assertIsNone(got["null"])
        self.assertIs(got["bool"], False)
        t.delete_item(Key={"pk": pk})
        self.assertNotIn("Item", t.get_item(Key={"pk": pk}))

    def test_resource_composite_key(self):
        t = R.Table(COMP)
        pk = _uid()
        t.put_item(Item={"pk": pk, "sk": decimal.Decimal("-1.5"), "v": "a"})
        got = t.get_item(Key={"pk": pk, "sk": decimal.Decimal("-1.50")})["Item"]
        self.assertEqual(got["sk"], decimal.Decimal("-1.5"))

    def test_batch_writer(self):
        t = R.Table(COMP)
        pk = _uid()
        with t.batch_writer() as bw:
            for i in range(30):
                bw.put_item(Item={"pk": pk, "sk": i})
        n = sum(1 for i in range(30)
                if "Item" in t.get_item(Key={"pk": pk, "sk": i}))
        self.assertEqual(n, 30)


class KeyValidationTest(ItemsTestBase):
    def test_missing_hash_key(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"other": {"S": "x"}}),
            "ValidationException",
            "One or more parameter values were invalid: Missing the key pk in the item")

    def test_missing_range_key(self):
        self.assertError(
            lambda: C.put_item(TableName=COMP, Item={"pk": {"S": "x"}}),
            "ValidationException",
            "One or more parameter values were invalid: Missing the key sk in the item")

    def test_key_type_mismatch(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"N": "1"}}),
            "ValidationException",
            "One or more parameter values were invalid: Type mismatch for key pk expected: S "
            "actual: N")

    def test_get_key_wrong_attribute(self):
        self.assertError(
            lambda: C.get_item(TableName=HASH, Key={"nope": {"S": "x"}}),
            "ValidationException", "The provided key element does not match the schema")

    def test_get_key_missing_range(self):
        self.assertError(
            lambda: C.get_item(TableName=COMP, Key={"pk": {"S": "x"}}),
            "ValidationException", "The provided key element does not match the schema")

    def test_get_key_extra_attribute(self):
        self.assertError(
            lambda: C.get_item(TableName=HASH, Key={"pk": {"S": "x"}, "extra": {"S": "y"}}),
            "ValidationException", "The provided key element does not match the schema")

    def test_get_key_wrong_type(self):
        self.assertError(
            lambda: C.get_item(TableName=HASH, Key={"pk": {"N": "1"}}),
            "ValidationException", "The provided key element does not match the schema")

    def test_delete_key_wrong_attribute(self):
        self.assertError(
            lambda: C.delete_item(TableName=COMP, Key={"pk": {"S": "x"}}),
            "ValidationException", "The provided key element does not match the schema")

    def test_empty_string_hash_key(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": ""}}),
            "ValidationException",
            "One or more parameter values are not valid. The AttributeValue for a key "
            "attribute cannot contain an empty string value. Key: pk")

    def test_empty_string_key_on_get(self):
        self.assertError(
            lambda: C.get_item(TableName=HASH, Key={"pk": {"S": ""}}),
            "ValidationException",
            "One or more parameter values are not valid. The AttributeValue for a key "
            "attribute cannot contain an empty string value. Key: pk")

    def test_empty_binary_key(self):
        self.assertError(
            lambda: C.put_item(TableName=BIN, Item={"b": {"B": b""}}),
            "ValidationException",
            "One or more parameter values are not valid. The AttributeValue for a key "
            "attribute cannot contain an empty binary value. Key: b")


class ValueValidationTest(ItemsTestBase):
    def test_item_too_large(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "d": {"S": "x" * (400 * 1024 + 1)}}),
            "ValidationException", "Item size has exceeded the maximum allowed size")

    def test_item_one_byte_over_limit(self):
        pk = _uid()
        payload = "x" * (409600 - len("pk") - len(pk) - len("d") + 1)
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "d": {"S": payload}}),
            "ValidationException", "Item size has exceeded the maximum allowed size")

    def test_multibyte_string_size_counts_utf8_bytes(self):
        # 140000 x U+20AC is 420000 UTF-8 bytes (> 400 KB) but 140000 chars.
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "d": {"S": "\u20ac" * 140000}}),
            "ValidationException", "Item size has exceeded the maximum allowed size")

    def test_item_too_large_by_attribute_names(self):
        # Attribute names count towards the 400 KB item size.
        item = {"pk": {"S": _uid()}}
        for i in range(60):  # 60 * 5000 value bytes alone would fit
            item[("n%02d" % i) * 1000] = {"S": "x" * 5000}  # 3000-byte names
        self.assertError(lambda: C.put_item(TableName=HASH, Item=item),
                         "ValidationException",
                         "Item size has exceeded the maximum allowed size")

    def test_attribute_name_lengths(self):
        # Attribute names: at least one character and under 64 KB; nothing is written.
        pk = _uid()
        self.assertError(lambda: C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "": {"S": "x"}}),
                         "ValidationException", contains="attribute name")
        name = "\u00e9" * 32768  # 65536 UTF-8 bytes
        err = self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": pk}, name: {"S": "x"}}),
            "ValidationException", contains=["65536 bytes", "64 KB"])
        self.assertIn("\u00e9" * 8 + "...", harness.error_of(err)[1])  # cut between characters
        self.assertNotIn("Item", C.get_item(TableName=HASH, Key={"pk": {"S": pk}}, ConsistentRead=True))
        ok = "n" * 65535
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, ok: {"S": "x"}})
        self.assertIn(ok, C.get_item(TableName=HASH, Key={"pk": {"S": pk}}, ConsistentRead=True)["Item"])

    def test_number_too_many_digits(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={
                "pk": {"S": _uid()}, "n": {"N": "123456789012345678901234567890123456789"}}),
            "ValidationException",
            contains="Attempting to store more than 38 significant digits in a Number")

    def test_number_38_digits_ok(self):
        pk = _uid()
        n38 = "12345678901234567890123456789012345678"
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "n": {"N": n38}})
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        self.assertEqual(got["n"], {"N": n38})

    def test_number_overflow(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "n": {"N": "1E+126"}}),
            "ValidationException",
            contains="Number overflow. Attempting to store a number with magnitude larger "
                     "than supported range")

    def test_number_underflow(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "n": {"N": "1E-131"}}),
            "ValidationException",
            contains="Number underflow. Attempting to store a number with magnitude smaller "
                     "than supported range")

    def test_number_not_a_number(self):
        e = self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "n": {"N": "abc"}}),
            "ValidationException")
        # AWS has used both "The parameter cannot be converted to a numeric
        # value: abc" and "A value provided cannot be converted into a number".
        self.assertRegex(harness.error_of(e)[1],
                         r"cannot be converted (to a numeric value|into a number)")

    def test_empty_string_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()}, "s": {"SS": []}}),
            "ValidationException",
            contains=["One or more parameter values were invalid", "may not be empty"])

    def test_empty_number_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()}, "s": {"NS": []}}),
            "ValidationException",
            contains=["One or more parameter values were invalid", "may not be empty"])

    def test_empty_binary_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()}, "s": {"BS": []}}),
            "ValidationException",
            contains=["One or more parameter values were invalid", "empty"])

    def test_duplicate_string_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "s": {"SS": ["a", "a"]}}),
            "ValidationException",
            contains=["One or more parameter values were invalid", "contains duplicates"])

    def test_duplicate_number_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "s": {"NS": ["1", "1"]}}),
            "ValidationException", contains="contains duplicates")

    def test_duplicate_binary_set(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "s": {"BS": [b"a", b"a"]}}),
            "ValidationException", contains="contains duplicates")

    def test_nested_empty_set_rejected(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "m": {"M": {"s": {"SS": []}}}}),
            "ValidationException", contains="may not be empty")

    def test_empty_string_non_key_allowed(self):
        pk = _uid()
        C.put_item(TableName=HASH, Item={"pk": {"S": pk}, "e": {"S": ""},
                                         "m": {"M": {"e": {"S": ""}}}})
        got = C.get_item(TableName=HASH, Key={"pk": {"S": pk}})["Item"]
        self.assertEqual(got["e"], {"S": ""})
        self.assertEqual(got["m"], {"M": {"e": {"S": ""}}})

    def test_multiple_types_in_attribute_value(self):
        # An AttributeValue must have exactly one member set.
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "x": {"S": "a", "N": "1"}}),
            "ValidationException",
            contains="Supplied AttributeValue has more than one datatypes set, must contain "
                     "exactly one of the supported datatypes")

    def test_null_false_rejected(self):
        self.assertError(
            lambda: C.put_item(TableName=HASH, Item={"pk": {"S": _uid()},
                                                     "x": {"NULL": False}}),
            "ValidationException", contains="Null attribute value types must have the value "
                                            "of true")


if __name__ == "__main__":
    unittest.main()
