"""Shared end-to-end harness for the Dynarock HTTP endpoint.

Every e2e Python suite calls :func:`start` in ``setUpModule`` and :func:`stop` in
``tearDownModule``.  ``start`` either

* uses an already running endpoint when ``DYNAROCK_E2E_ENDPOINT`` is set (for
  example ``python3 -m moto.server -p 5055`` and
  ``DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055``), or
* launches ``$DYNAROCK_BIN serve --port PORT --in-memory`` on a free loopback
  port, waits (10 s at most) for the line
  ``dynarock listening on http://127.0.0.1:PORT ...`` on its stdout and kills it
  again in ``stop``.

The suites are written against the behaviour of real Amazon DynamoDB (API
reference and developer guide), never against an emulator.

Command line use (for shell / other-language tests)::

    python3 tests/e2e/harness.py serve      # prints the endpoint URL, then
                                            # keeps the server up until SIGTERM
                                            # or until its parent exits
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

READY_TIMEOUT_S = 10.0
REGION = "us-east-1"

# Dummy credentials: the SDKs refuse to sign without some.
_DUMMY_ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_SESSION_TOKEN": "test",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    # Never pick up the developer's real config / profiles.
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
}


def set_dummy_credentials(env=None):
    """Put dummy AWS credentials and region into ``env`` (default os.environ)."""
    target = os.environ if env is None else env
    for k, v in _DUMMY_ENV.items():
        target[k] = v
    target.pop("AWS_PROFILE", None)
    return target


set_dummy_credentials()

_state = {"endpoint": None, "proc": None, "refs": 0, "tmp": None}


def free_port():
    """A currently free TCP port on 127.0.0.1 (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _find_binary():
    b = os.environ.get("DYNAROCK_BIN")
    if b:
        return b
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    for cand in ("build/dynarock", "build/tools/server/dynarock",
                 "build/release/dynarock", "build/debug/dynarock"):
        p = os.path.join(root, cand)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which("dynarock")


def launch(data_dir=None, extra_args=(), port=None):
    """Start a dedicated `dynarock serve` (not the shared one): returns
    (process, url). Stop it with stop_process(process)."""
    return _launch(data_dir, extra_args, port)


def stop_process(proc):
    _kill(proc)


def _launch(data_dir=None, extra_args=(), fixed_port=None):
    binary = _find_binary()
    if not binary:
        raise RuntimeError(
            "dynarock binary not found: set DYNAROCK_BIN to the built `dynarock` "
            "executable, or set DYNAROCK_E2E_ENDPOINT to use a running endpoint")
    last_err = None
    for _attempt in range(3):  # the free port can be stolen between bind and use
        port = fixed_port or free_port()
        args = [binary, "serve", "--port", str(port)]
        if data_dir:
            args += ["--data", data_dir]
        else:
            args += ["--in-memory"]
        args += list(extra_args)
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=None,
                                stdin=subprocess.DEVNULL, text=True, bufsize=1,
                                start_new_session=True)
        lines = []
        found = threading.Event()

        def reader():
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("dynarock listening on "):
                    found.set()
            # EOF: drain nothing further

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline and not found.is_set():
            if proc.poll() is not None:
                break
            found.wait(0.05)
        if found.is_set():
            ready = [l for l in lines if l.startswith("dynarock listening on ")][0]
            url = ready.split()[3]
            return proc, url.rstrip("/")
        _kill(proc)
        last_err = RuntimeError(
            "dynarock did not print its ready line within %.0f s (exit=%s); "
            "stdout so far: %r" % (READY_TIMEOUT_S, proc.returncode, "".join(lines)))
    raise last_err


def _kill(proc):
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait(timeout=5)


def start():
    """Start (or reuse) the endpoint; returns its URL."""
    if _state["endpoint"] is None:
        ext = os.environ.get("DYNAROCK_E2E_ENDPOINT")
        if ext:
            _state["endpoint"] = ext.rstrip("/")
        else:
            proc, url = _launch()
            _state["proc"], _state["endpoint"] = proc, url
    _state["refs"] += 1
    return _state["endpoint"]


def stop():
    _state["refs"] -= 1
    if _state["refs"] <= 0:
        _kill(_state["proc"])
        _state.update(endpoint=None, proc=None, refs=0)


def endpoint():
    if _state["endpoint"] is None:
        raise RuntimeError("harness.start() was not called")
    return _state["endpoint"]


def using_external_endpoint():
    return bool(os.environ.get("DYNAROCK_E2E_ENDPOINT"))


# ----------------------------------------------------------------- clients

def _config(validate=True):
    from botocore.config import Config
    return Config(region_name=REGION, retries={"max_attempts": 1, "mode": "standard"},
                  connect_timeout=5, read_timeout=60, parameter_validation=validate)


def client(url=None, validate=True):
    """boto3 DynamoDB client for the endpoint. validate=False turns off
    botocore's client-side parameter validation so that requests which real
    DynamoDB must reject (e.g. a 2-character table name) reach the server even
    with botocore versions whose model has stricter length limits."""
    import boto3
    return boto3.client("dynamodb", endpoint_url=url or endpoint(), region_name=REGION,
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=_config(validate))


