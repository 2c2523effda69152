"""Resource-based policies through boto3: PutResourcePolicy, GetResourcePolicy,
DeleteResourcePolicy and CreateTable's ResourcePolicy (API reference, and the
developer guide's "Resource-based policy considerations").

Asserted: a table's and its stream's policies are kept with a revision id; the
same document put again keeps its revision; ExpectedRevisionId makes a put or a
delete conditional ("NO_POLICY": only when none is attached), a mismatch being
PolicyNotFoundException; GetResourcePolicy without a policy is
PolicyNotFoundException, DeleteResourcePolicy without one succeeds with no
revision; malformed documents (not JSON, no Principal, account-level actions
such as dynamodb:ListStreams, over 20 KB) are refused and change nothing; the
policy survives a restart of a data directory and goes with its table; under
serve --require-auth a Deny statement refuses the callers, actions and
resources it names (AccessDeniedException), and only those.
Run standalone: python3 tests/e2e/test_boto3_resource_policies.py
"""

import json
import os
import shutil
import sys
import tempfile
import time
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None


def setUpModule():
    global C
    harness.start()
    C = harness.client()


def tearDownModule():
    harness.stop()


def policy(arn, actions=("dynamodb:GetItem", "dynamodb:Query"), effect="Allow", **extra):
    statement = {"Sid": "app", "Effect": effect, "Action": list(actions),
                 "Principal": {"AWS": "arn:aws:iam::123456789012:role/app"},
                 "Resource": [arn, arn + "/index/*"]}
    statement.update(extra)
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


