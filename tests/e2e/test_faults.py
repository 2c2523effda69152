"""End-to-end: fault injection (`serve --faults`, /_dynarock/faults) and the
request log (`serve --request-log`, `dynarock report`) seen through boto3.

Pins: boto3's own standard retry mode rides out injected throttling and the
fault counters show every fire; a connection dropped before the write is
applied leaves no item, one dropped after it does; partial BatchWriteItem
answers carry UnprocessedItems in DynamoDB's format and leave those items
unwritten; the same seed gives the same fires; a transaction conflict is a
TransactionCanceledException whose reasons name the item; bad rules are a
ValidationException that changes nothing; the request log has one line per
request with what was read, why a page ended and what it cost, and
`dynarock report` summarises it (text and HTML).

Starts its own servers (the flags are the binary's), so it needs DYNAROCK_BIN
(or a built binary harness.py finds); skipped against an external endpoint.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def control(url, method, body=None):
    """(status, JSON) of a control API call on /_dynarock/faults."""
    return harness.control(url, "faults", method, body)


def client(url, attempts=1):
    return harness.client_with_attempts(url, attempts)


def item(pk, **more):
    out = {"pk": {"S": pk}}
    for k, v in more.items():
        out[k] = {"S": v}
    return out


@unittest.skipIf(harness.using_external_endpoint(), "starts its own server")
class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-faults-")
        rules = os.path.join(cls.tmp, "rules.json")
        with open(rules, "w") as f:  # a rule at start, that never matches
            json.dump({"seed": 5, "rules": [{"name": "from-file", "table": "no-such-table",
                                             "error": "InternalServerError"}]}, f)
        cls.proc, cls.url = harness.launch(extra_args=["--faults", rules])
        cls.initial = control(cls.url, "GET")
        cls.c = client(cls.url)
        cls.table = harness.create_table(cls.c)

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tearDown(self):
        control(self.url, "DELETE")

    def set_rules(self, rules, seed=None):
        body = {"rules": rules}
        if seed is not None:
            body["seed"] = seed
        status, reply = control(self.url, "PUT", body)
        self.assertEqual(status, 200, reply)
        return reply

    def exists(self, pk):
        return "Item" in self.c.get_item(TableName=self.table, Key=item(pk), ConsistentRead=True)

    def test_rules_from_the_file_are_loaded(self):
        status, state = self.initial
        self.assertEqual(status, 200)
        self.assertEqual(state["seed"], 5)
        self.assertEqual([(r["name"], r["table"], r["error"], r["matched"]) for r in state["rules"]],
                         [("from-file", "no-such-table", "InternalServerError", 0)])

    def test_boto3_standard_retries_ride_out_throttling(self):
        self.set_rules([{"name": "throttle", "operation": "PutItem", "table": self.table,
                         "first_n": 2, "error": "ProvisionedThroughputExceededException"}])
        retrying = client(self.url, attempts=4)
        r = retrying.put_item(TableName=self.table, Item=item("retried"))
        self.assertEqual(r["ResponseMetadata"]["RetryAttempts"], 2)
        self.assertTrue(self.exists("retried"))
        _, state = control(self.url, "GET")
        rule = state["rules"][0]
        self.assertEqual((rule["name"], rule["matched"], rule["fired"]), ("throttle", 3, 2))

    def test_without_retries_each_error_surfaces_as_dynamodb_sends_it(self):
        from botocore.exceptions import ClientError
        for error, status in [("ThrottlingException", 400),
                              ("ProvisionedThroughputExceededException", 400),
                              ("RequestLimitExceeded", 400),
                              ("InternalServerError", 500),
                              ("ServiceUnavailable", 503),
                              ("ItemCollectionSizeLimitExceededException", 400)]:
            self.set_rules([{"operation": "GetItem", "error": error}])
            with self.assertRaises(ClientError) as cm:
                self.c.get_item(TableName=self.table, Key=item("x"))
            err = cm.exception.response
            self.assertEqual(err["Error"]["Code"], error)
            self.assertEqual(err["ResponseMetadata"]["HTTPStatusCode"], status)

    def test_drop_before_apply_is_not_applied_and_drop_after_apply_is(self):
        from botocore.exceptions import ConnectionClosedError, HTTPClientError
        self.set_rules([{"name": "before", "key_prefix": "drop-before", "action": "drop_before_apply"},
                        {"name": "after", "key_prefix": "drop-after", "action": "drop_after_apply"}])
        for pk in ("drop-before", "drop-after"):
            with self.assertRaises((ConnectionClosedError, HTTPClientError)):
                self.c.put_item(TableName=self.table, Item=item(pk))
        control(self.url, "DELETE")
        self.assertFalse(self.exists("drop-before"))
        self.assertTrue(self.exists("drop-after"))

    def test_a_retried_drop_after_apply_meets_the_condition_it_wrote(self):
        # The idempotency path: the write happened, the client did not hear so,
        # and its retry of a conditional put fails on the item it wrote itself.
        from botocore.exceptions import ClientError
        self.set_rules([{"key_prefix": "once", "action": "drop_after_apply", "first_n": 1}])
        retrying = client(self.url, attempts=3)
        with self.assertRaises(ClientError) as cm:
            retrying.put_item(TableName=self.table, Item=item("once"),
                              ConditionExpression="attribute_not_exists(pk)")
        self.assertEqual(cm.exception.response["Error"]["Code"], "ConditionalCheckFailedException")
        self.assertTrue(self.exists("once"))

    def test_partial_batch_write_returns_unprocessed_items(self):
        self.set_rules([{"operation": "BatchWriteItem", "action": "unprocessed", "fraction": 0.5,
                         "first_n": 1}])
        puts = [{"PutRequest": {"Item": item("b%d" % i)}} for i in range(4)]
        r = self.c.batch_write_item(RequestItems={self.table: puts})
        left = r["UnprocessedItems"][self.table]
        self.assertEqual(left, puts[2:])
        self.assertTrue(self.exists("b0") and self.exists("b1"))
        self.assertFalse(self.exists("b2") or self.exists("b3"))
        r = self.c.batch_write_item(RequestItems=r["UnprocessedItems"])  # the retry is whole
        self.assertEqual(r["UnprocessedItems"], {})
        self.assertTrue(self.exists("b2") and self.exists("b3"))

    def test_partial_batch_get_returns_unprocessed_keys(self):
        self.c.put_item(TableName=self.table, Item=item("g0"))
        self.set_rules([{"operation": "BatchGetItem", "action": "unprocessed", "keep": 0}])
        r = self.c.batch_get_item(RequestItems={self.table: {"Keys": [item("g0")]}})
        self.assertEqual(r["Responses"], {self.table: []})
        self.assertEqual(r["UnprocessedKeys"][self.table]["Keys"], [item("g0")])

    def test_same_seed_same_fires(self):
        def run(seed):
            self.set_rules([{"operation": "GetItem", "probability": 0.5,
                             "error": "ThrottlingException"}], seed=seed)
            out = ""
            for _ in range(40):
                try:
                    self.c.get_item(TableName=self.table, Key=item("x"))
                    out += "."
                except self.c.exceptions.ClientError:
                    out += "X"
            _, state = control(self.url, "GET")
            self.assertEqual(state["seed"], seed)
            self.assertEqual(state["rules"][0]["fired"], out.count("X"))
            return out
        a, b, c = run(11), run(11), run(12)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertIn("X", a)
        self.assertIn(".", a)

    def test_transaction_conflict_names_the_item(self):
        self.set_rules([{"key_prefix": "hot", "error": "TransactionConflict"}])
        with self.assertRaises(self.c.exceptions.TransactionCanceledException) as cm:
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": self.table, "Item": item("cold")}},
                {"Put": {"TableName": self.table, "Item": item("hot")}}])
        reasons = [r["Code"] for r in cm.exception.response["CancellationReasons"]]
        self.assertEqual(reasons, ["None", "TransactionConflict"])
        control(self.url, "DELETE")
        self.assertFalse(self.exists("cold"))

    def test_bad_rules_are_rejected_and_change_nothing(self):
        self.set_rules([{"name": "keep-me", "table": "nothing"}])
        for bad in [{"rules": [{"action": "explode"}]},
                    {"rules": [{"probability": 2}]},
                    {"rules": [{"latency_ms": 999999}]},
                    {"rules": "no"}]:
            status, reply = control(self.url, "PUT", bad)
            self.assertEqual(status, 400, bad)
            self.assertEqual(reply["__type"], "ValidationException")
        _, state = control(self.url, "GET")
        self.assertEqual([r["name"] for r in state["rules"]], ["keep-me"])

    def test_latency(self):
        self.set_rules([{"operation": "GetItem", "latency_ms": 300, "first_n": 1}])
        start = time.monotonic()
        self.c.get_item(TableName=self.table, Key=item("x"))
        self.assertGreaterEqual(time.monotonic() - start, 0.3)


@unittest.skipIf(harness.using_external_endpoint(), "starts its own server")
class LatencyApartTest(unittest.TestCase):
    """A request a latency rule delays holds up that request alone: with one io
    thread, other connections' requests (and the control API) are answered
    while it sleeps, it still takes its latency, and a stop waits for it."""

    def test_a_delayed_request_holds_up_no_other_connection(self):
        proc, url = harness.launch(extra_args=["--threads", "1"])
        try:
            c = client(url)
            table = harness.create_table(c)
            c.put_item(TableName=table, Item=item("slow", v="1"))
            status, reply = control(url, "PUT", {"rules": [
                {"name": "slow-get", "operation": "GetItem", "latency_ms": 3000, "first_n": 1}]})
            self.assertEqual(status, 200, reply)

            slow = {}

            def slow_get():
                start = time.monotonic()
                slow["item"] = client(url).get_item(TableName=table, Key=item("slow"))["Item"]
                slow["took"] = time.monotonic() - start

            t = threading.Thread(target=slow_get)
            t.start()
            start = time.monotonic()
            while True:  # until the rule fired: the GetItem sleeps now
                _, state = control(url, "GET")
                if state["rules"][0]["fired"] == 1:
                    break
                self.assertLess(time.monotonic() - start, 2.5, state)
                time.sleep(0.02)
            other = client(url)
            start = time.monotonic()
            other.put_item(TableName=table, Item=item("fast", v="2"))
            got = other.get_item(TableName=table, Key=item("fast"), ConsistentRead=True)
            quick = time.monotonic() - start
            self.assertEqual(got["Item"]["v"], {"S": "2"})
            self.assertTrue(t.is_alive(), "the delayed GetItem ended before the others ran")
            self.assertLess(quick, 1.5)
            t.join(10)
            self.assertGreaterEqual(slow["took"], 3.0)
            self.assertEqual(slow["item"]["v"], {"S": "1"})

            # A stop while a delayed request sleeps answers it first.
            t = threading.Thread(target=slow_get)
            slow.clear()
            status, reply = control(url, "PUT", {"rules": [
                {"name": "slow-get", "operation": "GetItem", "latency_ms": 1500, "first_n": 1}]})
            self.assertEqual(status, 200, reply)
            t.start()
            start = time.monotonic()
            while control(url, "GET")[1]["rules"][0]["fired"] != 1:
                self.assertLess(time.monotonic() - start, 2.5)
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(timeout=15), 0)
            t.join(10)
            self.assertEqual(slow.get("item", {}).get("v"), {"S": "1"})
        finally:
            harness.stop_process(proc)


@unittest.skipIf(harness.using_external_endpoint(), "starts its own server")
class RequestLogTest(unittest.TestCase):
    def test_log_lines_and_report(self):
        tmp = tempfile.mkdtemp(prefix="dynarock-log-")
        try:
            log = os.path.join(tmp, "requests.jsonl")
            proc, url = harness.launch(extra_args=["--request-log", log])
            try:
                c = client(url, attempts=3)
                table = harness.create_table(c)
                for i in range(20):
                    c.put_item(TableName=table, Item=item("hot" if i % 2 else "k%d" % i, v="x" * 10))
                big = "y" * (310 * 1024)
                c.put_item(TableName=table, Item=item("big", v=big))
                c.scan(TableName=table, Limit=5)
                c.scan(TableName=table, FilterExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "k0"}})
                control(url, "PUT", {"rules": [{"name": "thr", "operation": "GetItem",
                                                "first_n": 1, "error": "ThrottlingException"}]})
                c.get_item(TableName=table, Key=item("hot"))  # retried once by boto3
                control(url, "PUT", {"rules": [{"name": "conflict", "operation": "TransactWriteItems",
                                                "error": "TransactionConflict"}]})
                with self.assertRaises(c.exceptions.TransactionCanceledException):
                    client(url).transact_write_items(TransactItems=[
                        {"Put": {"TableName": table, "Item": item("t1")}}])
            finally:
                harness.stop_process(proc)  # SIGTERM: the log is flushed
            with open(log) as f:
                lines = [json.loads(l) for l in f]
            ops = [l["operation"] for l in lines]
            self.assertEqual(ops.count("PutItem"), 21)
            puts = [l for l in lines if l["operation"] == "PutItem"]
            self.assertEqual(puts[1]["table"], table)
            self.assertEqual(puts[1]["partition_key"], "hot")
            self.assertEqual(puts[1]["key"], {"pk": {"S": "hot"}})
            self.assertEqual(puts[1]["consumed"][0]["write"], 1)
            self.assertGreaterEqual(puts[-1]["item_bytes"], 310 * 1024)
            scans = [l for l in lines if l["operation"] == "Scan"]
            self.assertEqual((scans[0]["items_scanned"], scans[0]["page_end"]), (5, "limit"))
            self.assertEqual(scans[1]["page_end"], "end")
            self.assertTrue(scans[1]["filtered"])
            self.assertEqual(scans[1]["items_returned"], 1)
            gets = [l for l in lines if l["operation"] == "GetItem"]
            self.assertEqual([g["status"] for g in gets], [400, 200])
            self.assertEqual(gets[0]["error"], "ThrottlingException")
            self.assertEqual(gets[0]["faults"], ["thr"])
            self.assertEqual(gets[0]["body_hash"], gets[1]["body_hash"])
            tx = [l for l in lines if l["operation"] == "TransactWriteItems"]
            self.assertTrue(tx[0]["conflict"])
            for l in lines:
                self.assertIn("latency_ms", l)

            binary = harness._find_binary()
            html = os.path.join(tmp, "report.html")
            out = subprocess.run([binary, "report", log, "--html", html], capture_output=True,
                                 text=True, timeout=30)
            self.assertEqual(out.returncode, 0, out.stderr)
            text = out.stdout
            self.assertIn("PutItem", text)
            self.assertRegex(text, r"Scans\n\s+%s\s+2 scans" % table)
            self.assertIn("Filters that discarded most", text)
            self.assertRegex(text, r"Scan %s\s+1 requests read\s+\d+ items, kept 1" % table)
            self.assertRegex(text, r"Hot partition keys\n\s+%s\s+hot\s+12 requests" % table)
            self.assertRegex(text, r"Items near the 400 KB limit.*\n\s+PutItem\s+%s\s+big\s+31\d\.\d KB" % table)
            # Contributor Insights' rules from the log: 3 units a write unit
            # (the 310 KB put, a little over, is 311 of them), and the throttled GetItem.
            self.assertRegex(text, r"most accessed partition keys \(PKC[^\n]*\n\s+%s\s+big\s+933\.0\n"
                                   r"\s+%s\s+hot\s+30\.5" % (table, table))
            self.assertIn("most accessed keys (SKC)\n    none\n", text)  # no sort key
            self.assertRegex(text, r"most throttled partition keys \(PKT[^\n]*\n\s+%s\s+hot\s+1\.0" % table)
            self.assertIn("Transactions that conflicted: 1", text)
            self.assertIn("Retries seen: 1 (1 succeeded)", text)
            self.assertRegex(text, r"thr\s+1")
            with open(html) as f:
                page = f.read()
            self.assertIn("<svg", page)
            self.assertIn("Hot partition keys", page)
            self.assertIn("Contributor insights (DynamoDB's rules)", page)
            self.assertNotIn("<script", page)

            bad = subprocess.run([binary, "report"], capture_output=True, text=True, timeout=30)
            self.assertEqual(bad.returncode, 2)
            with open(log, "a") as f:
                f.write("not json\n")
            out = subprocess.run([binary, "report", log], capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 0)
            self.assertIn("Skipped 1 lines", out.stdout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
