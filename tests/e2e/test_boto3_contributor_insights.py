"""Contributor Insights through boto3: UpdateContributorInsights,
DescribeContributorInsights and ListContributorInsights (API reference; the
developer guide's "CloudWatch Contributor Insights for DynamoDB: How it
works"), and the keys counted from real traffic.

Asserted: a table or GSI never configured is DISABLED with nothing else;
ENABLE answers ENABLING and the table is then ENABLED with DynamoDB's four
rules (PKC, PKT, SKC, SKT named DynamoDBContributorInsights-<kind>-<table>-<ms>,
two without a sort key, the throttled ones only in THROTTLED_KEYS mode);
asking again for the state in force changes nothing; DISABLE keeps the mode
and LastUpdateDateTime; List shows only what is not DISABLED, with paging;
unknown tables and indexes are ResourceNotFoundException, bad actions and modes
ValidationException; the settings survive a restart of a data directory. With
insights on, the most accessed keys are those the traffic used most, by
consumed units (3 a write unit), and under --enforce-capacity the most
throttled keys are the throttled ones (the DynarockTopContributors member).
Run standalone: python3 tests/e2e/test_boto3_contributor_insights.py
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

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


def make_table(client, name, sort=True, gsi=True, **extra):
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if sort:
        attrs.append({"AttributeName": "sk", "AttributeType": "N"})
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
    args = dict(TableName=name, AttributeDefinitions=attrs, KeySchema=keys,
                BillingMode="PAY_PER_REQUEST")
    if gsi:
        attrs.append({"AttributeName": "g", "AttributeType": "S"})
        args["GlobalSecondaryIndexes"] = [{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    args.update(extra)
    client.create_table(**args)


def describe_raw(client, **args):
    """DescribeContributorInsights' whole answer: boto3 drops the members its
    model does not have, DynarockTopContributors among them."""
    seen = {}

    def keep(http_response, **_):
        seen["body"] = json.loads(http_response.content)

    client.meta.events.register("after-call.dynamodb.DescribeContributorInsights", keep)
    try:
        client.describe_contributor_insights(**args)
    finally:
        client.meta.events.unregister("after-call.dynamodb.DescribeContributorInsights", keep)
    return seen["body"]


def top(desc, kind):
    for rule in desc.get("DynarockTopContributors", []):
        if "-%s-" % kind in rule["RuleName"]:
            return [(c["Keys"], c["ApproximateAggregateValue"]) for c in rule["Contributors"]]
    return None


class ContributorInsightsTest(unittest.TestCase):
    def setUp(self):
        self.names = []

    def tearDown(self):
        for name in self.names:
            try:
                C.delete_table(TableName=name)
            except ClientError:
                pass

    def table(self, name, **kw):
        make_table(C, name, **kw)
        self.names.append(name)
        return name

    def test_states_rules_and_listing(self):
        t = self.table("ci-states")
        h = self.table("ci-hash-only", sort=False, gsi=False)
        d = C.describe_contributor_insights(TableName=t)
        self.assertEqual(d["ContributorInsightsStatus"], "DISABLED")
        for member in ("ContributorInsightsRuleList", "LastUpdateDateTime", "ContributorInsightsMode"):
            self.assertNotIn(member, d)
        self.assertEqual(C.describe_contributor_insights(TableName=t, IndexName="by-g")
                         ["ContributorInsightsStatus"], "DISABLED")

        u = C.update_contributor_insights(TableName=t, ContributorInsightsAction="ENABLE")
        self.assertEqual(u["ContributorInsightsStatus"], "ENABLING")
        self.assertEqual(u["ContributorInsightsMode"], "ACCESSED_AND_THROTTLED_KEYS")
        d = C.describe_contributor_insights(TableName=t)
        self.assertEqual(d["ContributorInsightsStatus"], "ENABLED")
        rules = d["ContributorInsightsRuleList"]
        self.assertEqual([r.split("-")[1] for r in rules], ["PKC", "PKT", "SKC", "SKT"])
        stamp = rules[0].rsplit("-", 1)[1]
        self.assertEqual(len(stamp), 13)  # epoch milliseconds
        self.assertEqual(rules[0], "DynamoDBContributorInsights-PKC-ci-states-" + stamp)
        self.assertIn("LastUpdateDateTime", d)
        # The same again: nothing changes.
        again = C.update_contributor_insights(TableName=t, ContributorInsightsAction="ENABLE")
        self.assertEqual(again["ContributorInsightsStatus"], "ENABLED")
        # A GSI on its own; a hash-only table has two rules; THROTTLED_KEYS keeps the throttled.
        C.update_contributor_insights(TableName=t, IndexName="by-g", ContributorInsightsAction="ENABLE",
                                      ContributorInsightsMode="THROTTLED_KEYS")
        g = C.describe_contributor_insights(TableName=t, IndexName="by-g")
        self.assertEqual(g["IndexName"], "by-g")
        self.assertEqual(len(g["ContributorInsightsRuleList"]), 1)
        self.assertIn("-PKT-ci-states-by-g-", g["ContributorInsightsRuleList"][0])
        C.update_contributor_insights(TableName=h, ContributorInsightsAction="ENABLE")
        hr = C.describe_contributor_insights(TableName=h)["ContributorInsightsRuleList"]
        self.assertEqual([r.split("-")[1] for r in hr], ["PKC", "PKT"])

        listed = C.list_contributor_insights()["ContributorInsightsSummaries"]
        mine = [(s["TableName"], s.get("IndexName")) for s in listed if s["TableName"].startswith("ci-")]
        self.assertEqual(mine, [("ci-hash-only", None), ("ci-states", None), ("ci-states", "by-g")])
        only = C.list_contributor_insights(TableName=t)["ContributorInsightsSummaries"]
        self.assertEqual([s.get("IndexName") for s in only], [None, "by-g"])
        self.assertEqual(only[1]["ContributorInsightsMode"], "THROTTLED_KEYS")
        page = C.list_contributor_insights(TableName=t, MaxResults=1)
        self.assertEqual(len(page["ContributorInsightsSummaries"]), 1)
        rest = C.list_contributor_insights(TableName=t, MaxResults=1, NextToken=page["NextToken"])
        self.assertEqual(rest["ContributorInsightsSummaries"][0]["IndexName"], "by-g")
        self.assertNotIn("NextToken", rest)

        off = C.update_contributor_insights(TableName=t, ContributorInsightsAction="DISABLE")
        self.assertEqual(off["ContributorInsightsStatus"], "DISABLING")
        d = C.describe_contributor_insights(TableName=t)
        self.assertEqual(d["ContributorInsightsStatus"], "DISABLED")
        self.assertEqual(d["ContributorInsightsMode"], "ACCESSED_AND_THROTTLED_KEYS")
        self.assertIn("LastUpdateDateTime", d)
        self.assertNotIn("ContributorInsightsRuleList", d)
        self.assertEqual(C.update_contributor_insights(TableName=t, ContributorInsightsAction="DISABLE")
                         ["ContributorInsightsStatus"], "DISABLED")
        only = C.list_contributor_insights(TableName=t)["ContributorInsightsSummaries"]
        self.assertEqual([s.get("IndexName") for s in only], ["by-g"])

    def test_bad_input_changes_nothing(self):
        t = self.table("ci-bad")
        cases = [
            (dict(TableName="ci-missing", ContributorInsightsAction="ENABLE"), "ResourceNotFoundException",
             "Requested resource not found: Table: ci-missing not found"),
            (dict(TableName=t, IndexName="nope", ContributorInsightsAction="ENABLE"),
             "ResourceNotFoundException", "Requested resource not found: Index: nope not found for table: ci-bad"),
        ]
        for args, code, message in cases:
            with self.assertRaises(ClientError) as e:
                C.update_contributor_insights(**args)
            self.assertEqual(e.exception.response["Error"]["Code"], code)
            self.assertEqual(e.exception.response["Error"]["Message"], message)
        raw = harness.client(validate=False)
        for args in (dict(TableName=t, ContributorInsightsAction="START"),
                     dict(TableName=t, ContributorInsightsAction="ENABLE", ContributorInsightsMode="ALL")):
            with self.assertRaises(ClientError) as e:
                raw.update_contributor_insights(**args)
            self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
            self.assertIn("failed to satisfy constraint: Member must satisfy enum value set",
                          e.exception.response["Error"]["Message"])
        with self.assertRaises(ClientError) as e:
            raw.list_contributor_insights(MaxResults=101)
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
        with self.assertRaises(ClientError) as e:
            C.describe_contributor_insights(TableName="ci-missing")
        self.assertEqual(e.exception.response["Error"]["Code"], "ResourceNotFoundException")
        with self.assertRaises(ClientError) as e:
            C.list_contributor_insights(TableName="ci-missing")
        self.assertEqual(e.exception.response["Error"]["Code"], "ResourceNotFoundException")
        self.assertEqual(C.describe_contributor_insights(TableName=t)["ContributorInsightsStatus"], "DISABLED")

    def test_most_accessed_keys_come_from_the_traffic(self):
        t = self.table("ci-traffic")
        C.update_contributor_insights(TableName=t, ContributorInsightsAction="ENABLE")
        C.update_contributor_insights(TableName=t, IndexName="by-g", ContributorInsightsAction="ENABLE")
        for i in range(6):
            C.put_item(TableName=t, Item={"pk": {"S": "hot"}, "sk": {"N": str(i)}, "g": {"S": "G1"}})
        C.put_item(TableName=t, Item={"pk": {"S": "cold"}, "sk": {"N": "1"}, "g": {"S": "G2"}})
        for _ in range(4):
            C.get_item(TableName=t, Key={"pk": {"S": "cold"}, "sk": {"N": "1"}}, ConsistentRead=True)
        C.batch_write_item(RequestItems={t: [
            {"PutRequest": {"Item": {"pk": {"S": "warm"}, "sk": {"N": str(i)}}}} for i in range(2)]})
        C.query(TableName=t, IndexName="by-g", KeyConditionExpression="g = :g",
                ExpressionAttributeValues={":g": {"S": "G1"}})
        d = describe_raw(C, TableName=t)
        pkc = top(d, "PKC")
        # 6 puts of 1 WCU (x3) on "hot", 1 put + 4 strong reads on "cold", 2 puts on "warm".
        self.assertEqual(pkc, [(["hot"], 18.0), (["cold"], 7.0), (["warm"], 6.0)])
        skc = top(d, "SKC")
        self.assertEqual(skc[0], (["cold", "1"], 7.0))
        self.assertEqual(len(skc), 9)
        self.assertEqual(top(d, "PKT"), [])
        g = describe_raw(C, TableName=t, IndexName="by-g")
        self.assertEqual(top(g, "PKC"), [(["G1"], 0.5)])  # an eventually consistent query of 6 small items
        # Turned off and on again: counting starts anew.
        C.update_contributor_insights(TableName=t, ContributorInsightsAction="DISABLE")
        C.update_contributor_insights(TableName=t, ContributorInsightsAction="ENABLE")
        self.assertEqual(top(describe_raw(C, TableName=t), "PKC"), [])

    def test_throttled_keys_and_restart(self):
        data = tempfile.mkdtemp(prefix="dynarock-ci-")
        proc = None
        try:
            proc, url = harness.launch(data_dir=data, extra_args=["--enforce-capacity"])
            c = harness.client(url)
            c.create_table(TableName="ci-throttle",
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           BillingMode="PROVISIONED",
                           ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
            c.update_contributor_insights(TableName="ci-throttle", ContributorInsightsAction="ENABLE")
            no_retry = harness.client_with_attempts(url, 1)
            throttled = 0
            for i in range(12):
                try:
                    no_retry.put_item(TableName="ci-throttle", Item={"pk": {"S": "busy"}, "n": {"N": str(i)}})
                except ClientError as e:
                    self.assertEqual(e.response["Error"]["Code"], "ProvisionedThroughputExceededException")
                    throttled += 1
            self.assertGreater(throttled, 0)
            d = describe_raw(c, TableName="ci-throttle")
            self.assertEqual(top(d, "PKT"), [(["busy"], float(throttled))])
            self.assertEqual(top(d, "PKC"), [(["busy"], 3.0 * (12 - throttled))])
            rules = d["ContributorInsightsRuleList"]
            harness.stop_process(proc)
            proc, url = harness.launch(data_dir=data)
            c = harness.client(url)
            d = c.describe_contributor_insights(TableName="ci-throttle")
            self.assertEqual(d["ContributorInsightsStatus"], "ENABLED")
            self.assertEqual(d["ContributorInsightsRuleList"], rules)
        finally:
            harness.stop_process(proc)
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
