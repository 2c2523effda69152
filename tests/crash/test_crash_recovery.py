"""Crash safety: kill -9 a process in the middle of transactions, index-maintaining
writes, expiring items and graph edits, reopen, and check nothing is torn.

Runs `crash_writer run` (tests/crash/crash_writer.cc, crash_graph.cc) on one data
directory CRASH_ROUNDS times (10 by default), each for a random 0.5-2 s, killing it
with SIGKILL. The workload has everything on at once: bank transfers
(TransactWriteItems) and single-item writes on a table with two GSIs, a
NEW_AND_OLD_IMAGES stream and time to live (half the items written expire within
seconds, so the sweeper deletes some during a run and some after the restart); and
a graph (graph/graph.h: edges with edge sets, a ranked type whose rank changes, a
reverse type, an opted-out type, nodes, DeleteNode) on a second table with a
stream. Stream records are kept CRASH_STREAM_RETENTION seconds (8 by default), so
the stream is trimmed while the runs write and the checks stay bounded over a long
loop. A run killed in a DeleteNode finishes it first thing in the next run
(`--resume`), as an application must. After each kill:

* `dynarock check --data DIR` must exit 0 (every GSI, the graph's inverted index
  included, matches its table, and the statistics match the data), and
* `crash_writer verify --data DIR --acks FILE` must exit 0: balances sum to their
  start, each transaction is wholly present or absent, every acknowledged write is
  there (or overwritten by a later write, or deleted by time to live once
  expired), the GSIs read back through Scan hold exactly what the table implies,
  each table's stream holds exactly one record per durable change, in order
  (each item's records chain to its state now), every acknowledged item write has
  its record and every record its write, time to live deleted only expired items
  (each with a REMOVE record marked as the service's), every graph node and edge
  is in a state the acknowledged writes allow, an interrupted graph write is whole
  or absent, and the edge sets, reverse edges, ranks and incoming types agree with
  the edges.

Runs alternate --sync (fsync before acknowledging) and the default; both
promise that an acknowledged write survives a process crash (db.h). The third
run first adds a GSI with UpdateTable; with --sync its backfill is slow, so the
kill usually lands mid-backfill and the next open must resume it.
Then `dynarock check` and the verifier must notice a deleted index entry
(exit 1), the verifier must notice a deleted stream record and acknowledged
writes that are not there
(it is this test's oracle, so it must be able to fail), and `dynarock check`
must refuse bad usage (exit 2).

Environment: DYNAROCK_BIN and CRASH_WRITER_BIN (set by ctest), CRASH_SEED to
replay a run's random timings, CRASH_ROUNDS (default 10), CRASH_STREAM_RETENTION
(seconds, default 8). scripts/crash-loop.sh runs 100 rounds.
Run standalone:
  DYNAROCK_BIN=build/dynarock CRASH_WRITER_BIN=build/tests/crash_writer \
      python3 tests/crash/test_crash_recovery.py
"""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

DYNAROCK = os.environ.get("DYNAROCK_BIN")
WRITER = os.environ.get("CRASH_WRITER_BIN")
ROUNDS = int(os.environ.get("CRASH_ROUNDS", "10"))
RETENTION = os.environ.get("CRASH_STREAM_RETENTION", "8")
SEED = int(os.environ.get("CRASH_SEED", str(int(time.time() * 1000) % 1000000)))
START_TIMEOUT_S = 30


def run(args, timeout=120):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


class CrashRecoveryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not DYNAROCK or not WRITER:
            raise unittest.SkipTest("set DYNAROCK_BIN and CRASH_WRITER_BIN")
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-crash-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.acks = os.path.join(cls.tmp, "acks.txt")
        cls.keep = False

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "keep", False):
            sys.stderr.write("crash test: data kept in %s\n" % cls.tmp)
        elif getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def writer_round(self, rnd, sync, rng, add_index=False, resume=None):
        args = [WRITER, "run", "--data", self.data, "--start", str((rnd + 1) * 10 ** 12),
                "--stream-retention", RETENTION]
        if resume is not None:
            args += ["--resume", str(resume)]
        if sync:
            args.append("--sync")
        if add_index:
            args.append("--add-index")
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        lines = []
        started = threading.Event()

        def reader():
            buf = b""
            for chunk in iter(lambda: proc.stdout.read1(65536), b""):
                buf += chunk
                *whole, buf = buf.split(b"\n")
                for ln in whole:
                    lines.append(ln.decode())
                    if ln.startswith(b"start "):
                        started.set()
            # A partial last line (no newline) is dropped: it was never whole.

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        try:
            if not started.wait(START_TIMEOUT_S):
                proc.kill()
                proc.wait()
                self.fail("round %d: crash_writer did not start (exit %s): %s"
                          % (rnd, proc.returncode, proc.stderr.read().decode()[-2000:]))
            time.sleep(rng.uniform(0.5, 2.0))
            alive = proc.poll() is None
            if alive:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        t.join(timeout=30)
        err = proc.stderr.read().decode()
        proc.stdout.close()
        proc.stderr.close()
        self.assertTrue(alive, "round %d: crash_writer exited by itself (%s): %s"
                        % (rnd, proc.returncode, err[-2000:]))
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        with open(self.acks, "a") as f:
            for ln in lines:
                f.write(ln + "\n")
        # The write the run was killed in: the one after its last acknowledgement.
        start = next(int(ln.split()[1]) for ln in lines if ln.startswith("start "))
        acked = [int(ln.split()[1]) for ln in lines if ln.startswith("ack ")]
        return len(acked), (max(acked) if acked else start - 1) + 1

    def test_kill9_rounds_then_check(self):
        rng = random.Random(SEED)
        sys.stderr.write("crash test: seed %d (CRASH_SEED to replay), %d rounds, dir %s\n"
                         % (SEED, ROUNDS, self.tmp))
        total_acks = 0
        ttl_records = 0
        resume = None
        t_start = time.monotonic()
        rnd = -1
        try:
            for rnd in range(ROUNDS):
                sync = rnd % 2 == 0
                t_round = time.monotonic()
                acks, resume = self.writer_round(rnd, sync, rng, add_index=(rnd == 2),
                                                 resume=resume)
                total_acks += acks
                t0 = time.monotonic()
                chk = run([DYNAROCK, "check", "--data", self.data])
                t1 = time.monotonic()
                self.assertEqual(chk.returncode, 0, "round %d: dynarock check:\n%s%s"
                                 % (rnd, chk.stdout[-4000:], chk.stderr[-2000:]))
                last = chk.stdout.strip().splitlines()[-1]
                self.assertRegex(last, r"^checked \d+ tables, \d+ items, \d+ index entries: OK$")
                ver = run([WRITER, "verify", "--data", self.data, "--acks", self.acks,
                           "--stream-retention", RETENTION])
                t2 = time.monotonic()
                self.assertEqual(ver.returncode, 0, "round %d: crash_writer verify:\n%s%s"
                                 % (rnd, ver.stdout[-6000:], ver.stderr[-2000:]))
                summary = ver.stdout.strip().splitlines()[-1]
                m = re.search(r"\((\d+) by TTL", summary)
                ttl_records = max(ttl_records, int(m.group(1)) if m else 0)
                sys.stderr.write("round %d (%s): %d acks; %s; check %.2fs, verify %.2fs, "
                                 "round %.1fs; %s\n"
                                 % (rnd, "sync" if sync else "no sync", acks, last, t1 - t0,
                                    t2 - t1, t2 - t_round, summary))
        except BaseException:
            type(self).keep = True
            sys.stderr.write("crash test: FAILED in round %d of %d after %.0fs (seed %d, "
                             "CRASH_SEED=%d CRASH_ROUNDS=%d to replay; data kept in %s)\n"
                             % (rnd, ROUNDS, time.monotonic() - t_start, SEED, SEED, ROUNDS,
                                self.tmp))
            raise
        sys.stderr.write("crash test: %d rounds, 0 failures, %d acknowledged writes, %.0fs "
                         "(seed %d)\n" % (ROUNDS, total_acks, time.monotonic() - t_start, SEED))
        self.assertGreater(total_acks, 0)
        if ROUNDS >= 5:
            # The sweeper ran: some records of the stream (those not yet
            # trimmed) are deletions by time to live.
            self.assertGreater(ttl_records, 0, "no item was deleted by time to live")

    def small_database(self, name, acks=300):
        """A database of its own, written by one `crash_writer run --start 1`
        stopped after `acks` acknowledged writes; returns (dir, its stdout lines)."""
        d = os.path.join(self.tmp, name)
        p = subprocess.Popen([WRITER, "run", "--data", d, "--start", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        lines = []
        for ln in p.stdout:
            lines.append(ln.decode().rstrip("\n"))
            if sum(1 for x in lines if x.startswith("ack ")) >= acks:
                break
        p.kill()
        p.wait()
        # What it printed before the kill, but for a partial last line.
        rest = p.stdout.read().decode()
        p.stdout.close()
        lines += rest.split("\n")[:-1]
        self.assertGreaterEqual(sum(1 for x in lines if x.startswith("ack ")), acks,
                                "crash_writer stopped early")
        return d, lines

    def verify(self, d, lines):
        """`crash_writer verify` of a small_database, told what the writer
        printed: an operation the kill interrupted (a DeleteNode half done, whose
        node's edge set still names the edges it removed) is then known to be
        in flight, as the crash loop's verify knows it."""
        acks = d + "-acks.txt"
        with open(acks, "w") as f:
            f.write("\n".join(lines) + "\n")
        return run([WRITER, "verify", "--data", d, "--acks", acks])

    def test_check_and_verify_report_a_missing_index_entry(self):
        # Delete one raw index entry under the engine: `dynarock check` and the
        # verifier must both say so.
        d, lines = self.small_database("corrupt")
        self.assertEqual(run([DYNAROCK, "check", "--data", d]).returncode, 0)
        self.assertEqual(self.verify(d, lines).returncode, 0)
        c = run([WRITER, "corrupt", "--data", d])
        self.assertEqual(c.returncode, 0, c.stderr)
        chk = run([DYNAROCK, "check", "--data", d])
        self.assertEqual(chk.returncode, 1, chk.stdout + chk.stderr)
        out = chk.stdout.strip().splitlines()
        self.assertRegex(out[-1], r"^checked \d+ tables, \d+ items, \d+ index entries: "
                                  r"\d+ differences?$")
        self.assertTrue(any("missing entry" in ln for ln in out[:-1]), chk.stdout)
        ver = self.verify(d, lines)
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertIn("verify: FAILED", ver.stdout)
        self.assertRegex(ver.stdout, r"problem: index by_\w+: missing ")
        self.assertIn("problem: CheckConsistency: ", ver.stdout)

    def test_verify_reports_a_missing_stream_record(self):
        # Delete the newest stream record under the engine: its item's records
        # no longer end in the item's state, and the verifier must say so (when
        # that record was a REMOVE, the chain now ends in an image of an item
        # that is not there; otherwise in another state than the item's).
        d, lines = self.small_database("stream")
        ok = self.verify(d, lines)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertRegex(ok.stdout, r", [1-9]\d* stream records;")
        c = run([WRITER, "corrupt", "--data", d, "--stream"])
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertIn("deleted stream record", c.stdout)
        ver = self.verify(d, lines)
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertRegex(ver.stdout, r"problem: stream: \S+'s records (do not end in its state|"
                                     r"end in an item not there)")

    def test_verify_reports_a_torn_graph_edit(self):
        # Delete one graph edge through the engine but leave its edge-set entry:
        # the indexes and the stream stay consistent, so `dynarock check` passes,
        # but the verifier must name the stale entry.
        d, lines = self.small_database("graph")
        ok = self.verify(d, lines)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertRegex(ok.stdout, r"graph: \d+ nodes, [1-9]\d* edges")
        c = run([WRITER, "corrupt", "--data", d, "--graph-edge"])
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("not its edge-set entry", c.stdout)
        self.assertEqual(run([DYNAROCK, "check", "--data", d]).returncode, 0)
        ver = self.verify(d, lines)
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertRegex(ver.stdout, r"problem: graph: node \S+'s edge set names LINK#\S+, "
                                     r"which is not there")
        self.assertRegex(ver.stdout, r"problem: graph: VerifyEdgeSet\(\S+\) finds 0 missing "
                                     r"and 1 stale entries")

    def test_verify_reports_an_acknowledged_write_that_is_not_there(self):
        # The verifier is this test's oracle, so it must be able to fail: claim
        # acknowledgements for writes that never ran (well past the one that
        # may have been in flight at the kill) and it must name them.
        d, lines = self.small_database("forged")
        acks = os.path.join(self.tmp, "forged-acks.txt")
        with open(acks, "w") as f:
            f.write("\n".join(lines) + "\n")
        ok = run([WRITER, "verify", "--data", d, "--acks", acks])
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        last = max(int(x.split()[1]) for x in lines if x.startswith("ack "))
        with open(acks, "a") as f:
            for n in range(last + 1000, last + 1040):
                f.write("ack %d\n" % n)
        ver = run([WRITER, "verify", "--data", d, "--acks", acks])
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertIn("verify: FAILED", ver.stdout)
        self.assertRegex(ver.stdout, r"problem: acknowledged transaction \d+ missing")
        self.assertRegex(ver.stdout, r"problem: item#\d+: state .* is not what acknowledged write \d+")
        # An acknowledgement before its run started is itself a problem.
        with open(acks, "w") as f:
            f.write("ack 0\n" + "\n".join(lines) + "\n")
        ver = run([WRITER, "verify", "--data", d, "--acks", acks])
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertIn("problem: ack 0 outside any run", ver.stdout)

    def test_check_usage(self):
        h = run([DYNAROCK, "check", "--help"])
        self.assertEqual(h.returncode, 0)
        self.assertIn("--data", h.stdout)
        self.assertEqual(run([DYNAROCK, "check"]).returncode, 2)
        self.assertEqual(run([DYNAROCK, "check", "--bogus"]).returncode, 2)
        missing = os.path.join(self.tmp, "does-not-exist")
        r = run([DYNAROCK, "check", "--data", missing])
        self.assertEqual(r.returncode, 2)
        self.assertFalse(os.path.exists(missing), "check must not create a database")
        self.assertIn("check", run([DYNAROCK, "--help"]).stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
