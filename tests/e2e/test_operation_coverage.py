"""Every operation of the AWS SDK's own DynamoDB and DynamoDB Streams models
(botocore's service models, as installed) is called with a minimal request built
from its input shape: the required members, each with a value of its shape (a
real table's name or ARN where one is named, the first value of an enum, the
shortest string its length allows, one element of a required list).

An operation answering UnknownOperationException must be one of NOT_YET (the
operations Dynarock does not have yet); one of NOT_YET that answers is a
failure too, so that the list only shrinks. A new operation in a later SDK
model shows up as a failure here.
Run standalone: python3 tests/e2e/test_operation_coverage.py
"""

import datetime
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import botocore.config  # noqa: E402
import botocore.session  # noqa: E402
from botocore.exceptions import ClientError, ParamValidationError  # noqa: E402

# Operations of the model Dynarock does not answer yet (docs: README, "Not there
# yet"): none now; a new operation in the SDK's model shows up here first.
NOT_YET = set()

TABLE = None
TABLE_ARN = None
STREAM_ARN = None


def setUpModule():
    global TABLE, TABLE_ARN, STREAM_ARN
    harness.start()
    c = harness.client()
    TABLE = harness.table_name("coverage")
    d = c.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
                       )["TableDescription"]
    TABLE_ARN, STREAM_ARN = d["TableArn"], d["LatestStreamArn"]
    harness.wait_active(c, TABLE)


def tearDownModule():
    harness.stop()


def minimal(shape, name="", depth=0):
    """A value of `shape` with only its required members."""
    kind = shape.type_name
    lname = name.lower()
    if kind == "structure":
        out = {}
        for member in shape.required_members:
            out[member] = minimal(shape.members[member], member, depth + 1)
        return out
    if kind == "list":
        return [minimal(shape.member, name, depth + 1)]
    if kind == "map":
        return {"k": minimal(shape.value, name, depth + 1)}
    if kind == "string":
        if shape.enum:
            return shape.enum[0]
        if lname in ("tablename", "globaltablename", "tablenames"):
            return TABLE
        if lname == "streamarn":
            return STREAM_ARN
        if lname.endswith("arn"):
            return TABLE_ARN
        if lname == "statement":
            return "SELECT * FROM \"%s\"" % TABLE
        if lname == "shardid":
            return "shardId-00000000000000000000-00000000"
        if lname == "sharditerator":
            return "x" * 40
        if lname == "policy":
            return '{"Version": "2012-10-17", "Statement": []}'
        if lname in ("s3bucket", "bucket"):
            return "bucket"
        if lname == "attributename":
            return "pk"
        low = shape.metadata.get("min", 1)
        return "a" * max(low, 3)
    if kind in ("integer", "long"):
        return max(1, shape.metadata.get("min", 1))
    if kind in ("double", "float"):
        return 1.0
    if kind == "boolean":
        return False
    if kind == "timestamp":
        return datetime.datetime.now(datetime.timezone.utc)
    if kind == "blob":
        return b"x"
    return None


class OperationCoverageTest(unittest.TestCase):
    def walk(self, service):
        session = botocore.session.get_session()
        model = session.get_service_model(service)
        client = session.create_client(
            service, endpoint_url=harness.endpoint(), region_name=harness.REGION,
            aws_access_key_id="test", aws_secret_access_key="test",
            config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 1}))
        unknown, answered = set(), {}
        for op in model.operation_names:
            shape = model.operation_model(op).input_shape
            params = minimal(shape) if shape is not None else {}
            if op == "DeleteTable":  # not the table the others name
                params["TableName"] = "coverage_missing_table"
            method = getattr(client, botocore.xform_name(op))
            try:
                method(**params)
                answered[op] = "OK"
            except ClientError as e:
                code = e.response["Error"]["Code"]
                if code == "UnknownOperationException":
                    unknown.add(op)
                else:
                    answered[op] = code
            except ParamValidationError as e:  # the request could not be built
                self.fail("%s: %s" % (op, e))
        return model.operation_names, unknown, answered

    def test_every_dynamodb_operation_answers(self):
        ops, unknown, answered = self.walk("dynamodb")
        self.assertGreaterEqual(len(ops), 57)
        missing = unknown - NOT_YET
        self.assertEqual(missing, set(), "operations of the SDK's model answered UnknownOperationException "
                                         "(new in the model, or lost): %s" % sorted(missing))
        now_there = NOT_YET - unknown
        self.assertEqual(now_there, set(), "listed as not there yet, but they answer: %s; remove them "
                                           "from NOT_YET" % sorted(now_there))
        # The ones that answer took the minimal request as a request (not refused
        # wholesale as unreadable).
        for op, code in answered.items():
            self.assertNotIn(code, ("SerializationException", "InternalServerError"), op)

    def test_every_streams_operation_answers(self):
        ops, unknown, answered = self.walk("dynamodbstreams")
        self.assertEqual(set(ops), {"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"})
        self.assertEqual(unknown, set())
        self.assertEqual(answered["ListStreams"], "OK")
        self.assertEqual(answered["DescribeStream"], "OK")


if __name__ == "__main__":
    unittest.main()
