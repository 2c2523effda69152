"""Concurrency: the history checker's self-test, then bounded runs.

1. CheckerSelfTest feeds tests/concurrency/checker.py hand-made histories:
   correct ones (with unknown outcomes, applied or not) must pass, and a
   non-linearizable register history, a lost update, a read of an aborted
   write, a fractured read, a serialization cycle, a stale snapshot and a
   TransactionConflict without a concurrent operation must each be flagged
   (the checker must be able to fail).
2. EmbeddedRun: history_driver (8 threads on the embedded DB::Open) runs the
   workload; its history must check clean, and mutations of it (a read of a
   value nobody wrote, an acknowledged transfer dropped from the final state,
   a cancelled transfer's id in a log) must be flagged.
3. ServerRun: client processes (boto3, retries off, 1 s read timeout) against
   `dynarock serve` with fault injection delaying and dropping a few requests
   (unknown outcomes); the history must check clean. Then a run whose server
   injects TransactionConflict errors with no concurrency at all: the checker
   must flag every one of them.

Prints the number of operations checked and the anomalies found.
Environment: DYNAROCK_BIN, HISTORY_DRIVER_BIN (set by ctest); HISTORY_SECONDS
(the server run's length, default 15), HISTORY_SEED, HISTORY_KEEP=DIR to keep
the histories.
Run standalone:
  DYNAROCK_BIN=build/dynarock HISTORY_DRIVER_BIN=build/tests/history_driver \\
      python3 tests/concurrency/test_history.py
"""

import copy
import os
import random
import shutil
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import checker  # noqa: E402
import workload  # noqa: E402

DRIVER = os.environ.get("HISTORY_DRIVER_BIN")
SECONDS = float(os.environ.get("HISTORY_SECONDS", "15"))
SEED = int(os.environ.get("HISTORY_SEED", str(random.randrange(1, 1 << 30))))


class H:
    """A hand-made history: op() records an invoke and its completion (times
    in arbitrary units; end=None leaves the outcome unknown)."""

    def __init__(self, banks=()):
        self.events = [{"type": "init", "banks": list(banks)}] if banks else []
        self.n = 0

    def op(self, process, f, args, start, end, outcome="ok", value=None, error=None):
        self.n += 1
        self.events.append({"type": "invoke", "process": process, "index": self.n, "f": f,
                            "args": args, "time": start})
        if end is None:
            return self
        ev = {"type": outcome, "process": process, "index": self.n, "time": end}
        if value is not None:
            ev["value"] = value
        if error:
            ev["error"] = error
        self.events.append(ev)
        return self

    def check(self):
        return checker.check(copy.deepcopy(self.events))


def kinds(report):
    return sorted({k for k, _ in report.anomalies})


def crc(log):
    return zlib.crc32("".join(t + "\n" for t in log).encode())


def snap(bal, log, full=False):
    s = {"bal": bal, "n": len(log), "last": log[-1] if log else None, "crc": crc(log)}
    if full:
        s["log"] = list(log)
    return s


A, B, C = "acct#0#0", "acct#0#1", "acct#0#2"
BANK = {A: 100, B: 100, C: 100}
KEYS = [A, B, C]


def transfer(h, p, tid, src, dst, amt, start, end, outcome="ok", reasons=None):
    value = {"reasons": reasons} if reasons else ({} if outcome == "ok" else None)
    return h.op(p, "transfer", {"keys": [src, dst], "from": src, "to": dst, "check": None,
                                "amt": amt, "id": tid}, start, end, outcome, value,
                "TransactionCanceledException" if outcome == "fail" else None)


def read_all(h, p, start, end, accounts, final=False):
    args = {"keys": KEYS}
    if final:
        args["final"] = True
    return h.op(p, "read_all", args, start, end, "ok", {"accounts": accounts})


