"""Dynarock as a test double in its own process: start `dynarock serve` on a
free loopback port and drive its control API (reset, snapshots, clock, fault
rules). Standard library only (subprocess, urllib); the pytest fixtures in
dynarock.pytest_plugin are built on it, and it works without pytest too:

    from dynarock.testing import DynarockServer

    with DynarockServer() as server:          # dynarock serve --port 0 --in-memory
        client = boto3.client("dynamodb", endpoint_url=server.url, ...)
        server.save_snapshot("seeded")
        ...
        server.restore_snapshot("seeded")
        server.advance_clock(3600)             # TTL, stream retention, ...
        server.set_faults([{"operation": "PutItem", "first_n": 1,
                            "error": "ThrottlingException"}], seed=7)
        server.reset()                         # every table of every namespace gone

The binary: the `binary` argument, else the environment's DYNAROCK_BIN, else
`dynarock` on PATH, else build/dynarock of a Dynarock checkout this package or
the working directory lies in.
"""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["ControlClient", "ControlError", "DynarockServer", "DynarockServerError",
           "find_binary"]

START_TIMEOUT = 30.0      # seconds until the ready line
STOP_TIMEOUT = 10.0       # seconds between SIGTERM and SIGKILL
REQUEST_TIMEOUT = 30.0    # seconds per control request

_READY = re.compile(r"dynarock listening on (http://\S+)")


class DynarockServerError(RuntimeError):
    """The binary is missing, or `dynarock serve` failed to start (the message
    carries its stderr)."""


class ControlError(RuntimeError):
    """The control API refused a request: `status` (HTTP), `type` (the
    "__type", such as "ResourceNotFoundException") and `message`."""

    def __init__(self, status, type_, message, path):
        super().__init__("%s %s: %s: %s" % (status, path, type_, message))
        self.status = status
        self.type = type_
        self.message = message
        self.path = path


# ---------------------------------------------------------------- the control API

class ControlClient:
    """The control API (/_dynarock/...) of a running `dynarock serve` at `url`."""

    def __init__(self, url, timeout=REQUEST_TIMEOUT):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/_dynarock/" + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                text = resp.read().decode()
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                err = json.loads(text)
                type_, message = err.get("__type", "Error"), err.get("message", text)
            except ValueError:
                type_, message = "Error", text.strip()
            raise ControlError(e.code, type_, message, method + " /_dynarock/" + path) from None
        return json.loads(text) if text.strip() else {}

    # -- state
    def reset(self, namespace=None):
        """Drops every table of every namespace (or of one, "KEY_REGION");
        returns the namespaces reset."""
        body = {} if namespace is None else {"namespace": namespace}
        return self._call("POST", "reset", body).get("reset", [])

    def snapshots(self):
        """The saved snapshots: [{"name", "created", "tables", "items", "bytes"}]."""
        return self._call("GET", "snapshots").get("snapshots", [])

    def save_snapshot(self, name):
        """Saves every namespace as snapshot `name`."""
        return self._call("POST", "snapshots", {"name": name})

    def restore_snapshot(self, name):
        """Puts every namespace back to snapshot `name`."""
        return self._call("POST", "snapshots/%s/restore" % urllib.parse.quote(name, safe=""), {})

    def delete_snapshot(self, name):
        return self._call("DELETE", "snapshots/%s" % urllib.parse.quote(name, safe=""))

    # -- the clock (TTL, stream retention, ... see the server's time)
    def clock(self):
        """{"now": epoch seconds as the server sees them, "offsetSeconds"}."""
        return self._call("GET", "clock")

    def advance_clock(self, seconds):
        return self._call("POST", "clock", {"advanceSeconds": seconds})

    def set_clock(self, epoch_seconds):
        return self._call("POST", "clock", {"set": epoch_seconds})

    def reset_clock(self):
        return self._call("POST", "clock", {"reset": True})

    # -- fault rules (engine/api/faults.h has the rule format; passed through as is)
    def set_faults(self, rules, seed=None):
        """Replaces the fault rules (a list of rule objects, or a whole
        {"seed", "rules"} document) and resets their counters."""
        doc = dict(rules) if isinstance(rules, dict) else {"rules": list(rules)}
        if seed is not None:
            doc["seed"] = seed
        return self._call("PUT", "faults", doc)

    def faults(self):
        """The rules with their counters: {"seed", "rules": [{..., "matched", "fired"}]}."""
        return self._call("GET", "faults")

    def clear_faults(self):
        return self._call("DELETE", "faults")

    def reset_all(self):
        """Between tests: every table gone, no fault rules, the real clock."""
        self.reset()
        for call in (self.clear_faults, self.reset_clock):
            try:
                call()
            except ControlError as e:
                if e.status != 404:  # a server without that route has nothing to undo
                    raise


# ---------------------------------------------------------------- the process

