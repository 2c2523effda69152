"""Secondary-index e2e tests (GSI and LSI) via boto3 client and resource.

Asserts real Amazon DynamoDB behaviour (API reference CreateTable, UpdateTable,
DescribeTable, Query, Scan, GlobalSecondaryIndexDescription,
LocalSecondaryIndexDescription, Projection; developer guide "Global secondary
indexes", "Local secondary indexes", "Managing global secondary indexes",
"Attribute projections", "Parallel scan").
Run standalone: python3 tests/e2e/test_boto3_indexes.py

Notes on what real DynamoDB documents and these tests therefore assert:
- ItemCount / IndexSizeBytes are refreshed "approximately every six hours", so
  only their type and sign are asserted (and 0 for an empty table).
- Backfilling "does not appear in the DescribeTable output" for indexes made by
  CreateTable; for one made by UpdateTable the index is CREATING (Backfilling
  true while items are read) and then ACTIVE.
- Select defaults to ALL_PROJECTED_ATTRIBUTES on an index; an LSI fetches
  attributes it does not project from the table, a GSI cannot.

Known moto 5.x deviations (these tests fail on moto, on purpose): no IndexArn
and no ItemCount on indexes; most CreateTable index validations missing
(LSI without range key, LSI hash, duplicate names, INCLUDE without
NonKeyAttributes, ALL with NonKeyAttributes, GSI throughput); an unknown index
gives ResourceNotFoundException; Select ALL_ATTRIBUTES accepted on a KEYS_ONLY
GSI; index-key type mismatches accepted on write; no LSI fetch of unprojected
attributes; UpdateTable creates indexes ACTIVE at once, deletes without
DELETING, accepts two index creations in one call and keeps provisioned
throughput after a switch to PAY_PER_REQUEST.
"""

import decimal
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import assert_error  # noqa: E402
from boto3.dynamodb.conditions import Attr, Key  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
R = None
IDX = None       # pk S, sk S with 3 GSIs and 2 LSIs, fixed data
EMPTY = None     # same schema, never written
MUT = None       # pk S with one GSI, for write-maintenance tests
DATA = []        # the items of IDX (python values)

N_ITEMS = 24
INVALID = "One or more parameter values were invalid: "


def make_item(i):
    it = {"pk": "p%d" % (i % 3), "sk": "s%02d" % i, "lsk": 1000 - i,
          "a": "a%d" % i, "b": i, "c": "c%d" % i}
    if i % 6 != 5:
        it["g1"] = "G%d" % (i % 4)
    if i % 7 != 6:
        it["g2"] = i * 10
    return it


def ks(hash_name, range_name=None):
    out = [{"AttributeName": hash_name, "KeyType": "HASH"}]
    if range_name:
        out.append({"AttributeName": range_name, "KeyType": "RANGE"})
    return out


def ad(**types):
    return [{"AttributeName": n, "AttributeType": t} for n, t in types.items()]


GSIS = [
    {"IndexName": "g_all", "KeySchema": ks("g1", "g2"), "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "g_keys", "KeySchema": ks("g1"), "Projection": {"ProjectionType": "KEYS_ONLY"}},
    {"IndexName": "g_inc", "KeySchema": ks("g1", "sk"),
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]}},
]
LSIS = [
    {"IndexName": "l_keys", "KeySchema": ks("pk", "lsk"), "Projection": {"ProjectionType": "KEYS_ONLY"}},
    {"IndexName": "l_inc", "KeySchema": ks("pk", "g2"),
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}},
]
ATTRS = ad(pk="S", sk="S", g1="S", g2="N", lsk="N")


def create_index_table(name=None):
    name = name or harness.table_name("idx")
    C.create_table(TableName=name, KeySchema=ks("pk", "sk"), AttributeDefinitions=ATTRS,
                   GlobalSecondaryIndexes=GSIS, LocalSecondaryIndexes=LSIS,
                   BillingMode="PAY_PER_REQUEST")
    harness.wait_active(C, name)
    return name


def setUpModule():
    global C, R, IDX, EMPTY, MUT, DATA
    harness.start()
    try:
        _setup()
    except BaseException:
        harness.stop()  # tearDownModule does not run after a failed setUpModule
        raise


def _setup():
    global C, R, IDX, EMPTY, MUT, DATA
    C = harness.client()
    R = harness.resource()
    IDX = create_index_table()
    EMPTY = create_index_table()
    MUT = harness.table_name("mut")
    C.create_table(TableName=MUT, KeySchema=ks("pk"),
                   AttributeDefinitions=ad(pk="S", g="S", r="N"),
                   GlobalSecondaryIndexes=[{"IndexName": "gmi", "KeySchema": ks("g", "r"),
                                            "Projection": {"ProjectionType": "ALL"}}],
                   BillingMode="PAY_PER_REQUEST")
    harness.wait_active(C, MUT)
    DATA = [make_item(i) for i in range(N_ITEMS)]
    with R.Table(IDX).batch_writer() as bw:
        for it in DATA:
            bw.put_item(Item=it)


def tearDownModule():
    try:
        for t in (IDX, EMPTY, MUT):
            if t:
                try:
                    C.delete_table(TableName=t)
                except ClientError:
                    pass
    finally:
        harness.stop()


# ------------------------------------------------------------------ helpers