class CheckerSelfTest(unittest.TestCase):
    # ---- registers
    def test_linearizable_history_with_unknown_outcomes_passes(self):
        h = H()
        h.op("p1", "put_new", {"key": "r", "val": "a"}, 0, 10, "ok", {})
        h.op("p2", "upd_add", {"key": "r", "d": 2, "val": "b"}, 5, None)      # applied
        h.op("p3", "del", {"key": "r", "ver": 7}, 6, None)                    # not applied
        h.op("p4", "get", {"key": "r"}, 20, 30, "ok", {"item": [2, "b", 2]})
        # Concurrent: p5's CAS is linearized between p6's read and p7's.
        h.op("p5", "upd_cas", {"key": "r", "ver": 2, "val": "c"}, 40, 60, "ok",
             {"upd": {"ver": 3, "val": "c"}})
        h.op("p6", "get", {"key": "r"}, 45, 55, "ok", {"item": [2, "b", 2]})
        h.op("p7", "get", {"key": "r"}, 50, 58, "ok", {"item": [3, "c", 2]})
        h.op("p6", "put_ver", {"key": "r", "ver": 2, "val": "d"}, 70, 80, "fail",
             {"old": [3, "c", 2]}, "ConditionalCheckFailedException")
        h.op("p7", "del", {"key": "r", "ver": None}, 90, 100, "ok", {"old": [3, "c", 2]})
        h.op("p1", "put_new", {"key": "r", "val": "e"}, 110, 120, "ok", {})
        r = h.check()
        self.assertEqual(kinds(r), [], r.render())
        self.assertEqual(r.ops, 10)
        self.assertEqual(r.by_outcome["info"], 2)

    def test_stale_read_is_not_linearizable(self):
        h = H()
        h.op("p1", "put_new", {"key": "r", "val": "a"}, 0, 10, "ok", {})
        h.op("p2", "get", {"key": "r"}, 20, 30, "ok", {"item": [1, "a", 0]})
        h.op("p3", "get", {"key": "r"}, 40, 50, "ok", {"item": None})
        r = h.check()
        self.assertEqual(kinds(r), ["not linearizable"], r.render())
        self.assertIn("key r", r.anomalies[0][1])

    def test_two_creates_are_not_linearizable(self):
        h = H()
        h.op("p1", "put_new", {"key": "r", "val": "a"}, 0, 10, "ok", {})
        h.op("p2", "upd_add", {"key": "r", "d": 1, "val": "x"}, 5, 25, "ok",
             {"new": [2, "x", 1]})
        h.op("p3", "put_new", {"key": "r", "val": "b"}, 30, 40, "ok", {})
        self.assertEqual(kinds(h.check()), ["not linearizable"])

    def test_lost_increment_is_not_linearizable(self):
        # Two concurrent ADDs acknowledged with the same new value: one is lost.
        h = H()
        h.op("p1", "put_new", {"key": "r", "val": "a"}, 0, 10, "ok", {})
        h.op("p1", "upd_add", {"key": "r", "d": 1, "val": "b"}, 20, 40, "ok",
             {"new": [2, "b", 1]})
        h.op("p2", "upd_add", {"key": "r", "d": 1, "val": "c"}, 21, 41, "ok",
             {"new": [2, "c", 1]})
        self.assertEqual(kinds(h.check()), ["not linearizable"])

    def test_cancelled_transaction_changing_a_register_is_flagged(self):
        h = H()
        h.op("p1", "put_new", {"key": "r1", "val": "a"}, 0, 10, "ok", {})
        h.op("p2", "txn_add", {"keys": ["r1", "r2"], "d": 1, "val": "t"}, 20, 30, "fail",
             {"reasons": ["None", "ConditionalCheckFailed"]}, "TransactionCanceledException")
        h.op("p3", "get", {"key": "r1"}, 40, 50, "ok", {"item": [2, "t", 1]})
        self.assertEqual(kinds(h.check()), ["not linearizable"])

    # ---- the bank
    def good_bank(self):
        h = H([BANK])
        transfer(h, "p1", "t1", A, B, 10, 0, 10)
        transfer(h, "p2", "t2", B, C, 30, 20, 30)
        transfer(h, "p3", "t3", C, A, 500, 21, 31, "fail", ["ConditionalCheckFailed", "None"])
        transfer(h, "p4", "t4", A, C, 5, 25, None)  # unknown, applied
        transfer(h, "p5", "t5", A, C, 7, 26, None)  # unknown, not applied
        read_all(h, "p6", 15, 18, {A: snap(90, ["t1"]), B: snap(110, ["t1"]), C: snap(100, [])})
        return h

    def final(self, h, accounts, start=100):
        return read_all(h, "final", start, start + 1, accounts, final=True)

    def test_correct_bank_passes(self):
        h = self.good_bank()
        self.final(h, {A: snap(85, ["t1", "t4"], True), B: snap(80, ["t1", "t2"], True),
                       C: snap(135, ["t2", "t4"], True)})
        r = h.check()
        self.assertEqual(kinds(r), [], r.render())

    def test_lost_update_is_flagged(self):
        # t2 was acknowledged, but the final state lacks it.
        h = self.good_bank()
        self.final(h, {A: snap(85, ["t1", "t4"], True), B: snap(110, ["t1"], True),
                       C: snap(105, ["t4"], True)})
        r = h.check()
        self.assertEqual(kinds(r), ["lost update"], r.render())

    def test_overwritten_balance_is_flagged(self):
        # The logs hold t2 but B's balance lost its effect (a lost write).
        h = self.good_bank()
        self.final(h, {A: snap(85, ["t1", "t4"], True), B: snap(110, ["t1", "t2"], True),
                       C: snap(135, ["t2", "t4"], True)})
        r = h.check()
        self.assertIn("lost update", kinds(r), r.render())
        self.assertIn("total changed", kinds(r), r.render())

    def test_read_of_an_aborted_write_is_flagged(self):
        h = self.good_bank()
        self.final(h, {A: snap(585, ["t1", "t3", "t4"], True), B: snap(80, ["t1", "t2"], True),
                       C: snap(-365, ["t2", "t3", "t4"], True)})
        r = h.check()
        self.assertIn("read of an aborted write", kinds(r), r.render())
        self.assertIn("negative balance", kinds(r), r.render())

    def test_fractured_read_is_flagged(self):
        h = self.good_bank()
        read_all(h, "p7", 40, 50, {A: snap(90, ["t1"]), B: snap(80, ["t1", "t2"]),
                                   C: snap(100, [])})
        self.final(h, {A: snap(85, ["t1", "t4"], True), B: snap(80, ["t1", "t2"], True),
                       C: snap(135, ["t2", "t4"], True)})
        r = h.check()
        self.assertEqual(kinds(r), ["fractured read", "total changed"], r.render())

    def test_serialization_cycle_is_flagged(self):
        h = H([BANK])
        transfer(h, "p1", "t1", A, B, 10, 0, 10)
        transfer(h, "p2", "t2", A, B, 20, 1, 11)
        # A saw t1 then t2, B t2 then t1: no serial order has both.
        self.final(h, {A: snap(70, ["t1", "t2"], True), B: snap(130, ["t2", "t1"], True),
                       C: snap(100, [], True)})
        r = h.check()
        self.assertEqual(kinds(r), ["not serializable"], r.render())

    def test_stale_snapshot_is_not_strictly_serializable(self):
        h = H([BANK])
        transfer(h, "p1", "t1", A, B, 10, 0, 10)
        read_all(h, "p2", 20, 30, {A: snap(100, []), B: snap(100, []), C: snap(100, [])})
        self.final(h, {A: snap(90, ["t1"], True), B: snap(110, ["t1"], True),
                       C: snap(100, [], True)})
        r = h.check()
        self.assertEqual(kinds(r), ["not strictly serializable"], r.render())

    def test_snapshot_of_a_state_that_never_existed_is_flagged(self):
        h = self.good_bank()
        read_all(h, "p7", 40, 50, {A: snap(90, ["t1"]), B: snap(80, ["t2", "t1"]),
                                   C: snap(130, ["t2"])})
        self.final(h, {A: snap(85, ["t1", "t4"], True), B: snap(80, ["t1", "t2"], True),
                       C: snap(135, ["t2", "t4"], True)})
        self.assertIn("snapshot of a state that never existed", kinds(h.check()))

    # ---- conflicts
    def test_conflict_needs_a_concurrent_transaction(self):
        h = H()
        h.op("p1", "put_new", {"key": "r1", "val": "a"}, 0, 10, "ok", {})
        h.op("p2", "upd_add", {"key": "r1", "d": 1, "val": "b"}, 20, 30, "fail", None,
             "TransactionConflictException")
        r = h.check()
        self.assertEqual(kinds(r), ["conflict without a concurrent operation"], r.render())
        # With a transaction on the item overlapping it, the conflict is real.
        h.op("p3", "txn_add", {"keys": ["r1", "r2"], "d": 1, "val": "t"}, 25, 35, "fail",
             {"reasons": ["None", "ConditionalCheckFailed"]}, "TransactionCanceledException")
        r = h.check()
        self.assertEqual(kinds(r), [], r.render())

    def test_transaction_conflict_reason_needs_an_overlap_on_its_item(self):
        h = H([BANK])
        transfer(h, "p1", "t1", A, B, 10, 0, 10)
        transfer(h, "p2", "t2", B, C, 1, 5, 15, "fail", ["None", "TransactionConflict"])
        self.final(h, {A: snap(90, ["t1"], True), B: snap(110, ["t1"], True),
                       C: snap(100, [], True)})
        r = h.check()
        self.assertEqual(kinds(r), ["conflict without a concurrent operation"], r.render())
        self.assertIn("transfer on acct#0#2", r.anomalies[0][1])
        # The same reason on B, which t1 was writing at the time, is justified.
        fail = next(e for e in h.events if e["type"] == "fail")
        fail["value"]["reasons"] = ["TransactionConflict", "None"]
        r = h.check()
        self.assertEqual(kinds(r), [], r.render())

    def test_unexpected_error_is_flagged(self):
        h = H()
        h.op("p1", "get", {"key": "r"}, 0, 10, "fail", None, "ValidationException")
        self.assertEqual(kinds(h.check()), ["unexpected error"])