def find_binary(binary=None):
    """The dynarock executable to run (see the module's docstring), or raises
    DynarockServerError saying where it looked."""
    tried = []
    for candidate, source in ((binary, "the binary argument"),
                              (os.environ.get("DYNAROCK_BIN"), "DYNAROCK_BIN")):
        if candidate:
            path = shutil.which(candidate) or (candidate if os.path.isfile(candidate) else None)
            if path and os.access(path, os.X_OK):
                return os.path.abspath(path)
            raise DynarockServerError("%s names %r, which is not an executable file"
                                      % (source, candidate))
    on_path = shutil.which("dynarock")
    if on_path:
        return on_path
    tried.append("dynarock on PATH")
    for start in (os.path.dirname(os.path.abspath(__file__)), os.getcwd()):
        d = start
        for _ in range(6):
            path = os.path.join(d, "build", "dynarock")
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        tried.append("build/dynarock above " + start)
    raise DynarockServerError("dynarock binary not found: set DYNAROCK_BIN to its path or put "
                              "it on PATH (tried: %s)" % "; ".join(tried))


def _parent_death_signal():
    """A preexec_fn for Linux: the child gets SIGTERM when the thread that
    started it dies, so that not even a SIGKILLed test run leaves a server
    behind. Only from the main thread (a worker thread's exit would stop the
    server); None elsewhere. libc is looked up here, not in the child."""
    if not sys.platform.startswith("linux") or \
            threading.current_thread() is not threading.main_thread():
        return None
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec():
        prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl
            os._exit(1)
    return preexec


_live = set()
_live_lock = threading.Lock()


@atexit.register
def _stop_all():
    with _live_lock:
        servers = list(_live)
    for s in servers:
        s.stop()


class DynarockServer(ControlClient):
    """`dynarock serve --host 127.0.0.1 --port 0 --in-memory` in a child process.

    start() waits for its ready line (raising DynarockServerError with its
    stderr if it exits or stays silent for `start_timeout` seconds); stop()
    sends SIGTERM, then SIGKILL after STOP_TIMEOUT. Servers still running when
    the interpreter exits are stopped. `args` are more serve flags
    (["--shared-db"], ["--delay-transient-statuses", "0.1"], ...)."""

    def __init__(self, binary=None, args=(), start_timeout=START_TIMEOUT,
                 timeout=REQUEST_TIMEOUT, env=None):
        super().__init__("http://127.0.0.1:0", timeout=timeout)
        self.binary = binary
        self.args = list(args)
        self.start_timeout = start_timeout
        self.env = env
        self.process = None
        self.port = None
        self._stderr = None
        self._draining = False

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def running(self):
        return self.process is not None and self.process.poll() is None

    def start(self):
        if self.running:
            return self
        binary = find_binary(self.binary)
        self._draining = False
        cmd = [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--in-memory"] + self.args
        self._stderr = tempfile.TemporaryFile(prefix="dynarock-stderr-")
        try:
            self.process = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr,
                env=self.env, close_fds=True,
                preexec_fn=_parent_death_signal())
        except OSError as e:
            self._stderr.close()
            raise DynarockServerError("cannot run %s: %s" % (binary, e)) from None
        with _live_lock:
            _live.add(self)
        try:
            line = self._ready_line()
        except BaseException:
            self.stop()
            raise
        self.url = _READY.search(line).group(1).rstrip("/")
        self.port = urllib.parse.urlsplit(self.url).port
        # Keep reading stdout so that the server never blocks on a full pipe.
        self._draining = True
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True,
                         name="dynarock-stdout").start()
        return self

    def _ready_line(self):
        import selectors
        deadline = time.monotonic() + self.start_timeout
        out = self.process.stdout
        buf = b""
        with selectors.DefaultSelector() as sel:
            sel.register(out, selectors.EVENT_READ)
            while True:
                nl = buf.find(b"\n")
                while nl >= 0:
                    line, buf = buf[:nl].decode(errors="replace"), buf[nl + 1:]
                    if _READY.search(line):
                        return line
                    nl = buf.find(b"\n")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DynarockServerError(
                        "dynarock serve printed no ready line within %gs%s"
                        % (self.start_timeout, self._stderr_tail()))
                if sel.select(min(left, 0.5)):
                    chunk = os.read(out.fileno(), 65536)
                    if not chunk:
                        code = self.process.wait(timeout=STOP_TIMEOUT)
                        how = ("was killed by %s" % signal.Signals(-code).name if code < 0
                               else "exited with status %s" % code)
                        raise DynarockServerError("dynarock serve %s before it was ready%s"
                                                  % (how, self._stderr_tail()))
                    buf += chunk

    @staticmethod
    def _drain(stream):
        try:
            while stream.read1(65536):
                pass
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def _stderr_tail(self, limit=4000):
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            text = ""
        if not text:
            return " (no stderr)"
        return "; its stderr:\n" + text[-limit:]

    def stderr(self):
        """What the server wrote to stderr so far."""
        return self._stderr_tail(limit=1 << 20)

    def stop(self):
        """Stops the server (idempotent); returns its exit status."""
        p = self.process
        code = None
        if p is not None:
            if p.poll() is None:
                try:
                    p.terminate()
                    code = p.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    p.kill()
                    code = p.wait(timeout=STOP_TIMEOUT)
                except OSError:
                    pass
            else:
                code = p.returncode
            if p.stdout and not self._draining:
                try:
                    p.stdout.close()
                except OSError:
                    pass
        with _live_lock:
            _live.discard(self)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        return code
