"""End-to-end: `dynarock patterns` (embedded, no server) prints its comparison as
a table, CSV or JSON and draws it as an SVG that is well-formed XML; runs the
example pattern file; rejects bad flags. Needs DYNAROCK_BIN (or a built binary
harness.py can find)."""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "tests", "data", "patterns_example.json")
SMALL = ["--size", "30", "--fanout", "4", "--iterations", "5", "--warmup", "1"]
CSV_COLUMNS = ["comparison", "pattern", "executions", "requests", "items_read", "bytes_read",
               "items_returned", "bytes_returned", "rcu", "wcu", "errors", "p50_us",
               "p99_us", "mean_us", "cost_per_million_usd"]


class PatternsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = harness._find_binary()
        if not cls.binary:
            raise unittest.SkipTest("dynarock binary not found: set DYNAROCK_BIN")

    def run_patterns(self, *args, expect=0):
        out = subprocess.run([self.binary, "patterns", *args], capture_output=True, text=True,
                             timeout=300)
        self.assertEqual(out.returncode, expect, out.stderr)
        return out

    def test_csv(self):
        out = self.run_patterns(*SMALL, "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out.stdout)))
        self.assertEqual(list(rows[0].keys()), CSV_COLUMNS)
        by_name = {r["pattern"]: r for r in rows}
        self.assertEqual(len(rows), 14)
        self.assertEqual(set(r["comparison"] for r in rows),
                         {"adjacency", "edge-set", "type-index", "hierarchy"})
        # N+1: one Query and one GetItem per member.
        self.assertEqual(float(by_name["n-plus-1"]["requests"]), 5)
        self.assertEqual(float(by_name["edge-set-batch"]["requests"]), 2)
        self.assertEqual(float(by_name["scan-filter"]["items_read"]), 120)
        self.assertEqual(float(by_name["gsi-query"]["items_read"]), 30)
        for r in rows:
            self.assertEqual(int(r["executions"]), 5)
            cost = float(r["rcu"]) * 0.125 + float(r["wcu"]) * 0.625
            self.assertAlmostEqual(float(r["cost_per_million_usd"]), cost, places=9)

    def test_json_and_prices(self):
        out = self.run_patterns(*SMALL, "edge-set", "--format", "json",
                                "--read-price", "0.25", "--write-price", "1.25")
        doc = json.loads(out.stdout)
        self.assertEqual(doc["read_price_per_million"], 0.25)
        self.assertEqual(doc["write_price_per_million"], 1.25)
        self.assertEqual([r["pattern"] for r in doc["results"]], ["edge-set-batch", "n-plus-1"])
        for r in doc["results"]:
            self.assertAlmostEqual(r["cost_per_million_usd"], r["rcu"] * 0.25 + r["wcu"] * 1.25)
            self.assertGreaterEqual(r["p99_us"], r["p50_us"])

    def test_counts_are_deterministic(self):
        def counts():
            out = self.run_patterns(*SMALL, "--format", "csv", "--seed", "9")
            return [(r["pattern"], r["requests"], r["items_read"], r["bytes_returned"],
                     r["rcu"], r["wcu"]) for r in csv.DictReader(io.StringIO(out.stdout))]
        self.assertEqual(counts(), counts())

    def test_table_and_svg(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "chart.svg")
            out = self.run_patterns(*SMALL, "--svg", path)
            self.assertIn("adjacency: ", out.stdout)
            self.assertIn("n-plus-1", out.stdout)
            self.assertIn("$/M exec", out.stdout)
            root = ET.parse(path).getroot()  # raises on malformed XML
        self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for name in ("adjacency-list", "nested-list", "gsi-query", "scan-filter"):
            self.assertIn(name, texts)
        self.assertGreater(len(list(root.iter("{http://www.w3.org/2000/svg}rect"))), 14 * 4)

    def test_pattern_file(self):
        out = self.run_patterns("--file", EXAMPLE, "--iterations", "5", "--warmup", "0",
                                "--format", "json")
        doc = json.loads(out.stdout)
        names = [r["pattern"] for r in doc["results"]]
        self.assertEqual(names, ["orders-of-customer-collection", "orders-of-customer-gsi",
                                 "three-orders-one-by-one", "three-orders-batch", "place-order"])
        by_name = {r["pattern"]: r for r in doc["results"]}
        self.assertEqual(by_name["three-orders-one-by-one"]["requests"], 3)
        self.assertEqual(by_name["three-orders-batch"]["requests"], 1)
        self.assertEqual(by_name["place-order"]["wcu"], 2)
        self.assertEqual(by_name["orders-of-customer-gsi"]["executions"], 100)

    def test_bad_input(self):
        out = self.run_patterns("--format", "xml", expect=2)
        self.assertIn("--format", out.stderr)
        out = self.run_patterns("no-such-comparison", expect=2)
        self.assertIn("unknown comparison 'no-such-comparison' (built in: adjacency, edge-set, "
                      "type-index, hierarchy)", out.stderr)
        out = self.run_patterns("--iterations", "0", expect=2)
        self.assertIn("--iterations needs a number from 1 to 100000000", out.stderr)
        out = self.run_patterns("--size", "5", "--fanout", "5", expect=2)
        self.assertIn("--fanout must be smaller than --size", out.stderr)
        out = self.run_patterns("--list=x", expect=2)
        self.assertEqual(out.stdout, "")
        with tempfile.TemporaryDirectory() as d:
            out = self.run_patterns("--file", d, expect=1)
            self.assertIn("cannot read %s: Is a directory" % d, out.stderr)
            missing = os.path.join(d, "missing.json")
            out = self.run_patterns("--file", missing, expect=1)
            self.assertIn("cannot read %s: No such file or directory" % missing, out.stderr)
            svg = os.path.join(d, "no-such-dir", "out.svg")
            out = self.run_patterns(*SMALL, "hierarchy", "--svg", svg, expect=1)
            self.assertIn("cannot write %s" % svg, out.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"patterns": [{"name": "p", "requests": [{"operation": "Nope", "body": {}}]}]}')
        try:
            out = self.run_patterns("--file", f.name, expect=1)
            self.assertIn("pattern 'p', request 0", out.stderr)
        finally:
            os.unlink(f.name)

    def test_help_and_list(self):
        out = self.run_patterns("--help")
        for flag in ("--file", "--iterations", "--size", "--fanout", "--seed", "--read-price",
                     "--write-price", "--format", "--svg", "--list",
                     "https://aws.amazon.com/dynamodb/pricing/on-demand/"):
            self.assertIn(flag, out.stdout)
        out = self.run_patterns("--list")
        for name in ("adjacency", "edge-set", "type-index", "hierarchy", "n-plus-1"):
            self.assertIn(name, out.stdout)


if __name__ == "__main__":
    unittest.main()