def _keep(tmp):
    keep = os.environ.get("HISTORY_KEEP")
    if keep:
        dest = os.path.join(keep, os.path.basename(tmp))
        shutil.copytree(tmp, dest, dirs_exist_ok=True)
        print("histories kept in %s" % dest)


class EmbeddedRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not DRIVER:
            raise unittest.SkipTest("set HISTORY_DRIVER_BIN")
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-history-")
        opts = workload.default_options(driver=DRIVER, seed=SEED, driver_seconds=10,
                                        driver_ops=2000, driver_threads=8)
        cls.files = workload.run_embedded(opts, cls.tmp)
        cls.events = checker.load_events(cls.files)

    @classmethod
    def tearDownClass(cls):
        _keep(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_history_is_correct(self):
        r = checker.check(copy.deepcopy(self.events))
        print("\n== embedded API, 8 threads (seed %d)\n%s" % (SEED, r.render()))
        self.assertTrue(r.ok(), r.render())
        self.assertGreater(r.ops, 8000)

    def mutated(self, pick, change):
        events = copy.deepcopy(self.events)
        ops, _ = checker.pair_events(copy.deepcopy(events))
        target = next(o for o in ops if pick(o))
        for ev in events:
            if ev.get("process") == target.process and ev.get("index") == target.index and \
                    ev["type"] != "invoke":
                change(ev)
        return checker.check(events)

    def test_read_of_a_value_nobody_wrote_is_flagged(self):
        def change(ev):
            ev["value"]["item"][1] = "nobody:0"
        r = self.mutated(lambda o: o.f == "get" and o.outcome == "ok" and o.value["item"],
                         change)
        self.assertEqual(kinds(r), ["not linearizable"], r.render())

    def test_dropped_acknowledged_transfer_is_flagged(self):
        ops, _ = checker.pair_events(copy.deepcopy(self.events))
        final = next(o for o in ops if o.f == "read_all" and o.args.get("final"))
        acked = {o.args["id"]: o for o in ops if o.f == "transfer" and o.outcome == "ok"}
        acct = next(a for a, s in final.value["accounts"].items()
                    if any(t in acked for t in s["log"]))
        victim = next(t for t in final.value["accounts"][acct]["log"] if t in acked)

        def change(ev):
            s = ev["value"]["accounts"][acct]
            s["log"].remove(victim)
            s["n"] -= 1
        r = self.mutated(lambda o: o is not None and o.process == final.process and
                         o.index == final.index, change)
        self.assertIn("lost update", kinds(r), r.render())

    def test_cancelled_transfer_in_a_log_is_flagged(self):
        ops, _ = checker.pair_events(copy.deepcopy(self.events))
        applied = {t for o in ops if o.f == "read_all" and o.args.get("final")
                   for s in o.value["accounts"].values() for t in s["log"]}
        t = next(o for o in ops if o.f == "transfer" and o.outcome == "ok" and
                 o.args["id"] in applied)

        def change(ev):
            ev["type"] = "fail"
            ev["error"] = "TransactionCanceledException"
            ev["value"] = {"reasons": ["ConditionalCheckFailed", "None"]}
        r = self.mutated(lambda o: o is t or (o.process == t.process and o.index == t.index),
                         change)
        self.assertIn("read of an aborted write", kinds(r), r.render())


class ServerRun(unittest.TestCase):
    def setUp(self):
        if not os.environ.get("DYNAROCK_BIN"):
            self.skipTest("set DYNAROCK_BIN")
        self.tmp = tempfile.mkdtemp(prefix="dynarock-history-")

    def tearDown(self):
        _keep(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_client_processes_with_faults(self):
        opts = workload.default_options(seconds=SECONDS, processes=4, threads=2, faults=True,
                                        seed=SEED, epoch_seconds=3)
        files = workload.run_server(opts, self.tmp)
        r = checker.check(checker.load_events(files))
        print("\n== dynarock serve, 4 processes x 2 threads, %g s, faults (seed %d)\n%s"
              % (SECONDS, SEED, r.render()))
        self.assertTrue(r.ok(), r.render())
        self.assertGreater(r.ops, 500)

    def test_injected_conflicts_without_concurrency_are_flagged(self):
        # One client thread: nothing overlaps anything, so every
        # TransactionConflict the server injects is unjustified.
        rules = {"rules": [{"name": "conflict", "table": workload.TABLE,
                            "operation": ["UpdateItem", "TransactWriteItems"],
                            "error": "TransactionConflict", "probability": 0.3}]}
        opts = workload.default_options(seconds=2, processes=1, threads=1, seed=SEED,
                                        fault_rules=rules)
        r = checker.check(checker.load_events(workload.run_server(opts, self.tmp)))
        injected = sum(1 for k, _ in r.anomalies if k == "conflict without a concurrent "
                       "operation")
        self.assertGreater(injected, 0, r.render())
        self.assertEqual(kinds(r), ["conflict without a concurrent operation"], r.render())


if __name__ == "__main__":
    unittest.main(verbosity=2)
