"""Control-plane e2e tests via boto3 (client and resource APIs).

Asserts real Amazon DynamoDB behaviour (API reference: CreateTable,
DescribeTable, ListTables, DeleteTable; developer guide "Naming rules").
Run standalone: python3 tests/e2e/test_boto3_tables.py

Known moto 5.x deviations from the AWS docs (these tests fail on moto, on
purpose): no TableId in DescribeTable; table-name length/pattern not
validated (moto creates 'ab', 256-char and 'bad name!' tables); first
KeySchemaElement RANGE accepted; PAY_PER_REQUEST + ProvisionedThroughput gives
a different message; ListTables is not sorted, ExclusiveStartTableName must
name an existing table, and Limit > 100 is accepted.
"""

import datetime
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
R = None
CNV = None  # client without botocore-side parameter validation


def setUpModule():
    global C, R, CNV
    harness.start()
    C = harness.client()
    CNV = harness.client(validate=False)
    R = harness.resource()


def tearDownModule():
    harness.stop()


def _hash_only(name, key="pk", typ="S", client=None, **kw):
    kw.setdefault("BillingMode", "PAY_PER_REQUEST")
    return (client or C).create_table(
        TableName=name,
        KeySchema=[{"AttributeName": key, "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": key, "AttributeType": typ}],
        **kw)


