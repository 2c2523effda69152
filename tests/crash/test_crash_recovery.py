"""Crash safety: kill -9 a process in the middle of transactions and
index-maintaining writes, reopen, and check nothing is torn.

Runs `crash_writer run` (tests/crash/crash_writer.cc) on one data directory
5 times, each for a random 0.5-2 s, killing it with SIGKILL; after each kill:

* `dynarock check --data DIR` must exit 0 (every GSI matches its table), and
* `crash_writer verify --data DIR --acks FILE` must exit 0: balances sum to
  their start, each transaction is wholly present or absent, every
  acknowledged write is there (or overwritten by a later write), the GSIs
  read back through Scan hold exactly what the table implies, and the table's
  stream holds exactly one record per durable change, in order (each item's
  records chain from absent to its state now).

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
replay a run's random timings, CRASH_ROUNDS (default 5).
Run standalone:
  DYNAROCK_BIN=build/dynarock CRASH_WRITER_BIN=build/tests/crash_writer \
      python3 tests/crash/test_crash_recovery.py
"""

import os
import random
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
ROUNDS = int(os.environ.get("CRASH_ROUNDS", "5"))
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

    def writer_round(self, rnd, sync, rng, add_index=False):
        args = [WRITER, "run", "--data", self.data, "--start", str((rnd + 1) * 10 ** 12)]
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
        return sum(1 for ln in lines if ln.startswith("ack "))

    def test_kill9_rounds_then_check(self):
        rng = random.Random(SEED)
        sys.stderr.write("crash test: seed %d (CRASH_SEED to replay), dir %s\n" % (SEED, self.tmp))
        total_acks = 0
        try:
            for rnd in range(ROUNDS):
                sync = rnd % 2 == 0
                acks = self.writer_round(rnd, sync, rng, add_index=(rnd == 2))
                total_acks += acks
                t0 = time.monotonic()
                chk = run([DYNAROCK, "check", "--data", self.data])
                t1 = time.monotonic()
                self.assertEqual(chk.returncode, 0, "round %d: dynarock check:\n%s%s"
                                 % (rnd, chk.stdout[-4000:], chk.stderr[-2000:]))
                last = chk.stdout.strip().splitlines()[-1]
                self.assertRegex(last, r"^checked \d+ tables, \d+ items, \d+ index entries: OK$")
                ver = run([WRITER, "verify", "--data", self.data, "--acks", self.acks])
                self.assertEqual(ver.returncode, 0, "round %d: crash_writer verify:\n%s%s"
                                 % (rnd, ver.stdout[-6000:], ver.stderr[-2000:]))
                sys.stderr.write("round %d (%s): %d acks; %s; check %.2fs; %s\n"
                                 % (rnd, "sync" if sync else "no sync", acks, last, t1 - t0,
                                    ver.stdout.strip().splitlines()[-1]))
        except BaseException:
            type(self).keep = True
            raise
        self.assertGreater(total_acks, 0)

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

    def test_check_and_verify_report_a_missing_index_entry(self):
        # Delete one raw index entry under the engine: `dynarock check` and the
        # verifier must both say so.
        d, _ = self.small_database("corrupt")
        self.assertEqual(run([DYNAROCK, "check", "--data", d]).returncode, 0)
        self.assertEqual(run([WRITER, "verify", "--data", d]).returncode, 0)
        c = run([WRITER, "corrupt", "--data", d])
        self.assertEqual(c.returncode, 0, c.stderr)
        chk = run([DYNAROCK, "check", "--data", d])
        self.assertEqual(chk.returncode, 1, chk.stdout + chk.stderr)
        out = chk.stdout.strip().splitlines()
        self.assertRegex(out[-1], r"^checked \d+ tables, \d+ items, \d+ index entries: "
                                  r"\d+ differences?$")
        self.assertTrue(any("missing entry" in ln for ln in out[:-1]), chk.stdout)
        ver = run([WRITER, "verify", "--data", d])
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertIn("verify: FAILED", ver.stdout)
        self.assertRegex(ver.stdout, r"problem: index by_\w+: missing ")
        self.assertIn("problem: CheckConsistency: ", ver.stdout)

    def test_verify_reports_a_missing_stream_record(self):
        # Delete the newest stream record under the engine: its item's records
        # no longer end in the item's state, and the verifier must say so (when
        # that record was a REMOVE, the chain now ends in an image of an item
        # that is not there; otherwise in another state than the item's).
        d, _ = self.small_database("stream")
        ok = run([WRITER, "verify", "--data", d])
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertRegex(ok.stdout, r", [1-9]\d* stream records;")
        c = run([WRITER, "corrupt", "--data", d, "--stream"])
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertIn("deleted stream record", c.stdout)
        ver = run([WRITER, "verify", "--data", d])
        self.assertEqual(ver.returncode, 1, ver.stdout + ver.stderr)
        self.assertRegex(ver.stdout, r"problem: stream: \S+'s records (do not end in its state|"
                                     r"end in an item not there)")

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