def plain(v):
    """Decimal -> int for comparisons of resource results."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def proj(item, names):
    return {k: v for k, v in item.items() if k in names}


TABLE_KEYS = {"pk", "sk"}


def expected_index(index, hash_value=None):
    """Items of DATA in `index`, projected, in index order (all hash values
    sorted for scans is not defined; callers sort)."""
    spec = {g["IndexName"]: g for g in GSIS + LSIS}[index]
    keys = [k["AttributeName"] for k in spec["KeySchema"]]
    ptype = spec["Projection"]["ProjectionType"]
    names = TABLE_KEYS | set(keys)
    if ptype == "INCLUDE":
        names |= set(spec["Projection"]["NonKeyAttributes"])
    out = []
    for it in DATA:
        if not all(k in it for k in keys):
            continue
        if hash_value is not None and it[keys[0]] != hash_value:
            continue
        out.append(dict(it) if ptype == "ALL" else proj(it, names))
    if len(keys) == 2:
        # Equal index range keys have no defined order among themselves: sort
        # by the index key then the table key for a stable expectation.
        out.sort(key=lambda x: (x[keys[1]], x["pk"], x["sk"]))
    return out


def query_all(table, **kw):
    items, pages = [], 0
    while True:
        r = table.query(**kw)
        items += r["Items"]
        pages += 1
        if "LastEvaluatedKey" not in r:
            return items, pages
        kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]


def scan_all(table, **kw):
    items = []
    while True:
        r = table.scan(**kw)
        items += r["Items"]
        if "LastEvaluatedKey" not in r:
            return items
        kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]


def tkey(it):
    return (it["pk"], it["sk"])


# ------------------------------------------------------------------ DescribeTable

class DescribeIndexesTest(unittest.TestCase):
    def describe(self, name):
        return C.describe_table(TableName=name)["Table"]

    def test_gsi_descriptions(self):
        t = self.describe(IDX)
        gsis = {g["IndexName"]: g for g in t["GlobalSecondaryIndexes"]}
        self.assertEqual(set(gsis), {"g_all", "g_keys", "g_inc"})
        for spec in GSIS:
            g = gsis[spec["IndexName"]]
            self.assertEqual(g["IndexStatus"], "ACTIVE")
            self.assertEqual(g["KeySchema"], spec["KeySchema"])
            self.assertEqual(g["Projection"], spec["Projection"])
            self.assertEqual(g["IndexArn"], t["TableArn"] + "/index/" + spec["IndexName"])
            self.assertIsInstance(g["ItemCount"], int)
            self.assertIsInstance(g["IndexSizeBytes"], int)
            self.assertGreaterEqual(g["ItemCount"], 0)
            self.assertGreaterEqual(g["IndexSizeBytes"], 0)
            # Made by CreateTable: Backfilling does not appear.
            self.assertNotIn("Backfilling", g)
            # On-demand table: the index reports zero provisioned capacity.
            self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
            self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 0)

    def test_lsi_descriptions(self):
        t = self.describe(IDX)
        lsis = {x["IndexName"]: x for x in t["LocalSecondaryIndexes"]}
        self.assertEqual(set(lsis), {"l_keys", "l_inc"})
        for spec in LSIS:
            x = lsis[spec["IndexName"]]
            self.assertEqual(x["KeySchema"], spec["KeySchema"])
            self.assertEqual(x["Projection"], spec["Projection"])
            self.assertEqual(x["IndexArn"], t["TableArn"] + "/index/" + spec["IndexName"])
            self.assertIsInstance(x["ItemCount"], int)
            self.assertIsInstance(x["IndexSizeBytes"], int)
            self.assertGreaterEqual(x["ItemCount"], 0)
            self.assertGreaterEqual(x["IndexSizeBytes"], 0)

    def test_empty_table_counts_are_zero(self):
        t = self.describe(EMPTY)
        for x in t["GlobalSecondaryIndexes"] + t["LocalSecondaryIndexes"]:
            self.assertEqual(x["ItemCount"], 0, x["IndexName"])
            self.assertEqual(x["IndexSizeBytes"], 0, x["IndexName"])

    def test_attribute_definitions_kept(self):
        t = self.describe(IDX)
        self.assertEqual(sorted(t["AttributeDefinitions"], key=lambda d: d["AttributeName"]),
                         sorted(ATTRS, key=lambda d: d["AttributeName"]))

    def test_create_table_response_lists_indexes(self):
        name = harness.table_name("idxc")
        r = C.create_table(TableName=name, KeySchema=ks("pk", "sk"), AttributeDefinitions=ATTRS,
                           GlobalSecondaryIndexes=GSIS, LocalSecondaryIndexes=LSIS,
                           BillingMode="PAY_PER_REQUEST")
        try:
            td = r["TableDescription"]
            self.assertEqual({g["IndexName"] for g in td["GlobalSecondaryIndexes"]},
                             {"g_all", "g_keys", "g_inc"})
            for g in td["GlobalSecondaryIndexes"]:
                self.assertIn(g["IndexStatus"], ("CREATING", "ACTIVE"))
            self.assertEqual({x["IndexName"] for x in td["LocalSecondaryIndexes"]},
                             {"l_keys", "l_inc"})
            harness.wait_active(C, name)
        finally:
            C.delete_table(TableName=name)

    def test_resource_exposes_indexes(self):
        t = R.Table(IDX)
        t.load()
        self.assertEqual({g["IndexName"] for g in t.global_secondary_indexes},
                         {"g_all", "g_keys", "g_inc"})
        self.assertEqual({x["IndexName"] for x in t.local_secondary_indexes},
                         {"l_keys", "l_inc"})

    def test_provisioned_gsi_throughput(self):
        name = harness.table_name("idxp")
        C.create_table(TableName=name, KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                       GlobalSecondaryIndexes=[{
                           "IndexName": "gpp", "KeySchema": ks("g"),
                           "Projection": {"ProjectionType": "KEYS_ONLY"},
                           "ProvisionedThroughput": {"ReadCapacityUnits": 3,
                                                     "WriteCapacityUnits": 4}}],
                       ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 2})
        try:
            harness.wait_active(C, name)
            g = self.describe(name)["GlobalSecondaryIndexes"][0]
            self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 3)
            self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 4)
        finally:
            C.delete_table(TableName=name)


# ------------------------------------------------------------------ CreateTable validations

class CreateTableIndexValidationTest(unittest.TestCase):
    def create(self, **kw):
        kw.setdefault("TableName", harness.table_name("bad"))
        kw.setdefault("BillingMode", "PAY_PER_REQUEST")
        with self.assertRaises(ClientError) as e:
            C.create_table(**kw)
            # Should not get here; clean up if it did.
            C.delete_table(TableName=kw["TableName"])
        return e

    def test_lsi_without_table_range_key(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", l="N"),
                        LocalSecondaryIndexes=[{"IndexName": "lsi1", "KeySchema": ks("pk", "l"),
                                                "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "Table KeySchema does not have a range key, which is required when "
                     "specifying a LocalSecondaryIndex")

    def test_lsi_hash_differs_from_table_hash(self):
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S", o="S", l="N"),
                        LocalSecondaryIndexes=[{"IndexName": "lsi1", "KeySchema": ks("o", "l"),
                                                "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "Index KeySchema does not have the same leading hash key as table KeySchema "
                     "for index: lsi1. index hash key: o, table hash key: pk")

    def test_empty_index_lists(self):
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S"),
                        GlobalSecondaryIndexes=[])
        assert_error(self, e, "ValidationException", INVALID + "List of GlobalSecondaryIndexes is empty")
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S"),
                        LocalSecondaryIndexes=[])
        assert_error(self, e, "ValidationException", INVALID + "List of LocalSecondaryIndexes is empty")

    def test_lsi_needs_a_range_key(self):
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S"),
                        LocalSecondaryIndexes=[{"IndexName": "lsi1", "KeySchema": ks("pk"),
                                                "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "Index KeySchema does not have a range key for index: lsi1")

    def test_undefined_key_is_reported_with_its_index_keys(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", x="S"),
                        GlobalSecondaryIndexes=[{"IndexName": "gsi1", "KeySchema": ks("g1"),
                                                 "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
                     "Keys: [g1], AttributeDefinitions: [pk, x]")

    def test_projected_attributes_count_over_all_indexes(self):
        names = ["a%d" % i for i in range(60)]
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S", h="S"),
                        GlobalSecondaryIndexes=[
                            {"IndexName": "gg1", "KeySchema": ks("g"),
                             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": names}},
                            {"IndexName": "gg2", "KeySchema": ks("h"),
                             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": names}}])
        assert_error(self, e, "LimitExceededException",
                     INVALID + "Number of projected attributes in all indexes exceeds limit of 100")

    def test_gsi_key_attribute_not_defined(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S"),
                        GlobalSecondaryIndexes=[{"IndexName": "gsi1", "KeySchema": ks("gkeep"),
                                                 "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException", contains="Some index key attribute")

    def test_lsi_key_attribute_not_defined(self):
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S"),
                        LocalSecondaryIndexes=[{"IndexName": "lsi1", "KeySchema": ks("pk", "lk"),
                                                "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException", contains="Some index key attribute")

    def test_duplicate_gsi_names(self):
        g = {"IndexName": "dup", "KeySchema": ks("g"), "Projection": {"ProjectionType": "ALL"}}
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                        GlobalSecondaryIndexes=[g, dict(g)])
        assert_error(self, e, "ValidationException", contains="Duplicate index name: dup")

    def test_duplicate_name_across_gsi_and_lsi(self):
        e = self.create(KeySchema=ks("pk", "sk"), AttributeDefinitions=ad(pk="S", sk="S", g="S", l="N"),
                        GlobalSecondaryIndexes=[{"IndexName": "same", "KeySchema": ks("g"),
                                                 "Projection": {"ProjectionType": "ALL"}}],
                        LocalSecondaryIndexes=[{"IndexName": "same", "KeySchema": ks("pk", "l"),
                                                "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException", contains="Duplicate index name: same")

    def test_include_without_non_key_attributes(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                        GlobalSecondaryIndexes=[{"IndexName": "gin", "KeySchema": ks("g"),
                                                 "Projection": {"ProjectionType": "INCLUDE"}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified")

    def test_all_with_non_key_attributes(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                        GlobalSecondaryIndexes=[{"IndexName": "gin", "KeySchema": ks("g"),
                                                 "Projection": {"ProjectionType": "ALL",
                                                                "NonKeyAttributes": ["x"]}}])
        assert_error(self, e, "ValidationException",
                     INVALID + "ProjectionType is ALL, but NonKeyAttributes is specified")

    def test_gsi_throughput_missing_on_provisioned_table(self):
        e = self.create(KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                        BillingMode="PROVISIONED",
                        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                        GlobalSecondaryIndexes=[{"IndexName": "gin", "KeySchema": ks("g"),
                                                 "Projection": {"ProjectionType": "ALL"}}])
        assert_error(self, e, "ValidationException", contains="ProvisionedThroughput")

    def test_failed_create_leaves_no_table(self):
        name = harness.table_name("bad")
        self.create(TableName=name, KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                    GlobalSecondaryIndexes=[{"IndexName": "gin", "KeySchema": ks("g"),
                                             "Projection": {"ProjectionType": "INCLUDE"}}])
        with self.assertRaises(ClientError) as e:
            C.describe_table(TableName=name)
        self.assertEqual(harness.error_of(e.exception)[0], "ResourceNotFoundException")


# ------------------------------------------------------------------ Query / Scan on indexes

class IndexQueryTest(unittest.TestCase):
    def setUp(self):
        self.t = R.Table(IDX)

    def q(self, index, hash_name, hash_value, **kw):
        items, _ = query_all(self.t, IndexName=index,
                             KeyConditionExpression=Key(hash_name).eq(hash_value), **kw)
        return plain(items)

    def test_all_projection_returns_whole_items_in_index_order(self):
        got = self.q("g_all", "g1", "G1")
        exp = expected_index("g_all", "G1")
        self.assertTrue(exp)
        self.assertEqual(got, exp)
        self.assertEqual([x["g2"] for x in got], sorted(x["g2"] for x in got))

    def test_descending(self):
        got = self.q("g_all", "g1", "G2", ScanIndexForward=False)
        self.assertEqual(got, list(reversed(expected_index("g_all", "G2"))))

    def test_keys_only_projection(self):
        got = self.q("g_keys", "g1", "G0")
        exp = expected_index("g_keys", "G0")
        self.assertTrue(len(exp) > 1)  # a GSI key need not be unique
        self.assertEqual(sorted(got, key=tkey), sorted(exp, key=tkey))
        for it in got:
            self.assertEqual(set(it), {"pk", "sk", "g1"})

    def test_include_projection(self):
        got = self.q("g_inc", "g1", "G3")
        exp = expected_index("g_inc", "G3")
        self.assertEqual(got, sorted(exp, key=lambda x: x["sk"]))
        for it in got:
            self.assertEqual(set(it), {"pk", "sk", "g1", "a", "b"})

    def test_select_all_projected_attributes(self):
        got = self.q("g_inc", "g1", "G3", Select="ALL_PROJECTED_ATTRIBUTES")
        self.assertEqual(got, self.q("g_inc", "g1", "G3"))

    def test_select_all_attributes_on_all_gsi(self):
        got = self.q("g_all", "g1", "G1", Select="ALL_ATTRIBUTES")
        self.assertEqual(got, expected_index("g_all", "G1"))

    def test_select_all_attributes_refused_on_keys_only_gsi(self):
        for index in ("g_keys", "g_inc"):
            with self.assertRaises(ClientError) as e:
                C.query(TableName=IDX, IndexName=index, Select="ALL_ATTRIBUTES",
                        KeyConditionExpression="g1 = :g",
                        ExpressionAttributeValues={":g": {"S": "G0"}})
            assert_error(self, e, "ValidationException",
                         INVALID + "Select type ALL_ATTRIBUTES is not supported for global secondary "
                         "index %s because its projection type is not ALL" % index)

    def test_select_count(self):
        r = C.query(TableName=IDX, IndexName="g_keys", Select="COUNT",
                    KeyConditionExpression="g1 = :g", ExpressionAttributeValues={":g": {"S": "G0"}})
        self.assertEqual(r["Count"], len(expected_index("g_keys", "G0")))
        self.assertNotIn("Items", r)

    def test_projection_expression_on_gsi(self):
        got = self.q("g_all", "g1", "G1", ProjectionExpression="sk, c")
        self.assertEqual(got, [proj(x, {"sk", "c"}) for x in expected_index("g_all", "G1")])

    def test_range_condition_on_index_key(self):
        r = C.query(TableName=IDX, IndexName="g_all",
                    KeyConditionExpression="g1 = :g AND g2 BETWEEN :lo AND :hi",
                    ExpressionAttributeValues={":g": {"S": "G1"}, ":lo": {"N": "50"},
                                               ":hi": {"N": "170"}})
        exp = [x for x in expected_index("g_all", "G1") if 50 <= x["g2"] <= 170]
        self.assertTrue(exp)
        self.assertEqual([x["sk"]["S"] for x in r["Items"]], [x["sk"] for x in exp])

    def test_filter_on_index_query(self):
        got = self.q("g_all", "g1", "G1", FilterExpression=Attr("b").gt(8))
        self.assertEqual(got, [x for x in expected_index("g_all", "G1") if x["b"] > 8])

    def test_key_condition_must_use_index_key(self):
        with self.assertRaises(ClientError) as e:
            C.query(TableName=IDX, IndexName="g_all", KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "p0"}})
        assert_error(self, e, "ValidationException", "Query condition missed key schema element: g1")

    def test_consistent_read_refused_on_gsi(self):
        with self.assertRaises(ClientError) as e:
            C.query(TableName=IDX, IndexName="g_all", ConsistentRead=True,
                    KeyConditionExpression="g1 = :g", ExpressionAttributeValues={":g": {"S": "G0"}})
        assert_error(self, e, "ValidationException",
                     "Consistent reads are not supported on global secondary indexes")
        with self.assertRaises(ClientError) as e:
            C.scan(TableName=IDX, IndexName="g_keys", ConsistentRead=True)
        assert_error(self, e, "ValidationException",
                     "Consistent reads are not supported on global secondary indexes")

    def test_unknown_index(self):
        with self.assertRaises(ClientError) as e:
            C.query(TableName=IDX, IndexName="nope", KeyConditionExpression="g1 = :g",
                    ExpressionAttributeValues={":g": {"S": "G0"}})
        assert_error(self, e, "ValidationException", "The table does not have the specified index: nope")
        with self.assertRaises(ClientError) as e:
            C.scan(TableName=IDX, IndexName="nope")
        assert_error(self, e, "ValidationException", "The table does not have the specified index: nope")


class LocalIndexQueryTest(unittest.TestCase):
    def setUp(self):
        self.t = R.Table(IDX)

    def q(self, index, pk, **kw):
        items, _ = query_all(self.t, IndexName=index, KeyConditionExpression=Key("pk").eq(pk), **kw)
        return plain(items)

    def test_keys_only_lsi_order_and_projection(self):
        got = self.q("l_keys", "p1")
        exp = expected_index("l_keys", None)
        exp = [x for x in exp if x["pk"] == "p1"]
        self.assertEqual(got, exp)  # ordered by lsk
        for it in got:
            self.assertEqual(set(it), {"pk", "sk", "lsk"})

    def test_consistent_read_allowed_on_lsi(self):
        got = self.q("l_keys", "p2", ConsistentRead=True)
        self.assertEqual(got, [x for x in expected_index("l_keys") if x["pk"] == "p2"])

    def test_lsi_all_attributes_fetches_from_table(self):
        got = self.q("l_keys", "p0", Select="ALL_ATTRIBUTES")
        exp = sorted([x for x in DATA if x["pk"] == "p0"], key=lambda x: x["lsk"])
        self.assertEqual(got, exp)

    def test_lsi_projection_expression_fetches_unprojected(self):
        # "If any of the requested attributes are not projected into the local
        # secondary index, DynamoDB fetches each of these attributes from the
        # parent table" (Query, Select): c is not projected into l_inc.
        got = self.q("l_inc", "p0", ProjectionExpression="sk, a, c")
        full = {tkey(x): x for x in DATA}
        exp = [proj(full[tkey(x)], {"sk", "a", "c"})
               for x in expected_index("l_inc") if x["pk"] == "p0"]
        self.assertTrue(any("c" in x for x in exp))
        self.assertEqual(got, exp)

    def test_lsi_filter_on_unprojected_attribute_reads_the_table(self):
        # The filter sees the table's item; the result is still the index entry.
        full = {tkey(x): x for x in DATA}
        entries = [x for x in expected_index("l_inc") if x["pk"] == "p0"]
        with_c = [x for x in entries if "c" in full[tkey(x)]]
        self.assertTrue(with_c)
        got = self.q("l_inc", "p0", FilterExpression="attribute_exists(c)")
        self.assertEqual(got, with_c)

    def test_lsi_is_sparse(self):
        got = self.q("l_inc", "p0")
        exp = [x for x in expected_index("l_inc") if x["pk"] == "p0"]
        self.assertEqual(got, exp)
        self.assertLess(len(got), len([x for x in DATA if x["pk"] == "p0"]))
        for it in got:
            self.assertEqual(set(it), {"pk", "sk", "g2", "a"})

    def test_lsi_range_condition(self):
        r = self.t.query(IndexName="l_keys",
                         KeyConditionExpression=Key("pk").eq("p1") & Key("lsk").lt(990))
        exp = [x for x in expected_index("l_keys") if x["pk"] == "p1" and x["lsk"] < 990]
        self.assertEqual(plain(r["Items"]), exp)


class SparseAndScanTest(unittest.TestCase):
    def setUp(self):
        self.t = R.Table(IDX)

    def test_scan_gsi_is_sparse(self):
        got = plain(scan_all(self.t, IndexName="g_all"))
        exp = expected_index("g_all")
        self.assertEqual(sorted(got, key=tkey), sorted(exp, key=tkey))
        self.assertLess(len(got), N_ITEMS)
        for it in got:
            self.assertIn("g1", it)
            self.assertIn("g2", it)

    def test_scan_keys_only_gsi(self):
        got = plain(scan_all(self.t, IndexName="g_keys"))
        self.assertEqual(sorted(got, key=tkey), sorted(expected_index("g_keys"), key=tkey))

    def test_scan_lsi(self):
        got = plain(scan_all(self.t, IndexName="l_keys"))
        self.assertEqual(len(got), N_ITEMS)
        self.assertEqual(sorted(got, key=tkey), sorted(expected_index("l_keys"), key=tkey))

    def test_scan_count_on_index(self):
        r = C.scan(TableName=IDX, IndexName="g_keys", Select="COUNT")
        self.assertEqual(r["Count"], len(expected_index("g_keys")))
        self.assertEqual(r["ScannedCount"], r["Count"])

    def test_parallel_scan_on_index(self):
        for index in ("g_keys", "g_all", "l_keys"):
            full = sorted(plain(scan_all(self.t, IndexName=index)), key=tkey)
            seen = []
            for seg in range(4):
                seen += plain(scan_all(self.t, IndexName=index, Segment=seg, TotalSegments=4,
                                       Limit=3))
            self.assertEqual(len(seen), len(full), index)  # no item in two segments
            self.assertEqual(sorted(seen, key=tkey), full, index)


class LastEvaluatedKeyTest(unittest.TestCase):
    def test_gsi_query_lek_has_table_and_index_keys(self):
        r = C.query(TableName=IDX, IndexName="g_all", Limit=2, KeyConditionExpression="g1 = :g",
                    ExpressionAttributeValues={":g": {"S": "G1"}})
        self.assertEqual(set(r["LastEvaluatedKey"]), {"pk", "sk", "g1", "g2"})
        last = r["Items"][-1]
        self.assertEqual(r["LastEvaluatedKey"], {k: last[k] for k in ("pk", "sk", "g1", "g2")})

    def test_hash_only_gsi_lek(self):
        r = C.query(TableName=IDX, IndexName="g_keys", Limit=1, KeyConditionExpression="g1 = :g",
                    ExpressionAttributeValues={":g": {"S": "G0"}})
        self.assertEqual(set(r["LastEvaluatedKey"]), {"pk", "sk", "g1"})

    def test_lsi_query_lek(self):
        r = C.query(TableName=IDX, IndexName="l_keys", Limit=2, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "p0"}})
        self.assertEqual(set(r["LastEvaluatedKey"]), {"pk", "sk", "lsk"})

    def test_scan_index_lek(self):
        r = C.scan(TableName=IDX, IndexName="g_inc", Limit=3)
        self.assertEqual(set(r["LastEvaluatedKey"]), {"pk", "sk", "g1"})
        r = C.scan(TableName=IDX, IndexName="l_inc", Limit=3)
        self.assertEqual(set(r["LastEvaluatedKey"]), {"pk", "sk", "g2"})

    def test_paging_with_lek_gives_every_item_once(self):
        t = R.Table(IDX)
        for index, hname, hval in (("g_all", "g1", "G1"), ("g_keys", "g1", "G2"),
                                   ("g_inc", "g1", "G0"), ("l_keys", "pk", "p2"),
                                   ("l_inc", "pk", "p1")):
            whole, pages1 = query_all(t, IndexName=index, KeyConditionExpression=Key(hname).eq(hval))
            paged, pages = query_all(t, IndexName=index, KeyConditionExpression=Key(hname).eq(hval),
                                     Limit=1)
            self.assertEqual(pages1, 1)
            self.assertEqual(paged, whole, index)
            self.assertGreaterEqual(pages, len(whole), index)
            # Limit=2 descending too.
            back, _ = query_all(t, IndexName=index, KeyConditionExpression=Key(hname).eq(hval),
                                Limit=2, ScanIndexForward=False)
            self.assertEqual(back, list(reversed(whole)), index)

    def test_start_key_without_table_key_rejected(self):
        r = C.query(TableName=IDX, IndexName="g_all", Limit=1, KeyConditionExpression="g1 = :g",
                    ExpressionAttributeValues={":g": {"S": "G1"}})
        lek = r["LastEvaluatedKey"]
        for drop in ("pk", "sk"):
            bad = {k: v for k, v in lek.items() if k != drop}
            for op in ("query", "scan"):
                call = getattr(C, op)
                kw = {"TableName": IDX, "IndexName": "g_all", "ExclusiveStartKey": bad}
                if op == "query":
                    kw.update(KeyConditionExpression="g1 = :g",
                              ExpressionAttributeValues={":g": {"S": "G1"}})
                with self.assertRaises(ClientError) as e:
                    call(**kw)
                # DynamoDB's answer to a start key without the table's key
                # attributes (captured: dynalite's "ExclusiveStartKey is invalid
                # for local index").
                assert_error(self, e, "ValidationException", "The provided starting key is invalid")
        lsi = C.query(TableName=IDX, IndexName="l_keys", Limit=1, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": {"S": "p0"}})["LastEvaluatedKey"]
        with self.assertRaises(ClientError) as e:
            C.query(TableName=IDX, IndexName="l_keys", KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "p0"}},
                    ExclusiveStartKey={k: v for k, v in lsi.items() if k != "sk"})
        assert_error(self, e, "ValidationException", "The provided starting key is invalid")

    def test_scan_paging_on_index(self):
        t = R.Table(IDX)
        whole = scan_all(t, IndexName="g_all")
        paged = scan_all(t, IndexName="g_all", Limit=2)
        self.assertEqual(paged, whole)

    def test_paginator_on_index(self):
        p = C.get_paginator("query")
        items = []
        for page in p.paginate(TableName=IDX, IndexName="g_inc", KeyConditionExpression="g1 = :g",
                               ExpressionAttributeValues={":g": {"S": "G1"}},
                               PaginationConfig={"PageSize": 2}):
            items += page["Items"]
        self.assertEqual([x["sk"]["S"] for x in items],
                         sorted(x["sk"] for x in expected_index("g_inc", "G1")))


# ------------------------------------------------------------------ writes maintain indexes

class IndexWriteTest(unittest.TestCase):
    def setUp(self):
        self.t = R.Table(MUT)

    def gm(self, g):
        items, _ = query_all(self.t, IndexName="gmi", KeyConditionExpression=Key("g").eq(g))
        return plain(items)

    def uid(self):
        return harness.table_name("k")

    def test_put_update_delete_move_index_entries(self):
        k = self.uid()
        g1, g2 = "A-" + k, "B-" + k
        self.t.put_item(Item={"pk": k, "g": g1, "r": 1, "v": "x"})
        self.assertEqual(self.gm(g1), [{"pk": k, "g": g1, "r": 1, "v": "x"}])
        # Overwrite with a new index key: old entry gone, new present.
        self.t.put_item(Item={"pk": k, "g": g2, "r": 2, "v": "y"})
        self.assertEqual(self.gm(g1), [])
        self.assertEqual(self.gm(g2), [{"pk": k, "g": g2, "r": 2, "v": "y"}])
        # Update of a non-key attribute is visible through the ALL index.
        self.t.update_item(Key={"pk": k}, UpdateExpression="SET v = :v",
                           ExpressionAttributeValues={":v": "z"})
        self.assertEqual(self.gm(g2), [{"pk": k, "g": g2, "r": 2, "v": "z"}])
        # Update of the index key moves the entry.
        self.t.update_item(Key={"pk": k}, UpdateExpression="SET g = :g",
                           ExpressionAttributeValues={":g": g1})
        self.assertEqual(self.gm(g2), [])
        self.assertEqual(self.gm(g1), [{"pk": k, "g": g1, "r": 2, "v": "z"}])
        # Removing an index key attribute takes the item out of the index.
        self.t.update_item(Key={"pk": k}, UpdateExpression="REMOVE r")
        self.assertEqual(self.gm(g1), [])
        self.t.update_item(Key={"pk": k}, UpdateExpression="SET r = :r",
                           ExpressionAttributeValues={":r": 7})
        self.assertEqual(self.gm(g1), [{"pk": k, "g": g1, "r": 7, "v": "z"}])
        self.t.delete_item(Key={"pk": k})
        self.assertEqual(self.gm(g1), [])

    def test_failed_condition_leaves_index_untouched(self):
        k = self.uid()
        g = "C-" + k
        self.t.put_item(Item={"pk": k, "g": g, "r": 1})
        with self.assertRaises(ClientError):
            self.t.put_item(Item={"pk": k, "g": "D-" + k, "r": 2},
                            ConditionExpression=Attr("pk").not_exists())
        self.assertEqual(self.gm(g), [{"pk": k, "g": g, "r": 1}])
        self.assertEqual(self.gm("D-" + k), [])

    def test_wrong_index_key_type_refused(self):
        k = self.uid()
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=MUT, Item={"pk": {"S": k}, "g": {"N": "1"}})
        assert_error(self, e, "ValidationException",
                     INVALID + "Type mismatch for Index Key g Expected: S Actual: N IndexName: gmi")
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=MUT, Item={"pk": {"S": k}, "g": {"S": "x"}, "r": {"S": "1"}})
        assert_error(self, e, "ValidationException",
                     INVALID + "Type mismatch for Index Key r Expected: N Actual: S IndexName: gmi")
        C.put_item(TableName=MUT, Item={"pk": {"S": k}, "g": {"S": "x"}})
        with self.assertRaises(ClientError) as e:
            C.update_item(TableName=MUT, Key={"pk": {"S": k}}, UpdateExpression="SET r = :r",
                          ExpressionAttributeValues={":r": {"BOOL": True}})
        # UpdateItem words it differently from PutItem (DynamoDB's
        # UPDATING_INDEX_KEY_TYPE_MISMATCH).
        assert_error(self, e, "ValidationException",
                     "The update expression attempted to update the secondary index key to unsupported type")
        # Index keys have the key size limits too.
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=MUT, Item={"pk": {"S": k}, "g": {"S": "x" * 2049}})
        assert_error(self, e, "ValidationException",
                     INVALID + "Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 "
                     "bytes IndexName: gmi")
        with self.assertRaises(ClientError) as e:
            C.update_item(TableName=MUT, Key={"pk": {"S": k}}, UpdateExpression="SET g = :g",
                          ExpressionAttributeValues={":g": {"S": "x" * 2049}})
        assert_error(self, e, "ValidationException",
                     "The update expression attempted to update the secondary index key beyond allowed "
                     "size limits")
        # Nothing changed.
        self.assertEqual(C.get_item(TableName=MUT, Key={"pk": {"S": k}}, ConsistentRead=True)["Item"],
                         {"pk": {"S": k}, "g": {"S": "x"}})

    def test_wrong_index_key_type_on_table_with_many_indexes(self):
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=IDX, Item={"pk": {"S": "zz"}, "sk": {"S": "zz"},
                                            "lsk": {"S": "not a number"}})
        assert_error(self, e, "ValidationException",
                     INVALID + "Type mismatch for Index Key lsk Expected: N Actual: S IndexName: l_keys")
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=IDX, Item={"pk": {"S": "zz"}, "sk": {"S": "zz"},
                                            "g1": {"N": "5"}})
        m = assert_error(self, e, "ValidationException",
                         contains=INVALID + "Type mismatch for Index Key g1 Expected: S Actual: N IndexName: ")
        self.assertIn(m.rsplit(" ", 1)[-1], ("g_all", "g_keys", "g_inc"))
        r = C.get_item(TableName=IDX, Key={"pk": {"S": "zz"}, "sk": {"S": "zz"}}, ConsistentRead=True)
        self.assertNotIn("Item", r)

    def test_empty_string_index_key_refused(self):
        k = self.uid()
        with self.assertRaises(ClientError) as e:
            C.put_item(TableName=MUT, Item={"pk": {"S": k}, "g": {"S": ""}, "r": {"N": "1"}})
        assert_error(self, e, "ValidationException",
                     contains=["A value specified for a secondary index key is not supported",
                               "IndexName: gmi", "IndexKey: g"])

    def test_empty_string_in_an_index_key_condition_refused(self):
        # A Query's empty index-key value gets the secondary-index wording, as a
        # write's does (DynamoDB Local 3.3 answers the same).
        with self.assertRaises(ClientError) as e:
            C.query(TableName=MUT, IndexName="gmi", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": ""}})
        assert_error(self, e, "ValidationException",
                     "One or more parameter values are not valid. A value specified for a "
                     "secondary index key is not supported. The AttributeValue for a key "
                     "attribute cannot contain an empty string value. IndexName: gmi, "
                     "IndexKey: g")

    def test_index_key_of_other_type_elsewhere_in_item_ok(self):
        # Only top-level attributes named like the index key are checked.
        k = self.uid()
        C.put_item(TableName=MUT, Item={"pk": {"S": k}, "m": {"M": {"g": {"N": "1"}}}})
        self.assertEqual(C.get_item(TableName=MUT, Key={"pk": {"S": k}})["Item"]["m"],
                         {"M": {"g": {"N": "1"}}})


# ------------------------------------------------------------------ UpdateTable

def gsi_of(desc, name):
    for g in desc.get("GlobalSecondaryIndexes", []):
        if g["IndexName"] == name:
            return g
    return None


class UpdateTableIndexTest(unittest.TestCase):
    N = 2000

    def new_table(self, **kw):
        name = harness.table_name("upd")
        kw.setdefault("BillingMode", "PAY_PER_REQUEST")
        C.create_table(TableName=name, KeySchema=ks("pk"), **kw)
        harness.wait_active(C, name)
        self.addCleanup(lambda: C.delete_table(TableName=name))
        return name

    def test_create_gsi_on_table_with_data_backfills_while_writing(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S"))
        for base in range(0, self.N, 25):
            C.batch_write_item(RequestItems={name: [
                {"PutRequest": {"Item": dict(
                    {"pk": {"S": "k%04d" % i}, "n": {"N": str(i)}, "pad": {"S": "x" * 200}},
                    # some items stay out of the new (sparse) index
                    **({"cat": {"S": "c%d" % (i % 5)}} if i % 10 != 9 else {}))}}
                for i in range(base, min(base + 25, self.N))]})
        t = R.Table(name)

        # Writes go on before, during and after the backfill: new items,
        # index-key changes, removals of the key, deletes.
        stop = threading.Event()
        errors = []
        written = [0]

        def writer():
            wc = harness.client()
            i = 0
            try:
                while not stop.is_set() and i < 20000:
                    k = "w%05d" % i
                    wc.put_item(TableName=name, Item={"pk": {"S": k}, "n": {"N": str(i)},
                                                      "cat": {"S": "c%d" % (i % 5)}})
                    old = "k%04d" % ((i * 7) % self.N)
                    if i % 3 == 0:
                        wc.update_item(TableName=name, Key={"pk": {"S": old}},
                                       UpdateExpression="SET cat = :c",
                                       ExpressionAttributeValues={":c": {"S": "moved"}})
                    elif i % 3 == 1:
                        wc.delete_item(TableName=name, Key={"pk": {"S": old}})
                    else:
                        wc.update_item(TableName=name, Key={"pk": {"S": old}},
                                       UpdateExpression="REMOVE cat")
                    i += 1
                    written[0] = i
            except Exception as ex:  # noqa: BLE001
                errors.append(ex)

        th = threading.Thread(target=writer)
        th.start()
        seen = []
        try:
            time.sleep(0.1)
            before = written[0]
            r = C.update_table(
                TableName=name, AttributeDefinitions=ad(pk="S", cat="S", n="N"),
                GlobalSecondaryIndexUpdates=[{"Create": {
                    "IndexName": "bycat", "KeySchema": ks("cat", "n"),
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["pad"]}}}])
            td = r["TableDescription"]
            g = gsi_of(td, "bycat")
            self.assertIsNotNone(g)
            self.assertEqual(g["IndexStatus"], "CREATING")
            self.assertEqual(td["TableStatus"], "UPDATING")
            self.assertEqual(g["KeySchema"], ks("cat", "n"))
            self.assertEqual(g["Projection"], {"ProjectionType": "INCLUDE",
                                               "NonKeyAttributes": ["pad"]})
            deadline = time.monotonic() + 120
            while True:
                d = C.describe_table(TableName=name)["Table"]
                g = gsi_of(d, "bycat")
                self.assertIsNotNone(g)
                seen.append((g["IndexStatus"], g.get("Backfilling")))
                if g["IndexStatus"] == "ACTIVE":
                    break
                self.assertEqual(g["IndexStatus"], "CREATING")
                if "Backfilling" in g:
                    self.assertIsInstance(g["Backfilling"], bool)
                self.assertLess(time.monotonic(), deadline, "index not ACTIVE in 120 s: %r" % seen[-5:])
                time.sleep(0.02)
            during = written[0]
            time.sleep(0.2)  # and some more writes once ACTIVE
        finally:
            stop.set()
            th.join()
        self.assertFalse(errors, errors)
        self.assertGreater(before, 0)
        self.assertGreater(during, before)  # writes overlapped the backfill
        self.assertNotEqual(g.get("Backfilling"), True)
        harness.wait_active(C, name)

        # Every item with a cat is in the index, exactly once, with its projection.
        table_items = plain(scan_all(t, ConsistentRead=True))
        exp = {}
        for it in table_items:
            if "cat" in it and "n" in it:
                exp[it["pk"]] = proj(it, {"pk", "cat", "n", "pad"})
        got = {}
        for cat in ["c%d" % j for j in range(5)] + ["moved"]:
            items, _ = query_all(t, IndexName="bycat", KeyConditionExpression=Key("cat").eq(cat))
            for it in plain(items):
                self.assertNotIn(it["pk"], got, "duplicate index entry")
                got[it["pk"]] = it
        self.assertEqual(len(got), len(exp))
        self.assertEqual(got, exp)
        scanned = plain(scan_all(t, IndexName="bycat"))
        self.assertEqual(len(scanned), len(exp))

    def test_create_gsi_needs_attribute_definitions(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S"))
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "gxx", "KeySchema": ks("gxx"), "Projection": {"ProjectionType": "ALL"}}}])
        assert_error(self, e, "ValidationException")

    def test_only_one_index_change_per_call(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S"))
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, AttributeDefinitions=ad(pk="S", a="S", b="S"),
                           GlobalSecondaryIndexUpdates=[
                               {"Create": {"IndexName": "gaa", "KeySchema": ks("a"),
                                           "Projection": {"ProjectionType": "ALL"}}},
                               {"Create": {"IndexName": "gbb", "KeySchema": ks("b"),
                                           "Projection": {"ProjectionType": "ALL"}}}])
        assert_error(self, e, "LimitExceededException",
                     "Subscriber limit exceeded: Only 1 online index can be created or deleted "
                     "simultaneously per table")
        self.assertNotIn("GlobalSecondaryIndexes", C.describe_table(TableName=name)["Table"])

    def wait_gsi_gone(self, name, index, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            d = C.describe_table(TableName=name)["Table"]
            g = gsi_of(d, index)
            if g is None:
                return d
            self.assertEqual(g["IndexStatus"], "DELETING")
            self.assertLess(time.monotonic(), deadline, "index %s still there" % index)
            time.sleep(0.05)

    def test_delete_gsi(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S", g="S", h="S"),
                              GlobalSecondaryIndexes=[
                                  {"IndexName": "gdel", "KeySchema": ks("g"),
                                   "Projection": {"ProjectionType": "KEYS_ONLY"}},
                                  {"IndexName": "gkeep", "KeySchema": ks("h"),
                                   "Projection": {"ProjectionType": "ALL"}}])
        for i in range(20):
            C.put_item(TableName=name, Item={"pk": {"S": "k%d" % i}, "g": {"S": "x"},
                                             "h": {"S": "y"}})
        r = C.update_table(TableName=name,
                           GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gdel"}}])
        g = gsi_of(r["TableDescription"], "gdel")
        self.assertIsNotNone(g)
        self.assertEqual(g["IndexStatus"], "DELETING")
        d = self.wait_gsi_gone(name, "gdel")
        self.assertEqual([x["IndexName"] for x in d["GlobalSecondaryIndexes"]], ["gkeep"])
        harness.wait_active(C, name)
        with self.assertRaises(ClientError) as e:
            C.query(TableName=name, IndexName="gdel", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "x"}})
        assert_error(self, e, "ValidationException", "The table does not have the specified index: gdel")
        # The remaining index still works and is complete.
        r = C.query(TableName=name, IndexName="gkeep", KeyConditionExpression="h = :h",
                    ExpressionAttributeValues={":h": {"S": "y"}})
        self.assertEqual(r["Count"], 20)
        # The deleted index no longer constrains writes of its former key.
        C.put_item(TableName=name, Item={"pk": {"S": "free"}, "g": {"N": "1"}})

    def test_attribute_definitions_follow_the_key_schemas(self):
        # DynamoDB keeps exactly the definitions some key schema uses: a deleted
        # index's attribute is free to come back with another type, and an unused
        # definition given with a Create is dropped.
        name = self.new_table(AttributeDefinitions=ad(pk="S", cid="S"),
                              GlobalSecondaryIndexes=[{
                                  "IndexName": "bycid", "KeySchema": ks("cid"),
                                  "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "bycid"}}])
        self.wait_gsi_gone(name, "bycid")
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(d["AttributeDefinitions"], ad(pk="S"))
        C.update_table(TableName=name, AttributeDefinitions=ad(cid="N", unused="S"),
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "bycidn", "KeySchema": ks("cid"),
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(sorted(d["AttributeDefinitions"], key=lambda x: x["AttributeName"]),
                         ad(cid="N", pk="S"))

    def test_delete_last_gsi(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S", g="S"),
                              GlobalSecondaryIndexes=[{"IndexName": "only", "KeySchema": ks("g"),
                                                       "Projection": {"ProjectionType": "ALL"}}])
        C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "only"}}])
        d = self.wait_gsi_gone(name, "only")
        self.assertFalse(d.get("GlobalSecondaryIndexes"))

    def test_recreate_index_after_delete(self):
        name = self.new_table(AttributeDefinitions=ad(pk="S", g="S"),
                              GlobalSecondaryIndexes=[{"IndexName": "reidx", "KeySchema": ks("g"),
                                                       "Projection": {"ProjectionType": "ALL"}}])
        for i in range(30):
            C.put_item(TableName=name, Item={"pk": {"S": "k%d" % i}, "g": {"S": "v%d" % (i % 2)}})
        C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "reidx"}}])
        self.wait_gsi_gone(name, "reidx")
        harness.wait_active(C, name)
        C.update_table(TableName=name, AttributeDefinitions=ad(pk="S", g="S"),
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "reidx", "KeySchema": ks("g"),
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
        deadline = time.monotonic() + 60
        while gsi_of(C.describe_table(TableName=name)["Table"], "reidx")["IndexStatus"] != "ACTIVE":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        r = C.query(TableName=name, IndexName="reidx", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "v1"}})
        self.assertEqual(r["Count"], 15)
        for it in r["Items"]:
            self.assertEqual(set(it), {"pk", "g"})


class UpdateTableThroughputTest(unittest.TestCase):
    def test_billing_mode_and_throughput(self):
        name = harness.create_table(C)
        self.addCleanup(lambda: C.delete_table(TableName=name))
        C.update_table(TableName=name, BillingMode="PROVISIONED",
                       ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6})
        harness.wait_active(C, name)
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(d["BillingModeSummary"]["BillingMode"], "PROVISIONED")
        self.assertEqual(d["ProvisionedThroughput"]["ReadCapacityUnits"], 5)
        self.assertEqual(d["ProvisionedThroughput"]["WriteCapacityUnits"], 6)
        C.update_table(TableName=name,
                       ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 7})
        harness.wait_active(C, name)
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(d["ProvisionedThroughput"]["ReadCapacityUnits"], 10)
        self.assertEqual(d["ProvisionedThroughput"]["WriteCapacityUnits"], 7)
        C.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
        harness.wait_active(C, name)
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(d["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST")
        self.assertEqual(d["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        self.assertEqual(d["ProvisionedThroughput"]["WriteCapacityUnits"], 0)

    def test_switch_to_provisioned_needs_gsi_throughput(self):
        name = harness.table_name("swp")
        C.create_table(TableName=name, KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                       GlobalSecondaryIndexes=[{"IndexName": "swg", "KeySchema": ks("g"),
                                                "Projection": {"ProjectionType": "ALL"}}],
                       BillingMode="PAY_PER_REQUEST")
        self.addCleanup(lambda: C.delete_table(TableName=name))
        harness.wait_active(C, name)
        tp = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, BillingMode="PROVISIONED", ProvisionedThroughput=tp)
        assert_error(self, e, "ValidationException",
                     INVALID + "ProvisionedThroughput must be specified for index: swg")
        self.assertEqual(C.describe_table(TableName=name)["Table"]["BillingModeSummary"]
                         ["BillingMode"], "PAY_PER_REQUEST")
        C.update_table(TableName=name, BillingMode="PROVISIONED", ProvisionedThroughput=tp,
                       GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "swg",
                                                                "ProvisionedThroughput": tp}}])
        harness.wait_active(C, name)
        g = gsi_of(C.describe_table(TableName=name)["Table"], "swg")
        self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 2)

    def test_gsi_throughput_update(self):
        name = harness.table_name("gtp")
        C.create_table(TableName=name, KeySchema=ks("pk"), AttributeDefinitions=ad(pk="S", g="S"),
                       GlobalSecondaryIndexes=[{
                           "IndexName": "gtp", "KeySchema": ks("g"),
                           "Projection": {"ProjectionType": "ALL"},
                           "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                     "WriteCapacityUnits": 1}}],
                       ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        self.addCleanup(lambda: C.delete_table(TableName=name))
        harness.wait_active(C, name)
        C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Update": {
            "IndexName": "gtp",
            "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}}])
        deadline = time.monotonic() + 30
        while True:
            g = gsi_of(C.describe_table(TableName=name)["Table"], "gtp")
            if g["IndexStatus"] == "ACTIVE":
                break
            self.assertEqual(g["IndexStatus"], "UPDATING")
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 2)
        self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