class CreateTableTest(unittest.TestCase):
    def tearDown(self):
        for name in getattr(self, "_cleanup", []):
            try:
                C.delete_table(TableName=name)
            except ClientError:
                pass

    def track(self, name):
        self.__dict__.setdefault("_cleanup", []).append(name)
        return name

    def test_hash_only_pay_per_request(self):
        name = self.track(harness.table_name())
        resp = _hash_only(name)
        td = resp["TableDescription"]
        self.assertEqual(td["TableName"], name)
        # A brand new table is CREATING on AWS; emulators often say ACTIVE.
        self.assertIn(td["TableStatus"], ("CREATING", "ACTIVE"))
        self.assertEqual(td["KeySchema"], [{"AttributeName": "pk", "KeyType": "HASH"}])
        self.assertEqual(td["AttributeDefinitions"],
                         [{"AttributeName": "pk", "AttributeType": "S"}])
        self.assertEqual(td["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST")
        # On-demand tables report zero provisioned capacity.
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        self.assertEqual(td["ProvisionedThroughput"]["WriteCapacityUnits"], 0)
        self.assertEqual(td["ItemCount"], 0)
        self.assertEqual(td["TableSizeBytes"], 0)
        harness.wait_active(C, name)

    def test_hash_and_range(self):
        name = self.track(harness.table_name())
        td = C.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "N"}],
            BillingMode="PAY_PER_REQUEST")["TableDescription"]
        self.assertEqual(td["KeySchema"], [{"AttributeName": "pk", "KeyType": "HASH"},
                                           {"AttributeName": "sk", "KeyType": "RANGE"}])
        defs = sorted(td["AttributeDefinitions"], key=lambda d: d["AttributeName"])
        self.assertEqual(defs, [{"AttributeName": "pk", "AttributeType": "S"},
                                {"AttributeName": "sk", "AttributeType": "N"}])

    def test_number_and_binary_keys(self):
        name = self.track(harness.table_name())
        td = C.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "n", "KeyType": "HASH"},
                       {"AttributeName": "b", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "n", "AttributeType": "N"},
                                  {"AttributeName": "b", "AttributeType": "B"}],
            BillingMode="PAY_PER_REQUEST")["TableDescription"]
        types = {d["AttributeName"]: d["AttributeType"] for d in td["AttributeDefinitions"]}
        self.assertEqual(types, {"n": "N", "b": "B"})
        harness.wait_active(C, name)
        C.put_item(TableName=name, Item={"n": {"N": "7"}, "b": {"B": b"\x00\xff"}})
        got = C.get_item(TableName=name, Key={"n": {"N": "7"}, "b": {"B": b"\x00\xff"}})
        self.assertEqual(got["Item"], {"n": {"N": "7"}, "b": {"B": b"\x00\xff"}})

    def test_provisioned_echo(self):
        name = self.track(harness.table_name())
        td = _hash_only(name, BillingMode="PROVISIONED",
                        ProvisionedThroughput={"ReadCapacityUnits": 7,
                                               "WriteCapacityUnits": 3})["TableDescription"]
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"], 7)
        self.assertEqual(td["ProvisionedThroughput"]["WriteCapacityUnits"], 3)
        # AWS omits BillingModeSummary for tables that were always PROVISIONED;
        # when present it must say PROVISIONED.
        if "BillingModeSummary" in td:
            self.assertEqual(td["BillingModeSummary"]["BillingMode"], "PROVISIONED")
        harness.wait_active(C, name)
        d = C.describe_table(TableName=name)["Table"]
        self.assertEqual(d["ProvisionedThroughput"]["ReadCapacityUnits"], 7)
        self.assertEqual(d["ProvisionedThroughput"]["WriteCapacityUnits"], 3)

    def test_provisioned_is_default_billing_mode(self):
        # BillingMode defaults to PROVISIONED, which needs ProvisionedThroughput.
        name = self.track(harness.table_name())
        td = C.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        )["TableDescription"]
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"], 1)

    def test_resource_create_table_and_waiter(self):
        name = self.track(harness.table_name())
        table = R.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST")
        table.wait_until_exists()
        table.reload()
        self.assertEqual(table.table_status, "ACTIVE")
        self.assertEqual(table.key_schema, [{"AttributeName": "pk", "KeyType": "HASH"}])
        self.assertEqual(table.name, name)

    def test_client_waiter_table_exists(self):
        name = self.track(harness.table_name())
        _hash_only(name)
        C.get_waiter("table_exists").wait(TableName=name,
                                          WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        self.assertEqual(C.describe_table(TableName=name)["Table"]["TableStatus"], "ACTIVE")

    def test_duplicate_table_resource_in_use(self):
        name = self.track(harness.table_name())
        _hash_only(name)
        with self.assertRaises(ClientError) as cm:
            _hash_only(name)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ResourceInUseException")
        # AWS: "Table already exists: <name>"
        self.assertIn("Table already exists: " + name, msg)

    # ---- validation -------------------------------------------------------

    def assertValidation(self, cm, expected_msg=None, contains=None):
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException", msg)
        if expected_msg is not None:
            self.assertEqual(msg, expected_msg)
        for c in ([contains] if isinstance(contains, str) else (contains or [])):
            self.assertIn(c, msg)
        return msg

    def test_table_name_too_short(self):
        with self.assertRaises(ClientError) as cm:
            _hash_only(self.track("ab"), client=CNV)
        self.assertValidation(
            cm, "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
                "constraint: Member must have length greater than or equal to 3")

    def test_table_name_too_long(self):
        name = self.track("a" * 256)
        with self.assertRaises(ClientError) as cm:
            _hash_only(name, client=CNV)
        self.assertValidation(
            cm, "1 validation error detected: Value '%s' at 'tableName' failed to satisfy "
                "constraint: Member must have length less than or equal to 255" % name)

    def test_table_name_max_length_ok(self):
        name = self.track(harness.table_name("L")[:20].ljust(255, "z"))
        self.assertEqual(len(name), 255)
        td = _hash_only(name)["TableDescription"]
        self.assertEqual(td["TableName"], name)

    def test_table_name_bad_characters(self):
        with self.assertRaises(ClientError) as cm:
            _hash_only(self.track("bad name!"), client=CNV)
        self.assertValidation(
            cm, "1 validation error detected: Value 'bad name!' at 'tableName' failed to "
                "satisfy constraint: Member must satisfy regular expression pattern: "
                "[a-zA-Z0-9_.-]+")

    def test_table_name_all_allowed_characters(self):
        name = self.track("Az09_.-" + harness.table_name())
        td = _hash_only(name)["TableDescription"]
        self.assertEqual(td["TableName"], name)

    def test_key_schema_attribute_not_defined(self):
        with self.assertRaises(ClientError) as cm:
            C.create_table(
                TableName=self.track(harness.table_name()),
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "other", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST")
        self.assertValidation(
            cm, contains=["One or more parameter values were invalid",
                          "Some index key attributes are not defined in AttributeDefinitions"])

    def test_attribute_definitions_unused(self):
        with self.assertRaises(ClientError) as cm:
            C.create_table(
                TableName=self.track(harness.table_name()),
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                      {"AttributeName": "extra", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST")
        self.assertValidation(
            cm, "One or more parameter values were invalid: Number of attributes in KeySchema "
                "does not exactly match number of attributes defined in AttributeDefinitions")

    def test_first_key_must_be_hash(self):
        with self.assertRaises(ClientError) as cm:
            C.create_table(
                TableName=self.track(harness.table_name()),
                KeySchema=[{"AttributeName": "pk", "KeyType": "RANGE"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST")
        self.assertValidation(cm, contains="Invalid KeySchema")

    def test_provisioned_without_throughput(self):
        with self.assertRaises(ClientError) as cm:
            C.create_table(
                TableName=self.track(harness.table_name()),
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PROVISIONED")
        # AWS: "One or more parameter values were invalid: ReadCapacityUnits and
        # WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
        self.assertValidation(cm, contains="ReadCapacityUnits and WriteCapacityUnits must "
                                           "both be specified when BillingMode is PROVISIONED")

    def test_pay_per_request_with_throughput_rejected(self):
        with self.assertRaises(ClientError) as cm:
            _hash_only(self.track(harness.table_name()),
                       ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        # AWS: "One or more parameter values were invalid: Neither ReadCapacityUnits nor
        # WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
        self.assertValidation(cm, contains="Neither ReadCapacityUnits nor WriteCapacityUnits "
                                           "can be specified when BillingMode is "
                                           "PAY_PER_REQUEST")


class DescribeTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.name = harness.table_name()
        C.create_table(
            TableName=cls.name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST")
        C.get_waiter("table_exists").wait(TableName=cls.name,
                                          WaiterConfig={"Delay": 1, "MaxAttempts": 30})

    @classmethod
    def tearDownClass(cls):
        C.delete_table(TableName=cls.name)

    def test_stream_enabled_table_has_a_latest_stream(self):
        name = harness.table_name("strm")
        C.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       StreamSpecification={"StreamEnabled": True,
                                            "StreamViewType": "NEW_AND_OLD_IMAGES"})
        self.addCleanup(lambda: C.delete_table(TableName=name))
        t = C.describe_table(TableName=name)["Table"]
        self.assertEqual(t["StreamSpecification"],
                         {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        self.assertRegex(t["LatestStreamLabel"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$")
        self.assertEqual(t["LatestStreamArn"], t["TableArn"] + "/stream/" + t["LatestStreamLabel"])
        def refused(message, **kw):
            with self.assertRaises(ClientError) as e:
                C.update_table(TableName=name, **kw)
            self.assertEqual(harness.error_of(e.exception), ("ValidationException", message))

        refused("Table already has an enabled stream: TableName: " + name,
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        refused("One or more parameter values were invalid: If stream is being disabled, then "
                "UpdateViewType must not be specified",
                StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"})
        C.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        t = C.describe_table(TableName=name)["Table"]
        # A disabled stream leaves the description (its ARN stays as the latest).
        self.assertNotIn("StreamSpecification", t)
        self.assertIn("LatestStreamArn", t)
        refused("Table has no stream to disable: TableName: " + name,
                StreamSpecification={"StreamEnabled": False})
        C.update_table(TableName=name, StreamSpecification={"StreamEnabled": True,
                                                            "StreamViewType": "KEYS_ONLY"})
        t = C.describe_table(TableName=name)["Table"]
        self.assertEqual(t["StreamSpecification"], {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})

    def test_stream_disabled_at_creation_takes_no_view_type(self):
        name = harness.table_name("strm")
        with self.assertRaises(ClientError) as e:
            C.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"})
        self.assertEqual(harness.error_of(e.exception),
                         ("ValidationException", "One or more parameter values were invalid: Table is "
                          "being created with a stream disabled, UpdateViewType should not be specified"))
        self.assertNotIn(name, C.list_tables()["TableNames"])

    def test_fields(self):
        t = C.describe_table(TableName=self.name)["Table"]
        self.assertEqual(t["TableName"], self.name)
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertEqual(t["KeySchema"], [{"AttributeName": "pk", "KeyType": "HASH"},
                                          {"AttributeName": "sk", "KeyType": "RANGE"}])
        self.assertEqual(sorted(t["AttributeDefinitions"], key=lambda d: d["AttributeName"]),
                         [{"AttributeName": "pk", "AttributeType": "S"},
                          {"AttributeName": "sk", "AttributeType": "S"}])
        self.assertIsInstance(t["ItemCount"], int)
        self.assertIsInstance(t["TableSizeBytes"], int)
        self.assertGreaterEqual(t["ItemCount"], 0)
        self.assertGreaterEqual(t["TableSizeBytes"], 0)
        # arn:aws:dynamodb:<region>:<12-digit account>:table/<name>
        self.assertRegex(t["TableArn"],
                         r"^arn:aws:dynamodb:us-east-1:\d{12}:table/%s$" % re.escape(self.name))
        self.assertRegex(t["TableId"],
                         r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        self.assertIsInstance(t["CreationDateTime"], datetime.datetime)
        now = datetime.datetime.now(datetime.timezone.utc)
        self.assertLess(abs((now - t["CreationDateTime"]).total_seconds()), 3600)
        self.assertEqual(t["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST")
        self.assertEqual(t["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        self.assertEqual(t["ProvisionedThroughput"]["WriteCapacityUnits"], 0)
        self.assertEqual(t["ProvisionedThroughput"]["NumberOfDecreasesToday"], 0)
        # DeletionProtectionEnabled defaults to false and is reported (only
        # visible with a botocore whose model has the member).
        if harness.model_has(C, "TableDescription", "DeletionProtectionEnabled"):
            self.assertIs(t.get("DeletionProtectionEnabled"), False)

    def test_table_id_and_arn_stable(self):
        a = C.describe_table(TableName=self.name)["Table"]
        b = C.describe_table(TableName=self.name)["Table"]
        self.assertEqual(a["TableId"], b["TableId"])
        self.assertEqual(a["TableArn"], b["TableArn"])
        self.assertEqual(a["CreationDateTime"], b["CreationDateTime"])

    def test_describe_by_arn(self):
        # TableName accepts the table ARN as well (API reference: TableName).
        arn = C.describe_table(TableName=self.name)["Table"]["TableArn"]
        t = C.describe_table(TableName=arn)["Table"]
        self.assertEqual(t["TableName"], self.name)

    def test_resource_attributes(self):
        t = R.Table(self.name)
        self.assertEqual(t.table_status, "ACTIVE")
        self.assertEqual(t.item_count, 0)
        self.assertEqual(t.table_name, self.name)
        self.assertTrue(t.table_arn.endswith(":table/" + self.name))

    def test_describe_missing(self):
        missing = harness.table_name("missing")
        with self.assertRaises(ClientError) as cm:
            C.describe_table(TableName=missing)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ResourceNotFoundException")
        # AWS: "Requested resource not found: Table: <name> not found"
        self.assertIn("Requested resource not found", msg)
        self.assertIn(missing, msg)

    def test_describe_missing_modeled_exception(self):
        with self.assertRaises(C.exceptions.ResourceNotFoundException):
            C.describe_table(TableName=harness.table_name("missing"))


class ListTablesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Names share a prefix so this test can ignore other tables on a shared
        # endpoint; created out of order to check sorting.
        cls.prefix = "lt-" + harness.table_name()[2:12] + "-"
        cls.names = [cls.prefix + s for s in ("d", "a", "e", "c", "b", "B", "a.1")]
        for n in cls.names:
            _hash_only(n)
        for n in cls.names:
            harness.wait_active(C, n)

    @classmethod
    def tearDownClass(cls):
        for n in cls.names:
            try:
                C.delete_table(TableName=n)
            except ClientError:
                pass

    def mine(self, names):
        return [n for n in names if n.startswith(self.prefix)]

    def all_names(self, **kw):
        out, start = [], None
        while True:
            args = dict(kw)
            if start:
                args["ExclusiveStartTableName"] = start
            r = C.list_tables(**args)
            out += r["TableNames"]
            start = r.get("LastEvaluatedTableName")
            if not start:
                return out

    def test_sorted(self):
        names = self.all_names()
        self.assertEqual(names, sorted(names))
        self.assertEqual(self.mine(names), sorted(self.names))

    def test_limit_and_last_evaluated(self):
        r = C.list_tables(Limit=2, ExclusiveStartTableName=self.prefix)
        self.assertEqual(len(r["TableNames"]), 2)
        self.assertEqual(r["TableNames"], sorted(self.names)[:2])
        self.assertEqual(r["LastEvaluatedTableName"], r["TableNames"][-1])
        r2 = C.list_tables(Limit=3, ExclusiveStartTableName=r["LastEvaluatedTableName"])
        self.assertEqual(r2["TableNames"], sorted(self.names)[2:5])

    def test_exclusive_start_is_exclusive(self):
        first = sorted(self.names)[0]
        r = C.list_tables(ExclusiveStartTableName=first, Limit=100)
        self.assertNotIn(first, r["TableNames"])
        self.assertEqual(self.mine(r["TableNames"]), sorted(self.names)[1:])

    def test_paginate_with_limit(self):
        names = self.all_names(Limit=1)
        self.assertEqual(self.mine(names), sorted(self.names))
        self.assertEqual(len(names), len(set(names)))

    def test_paginator(self):
        pages = list(C.get_paginator("list_tables").paginate(PaginationConfig={"PageSize": 2}))
        names = [n for p in pages for n in p["TableNames"]]
        self.assertEqual(self.mine(names), sorted(self.names))
        self.assertGreaterEqual(len(pages), 4)
        for p in pages:
            self.assertLessEqual(len(p["TableNames"]), 2)

    def test_resource_tables_all(self):
        names = [t.name for t in R.tables.all()]
        self.assertEqual(self.mine(names), sorted(self.names))

    def test_limit_out_of_range(self):
        with self.assertRaises(ClientError) as cm:
            CNV.list_tables(Limit=101)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ValidationException")
        self.assertIn("Member must have value less than or equal to 100", msg)


class DeleteTableTest(unittest.TestCase):
    def test_delete_then_not_found(self):
        name = harness.table_name()
        _hash_only(name)
        harness.wait_active(C, name)
        C.put_item(TableName=name, Item={"pk": {"S": "x"}})
        td = C.delete_table(TableName=name)["TableDescription"]
        self.assertEqual(td["TableName"], name)
        self.assertIn(td["TableStatus"], ("DELETING", "ACTIVE"))
        C.get_waiter("table_not_exists").wait(TableName=name,
                                              WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        with self.assertRaises(ClientError) as cm:
            C.describe_table(TableName=name)
        self.assertEqual(harness.error_of(cm.exception)[0], "ResourceNotFoundException")
        with self.assertRaises(ClientError) as cm:
            C.get_item(TableName=name, Key={"pk": {"S": "x"}})
        self.assertEqual(harness.error_of(cm.exception)[0], "ResourceNotFoundException")
        self.assertNotIn(name, C.list_tables(ExclusiveStartTableName=name[:-1])["TableNames"])

    def test_delete_missing(self):
        name = harness.table_name("missing")
        with self.assertRaises(ClientError) as cm:
            C.delete_table(TableName=name)
        code, msg = harness.error_of(cm.exception)
        self.assertEqual(code, "ResourceNotFoundException")
        self.assertIn("Requested resource not found", msg)

    def test_recreate_after_delete_is_empty(self):
        name = harness.table_name()
        _hash_only(name)
        harness.wait_active(C, name)
        C.put_item(TableName=name, Item={"pk": {"S": "x"}})
        C.delete_table(TableName=name)
        C.get_waiter("table_not_exists").wait(TableName=name,
                                              WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        _hash_only(name)
        harness.wait_active(C, name)
        self.assertNotIn("Item", C.get_item(TableName=name, Key={"pk": {"S": "x"}}))
        self.assertEqual(C.scan(TableName=name)["Count"], 0)
        C.delete_table(TableName=name)

    def test_resource_delete(self):
        name = harness.table_name()
        _hash_only(name)
        t = R.Table(name)
        t.wait_until_exists()
        t.delete()
        t.wait_until_not_exists()
        with self.assertRaises(ClientError):
            t.reload()

    def test_item_ops_on_missing_table(self):
        name = harness.table_name("missing")
        for call in (lambda: C.put_item(TableName=name, Item={"pk": {"S": "a"}}),
                     lambda: C.get_item(TableName=name, Key={"pk": {"S": "a"}}),
                     lambda: C.scan(TableName=name),
                     lambda: C.query(TableName=name, KeyConditionExpression="pk = :v",
                                     ExpressionAttributeValues={":v": {"S": "a"}})):
            with self.assertRaises(ClientError) as cm:
                call()
            code, msg = harness.error_of(cm.exception)
            self.assertEqual(code, "ResourceNotFoundException")
            # AWS data-plane message is "Requested resource not found"
            self.assertIn("Requested resource not found", msg)


class AdminValidationTest(unittest.TestCase):
    """Bad input to the tag, time-to-live and backup operations: DynamoDB's error
    type (and, where its wording is known, message), and nothing changed."""

    @classmethod
    def setUpClass(cls):
        cls.name = harness.table_name("adm")
        _hash_only(cls.name, Tags=[{"Key": "keep", "Value": "v"}])
        harness.wait_active(C, cls.name)
        cls.arn = C.describe_table(TableName=cls.name)["Table"]["TableArn"]

    @classmethod
    def tearDownClass(cls):
        C.delete_table(TableName=cls.name)

    def refused(self, call, message=None, contains=None):
        with self.assertRaises(ClientError) as e:
            call()
        return harness.assert_error(self, e, "ValidationException", message, contains)

    def tags(self):
        return C.list_tags_of_resource(ResourceArn=self.arn)["Tags"]

    def test_tag_rules(self):
        tag = lambda k, v="v": lambda: C.tag_resource(  # noqa: E731
            ResourceArn=self.arn, Tags=[{"Key": k, "Value": v}])
        self.refused(tag("aws:owner"), contains=["aws:owner", "aws:"])
        self.refused(tag("AWS:Owner"), contains="AWS:Owner")
        self.refused(tag("bad#key"), contains="bad#key")
        self.refused(tag("k", "bad\u0000value"))
        self.refused(lambda: C.tag_resource(ResourceArn=self.arn, Tags=[
            {"Key": "t%02d" % i, "Value": "v"} for i in range(50)]), contains="50")
        self.assertEqual(self.tags(), [{"Key": "keep", "Value": "v"}])
        # 49 more make 50: allowed; tagging a key again replaces its value.
        C.tag_resource(ResourceArn=self.arn, Tags=[{"Key": "t%02d" % i, "Value": "v"}
                                                   for i in range(49)])
        C.tag_resource(ResourceArn=self.arn, Tags=[{"Key": "keep", "Value": "w"}])
        tags = self.tags()
        self.assertEqual(len(tags), 50)
        self.assertEqual(tags[0], {"Key": "keep", "Value": "w"})
        C.untag_resource(ResourceArn=self.arn, TagKeys=["t%02d" % i for i in range(49)])
        C.tag_resource(ResourceArn=self.arn, Tags=[{"Key": "keep", "Value": "v"}])

    def test_tagging_refuses_what_is_not_this_accounts_table(self):
        """Index ARNs, other ARNs of DynamoDB, other services, accounts and regions:
        the error classes DynamoDB answers each with (checked against the service
        by other emulators' authors; the messages where known)."""
        account, region = self.arn.split(":")[4], self.arn.split(":")[3]
        tag = [{"Key": "x", "Value": "y"}]
        index_arn = self.arn + "/index/someindex"
        for call in (lambda a: C.tag_resource(ResourceArn=a, Tags=tag),
                     lambda a: C.untag_resource(ResourceArn=a, TagKeys=["keep"]),
                     lambda a: C.list_tags_of_resource(ResourceArn=a)):
            self.refused(lambda: call(index_arn),
                         "One or more parameter values were invalid: Invalid resource arn "
                         "provided, only table or stream is accepted. Provided resource arn: " +
                         index_arn)
            backup = self.arn + "/backup/01234567890123-abcdefgh"
            self.refused(lambda: call(backup), "One or more parameter values were invalid: "
                         "Provided Arn is not a DynamoDB resource arn: " + backup)
            self.refused(lambda: call("table/" + self.name),
                         "One or more parameter values were invalid: ARNs must start with "
                         "'arn:': table/" + self.name)
            other_region = self.arn.replace(":%s:" % region, ":eu-west-3:")
            self.refused(lambda: call(other_region),
                         "Invalid TableArn: Invalid ResourceArn provided as input " + other_region)
            for other in (self.arn.replace(":%s:" % account, ":123456789012:"),
                          "arn:aws:s3:::bucket/%s" % self.name.replace("_", "-")):
                with self.assertRaises(ClientError) as e:
                    call(other)
                harness.assert_error(self, e, "AccessDeniedException",
                                     contains=["is not authorized to perform: dynamodb:",
                                               other])
            missing = self.arn.replace(self.name, self.name + "_gone")
            with self.assertRaises(ClientError) as e:
                call(missing)
            harness.assert_error(self, e, "ResourceNotFoundException",
                                 "Requested resource not found: ResourcArn: %s not found" % missing)
        self.assertEqual(self.tags(), [{"Key": "keep", "Value": "v"}])

    def test_create_table_with_a_tag_key_twice(self):
        name = harness.table_name("dup")
        self.refused(lambda: _hash_only(name, Tags=[{"Key": "a", "Value": "1"},
                                                    {"Key": "a", "Value": "2"}]),
                     "One or more parameter values were invalid: Duplicate tag key: a")
        self.assertNotIn(name, C.list_tables()["TableNames"])

    def test_time_to_live_attribute_name_length(self):
        spec = lambda n: lambda: CNV.update_time_to_live(  # noqa: E731
            TableName=self.name, TimeToLiveSpecification={"Enabled": True, "AttributeName": n})
        # An empty name in DynamoDB's own words (captured from the service).
        self.refused(spec(""), "TimeToLiveSpecification.AttributeName must be non empty")
        self.refused(spec("a" * 256), contains="Member must have length less than or equal to 255")
        self.assertEqual(C.describe_time_to_live(TableName=self.name)["TimeToLiveDescription"],
                         {"TimeToLiveStatus": "DISABLED"})

    def test_recovery_period_needs_point_in_time_recovery(self):
        if not harness.model_has(C, "PointInTimeRecoverySpecification", "RecoveryPeriodInDays"):
            self.skipTest("this botocore does not know RecoveryPeriodInDays")
        self.refused(lambda: C.update_continuous_backups(
            TableName=self.name, PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": False, "RecoveryPeriodInDays": 7}),
            "RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true")
        d = C.describe_continuous_backups(TableName=self.name)["ContinuousBackupsDescription"]
        self.assertEqual(d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"], "DISABLED")


class GsiTables:
    """Tables keyed by pk with one GSI by_g, deleted after each test."""

    def setUp(self):
        self.names = []

    def tearDown(self):
        for name in self.names:
            try:
                C.delete_table(TableName=name)
            except ClientError:
                pass

    def create(self, prefix, **kw):
        """The new table's name and CreateTable's TableDescription; `gsi`
        adds members to the index, the rest to the request."""
        name = harness.table_name(prefix)
        self.names.append(name)
        r = C.create_table(
            TableName=name, BillingMode=kw.pop("BillingMode", "PAY_PER_REQUEST"),
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[dict({
                "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}, **kw.pop("gsi", {}))],
            **kw)
        harness.wait_active(C, name)
        return name, r["TableDescription"]


class OnDemandThroughputTest(GsiTables, unittest.TestCase):
    """OnDemandThroughput: an on-demand table's and its GSIs' maximum request
    units (API reference: OnDemandThroughput, CreateTable, UpdateTable,
    UpdateGlobalSecondaryIndexAction, SourceTableDetails,
    RestoreTableFromBackup). A request gives either member or both, each >= 1,
    or -1 to remove that maximum; DescribeTable lists the maximums set. What
    the reference leaves open follows captures of the service: an update
    merges member by member, maximums are refused on a PROVISIONED table
    (naming the first member given), and switching to PROVISIONED drops them.
    DynamoDB Local 3.x wants both members on a GSI, accepts and ignores
    maximums on PROVISIONED tables and fails UpdateTable's with
    InternalFailure: these tests fail there."""

    def table(self, prefix, **kw):
        return self.create(prefix, **kw)[0]

    def update(self, name, **kw):
        C.update_table(TableName=name, **kw)
        harness.wait_active(C, name)
        table = C.describe_table(TableName=name)["Table"]
        return table.get("OnDemandThroughput"), table["GlobalSecondaryIndexes"][0].get(
            "OnDemandThroughput")

    def refused(self, call, contains):
        with self.assertRaises(ClientError) as e:
            call()
        return harness.assert_error(self, e, "ValidationException", contains=contains)

    def test_set_merged_removed_and_described(self):
        name = self.table("odt", OnDemandThroughput={"MaxReadRequestUnits": 20,
                                                     "MaxWriteRequestUnits": 15},
                          gsi={"OnDemandThroughput": {"MaxReadRequestUnits": 200}})
        table = C.describe_table(TableName=name)["Table"]
        self.assertEqual(table["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 15})
        self.assertEqual(table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 200})
        # An update changes the members it names; -1 removes one.
        self.assertEqual(self.update(name, OnDemandThroughput={"MaxReadRequestUnits": 40})[0],
                         {"MaxReadRequestUnits": 40, "MaxWriteRequestUnits": 15})
        self.assertEqual(self.update(name, OnDemandThroughput={"MaxWriteRequestUnits": -1})[0],
                         {"MaxReadRequestUnits": 40})
        _, gsi = self.update(name, GlobalSecondaryIndexUpdates=[{"Update": {
            "IndexName": "by_g", "OnDemandThroughput": {"MaxWriteRequestUnits": 3}}}])
        self.assertEqual(gsi, {"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 3})
        table_max, gsi = self.update(name, OnDemandThroughput={"MaxReadRequestUnits": -1})
        self.assertIsNone(table_max)  # no maximum left: no OnDemandThroughput
        self.assertEqual(gsi, {"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 3})

        # Bad values are refused, and nothing changes.
        self.refused(lambda: C.update_table(TableName=name, DeletionProtectionEnabled=True,
                                            OnDemandThroughput={"MaxReadRequestUnits": 0}),
                     "Requested MaxReadRequestUnits for OnDemandThroughput for table is "
                     "outside of valid range")
        self.refused(lambda: C.update_table(TableName=name, OnDemandThroughput={}),
                     "must specify MaxReadRequestUnits, MaxWriteRequestUnits, or both")
        self.refused(lambda: C.update_table(TableName=name, GlobalSecondaryIndexUpdates=[
            {"Update": {"IndexName": "by_g", "OnDemandThroughput": {"MaxWriteRequestUnits": -7}}}]),
                     "for index : by_g is outside of valid range")
        table = C.describe_table(TableName=name)["Table"]
        self.assertNotIn("OnDemandThroughput", table)
        self.assertFalse(table["DeletionProtectionEnabled"])
        self.assertEqual(table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 3})

    def test_provisioned_tables_take_no_maximums(self):
        prov = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
        name = harness.table_name("odtp")
        self.refused(lambda: C.create_table(
            TableName=name, ProvisionedThroughput=prov,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            OnDemandThroughput={"MaxWriteRequestUnits": 5}),
            "One or more parameter values were invalid: MaxWriteRequestUnits for "
            "OnDemandThroughput cannot be specified when table BillingMode is PROVISIONED.")
        with self.assertRaises(C.exceptions.ResourceNotFoundException):
            C.describe_table(TableName=name)

        name = self.table("odts", OnDemandThroughput={"MaxReadRequestUnits": 9},
                          gsi={"OnDemandThroughput": {"MaxWriteRequestUnits": 8}})
        to_prov = dict(BillingMode="PROVISIONED", ProvisionedThroughput=prov,
                       GlobalSecondaryIndexUpdates=[{"Update": {
                           "IndexName": "by_g", "ProvisionedThroughput": prov}}])
        self.refused(lambda: C.update_table(TableName=name, OnDemandThroughput={
            "MaxReadRequestUnits": 9}, **to_prov),
            "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table "
            "BillingMode is PROVISIONED")
        # Switching to PROVISIONED drops the maximums; they do not come back.
        self.assertEqual(self.update(name, **to_prov), (None, None))
        self.refused(lambda: C.update_table(TableName=name, OnDemandThroughput={
            "MaxReadRequestUnits": 9}),
            "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table "
            "BillingMode is PROVISIONED")
        self.assertEqual(self.update(name, BillingMode="PAY_PER_REQUEST"), (None, None))

    def test_backups_and_restores_carry_them(self):
        name = self.table("odtb", OnDemandThroughput={"MaxReadRequestUnits": 10,
                                                      "MaxWriteRequestUnits": 20},
                          gsi={"OnDemandThroughput": {"MaxReadRequestUnits": 5}})
        arn = C.create_backup(TableName=name, BackupName="odt")["BackupDetails"]["BackupArn"]
        for _ in range(300):
            d = C.describe_backup(BackupArn=arn)["BackupDescription"]
            if d["BackupDetails"]["BackupStatus"] == "AVAILABLE":
                break
            time.sleep(0.1)
        self.assertEqual(d["SourceTableDetails"]["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 20})
        self.assertEqual(
            d["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"][0]["OnDemandThroughput"],
            {"MaxReadRequestUnits": 5})
        target = harness.table_name("odtr")
        self.names.append(target)
        r = C.restore_table_from_backup(
            TargetTableName=target, BackupArn=arn,
            OnDemandThroughputOverride={"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": 30})
        self.assertEqual(r["TableDescription"]["OnDemandThroughput"], {"MaxWriteRequestUnits": 30})
        harness.wait_active(C, target)
        table = C.describe_table(TableName=target)["Table"]
        self.assertEqual(table["OnDemandThroughput"], {"MaxWriteRequestUnits": 30})
        self.assertEqual(table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 5})
        C.delete_backup(BackupArn=arn)


class TableMembersTest(GsiTables, unittest.TestCase):
    """SSESpecification reported as SSEDescription, WarmThroughput on tables and
    GSIs, TableClassSummary with LastUpdateDateTime (API reference:
    CreateTable, UpdateTable, SSEDescription, TableWarmThroughputDescription,
    GlobalSecondaryIndexWarmThroughputDescription, TableClassSummary). Warm
    throughput is at least DynamoDB's defaults for a new table (12,000 reads,
    4,000 writes a second), more when asked for, and never goes down."""

    def test_sse_specification_is_described(self):
        name, created = self.create("sse", SSESpecification={
            "Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": "alias/app-key"})
        sse = created["SSEDescription"]
        self.assertEqual(sse["Status"], "ENABLED")
        self.assertEqual(sse["SSEType"], "KMS")
        self.assertTrue(sse["KMSMasterKeyArn"].startswith("arn:aws:kms:"), sse)
        self.assertTrue(sse["KMSMasterKeyArn"].endswith(":alias/app-key"), sse)
        self.assertEqual(C.describe_table(TableName=name)["Table"]["SSEDescription"], sse)
        # Back to an AWS owned key: no description, as DynamoDB reports it.
        C.update_table(TableName=name, SSESpecification={"Enabled": False})
        harness.wait_active(C, name)
        self.assertNotIn("SSEDescription", C.describe_table(TableName=name)["Table"])
        # A key ARN is kept as given; Enabled without a key is DynamoDB's own.
        arn = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
        C.update_table(TableName=name, SSESpecification={"Enabled": True, "KMSMasterKeyId": arn})
        harness.wait_active(C, name)
        self.assertEqual(C.describe_table(TableName=name)["Table"]["SSEDescription"]["KMSMasterKeyArn"], arn)
        plain, created = self.create("sseon", SSESpecification={"Enabled": True})
        self.assertTrue(created["SSEDescription"]["KMSMasterKeyArn"].endswith(":alias/aws/dynamodb"))
        _, off = self.create("sseoff", SSESpecification={"Enabled": False})
        self.assertNotIn("SSEDescription", off)
        # A key without encryption is refused, and the table keeps its setting.
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, SSESpecification={"Enabled": False, "KMSMasterKeyId": "alias/x"})
        harness.assert_error(self, e, "ValidationException", contains="KMSMasterKeyId can only be specified")
        self.assertEqual(C.describe_table(TableName=name)["Table"]["SSEDescription"]["KMSMasterKeyArn"], arn)
        with self.assertRaises(ClientError) as e:
            CNV.create_table(
                TableName=harness.table_name("ssebad"), BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                SSESpecification={"Enabled": True, "SSEType": "DES"})
        harness.assert_error(self, e, "ValidationException", contains="sSESpecification.sSEType")

    def test_warm_throughput_defaults_asked_and_never_lower(self):
        name, created = self.create("warm", WarmThroughput={"ReadUnitsPerSecond": 15000},
                                    gsi={"WarmThroughput": {"WriteUnitsPerSecond": 6000}})
        self.assertEqual(created["WarmThroughput"],
                         {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"})
        self.assertEqual(created["GlobalSecondaryIndexes"][0]["WarmThroughput"],
                         {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 6000, "Status": "ACTIVE"})
        C.update_table(TableName=name, WarmThroughput={"WriteUnitsPerSecond": 9000},
                       GlobalSecondaryIndexUpdates=[{"Update": {
                           "IndexName": "by_g", "WarmThroughput": {"ReadUnitsPerSecond": 20000}}}])
        harness.wait_active(C, name)
        table = C.describe_table(TableName=name)["Table"]
        self.assertEqual(table["WarmThroughput"],
                         {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 9000, "Status": "ACTIVE"})
        self.assertEqual(table["GlobalSecondaryIndexes"][0]["WarmThroughput"],
                         {"ReadUnitsPerSecond": 20000, "WriteUnitsPerSecond": 6000, "Status": "ACTIVE"})
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, WarmThroughput={"ReadUnitsPerSecond": 14000})
        harness.assert_error(self, e, "ValidationException", contains="cannot be decreased")
        with self.assertRaises(ClientError) as e:
            CNV.update_table(TableName=name, WarmThroughput={})
        harness.assert_error(self, e, "ValidationException",
                             contains="needs ReadUnitsPerSecond, WriteUnitsPerSecond or both")
        with self.assertRaises(ClientError) as e:
            CNV.update_table(TableName=name, WarmThroughput={"ReadUnitsPerSecond": 0})
        harness.assert_error(self, e, "ValidationException",
                             contains="Value '0' at 'warmThroughput.readUnitsPerSecond'")
        self.assertEqual(C.describe_table(TableName=name)["Table"]["WarmThroughput"]["ReadUnitsPerSecond"],
                         15000)
        # A table that asked for nothing reports the defaults.
        _, plain = self.create("warmdef")
        self.assertEqual(plain["WarmThroughput"],
                         {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"})

    def test_table_class_update_is_summarised(self):
        name, created = self.create("tclass")
        self.assertNotIn("TableClassSummary", created)
        before = time.time()
        C.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
        harness.wait_active(C, name)
        summary = C.describe_table(TableName=name)["Table"]["TableClassSummary"]
        self.assertEqual(summary["TableClass"], "STANDARD_INFREQUENT_ACCESS")
        self.assertGreaterEqual(summary["LastUpdateDateTime"].timestamp(), before - 5)
        with self.assertRaises(ClientError) as e:
            C.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
        harness.assert_error(self, e, "ValidationException", contains="same value")


if __name__ == "__main__":
    unittest.main()
