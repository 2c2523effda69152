"""End-to-end: `dynarock serve --metrics-port P` serves Prometheus text format
(0.0.4) at GET /metrics on its own port, counting every request by operation,
errors by operation and type, latency histograms and the capacity consumed per
table, as DynamoDB bills it, whether or not the client asked for
ReturnConsumedCapacity.

Starts its own server (the metrics port is a flag of the binary), so it needs
DYNAROCK_BIN (or a built binary harness.py can find); it is skipped when
DYNAROCK_E2E_ENDPOINT points at an external endpoint.
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

READY_TIMEOUT_S = 10.0


def start_with_metrics():
    """Launch `dynarock serve --port 0 --in-memory --metrics-port P` on a free
    port P; returns (proc, endpoint_url, metrics_url)."""
    binary = harness._find_binary()
    if not binary:
        raise RuntimeError("dynarock binary not found: set DYNAROCK_BIN")
    last_err = None
    for _attempt in range(3):  # a free port can be taken between probe and bind
        mport = harness.free_port()
        proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--in-memory", "--metrics-port", str(mport)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True, bufsize=1, start_new_session=True)
        lines = []
        ready = threading.Event()

        def reader():
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("dynarock listening on "):
                    ready.set()

        threading.Thread(target=reader, daemon=True).start()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline and not ready.is_set() and proc.poll() is None:
            ready.wait(0.05)
        if ready.is_set():
            url = [l for l in lines if l.startswith("dynarock listening on ")][0].split()[3]
            metrics = [l for l in lines if l.startswith("dynarock metrics on ")]
            if not metrics:
                stop(proc)
                raise AssertionError("no 'dynarock metrics on' line before the ready line: %r"
                                     % lines)
            murl = metrics[0].split()[3]
            if murl != "http://127.0.0.1:%d/metrics" % mport:
                stop(proc)
                raise AssertionError("unexpected metrics line %r" % metrics[0])
            return proc, url.rstrip("/"), murl
        err = proc.stderr.read() if proc.poll() is not None else ""
        stop(proc)
        last_err = RuntimeError("dynarock serve did not start: %r %r" % (lines, err))
    raise last_err


def stop(proc):
    harness._kill(proc)
    for stream in (proc.stdout, proc.stderr):
        try:
            stream.close()
        except Exception:
            pass


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_metrics(text):
    """Prometheus text format -> ({(name, ((label, value), ...)): float}, {name: type},
    {name: help}). Raises AssertionError on a malformed line."""
    samples, types, helps = {}, {}, {}
    assert text.endswith("\n"), "the last line must end with a line feed"
    for line in text.split("\n")[:-1]:
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert name not in helps, "two HELP lines for " + name
            helps[name] = help_text
            continue
        if line.startswith("# TYPE "):
            name, _, typ = line[7:].partition(" ")
            assert typ in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name not in types, "two TYPE lines for " + name
            types[name] = typ
            continue
        assert not line.startswith("#"), line
        m = _SAMPLE.match(line)
        assert m, "malformed sample line: %r" % line
        name, labels_text, value = m.group(1), m.group(2), m.group(3)
        labels = []
        if labels_text:
            pos = 0
            while pos < len(labels_text):
                lm = _LABEL.match(labels_text, pos)
                assert lm, "malformed labels in %r" % line
                labels.append((lm.group(1), lm.group(2)))
                pos = lm.end()
        key = (name, tuple(sorted(labels)))
        assert key not in samples, "duplicate series " + line
        samples[key] = float(value)
    return samples, types, helps


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if harness.using_external_endpoint():
            raise unittest.SkipTest("needs its own dynarock serve --metrics-port")
        cls.proc, cls.url, cls.metrics_url = start_with_metrics()
        cls.c = harness.client(cls.url)

    @classmethod
    def tearDownClass(cls):
        stop(cls.proc)

    def scrape(self):
        with urllib.request.urlopen(self.metrics_url, timeout=10) as r:
            self.assertEqual(r.status, 200)
            ctype = r.headers.get("Content-Type")
            body = r.read().decode("utf-8")
        self.assertIn("text/plain", ctype)
        self.assertIn("version=0.0.4", ctype)
        return parse_metrics(body)

    def raw_call(self, target, body):
        req = urllib.request.Request(
            self.url + "/", data=json.dumps(body).encode(), method="POST",
            headers={"X-Amz-Target": "DynamoDB_20120810." + target,
                     "Content-Type": "application/x-amz-json-1.0"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def test_counts_requests_errors_latency_and_capacity(self):
        c = self.c
        before, _, _ = self.scrape()
        table = harness.create_table(c, hash_key=("pk", "S"))
        for k in ("a", "b", "c"):
            resp = c.put_item(TableName=table, Item={"pk": {"S": k}, "v": {"S": "x" * 10}})
            # Capacity is computed for the metrics, but only returned when asked for.
            self.assertNotIn("ConsumedCapacity", resp)
        resp = c.get_item(TableName=table, Key={"pk": {"S": "a"}})
        self.assertNotIn("ConsumedCapacity", resp)
        resp = c.get_item(TableName=table, Key={"pk": {"S": "zz"}}, ReturnConsumedCapacity="TOTAL")
        self.assertEqual(resp["ConsumedCapacity"]["TableName"], table)
        self.assertEqual(resp["ConsumedCapacity"]["CapacityUnits"], 0.5)
        c.query(TableName=table, KeyConditionExpression="pk = :k",
                ExpressionAttributeValues={":k": {"S": "b"}})
        # Errors: a missing table, a failed condition, an unknown operation.
        with self.assertRaises(c.exceptions.ResourceNotFoundException):
            c.get_item(TableName="no-such-table-" + table, Key={"pk": {"S": "a"}})
        with self.assertRaises(c.exceptions.ConditionalCheckFailedException):
            c.put_item(TableName=table, Item={"pk": {"S": "a"}},
                       ConditionExpression="attribute_not_exists(pk)")
        status, _ = self.raw_call("Frobnicate", {})
        self.assertEqual(status, 400)

        after, types, helps = self.scrape()

        def delta(name, **labels):
            return (value(after, name, **labels) or 0) - (value(before, name, **labels) or 0)

        self.assertEqual(delta("dynarock_requests_total", operation="CreateTable"), 1)
        self.assertEqual(delta("dynarock_requests_total", operation="PutItem"), 4)
        self.assertEqual(delta("dynarock_requests_total", operation="GetItem"), 3)
        self.assertEqual(delta("dynarock_requests_total", operation="Query"), 1)
        self.assertGreaterEqual(delta("dynarock_requests_total", operation="DescribeTable"), 1)
        self.assertEqual(delta("dynarock_requests_total", operation="other"), 1)
        self.assertEqual(delta("dynarock_errors_total", operation="GetItem",
                               type="ResourceNotFoundException"), 1)
        self.assertEqual(delta("dynarock_errors_total", operation="PutItem",
                               type="ConditionalCheckFailedException"), 1)
        self.assertEqual(delta("dynarock_errors_total", operation="other",
                               type="UnknownOperationException"), 1)
        self.assertIsNone(value(after, "dynarock_errors_total", operation="Query",
                                type="ValidationException"))

        # Capacity per table: three 1 KB puts; two eventually consistent GetItems
        # (found or not, 0.5 each) and a Query of one small item (0.5).
        self.assertEqual(value(after, "dynarock_consumed_capacity_units_total",
                               table=table, kind="read"), 1.5)
        self.assertGreaterEqual(value(after, "dynarock_consumed_capacity_units_total",
                                      table=table, kind="write"), 3)

        # Histograms: cumulative buckets ending in +Inf == _count == requests.
        for op in ("PutItem", "GetItem", "Query", "CreateTable", "other"):
            buckets = sorted(
                ((float(dict(labels)["le"]), v) for (name, labels), v in after.items()
                 if name == "dynarock_request_duration_seconds_bucket"
                 and dict(labels)["operation"] == op),
                key=lambda b: b[0])
            self.assertEqual(len(buckets), 17, op)
            self.assertEqual(buckets[0][0], 0.00001)
            self.assertEqual(buckets[-2][0], 1.0)
            self.assertEqual(buckets[-1][0], float("inf"))
            counts = [v for _, v in buckets]
            self.assertEqual(counts, sorted(counts), op)
            count = value(after, "dynarock_request_duration_seconds_count", operation=op)
            self.assertEqual(counts[-1], count, op)
            self.assertEqual(count, value(after, "dynarock_requests_total", operation=op), op)
            self.assertGreater(value(after, "dynarock_request_duration_seconds_sum",
                                     operation=op), 0, op)

        self.assertEqual(types, {
            "dynarock_requests_total": "counter",
            "dynarock_errors_total": "counter",
            "dynarock_request_duration_seconds": "histogram",
            "dynarock_consumed_capacity_units_total": "counter",
        })
        self.assertEqual(set(helps), set(types))

    def test_batch_and_transaction_capacity_per_table(self):
        c = self.c
        t1 = harness.create_table(c, hash_key=("pk", "S"))
        t2 = harness.create_table(c, hash_key=("pk", "S"))
        c.batch_write_item(RequestItems={
            t1: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}},
                 {"PutRequest": {"Item": {"pk": {"S": "b"}}}}],
            t2: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}],
        })
        c.transact_write_items(TransactItems=[
            {"Put": {"TableName": t2, "Item": {"pk": {"S": "c"}}}}])
        samples, _, _ = self.scrape()
        self.assertEqual(value(samples, "dynarock_consumed_capacity_units_total",
                               table=t1, kind="write"), 2)
        # One standard write, then one transactional write (twice the units).
        self.assertEqual(value(samples, "dynarock_consumed_capacity_units_total",
                               table=t2, kind="write"), 3)

    def test_other_paths_and_methods(self):
        base = self.metrics_url.rsplit("/", 1)[0]
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            urllib.request.urlopen(base + "/nope", timeout=10)
        self.assertEqual(ctx.exception.code, 404)
        req = urllib.request.Request(self.metrics_url, data=b"x", method="POST")
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(ctx.exception.code, 405)


class FlagsTest(unittest.TestCase):
    def setUp(self):
        if harness.using_external_endpoint():
            self.skipTest("needs the dynarock binary")
        self.binary = harness._find_binary()
        if not self.binary:
            self.skipTest("dynarock binary not found")

    def test_help_documents_the_flag(self):
        out = subprocess.run([self.binary, "serve", "--help"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertIn("--metrics-port N", out.stdout)
        self.assertIn("/metrics", out.stdout)

    def test_bad_port_is_a_usage_error(self):
        out = subprocess.run([self.binary, "serve", "--metrics-port", "70000"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--metrics-port", out.stderr)


if __name__ == "__main__":
    unittest.main()
