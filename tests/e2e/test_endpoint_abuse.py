"""`dynarock serve` under slow, hostile or broken clients: the endpoint's
limits and timeouts (serve --max-connections, --max-in-flight,
--max-header-bytes, --header-timeout-seconds, --idle-timeout-seconds,
--body-timeout-seconds) and its graceful shutdown.

What each test pins, with another client making requests meanwhile that must
all be answered promptly, and the server's resident memory (VmRSS of
/proc/PID/status) read before and after:

* slowloris: headers trickled a byte at a time are cut at the header timeout;
  a body trickled after a complete header is cut at the body timeout;
* 10,000 connection attempts in waves: connections beyond --max-connections are
  reset at once, the open ones keep being served, new ones are let in after;
* half-open connections (connected and silent, a header begun and abandoned,
  a request followed by shutdown(SHUT_WR), idle keep-alive) all end on time;
* garbage bytes (random binary, a line with no end, a TLS ClientHello, the
  HTTP/2 preface, an oversized header) get a 400 or 431 or a closed
  connection, never a crash;
* a pipelining flood: 5,000 requests in one write are answered in order; a
  client that pipelines without reading stalls only itself;
* idle keep-alive connections keep nothing of their last (1 MB) response;
* requests in flight beyond --max-in-flight get DynamoDB's ThrottlingException
  (HTTP 400), which boto3 sees as such;
* SIGTERM: no new connections, the request in flight is answered, the data is
  on disk after a restart, exit status 0, even with a client stuck mid-body
  (cut at --shutdown-grace-seconds).

Loopback only; every count and wait is bounded (the file runs in well under
two minutes). Runs its own servers, so not against DYNAROCK_E2E_ENDPOINT.
"""

import json
import os
import random
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

import harness

HEADER_TIMEOUT = 2
BODY_TIMEOUT = 3
IDLE_TIMEOUT = 3
MAX_CONNECTIONS = 200
# Growth of the server's resident memory any one abuse case may cause.
RSS_GROWTH_MAX_KB = 64 * 1024


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def raise_fd_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def post(op="ListTables", body=b"{}", extra=b""):
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810." + op.encode() + b"\r\n" + extra +
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def host_port(url):
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    return host, int(port)


class RawConn:
    """One keep-alive HTTP/1.1 connection on a plain socket."""

    def __init__(self, url, timeout=10):
        self.sock = socket.create_connection(host_port(url), timeout=timeout)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def read(self):
        """(status, headers, body) of the next response; None when closed."""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body

    def request(self, op="ListTables", body=b"{}"):
        self.send(post(op, body))
        return self.read()

    def close(self):
        self.sock.close()


def closed_by_peer(sock, wait):
    """True when the server ended the connection (EOF or reset) within `wait` s."""
    r, _, _ = select.select([sock], [], [], wait)
    if not r:
        return False
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
            r, _, _ = select.select([sock], [], [], wait)
            if not r:
                return False
    except (ConnectionResetError, BrokenPipeError):
        return True


class Witness:
    """Another client, on its own keep-alive connection, requesting every 50 ms
    while an abuse case runs: counts answers and the slowest one."""

    def __init__(self, url):
        self.url = url
        self.ok = 0
        self.failures = []
        self.slowest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._conn = RawConn(self.url)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                r = self._conn.request()
                if r is None or r[0] != 200:
                    self.failures.append(r and r[0])
                else:
                    self.ok += 1
            except OSError as e:
                self.failures.append(repr(e))
                return
            self.slowest = max(self.slowest, time.monotonic() - start)
            self._stop.wait(0.05)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(15)
        self._conn.close()
        return False


class EndpointAbuseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise_fd_limit(4096)
        cls.proc, cls.url = harness.launch(None, [
            "--threads", "2",
            "--max-connections", str(MAX_CONNECTIONS),
            "--header-timeout-seconds", str(HEADER_TIMEOUT),
            "--body-timeout-seconds", str(BODY_TIMEOUT),
            "--idle-timeout-seconds", str(IDLE_TIMEOUT),
            "--max-header-bytes", "16K",
        ])
        cls.client = harness.client(cls.url)
        # Warm up (allocator arenas, the first table) before the baseline.
        name = harness.create_table(cls.client, "abuse")
        for i in range(200):
            cls.client.put_item(TableName=name, Item={"pk": {"S": str(i)}, "v": {"S": "x" * 100}})
        cls.base_rss = rss_kb(cls.proc.pid)
        cls.figures = []

    @classmethod
    def tearDownClass(cls):
        sys.stderr.write("\nendpoint abuse figures (VmRSS kB at start: %d)\n" % cls.base_rss)
        for line in cls.figures:
            sys.stderr.write("  " + line + "\n")
        harness.stop_process(cls.proc)

    def check_alive_and_bounded(self, case, witness=None, extra=""):
        self.assertIsNone(self.proc.poll(), "the server exited")
        self.assertEqual(self.client.list_tables()["TableNames"], ["abuse"])
        rss = rss_kb(self.proc.pid)
        line = "%-28s VmRSS %6d kB (%+d kB)" % (case, rss, rss - self.base_rss)
        if witness is not None:
            line += ", witness %d answers, slowest %.3f s" % (witness.ok, witness.slowest)
            self.assertEqual(witness.failures, [])
            self.assertGreater(witness.ok, 0)
            self.assertLess(witness.slowest, 1.0)
        self.figures.append(line + extra)
        self.assertLess(rss - self.base_rss, RSS_GROWTH_MAX_KB, line)

    # -- slow clients ------------------------------------------------------------

    def test_slowloris_headers_are_cut_at_the_header_timeout(self):
        head = b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        with Witness(self.url) as w:
            start = time.monotonic()
            slow = [socket.create_connection(host_port(self.url), timeout=5) for _ in range(30)]
            closed_at = {}
            i = 0
            while len(closed_at) < len(slow) and time.monotonic() - start < HEADER_TIMEOUT + 4:
                byte = head[i:i + 1] if i < len(head) else b"x"
                i += 1
                for n, s in enumerate(slow):
                    if n in closed_at:
                        continue
                    try:
                        s.send(byte)
                    except OSError:
                        closed_at[n] = time.monotonic() - start
                        continue
                    if closed_by_peer(s, 0):
                        closed_at[n] = time.monotonic() - start
                time.sleep(0.1)
            for s in slow:
                s.close()
        self.assertEqual(len(closed_at), len(slow), "some trickled headers were never cut")
        self.assertGreaterEqual(min(closed_at.values()), HEADER_TIMEOUT - 0.5)
        self.assertLessEqual(max(closed_at.values()), HEADER_TIMEOUT + 2.5)
        self.check_alive_and_bounded(
            "slowloris headers x30", w,
            ", cut after %.1f-%.1f s" % (min(closed_at.values()), max(closed_at.values())))

    def test_a_trickled_body_is_cut_at_the_body_timeout(self):
        with Witness(self.url) as w:
            s = socket.create_connection(host_port(self.url), timeout=5)
            body = json.dumps({"TableName": "abuse"}).encode()
            s.sendall(post("DescribeTable", body)[:-len(body)])  # the header, whole
            start = time.monotonic()
            cut = None
            for byte in body * 100:
                try:
                    s.send(bytes([byte]))
                except OSError:
                    cut = time.monotonic() - start
                    break
                if closed_by_peer(s, 0.2):
                    cut = time.monotonic() - start
                    break
                if time.monotonic() - start > BODY_TIMEOUT + 4:
                    break
            s.close()
        self.assertIsNotNone(cut, "a trickled body was never cut")
        self.assertGreaterEqual(cut, BODY_TIMEOUT - 0.5)
        self.assertLessEqual(cut, BODY_TIMEOUT + 2.5)
        self.check_alive_and_bounded("slow body", w, ", cut after %.1f s" % cut)

    # -- connections ---------------------------------------------------------------

    def test_ten_thousand_connection_attempts(self):
        attempts, wave = 10000, 500
        opened = refused = 0
        most_open = 0
        start = time.monotonic()
        with Witness(self.url) as w:
            while opened + refused < attempts and time.monotonic() - start < 60:
                socks = []
                for _ in range(min(wave, attempts - opened - refused)):
                    try:
                        socks.append(socket.create_connection(host_port(self.url), timeout=5))
                    except OSError:
                        refused += 1
                time.sleep(0.15)  # the acceptor's verdict arrives
                still_open = 0
                for s in socks:
                    if closed_by_peer(s, 0):
                        refused += 1
                    else:
                        still_open += 1
                        opened += 1
                    s.close()
                most_open = max(most_open, still_open)
        took = time.monotonic() - start
        self.assertEqual(opened + refused, attempts)
        # The witness holds one; a wave's closed sockets may still be counted a
        # moment after they left.
        self.assertLessEqual(most_open, MAX_CONNECTIONS)
        self.assertGreater(refused, attempts // 2)
        # New connections are let in again.
        deadline = time.monotonic() + 5
        while True:
            try:
                c = RawConn(self.url, timeout=2)
                r = c.request()
                c.close()
                if r is not None and r[0] == 200:
                    break
            except OSError:
                pass
            self.assertLess(time.monotonic(), deadline, "no new connection served after the flood")
            time.sleep(0.1)
        self.check_alive_and_bounded(
            "10k connection attempts", w,
            ", %d served, %d reset, at most %d open at once, %.1f s" %
            (opened, refused, most_open, took))

    def test_half_open_connections_end_on_time(self):
        with Witness(self.url) as w:
            start = time.monotonic()
            silent = [socket.create_connection(host_port(self.url), timeout=5) for _ in range(50)]
            begun = [socket.create_connection(host_port(self.url), timeout=5) for _ in range(50)]
            for s in begun:
                s.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Le")
            # A request then no more writes (half-closed): answered, then closed.
            for _ in range(20):
                c = RawConn(self.url)
                c.send(post())
                c.sock.shutdown(socket.SHUT_WR)
                r = c.read()
                self.assertIsNotNone(r)
                self.assertEqual(r[0], 200)
                self.assertTrue(closed_by_peer(c.sock, 2))
                c.close()
            # An idle keep-alive connection: closed after the idle timeout.
            idle = RawConn(self.url)
            self.assertEqual(idle.request()[0], 200)
            idle_start = time.monotonic()
            for s in silent + begun:
                self.assertTrue(closed_by_peer(s, HEADER_TIMEOUT + 3 - (time.monotonic() - start)),
                                "a half-open connection outlived the header timeout")
            header_cut = time.monotonic() - start
            self.assertTrue(closed_by_peer(idle.sock, IDLE_TIMEOUT + 3))
            idle_cut = time.monotonic() - idle_start
            for s in silent + begun:
                s.close()
            idle.close()
        self.assertGreaterEqual(idle_cut, IDLE_TIMEOUT - 0.5)
        self.check_alive_and_bounded(
            "half-open x100 + idle", w,
            ", all cut by %.1f s, idle keep-alive after %.1f s" % (header_cut, idle_cut))

    def test_idle_connections_keep_nothing_of_their_last_response(self):
        # Unsigned requests: the shared namespace, apart from the class's table.
        admin = RawConn(self.url)
        r = admin.request("CreateTable", json.dumps({
            "TableName": "big", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}).encode())
        self.assertEqual(r[0], 200, r[2])
        for i in range(3):
            r = admin.request("PutItem", json.dumps({"TableName": "big", "Item": {
                "pk": {"S": str(i)}, "v": {"S": "x" * 350000}}}).encode())
            self.assertEqual(r[0], 200, r[2])
        scan = json.dumps({"TableName": "big"}).encode()
        self.assertGreater(len(admin.request("Scan", scan)[2]), 1000000)
        before = rss_kb(self.proc.pid)
        conns = [RawConn(self.url) for _ in range(60)]
        for c in conns:  # a 1 MB answer each, then idle
            r = c.request("Scan", scan)
            self.assertEqual(r[0], 200)
        time.sleep(0.3)
        during = rss_kb(self.proc.pid)
        for c in conns + [admin]:
            c.close()
        # 60 MB if each kept its response.
        self.assertLess(during - before, 20 * 1024)
        self.check_alive_and_bounded(
            "60 idle after 1 MB answers", None,
            ", VmRSS %+d kB while they idled" % (during - before))

    # -- bytes that are not HTTP ---------------------------------------------------------

    def test_garbage_bytes_get_an_error_or_a_close(self):
        rng = random.Random(18)
        cases = [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4096))) for _ in range(150)]
        cases += [
            b"A" * (1 << 20),                                     # a line with no end
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(64),  # a TLS ClientHello
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(64),      # the HTTP/2 preface
            b"GET / HTTP/1.1\r\n" + b"X: " + b"y" * 40000 + b"\r\n\r\n",  # header over 16K
            b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            b"\x00" * 10000,
            b"\r\n" * 5000,
        ]
        statuses = {}
        with Witness(self.url) as w:
            for data in cases:
                s = socket.create_connection(host_port(self.url), timeout=5)
                try:
                    s.sendall(data)
                except OSError:
                    pass  # the server refused midway: fine
                reply = b""
                deadline = time.monotonic() + HEADER_TIMEOUT + 3
                try:
                    while time.monotonic() < deadline:
                        r, _, _ = select.select([s], [], [], deadline - time.monotonic())
                        if not r:
                            break
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                except (ConnectionResetError, BrokenPipeError):
                    pass
                self.assertLess(time.monotonic(), deadline, "a garbage connection hung: %r" % data[:40])
                status = reply[9:12].decode("latin-1") if reply.startswith(b"HTTP/1.1 ") else "closed"
                self.assertIn(status, ("400", "413", "431", "closed"), reply[:200])
                statuses[status] = statuses.get(status, 0) + 1
                s.close()
        self.check_alive_and_bounded(
            "garbage x%d" % len(cases), w,
            ", answers: " + ", ".join("%s %d" % kv for kv in sorted(statuses.items())))

    # -- pipelining ----------------------------------------------------------------------

    def test_a_pipelining_flood(self):
        n = 5000
        with Witness(self.url) as w:
            c = RawConn(self.url, timeout=30)
            data = post() * n
            sender = threading.Thread(target=c.send, args=(data,), daemon=True)
            start = time.monotonic()
            sender.start()
            ids = set()
            for _ in range(n):
                r = c.read()
                self.assertIsNotNone(r)
                self.assertEqual(r[0], 200)
                ids.add(r[1]["x-amzn-requestid"])
            sender.join(10)
            took = time.monotonic() - start
            c.close()
            self.assertEqual(len(ids), n)

            # A client that pipelines without ever reading stalls only itself:
            # once the socket buffers are full the server stops reading it, and
            # cuts it when a response cannot be written within the body timeout.
            greedy = socket.create_connection(host_port(self.url), timeout=BODY_TIMEOUT + 3)
            sent = 0
            blob = post() * 1000
            greedy_start = time.monotonic()
            ending = "sent them all"
            try:
                while sent < 200 * len(blob):
                    greedy.sendall(blob)
                    sent += len(blob)
            except socket.timeout:
                ending = "stalled"
            except (ConnectionResetError, BrokenPipeError):
                ending = "was cut after %.1f s" % (time.monotonic() - greedy_start)
            mid_rss = rss_kb(self.proc.pid)
            greedy.close()
        self.check_alive_and_bounded(
            "pipelining flood", w,
            ", %d answered in order in %.1f s; a non-reader sent %d KB and %s "
            "(VmRSS then %d kB)" % (n, took, sent // 1024, ending, mid_rss))
        self.assertNotEqual(ending, "sent them all")
        self.assertLess(mid_rss - self.base_rss, RSS_GROWTH_MAX_KB)


class ThrottlingTest(unittest.TestCase):
    """--max-in-flight: DynamoDB's ThrottlingException past it."""

    def test_requests_beyond_the_in_flight_maximum_are_throttled(self):
        # --shared-db: the raw requests below are unsigned, boto3's are signed.
        proc, url = harness.launch(None, ["--max-in-flight", "2", "--shared-db"])
        holders = []
        try:
            c = harness.client(url)
            name = harness.create_table(c, "throttle")
            item = json.dumps({"TableName": name, "Item": {"pk": {"S": "held"}}}).encode()
            for _ in range(2):  # each holds a slot: its body is half sent
                h = RawConn(url)
                h.send(post("PutItem", item)[:-10])
                holders.append(h)
            time.sleep(0.3)
            with self.assertRaises(ClientError) as ctx:
                c.put_item(TableName=name, Item={"pk": {"S": "k"}})
            err = ctx.exception.response
            self.assertEqual(err["Error"]["Code"], "ThrottlingException")
            self.assertEqual(err["ResponseMetadata"]["HTTPStatusCode"], 400)
            self.assertIn("Rate of requests exceeds the allowed throughput", err["Error"]["Message"])
            # A health check still answers.
            g = RawConn(url)
            g.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(g.read()[0], 200)
            g.close()
            for h in holders:
                h.send(post("PutItem", item)[-10:])
                self.assertEqual(h.read()[0], 200)
            c.put_item(TableName=name, Item={"pk": {"S": "k"}})
            self.assertEqual(c.scan(TableName=name, Select="COUNT")["Count"], 2)
        finally:
            for h in holders:
                h.close()
            harness.stop_process(proc)


class GracefulShutdownTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dynarock-abuse-")
        self.data = os.path.join(self.dir, "data")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_sigterm_finishes_the_request_in_flight_and_exits_0(self):
        proc, url = harness.launch(self.data, ["--shared-db"])
        try:
            c = harness.client(url)
            name = harness.create_table(c, "shutdown")
            status, _ = harness.control(url, "faults", "PUT", {"rules": [
                {"operation": "PutItem", "action": "latency", "latency_ms": 1500}]})
            self.assertEqual(status, 200)
            result = {}

            def slow_put():
                try:
                    c.put_item(TableName=name, Item={"pk": {"S": "in-flight"}})
                    result["ok"] = True
                except Exception as e:  # reported below
                    result["error"] = repr(e)

            t = threading.Thread(target=slow_put)
            t.start()
            time.sleep(0.5)
            start = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            with self.assertRaises(OSError):  # no longer accepting
                socket.create_connection(host_port(url), timeout=2).close()
            t.join(10)
            self.assertEqual(result, {"ok": True})
            self.assertEqual(proc.wait(10), 0)
            self.assertLess(time.monotonic() - start, 5)
        finally:
            harness.stop_process(proc)
        proc, url = harness.launch(self.data, ["--shared-db"])
        try:
            got = harness.client(url).get_item(TableName=name, Key={"pk": {"S": "in-flight"}})
            self.assertEqual(got["Item"]["pk"]["S"], "in-flight")
        finally:
            harness.stop_process(proc)

    def test_a_stuck_client_is_cut_at_the_grace_deadline(self):
        proc, url = harness.launch(self.data, ["--shutdown-grace-seconds", "1",
                                               "--body-timeout-seconds", "60"])
        stuck = RawConn(url)
        try:
            stuck.send(post("ListTables", b"{}" + b" " * 100)[:-50])
            time.sleep(0.3)
            start = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(10), 0)
            took = time.monotonic() - start
            self.assertGreaterEqual(took, 0.8)
            self.assertLess(took, 4)
            self.assertTrue(closed_by_peer(stuck.sock, 1))
        finally:
            stuck.close()
            harness.stop_process(proc)


if __name__ == "__main__":
    unittest.main(verbosity=2)
