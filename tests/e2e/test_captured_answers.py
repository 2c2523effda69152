"""DynamoDB's own answers to invalid requests, as captured from the service.

tests/differential/captured.json holds requests together with the exact error
type and message real DynamoDB answered them with, as recorded by dynalite's
test suite, which was written and checked against DynamoDB (each case names
its source). This suite sends each one, raw and SigV4-signed, to `dynarock
serve` and asserts the same error type and message: the validation order
(which fault of several DynamoDB reports first), constraint wording, and
semantic messages. Cases whose answer depends on a table's schema create that
table first.

A case Dynarock answers differently is listed, with why, in
tests/differential/captured_open.json: an older capture of a message DynamoDB
has since reworded, a capture that contradicts the rest of its suite, or work
still open (which of several faults DynamoDB reports first). A listed case
must still differ, so the list shrinks as the open work is done.

Run standalone: python3 tests/e2e/test_captured_answers.py
"""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURED = os.path.join(HERE, "..", "differential", "captured.json")

# id -> why Dynarock's answer differs from the captured one.
with open(os.path.join(HERE, "..", "differential", "captured_open.json")) as _f:
    DIVERGES = json.load(_f)


REPEAT = re.compile(r"<<repeat (\d+) (.)>>", re.S)


def expand(v):
    """Large values are stored as "<<repeat N c>>" (N times c) to keep the file small."""
    if isinstance(v, dict):
        return {k: expand(x) for k, x in v.items()}
    if isinstance(v, list):
        return [expand(x) for x in v]
    if isinstance(v, str) and "<<repeat " in v:
        return REPEAT.sub(lambda m: m.group(2) * int(m.group(1)), v)
    return v


def send(op, body):
    status, _, data = harness.signed_post(harness.endpoint(), "DynamoDB_20120810." + op,
                                          json.dumps(body).encode(), "AKIDCAPTURED")
    return status, json.loads(data or b"{}")


def same_answer(case, got):
    """Whether `got` (type, message) is the captured answer. dynalite checked the
    parts of a multi-violation message as a set (its "parts", unordered), so
    those compare as a set with the same count."""
    want = (case["error"], case["message"])
    if got == want:
        return True
    parts = case.get("parts")
    if not parts or case.get("parts_order_checked", True) or got[0] != want[0]:
        return False
    head = "%d validation error%s detected: " % (len(parts), "s" if len(parts) > 1 else "")
    if not got[1].startswith(head):
        return False
    return sorted(got[1][len(head):].split("; ")) == sorted(parts)


def answer(doc):
    return (str(doc.get("__type", "")).split("#")[-1],
            doc.get("message", doc.get("Message", "")))


class CapturedAnswersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        harness.start()
        with open(CAPTURED) as f:
            cls.cases = expand(json.load(f))
        created = set()
        for case in cls.cases:
            table = case.get("table") if case.get("needs_table") else None
            if table and table["TableName"] not in created:
                status, doc = send("CreateTable", table)
                if status != 200:
                    raise AssertionError("creating %s for %s: %s" % (table["TableName"],
                                                                      case["id"], doc))
                created.add(table["TableName"])

    @classmethod
    def tearDownClass(cls):
        harness.stop()

    def test_every_captured_answer(self):
        self.assertGreater(len(self.cases), 100)
        wrong, still_same = [], []
        for case in self.cases:
            if case.get("needs_table") and not case.get("table"):
                continue
            status, doc = send(case["op"], case["body"])
            got = answer(doc) if status != 200 else ("<200 OK>", "")
            want = (case["error"], case["message"])
            if case["id"] in DIVERGES:
                if same_answer(case, got):
                    still_same.append(case["id"])
                continue
            if not same_answer(case, got):
                wrong.append("%s (%s)\n    want %s: %s\n    got  %s: %s" % (
                    case["id"], case.get("source", ""), want[0], want[1], got[0], got[1]))
        self.assertEqual(still_same, [], "listed in captured_open.json but answered as captured: "
                                         "remove them from the list")
        if os.environ.get("CAPTURED_ALL"):
            print("\n".join(wrong))
        self.assertEqual(wrong, [], "\n%d of %d captured answers differ:\n%s" % (
            len(wrong), len(self.cases), "\n".join(wrong[:60])))


if __name__ == "__main__":
    unittest.main(verbosity=2)
