"""The differential tester's corpus and rules, checked in the default run.

tests/differential/run.py needs DynamoDB Local (Java) and runs on demand; this
suite keeps its parts honest without it:

- the corpus (tests/differential/corpus.py) covers every operation the
  endpoint serves, its case ids are unique, and every generated case really is
  its base request with one member changed;
- every corpus request, valid or not, sent to `dynarock serve` gets DynamoDB's
  shape of answer: 200, or a 4xx with an error type (never a 5xx, never a
  dropped connection), and the server still answers afterwards;
- every rule in known.json compiles, says why, and explains only what its two
  patterns describe.

Run standalone: python3 tests/e2e/test_differential_corpus.py
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import harness  # noqa: E402
import corpus  # noqa: E402
import run as differential  # noqa: E402

# Every operation the endpoint serves (engine/api/handler.cc).
SERVED = {
    "CreateTable", "DescribeTable", "DeleteTable", "ListTables", "UpdateTable", "PutItem",
    "GetItem", "DeleteItem", "UpdateItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
    "TransactGetItems", "TransactWriteItems", "ListStreams", "DescribeStream",
    "GetShardIterator", "GetRecords", "DescribeLimits", "DescribeEndpoints",
    "UpdateTimeToLive", "DescribeTimeToLive", "TagResource", "UntagResource",
    "ListTagsOfResource", "DescribeContinuousBackups", "UpdateContinuousBackups",
}


def setUpModule():
    harness.start()


def tearDownModule():
    harness.stop()


class CorpusTest(unittest.TestCase):
    def test_covers_every_served_operation_with_unique_ids(self):
        scenarios = list(corpus.scenarios())
        ids = [s["id"] for s in scenarios]
        self.assertEqual(len(ids), len(set(ids)), "duplicate scenario ids")
        ops = {step["op"] for s in scenarios for step in s["steps"]}
        self.assertEqual(SERVED - ops, set(), "operations the corpus never sends")
        self.assertGreater(len(scenarios), 400)

    def test_malformed_scenarios_are_refused(self):
        seen = set()
        ok = {"id": "a", "steps": [{"op": "ListTables", "body": {}}]}
        self.assertIs(corpus.check_scenario(ok, seen), ok)
        for bad in ({"id": "a", "steps": [{"op": "ListTables", "body": {}}]},  # id again
                    {"id": "b", "steps": []},
                    {"id": "c", "steps": [{"op": "PutItem"}]},
                    {"id": "d", "steps": [{"op": "PutItem", "body": [1]}]}):
            with self.assertRaises(AssertionError, msg=bad["id"]):
                corpus.check_scenario(bad, seen)

    def test_generated_cases_change_one_member_of_their_base(self):
        base = {"TableName": "t", "Key": {"pk": {"S": "k"}}, "Limit": 5}
        self.assertEqual(corpus.mutate(base, ("Key", "pk"), "drop"),
                         {"TableName": "t", "Key": {}, "Limit": 5})
        self.assertEqual(corpus.mutate(base, ("TableName",), "null")["TableName"], None)
        self.assertEqual(corpus.mutate(base, ("TableName",), "type")["TableName"], 7)
        self.assertEqual(corpus.mutate(base, ("Limit",), "big")["Limit"], 10 ** 7)
        self.assertGreater(len(corpus.mutate(base, ("TableName",), "long")["TableName"]), 255)
        self.assertEqual(base["Key"], {"pk": {"S": "k"}}, "the base is left as it was")
        generated = list(corpus.generated())
        valid = {g["steps"][-1]["op"]: g["steps"][-1]["body"] for g in generated
                 if g["id"].endswith("_valid")}
        for s in generated:
            if not s["id"].endswith("_valid"):
                self.assertNotEqual(s["steps"][-1]["body"], valid[s["steps"][-1]["op"]], s["id"])

    def test_every_request_gets_an_answer_of_dynamodbs_shape(self):
        url = harness.endpoint()
        port = int(url.rsplit(":", 1)[1])
        bad = []
        for s in corpus.scenarios():
            for i, step in enumerate(s["steps"]):
                status, doc = differential.send(port, step)
                if status == 200:
                    continue
                kind = str(doc.get("__type", "")).split("#")[-1]
                if not 400 <= status < 500 or not kind.endswith("Exception"):
                    bad.append("%s/%d: %d %s" % (s["id"], i, status, json.dumps(doc)[:200]))
        self.assertEqual(bad, [])
        status, doc = differential.send(port, {"op": "ListTables", "body": {}})
        self.assertEqual(status, 200)
        self.assertIn("TableNames", doc)


class KnownRulesTest(unittest.TestCase):
    def test_rules_compile_say_why_and_match_only_their_patterns(self):
        rules, cases = differential.load_known()
        self.assertGreater(len(rules), 10)
        for local, rock, why in rules:
            self.assertGreater(len(why), 40, local.pattern)
        for case, why in cases.items():
            self.assertGreater(len(why), 40, case)
        wording = {"status": 400, "error": "ValidationException",
                   "message": "1 validation error detected: Value 'ab' at 'tableName' failed to "
                              "satisfy constraint: Member must have length greater than or equal to 3"}
        local = {"status": 400, "error": "ValidationException",
                 "message": "Invalid table/index name."}
        self.assertIsNotNone(differential.explain(rules, {}, "x", local, wording))
        # A 5xx from Dynarock is never explained away.
        crash = {"status": 500, "error": "InternalServerError", "message": "boom"}
        self.assertIsNone(differential.explain(rules, {}, "x", local, crash))
        # Nor is a success where DynamoDB Local refuses with a validation error.
        ok = {"status": 200, "result": {}}
        self.assertIsNone(differential.explain(rules, {}, "x", local, ok))


if __name__ == "__main__":
    unittest.main(verbosity=2)