def client_with_attempts(url, attempts):
    """boto3 DynamoDB client making at most `attempts` attempts a call (the
    first included) with botocore's standard retry mode, for tests of how an
    SDK rides out throttling and faults."""
    import boto3
    from botocore.config import Config
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name=REGION,
        aws_access_key_id="test", aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": attempts, "mode": "standard"},
                      connect_timeout=5, read_timeout=30))


def control(url, route, method="GET", body=None):
    """(HTTP status, JSON) of a control API call on /_dynarock/<route>."""
    import json
    import urllib.error
    import urllib.request
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + "/_dynarock/" + route, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def streams_client(url=None, validate=True):
    """boto3 DynamoDB Streams client ("dynamodbstreams") for the same endpoint
    (the Streams API is told apart by its X-Amz-Target prefix
    DynamoDBStreams_20120810). validate=False as in client()."""
    import boto3
    return boto3.client("dynamodbstreams", endpoint_url=url or endpoint(), region_name=REGION,
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=_config(validate))


def model_has(c, shape, member):
    """Whether the installed botocore model of client ``c`` knows
    ``shape.member`` (old botocore drops unknown request/response members)."""
    try:
        return member in c.meta.service_model.shape_for(shape).members
    except Exception:
        return False


def resource(url=None):
    import boto3
    return boto3.resource("dynamodb", endpoint_url=url or endpoint(), region_name=REGION,
                          aws_access_key_id="test", aws_secret_access_key="test",
                          config=_config())


_counter = [0]


def table_name(prefix="t"):
    """A table name unique to this process run (valid DynamoDB name)."""
    _counter[0] += 1
    return "%s-%s-%d" % (prefix, uuid.uuid4().hex[:10], _counter[0])


def create_table(c, name=None, hash_key=("pk", "S"), range_key=None, **kw):
    """CreateTable with PAY_PER_REQUEST and wait until ACTIVE; returns name."""
    name = name or table_name()
    ks = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    ad = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    if range_key:
        ks.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
        ad.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
    kw.setdefault("BillingMode", "PAY_PER_REQUEST")
    c.create_table(TableName=name, KeySchema=ks, AttributeDefinitions=ad, **kw)
    wait_active(c, name)
    return name


def wait_active(c, name, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        st = c.describe_table(TableName=name)["Table"]["TableStatus"]
        if st == "ACTIVE":
            return
        if time.monotonic() > deadline:
            raise AssertionError("table %s not ACTIVE after %ss (%s)" % (name, timeout, st))
        time.sleep(0.1)


def signed_post(url, target, body, key="AKIDTEST", secret="secret", service="dynamodb",
                when=None, headers=None):
    """POSTs `body` (bytes, sent as is: malformed JSON too) to `url` with
    X-Amz-Target `target`, signed by botocore's SigV4 signer as an SDK signs it:
    for `service`, at `when` (a naive UTC datetime; now by default), `headers`
    added before signing. Returns (status, lower-cased headers, body bytes)."""
    import datetime
    import http.client
    from unittest import mock
    from urllib.parse import urlparse
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    h = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target}
    h.update(headers or {})
    req = AWSRequest(method="POST", url=url.rstrip("/") + "/", data=body, headers=h)
    now = when or datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with mock.patch("botocore.auth.get_current_datetime", return_value=now):
        SigV4Auth(Credentials(key, secret), service, REGION).add_auth(req)
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", "/", body=body, headers=dict(req.headers.items()))
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def error_of(exc):
    """(code, message) of a botocore ClientError."""
    err = exc.response.get("Error", {})
    return err.get("Code"), err.get("Message", "")


def assert_error(test, ctx, code, message=None, contains=None):
    """Asserts that the ClientError caught by `test.assertRaises(...) as ctx`
    carries the error `code` and `message` (exact) or every one of `contains`
    (a string or a list of them); returns the message."""
    c, m = error_of(ctx.exception)
    test.assertEqual(c, code, m)
    if message is not None:
        test.assertEqual(m, message)
    if contains is not None:
        for part in ([contains] if isinstance(contains, str) else contains):
            test.assertIn(part, m)
    return m


# ------------------------------------------------------------------ CLI mode

def _serve_main():
    """Print the endpoint URL, then keep the server up until SIGTERM/SIGINT or
    until the parent process goes away."""
    parent = os.getppid()
    url = start()
    sys.stdout.write(url + "\n")
    sys.stdout.flush()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    signal.signal(signal.SIGINT, lambda *a: done.set())
    while not done.wait(0.5):
        if os.getppid() != parent:
            break
        if _state["proc"] is not None and _state["proc"].poll() is not None:
            sys.stderr.write("harness: dynarock exited with %s\n" % _state["proc"].returncode)
            break
    stop()


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        _serve_main()
    elif len(sys.argv) >= 2 and sys.argv[1] == "free-port":
        print(free_port())
    else:
        sys.stderr.write("usage: harness.py serve | free-port\n")
        sys.exit(2)