class ResourcePolicyTest(unittest.TestCase):
    def setUp(self):
        self.names = []

    def tearDown(self):
        for name in self.names:
            try:
                C.delete_table(TableName=name)
            except ClientError:
                pass

    def table(self, prefix="pol", **kw):
        name = harness.table_name(prefix)
        self.names.append(name)
        r = C.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], **kw)
        harness.wait_active(C, name)
        return r["TableDescription"]["TableArn"]

    def error(self, call, code, contains):
        with self.assertRaises(ClientError) as e:
            call()
        harness.assert_error(self, e, code, contains=contains)

    def test_put_get_delete_with_revisions(self):
        arn = self.table()
        self.error(lambda: C.get_resource_policy(ResourceArn=arn), "PolicyNotFoundException",
                   "Resource-based policy not found for the provided ResourceArn: " + arn)
        first = C.put_resource_policy(ResourceArn=arn, Policy=policy(arn))["RevisionId"]
        self.assertTrue(first.isdigit(), first)
        got = C.get_resource_policy(ResourceArn=arn)
        self.assertEqual(json.loads(got["Policy"]), json.loads(policy(arn)))
        self.assertEqual(got["RevisionId"], first)
        # The same document again: the same revision (idempotent).
        self.assertEqual(C.put_resource_policy(ResourceArn=arn, Policy=policy(arn))["RevisionId"], first)
        # Conditional puts.
        self.error(lambda: C.put_resource_policy(ResourceArn=arn, Policy=policy(arn, effect="Deny"),
                                                 ExpectedRevisionId="NO_POLICY"),
                   "PolicyNotFoundException", "a policy exists with revision id " + first)
        self.error(lambda: C.put_resource_policy(ResourceArn=arn, Policy=policy(arn, effect="Deny"),
                                                 ExpectedRevisionId="12345"),
                   "PolicyNotFoundException", "has revision id " + first)
        second = C.put_resource_policy(ResourceArn=arn, Policy=policy(arn, effect="Deny"),
                                       ExpectedRevisionId=first)["RevisionId"]
        self.assertNotEqual(second, first)
        self.assertGreater(int(second), int(first))
        self.assertIn('"Deny"', C.get_resource_policy(ResourceArn=arn)["Policy"])
        # Conditional delete, then deletes are idempotent.
        self.error(lambda: C.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=first),
                   "PolicyNotFoundException", "has revision id " + second)
        self.assertEqual(C.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=second)["RevisionId"],
                         second)
        self.assertNotIn("RevisionId", C.delete_resource_policy(ResourceArn=arn))
        self.error(lambda: C.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=second),
                   "PolicyNotFoundException", "no policy is attached")
        self.error(lambda: C.get_resource_policy(ResourceArn=arn), "PolicyNotFoundException", arn)
        # NO_POLICY now holds.
        C.put_resource_policy(ResourceArn=arn, Policy=policy(arn), ExpectedRevisionId="NO_POLICY")

    def test_create_table_attaches_and_streams_have_their_own(self):
        name = harness.table_name("polc")
        arn = "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
        self.names.append(name)
        r = C.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
                           ResourcePolicy=policy("arn:aws:dynamodb:*:*:table/" + name))
        arn = r["TableDescription"]["TableArn"]
        stream = r["TableDescription"]["LatestStreamArn"]
        harness.wait_active(C, name)
        self.assertIn("dynamodb:GetItem", C.get_resource_policy(ResourceArn=arn)["Policy"])
        self.error(lambda: C.get_resource_policy(ResourceArn=stream), "PolicyNotFoundException", stream)
        doc = policy(stream, actions=["dynamodb:GetRecords", "dynamodb:GetShardIterator",
                                      "dynamodb:DescribeStream"])
        rev = C.put_resource_policy(ResourceArn=stream, Policy=doc)["RevisionId"]
        self.assertEqual(C.get_resource_policy(ResourceArn=stream),
                         {"Policy": doc, "RevisionId": rev, "ResponseMetadata": unittest.mock.ANY})
        self.assertIn("dynamodb:GetItem", C.get_resource_policy(ResourceArn=arn)["Policy"])
        # A stream that is not the table's current one has no policy to hold.
        self.error(lambda: C.get_resource_policy(ResourceArn=arn + "/stream/2000-01-01T00:00:00.000"),
                   "ResourceNotFoundException", "not found")
        # Another table's policy is its own; a missing table is not found.
        self.error(lambda: C.get_resource_policy(ResourceArn=arn + "nope"), "ResourceNotFoundException",
                   "not found")

    def test_malformed_documents_are_refused_and_change_nothing(self):
        arn = self.table()
        rev = C.put_resource_policy(ResourceArn=arn, Policy=policy(arn))["RevisionId"]
        cases = [
            ("{not json", "Invalid policy document: not valid JSON"),
            (json.dumps({"Version": "2012-10-17"}), "Missing required field Statement"),
            (json.dumps({"Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem",
                                        "Resource": arn}]}), "no Principal"),
            (json.dumps({"Statement": {"Effect": "Maybe", "Principal": "*",
                                       "Action": "dynamodb:GetItem"}}), "Effect must be Allow or Deny"),
            (policy(arn, actions=["dynamodb:GetItem", "dynamodb:ListStreams", "s3:GetObject"]),
             'The following action names are invalid: "dynamodb:ListStreams", "s3:GetObject"'),
            (json.dumps({"Version": "2001-01-01", "Statement": []}), "Version must be"),
        ]
        for doc, why in cases:
            with self.subTest(why=why):
                self.error(lambda: C.put_resource_policy(ResourceArn=arn, Policy=doc),
                           "ValidationException", why)
        big = policy(arn, Sid="x" * 21000)
        self.error(lambda: C.put_resource_policy(ResourceArn=arn, Policy=big), "LimitExceededException",
                   "20 KB")
        # Wildcards that match table actions are fine.
        C.put_resource_policy(ResourceArn=arn, Policy=policy(arn, actions=["dynamodb:Get*", "dynamodb:*"]),
                              ExpectedRevisionId=rev)
        self.error(lambda: C.put_resource_policy(
            ResourceArn=arn.replace(":table/", ":table/x") + "/index/by_g", Policy=policy(arn)),
            "ValidationException", "only table or stream is accepted")
        name = harness.table_name("polbad")
        self.error(lambda: C.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            ResourcePolicy="{}"), "ValidationException", "Missing required field Statement")
        self.assertNotIn(name, C.list_tables()["TableNames"])


