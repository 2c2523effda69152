"""Global tables' legacy (2017.11.29) and replica auto scaling operations through
boto3, answered as DynamoDB answers them today: CreateGlobalTable, and
UpdateGlobalTable adding a replica, are ValidationException ("version
2017.11.29 is not supported"), after the request's shape is checked;
DescribeGlobalTable, DescribeGlobalTableSettings, UpdateGlobalTableSettings
and UpdateGlobalTable removing a replica are GlobalTableNotFoundException;
ListGlobalTables lists none; DescribeTableReplicaAutoScaling and
UpdateTableReplicaAutoScaling of a table that is no global table (existing or
not) are ResourceNotFoundException "Global table with name: '<t>' does not
exist."; none of them changes anything.
Run standalone: python3 tests/e2e/test_boto3_global_tables.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
LEGACY = ("One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 "
          "is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead "
          "of version 2017.11.29 (Legacy).")


def setUpModule():
    global C
    harness.start()
    C = harness.client()


def tearDownModule():
    harness.stop()


class GlobalTablesTest(unittest.TestCase):
    def expect(self, fn, code, message=None):
        with self.assertRaises(ClientError) as ctx:
            fn()
        return harness.assert_error(self, ctx, code, message)

    def test_legacy_operations(self):
        t = harness.create_table(C)
        self.expect(lambda: C.create_global_table(
            GlobalTableName=t, ReplicationGroup=[{"RegionName": "us-east-1"}, {"RegionName": "eu-west-1"}]),
            "ValidationException", LEGACY)
        self.expect(lambda: C.update_global_table(
            GlobalTableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}]),
            "ValidationException", LEGACY)
        self.expect(lambda: C.update_global_table(
            GlobalTableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}]),
            "GlobalTableNotFoundException", "Global table with name: '%s' does not exist." % t)
        self.expect(lambda: C.describe_global_table(GlobalTableName=t),
                    "GlobalTableNotFoundException",
                    "Global table not found: Global table with name: '%s' does not exist." % t)
        self.expect(lambda: C.describe_global_table_settings(GlobalTableName=t),
                    "GlobalTableNotFoundException", "Global table with name: '%s' does not exist." % t)
        self.expect(lambda: C.update_global_table_settings(GlobalTableName=t,
                                                           GlobalTableBillingMode="PAY_PER_REQUEST"),
                    "GlobalTableNotFoundException")
        self.assertEqual(C.list_global_tables()["GlobalTables"], [])
        self.assertEqual(C.list_global_tables(RegionName="us-east-1", Limit=5)["GlobalTables"], [])
        # Shape first: a bad name, a missing group, no updates.
        raw = harness.client(harness.endpoint(), validate=False)
        m = self.expect(lambda: raw.create_global_table(GlobalTableName="x!", ReplicationGroup=[]),
                        "ValidationException")
        self.assertIn("globalTableName", m)
        self.expect(lambda: raw.create_global_table(GlobalTableName=t), "ValidationException")
        self.expect(lambda: raw.update_global_table(GlobalTableName=t, ReplicaUpdates=[]),
                    "ValidationException", "One or more parameter values were invalid")
        m = self.expect(lambda: raw.list_global_tables(Limit=0), "ValidationException")
        self.assertIn("limit", m)
        m = self.expect(lambda: raw.list_global_tables(ExclusiveStartGlobalTableName="x!"),
                        "ValidationException")
        self.assertIn("exclusiveStartGlobalTableName", m)
        # The table is untouched.
        d = C.describe_table(TableName=t)["Table"]
        self.assertEqual(d["TableStatus"], "ACTIVE")
        self.assertNotIn("Replicas", d)

    def test_replica_auto_scaling_of_a_regional_table(self):
        t = harness.create_table(C)
        for name in (t, "nosuchtable"):
            self.expect(lambda: C.describe_table_replica_auto_scaling(TableName=name),
                        "ResourceNotFoundException",
                        "Global table with name: '%s' does not exist." % name)
            self.expect(lambda: C.update_table_replica_auto_scaling(
                TableName=name,
                ProvisionedWriteCapacityAutoScalingUpdate={"AutoScalingDisabled": True}),
                "ResourceNotFoundException",
                "Global table with name: '%s' does not exist." % name)


if __name__ == "__main__":
    unittest.main()
