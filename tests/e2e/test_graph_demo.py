"""End-to-end: `dynarock graph demo` loads the seed articles' graphs
(graph/seed_graphs.h) and answers each article's questions, embedded in memory,
in a data directory (twice: loading again changes nothing), and over HTTP
against `dynarock serve` with the very same answers and the tables left there
for any client to read; bad usage (flags, a bad URL or CA file) exits 2, an
unreachable endpoint exits 1.
Needs DYNAROCK_BIN (or a built binary harness.py can find)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

# Question (a prefix of it) -> the article's answer.
ANSWERS = {
    "What are Frodo's attributes?": "username=ringBearer, firstName=Frodo, lastName=Baggins",
    "Who are Frodo's friends?": "USER#Gandalf (createdDate 3004), USER#Samwise (createdDate UNKNOWN)",
    "Who considers Gandalf a friend, ordered by createdDate?": "USER#Frodo, USER#Samwise",
    "Who visited Gondor?": "USER#Frodo, USER#Gandalf, USER#Samwise",
    "Which goals does Dora Campos lead?": "GOAL-G2, GOAL-G1",
    "Which goals does she lead or contribute to?": "GOAL-G3, GOAL-G2, GOAL-G1",
    "Who contributes to goal G1?": "USER-U2",
    "Who are Alice's friends?": "USER#Bob, USER#Charlie",
    "Is Alice friends with Bob?": "yes, since 2023-01-15",
    "Mutual friends of Bob and Charlie?": "USER#Alice",
    "Mutual friends of Alice and Bob?": "(none)",
    "Friends of Alice's friends she does not know yet?": "USER#David",
    "Who are all the persons?": "Bob Smith, Joe Penton, Sally Wilson",
    "Which persons are named Smith?": "Person#bob",
    "Where was Bob working on 1/1/2005?": "1850 Wazee Street",
    "Where is Bob living now?": "1600 15th Street",
    "Who worked at 1850 Wazee Street on 6/1/2009?": "Person#bob, Person#joe, Person#sally",
}
TEAM_GOALS = [
    'GOAL-G2 "10 nationwide press events" lead: Dora Campos; teams: Marketing',
    'GOAL-G1 "Release Next-Generation Augmented Reality Platform" lead: Dora Campos; '
    "teams: Marketing",
    "(3 requests: GSI query, batch get of the goals, batch get from their edge sets)",
]


def answers(stdout):
    """{question: answer} from the demo's "  Q: ..." / "  A: ..." lines; a
    multi-line answer keeps its indented continuation lines."""
    out, q, lines = {}, None, stdout.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("  Q: "):
            q = ln[5:]
        elif ln.startswith("  A: ") and q is not None:
            a = [ln[5:]]
            for cont in lines[i + 1:]:
                if not cont.startswith("     "):
                    break
                a.append(cont.strip())
            out[q] = "\n".join(x for x in a if x)
            q = None
    return out


class GraphDemoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = harness._find_binary()
        if not cls.binary:
            raise unittest.SkipTest("dynarock binary not found: set DYNAROCK_BIN")

    def demo(self, *args, expect=0):
        r = subprocess.run([self.binary, "graph", *args], capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, expect, r.stdout[-2000:] + r.stderr[-2000:])
        return r

    def assert_answers(self, stdout):
        got = answers(stdout)
        for q, a in ANSWERS.items():
            matches = [v for k, v in got.items() if k.startswith(q)]
            self.assertEqual(matches, [a], "question %r in:\n%s" % (q, stdout))
        team = [v for k, v in got.items() if k.startswith("Team Marketing's goals")]
        self.assertEqual(team, ["\n".join(TEAM_GOALS)])
        self.assertEqual(len(got), len(ANSWERS) + 1)

    def test_in_memory(self):
        r = self.demo("demo")
        self.assertTrue(r.stdout.startswith("Graph demo on an in-memory database (tables "
                                            "prefixed 'demo_')\n"), r.stdout[:200])
        for seed in ("== Seed 000:", "== Seed 001:", "== Seed 003:", "== Seed 004:"):
            self.assertIn(seed, r.stdout)
        self.assert_answers(r.stdout)
        self.assertEqual(r.stderr, "")

    def test_data_directory_twice(self):
        with tempfile.TemporaryDirectory(prefix="dynarock-graph-demo-") as d:
            first = self.demo("demo", "--data", d, "--prefix", "g_")
            self.assertIn("Graph demo on %s (tables prefixed 'g_')" % d, first.stdout)
            self.assert_answers(first.stdout)
            second = self.demo("demo", "--data", d, "--prefix", "g_")
            self.assertEqual(second.stdout, first.stdout)

    def test_over_http_against_serve(self):
        url = harness.start()
        try:
            prefix = "gd%d_" % os.getpid()
            r = self.demo("demo", "--endpoint", url, "--prefix", prefix)
            self.assertIn("Graph demo on %s (tables prefixed '%s')" % (url, prefix), r.stdout)
            self.assert_answers(r.stdout)
            # The same tables, read by another client: Koan's records table
            # with its gsi0-index, and Frodo's node item.
            c = harness.client(url)
            t = c.describe_table(TableName=prefix + "records")["Table"]
            self.assertEqual([g["IndexName"] for g in t["GlobalSecondaryIndexes"]],
                             ["gsi0-index"])
            item = c.get_item(TableName=prefix + "middle_earth",
                              Key={"PK": {"S": "USER#Frodo"}, "SK": {"S": "USER#Frodo"}},
                              ConsistentRead=True).get("Item")
            self.assertIsNotNone(item)
            self.assertEqual(item["username"], {"S": "ringBearer"})
            for t in (prefix + "middle_earth", prefix + "records", prefix + "users",
                      prefix + "Contact"):
                c.delete_table(TableName=t)
        finally:
            harness.stop()

    def test_bad_usage_and_unreachable_endpoint(self):
        r = self.demo(expect=2)
        self.assertIn("dynarock graph: expected a subcommand: demo", r.stderr)
        r = self.demo("demo", "--endpoint", "http://127.0.0.1:9", "--data", "/nonexistent", expect=2)
        self.assertIn("--endpoint and --data are exclusive", r.stderr)
        r = self.demo("demo", "--bogus", expect=2)
        self.assertIn("unknown argument '--bogus'", r.stderr)
        r = self.demo("demo", "--endpoint", expect=2)
        self.assertIn("--endpoint needs a URL", r.stderr)
        r = self.demo("demo", "--region", "eu-west-1", expect=2)
        self.assertIn("--region applies to --endpoint only", r.stderr)
        r = self.demo("demo", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", expect=2)
        self.assertIn("--ca-file applies to --endpoint only", r.stderr)
        r = self.demo("demo", "--endpoint", "ftp://example.com", expect=2)
        self.assertIn("dynarock graph: ", r.stderr)
        r = self.demo("demo", "--endpoint", "http://127.0.0.1:9", "--ca-file", "/nonexistent.pem",
                      expect=2)
        self.assertIn("ca_file is set but the endpoint http://127.0.0.1:9", r.stderr)
        r = self.demo("--help")
        self.assertIn("Usage: dynarock graph demo", r.stdout)
        port = harness.free_port()
        r = self.demo("demo", "--endpoint", "http://127.0.0.1:%d" % port, expect=1)
        self.assertRegex(r.stderr, re.escape("connecting to http://127.0.0.1:%d" % port))


if __name__ == "__main__":
    unittest.main(verbosity=2)