class PolicyEvaluationTest(unittest.TestCase):
    """Under serve --require-auth a signing key acts as the IAM user
    arn:aws:iam::ACCOUNT:user/KEY; a Deny statement of the table's policy that
    names it (or its account, or "*"), the action and the resource refuses the
    request with AccessDeniedException. Other callers, other actions and
    statements with a Condition are not refused."""

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch(None, ["--shared-db", "--require-auth", "WRITER:secret1",
                                                  "--require-auth", "READER:secret2"])
        import boto3
        cls.clients = {key: boto3.client("dynamodb", endpoint_url=cls.url, region_name=harness.REGION,
                                         aws_access_key_id=key, aws_secret_access_key=secret)
                       for key, secret in (("WRITER", "secret1"), ("READER", "secret2"))}

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def test_explicit_deny_refuses_matching_callers_only(self):
        writer, reader = self.clients["WRITER"], self.clients["READER"]
        name = harness.table_name("poleval")
        d = writer.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                      {"AttributeName": "g", "AttributeType": "S"}],
                                GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [
                                    {"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}])["TableDescription"]
        arn = d["TableArn"]
        account = arn.split(":")[4]
        reader_arn = "arn:aws:iam::%s:user/READER" % account
        writer.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        doc = {"Version": "2012-10-17", "Statement": [
            {"Sid": "readers-read-only", "Effect": "Deny", "Principal": {"AWS": reader_arn},
             "Action": ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                        "dynamodb:BatchWriteItem"], "Resource": arn},
            {"Sid": "no-index-scans", "Effect": "Deny", "Principal": "*",
             "Action": "dynamodb:Scan", "Resource": arn + "/index/*"},
            {"Sid": "conditions-are-not-evaluated", "Effect": "Deny", "Principal": "*",
             "Action": "dynamodb:GetItem", "Resource": arn,
             "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
        ]}
        writer.put_resource_policy(ResourceArn=arn, Policy=json.dumps(doc))

        with self.assertRaises(ClientError) as e:
            reader.put_item(TableName=name, Item={"pk": {"S": "b"}})
        harness.assert_error(self, e, "AccessDeniedException",
                             "User: %s is not authorized to perform: dynamodb:PutItem on resource: %s "
                             "with an explicit deny in a resource-based policy" % (reader_arn, arn))
        with self.assertRaises(ClientError) as e:
            reader.transact_write_items(TransactItems=[{"Delete": {"TableName": name,
                                                                   "Key": {"pk": {"S": "a"}}}}])
        harness.assert_error(self, e, "AccessDeniedException", contains="dynamodb:DeleteItem")
        # Naming the table by its ARN changes nothing.
        with self.assertRaises(ClientError) as e:
            reader.put_item(TableName=arn, Item={"pk": {"S": "b"}})
        harness.assert_error(self, e, "AccessDeniedException", contains="dynamodb:PutItem")
        self.assertEqual(reader.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]["g"]["S"], "x")
        writer.put_item(TableName=name, Item={"pk": {"S": "c"}})  # not named: allowed
        # The index's Deny applies to every caller, on the index only.
        with self.assertRaises(ClientError) as e:
            writer.scan(TableName=name, IndexName="by_g")
        harness.assert_error(self, e, "AccessDeniedException", contains=arn + "/index/by_g")
        self.assertEqual(writer.scan(TableName=name)["Count"], 2)
        # An index is its own resource: a Deny on the table alone does not reach it.
        writer.put_resource_policy(ResourceArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:Query", "Resource": arn}]}))
        self.assertEqual(writer.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                                      ExpressionAttributeValues={":g": {"S": "x"}})["Count"], 1)
        with self.assertRaises(ClientError):
            writer.query(TableName=name, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "a"}})
        writer.put_resource_policy(ResourceArn=arn, Policy=json.dumps(doc))
        # A policy denying its own author further changes needs confirming.
        lockout = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Deny", "Principal": {"AWS": account}, "Action": "dynamodb:*Policy", "Resource": arn}]}
        with self.assertRaises(ClientError) as e:
            writer.put_resource_policy(ResourceArn=arn, Policy=json.dumps(lockout))
        harness.assert_error(self, e, "ValidationException", contains="ConfirmRemoveSelfResourceAccess")
        self.assertIn("readers-read-only", writer.get_resource_policy(ResourceArn=arn)["Policy"])
        # Removing the policy lifts it.
        writer.delete_resource_policy(ResourceArn=arn)
        reader.put_item(TableName=name, Item={"pk": {"S": "b"}})
        # Confirmed, the lock-out is attached, and then holds.
        writer.put_resource_policy(ResourceArn=arn, Policy=json.dumps(lockout),
                                   ConfirmRemoveSelfResourceAccess=True)
        with self.assertRaises(ClientError) as e:
            writer.delete_resource_policy(ResourceArn=arn)
        harness.assert_error(self, e, "AccessDeniedException", contains="dynamodb:DeleteResourcePolicy")
        writer.delete_table(TableName=name)


class ResourcePolicyRestartTest(unittest.TestCase):
    def test_policy_survives_a_restart_and_goes_with_its_table(self):
        data = tempfile.mkdtemp(prefix="dynarock-policy-")
        try:
            proc, url = harness.launch(data_dir=data)
            c = harness.client(url)
            name = harness.table_name("polr")
            arn = c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}]
                                 )["TableDescription"]["TableArn"]
            rev = c.put_resource_policy(ResourceArn=arn, Policy=policy(arn))["RevisionId"]
            harness.stop_process(proc)
            proc, url = harness.launch(data_dir=data)
            c = harness.client(url)
            self.assertEqual(c.get_resource_policy(ResourceArn=arn)["RevisionId"], rev)
            c.delete_table(TableName=name)
            for _ in range(100):  # a table of the same name, once the old one is gone
                try:
                    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
                    break
                except ClientError as err:
                    if err.response["Error"]["Code"] != "ResourceInUseException":
                        raise
                    time.sleep(0.05)
            with self.assertRaises(ClientError) as e:
                c.get_resource_policy(ResourceArn=arn)
            harness.assert_error(self, e, "PolicyNotFoundException", contains=arn)
            harness.stop_process(proc)
        finally:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
