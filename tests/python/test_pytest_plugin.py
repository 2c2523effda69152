"""The package's process-based test double (bindings/python: dynarock.testing
and the dynarock_server fixtures of dynarock.pytest_plugin).

1. Under pytest (each python here that has it): a generated test module using
   the fixtures must pass, with one server process for the whole session, the
   state, fault rules and clock reset between tests, snapshots restored, the
   clock advanced, and the process gone when pytest returns.
2. A missing binary gives a clear error naming DYNAROCK_BIN.
3. dynarock.testing directly (no pytest): start/stop, the control API, boto3
   against the server when boto3 is installed, and a failing start that shows
   the server's stderr.

Run: DYNAROCK_BIN=build/dynarock python3 tests/python/test_pytest_plugin.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PACKAGE = os.path.join(ROOT, "bindings", "python")
BINARY = os.path.abspath(os.environ.get("DYNAROCK_BIN") or os.path.join(ROOT, "build", "dynarock"))

sys.path.insert(0, PACKAGE)
from dynarock.testing import ControlError, DynarockServer, DynarockServerError  # noqa: E402

# The module pytest runs. Plain urllib for DynamoDB (the python with pytest may
# lack boto3); the boto3 fixtures are tested when it has it.
GENERATED = r'''
import json
import os
import urllib.error
import urllib.request

import pytest

PIDS = os.environ["DYNAROCK_TEST_PIDS"]


def ddb(url, op, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "X-Amz-Target": "DynamoDB_20120810." + op,
        "Content-Type": "application/x-amz-json-1.0"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"status": e.code, **json.loads(e.read())}


def create(url, name):
    ddb(url, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})


@pytest.fixture(autouse=True)
def record_pid(dynarock_server):
    with open(PIDS, "a") as f:
        f.write("%d\n" % dynarock_server.process.pid)


def test_a_leaves_state_behind(dynarock_server_reset):
    url = dynarock_server_reset.url
    assert url.startswith("http://127.0.0.1:")
    create(url, "leftover")
    ddb(url, "PutItem", {"TableName": "leftover", "Item": {"pk": {"S": "x"}}})
    dynarock_server_reset.advance_clock(3600)
    dynarock_server_reset.set_faults([{"operation": "GetItem", "error": "ThrottlingException"}])


def test_b_starts_clean(dynarock_server_reset):
    url = dynarock_server_reset.url
    assert ddb(url, "ListTables", {})["TableNames"] == []
    assert abs(dynarock_server_reset.clock()["offsetSeconds"]) < 1e-6
    assert dynarock_server_reset.faults()["rules"] == []


def test_c_snapshot_restore(dynarock_server_reset):
    s = dynarock_server_reset
    create(s.url, "orders")
    ddb(s.url, "PutItem", {"TableName": "orders", "Item": {"pk": {"S": "seed"}}})
    s.save_snapshot("seeded")
    assert "seeded" in [x["name"] for x in s.snapshots()]
    ddb(s.url, "PutItem", {"TableName": "orders", "Item": {"pk": {"S": "later"}}})
    ddb(s.url, "DeleteItem", {"TableName": "orders", "Key": {"pk": {"S": "seed"}}})
    s.restore_snapshot("seeded")
    items = ddb(s.url, "Scan", {"TableName": "orders"})["Items"]
    assert items == [{"pk": {"S": "seed"}}]
    s.delete_snapshot("seeded")
    with pytest.raises(Exception) as e:
        s.restore_snapshot("seeded")
    assert e.value.status == 404 and e.value.type == "ResourceNotFoundException"


def test_d_clock_advance(dynarock_server_reset):
    s = dynarock_server_reset
    before = s.clock()["now"]
    s.advance_clock(86400)
    after = s.clock()
    assert after["offsetSeconds"] == 86400
    assert after["now"] - before >= 86400


def test_e_faults(dynarock_server_reset):
    s = dynarock_server_reset
    create(s.url, "things")
    s.set_faults([{"operation": "PutItem", "first_n": 1,
                   "error": "ProvisionedThroughputExceededException"}], seed=7)
    first = ddb(s.url, "PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}}})
    assert first["status"] == 400
    assert first["__type"].endswith("ProvisionedThroughputExceededException")
    assert "status" not in ddb(s.url, "PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}}})
    got = s.faults()
    assert got["seed"] == 7 and got["rules"][0]["fired"] == 1
    s.clear_faults()
    assert s.faults()["rules"] == []


def test_f_boto3_client(dynarock_boto3_client, dynarock_boto3_resource):
    dynarock_boto3_client.create_table(
        TableName="bbb", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    dynarock_boto3_resource.Table("bbb").put_item(Item={"pk": "k", "n": 1})
    assert dynarock_boto3_client.get_item(TableName="bbb", Key={"pk": {"S": "k"}})["Item"]["n"] == {"N": "1"}


def test_g_boto3_sees_a_clean_server(dynarock_boto3_client):
    assert dynarock_boto3_client.list_tables()["TableNames"] == []
'''


def run(cmd, env, cwd, timeout=300):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def pythons_with(module):
    found = []
    for p in (sys.executable, "/usr/bin/python3"):
        if p not in found and os.path.exists(p) and subprocess.run(
                [p, "-c", "import " + module], capture_output=True).returncode == 0:
            found.append(p)
    return found


class PytestPluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(BINARY):
            raise unittest.SkipTest("no dynarock binary at %s (build first)" % BINARY)
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-pytest-")
        with open(os.path.join(cls.tmp, "test_generated.py"), "w") as f:
            f.write(GENERATED)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def env(self, **extra):
        env = dict(os.environ, PYTHONPATH=PACKAGE, DYNAROCK_BIN=BINARY,
                   PYTHONDONTWRITEBYTECODE="1")
        env.update(extra)
        env.pop("PYTEST_ADDOPTS", None)
        return env

    def pytest(self, python, env, *args):
        return run([python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "dynarock.pytest_plugin",
                    "-v", *args], env, self.tmp)

    def test_fixtures_under_pytest(self):
        pythons = pythons_with("pytest")
        if not pythons:
            self.skipTest("no python here has pytest (Debian: python3-pytest)")
        for p in pythons:
            with self.subTest(python=p):
                pids_file = os.path.join(self.tmp, "pids-%d" % pythons.index(p))
                r = self.pytest(p, self.env(DYNAROCK_TEST_PIDS=pids_file), "test_generated.py")
                out = r.stdout[-6000:] + r.stderr[-3000:]
                self.assertEqual(r.returncode, 0, p + ":\n" + out)
                for name in ("a_leaves_state_behind", "b_starts_clean", "c_snapshot_restore",
                             "d_clock_advance", "e_faults"):
                    self.assertRegex(r.stdout, r"test_%s PASSED" % name, out)
                has_boto3 = subprocess.run([p, "-c", "import boto3"],
                                           capture_output=True).returncode == 0
                self.assertRegex(r.stdout, r"test_f_boto3_client %s"
                                 % ("PASSED" if has_boto3 else "SKIPPED"), out)
                with open(pids_file) as f:
                    pids = {int(x) for x in f.read().split()}
                self.assertEqual(len(pids), 1, "one server for the session: %s" % pids)
                self.assertFalse(alive(pids.pop()), "the server outlived the session")

    def test_missing_binary_is_a_clear_error(self):
        pythons = pythons_with("pytest")
        if not pythons:
            self.skipTest("no python here has pytest")
        env = self.env(DYNAROCK_BIN=os.path.join(self.tmp, "no-such-dynarock"),
                       DYNAROCK_TEST_PIDS=os.path.join(self.tmp, "unused"))
        r = self.pytest(pythons[0], env, "test_generated.py", "-k", "b_starts_clean")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("DYNAROCK_BIN names", r.stdout + r.stderr)
        self.assertIn("not an executable file", r.stdout + r.stderr)

    def test_server_directly(self):
        with DynarockServer(binary=BINARY) as s:
            pid = s.process.pid
            self.assertTrue(s.url.startswith("http://127.0.0.1:"))
            self.assertEqual(s.url, "http://127.0.0.1:%d" % s.port)
            with urllib.request.urlopen(s.url + "/", timeout=10) as resp:
                self.assertIn("healthy", resp.read().decode())
            self.assertEqual(s.snapshots(), [])
            s.advance_clock(60)
            self.assertEqual(s.clock()["offsetSeconds"], 60)
            s.reset_all()
            self.assertEqual(s.clock()["offsetSeconds"], 0)
            with self.assertRaises(ControlError) as e:
                s.set_faults([{"action": "no-such-action"}])
            self.assertEqual(e.exception.status, 400)
            try:
                import boto3
            except ImportError:
                boto3 = None
            if boto3 is not None:
                c = boto3.client("dynamodb", endpoint_url=s.url, region_name="us-east-1",
                                 aws_access_key_id="k", aws_secret_access_key="s")
                c.create_table(TableName="ttt", BillingMode="PAY_PER_REQUEST",
                               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
                s.set_faults({"seed": 1, "rules": [{"operation": "ListTables"}]})
                with self.assertRaises(c.exceptions.ProvisionedThroughputExceededException):
                    boto3.client("dynamodb", endpoint_url=s.url, region_name="us-east-1",
                                 aws_access_key_id="k", aws_secret_access_key="s",
                                 config=__import__("botocore.config").config.Config(
                                     retries={"max_attempts": 1, "mode": "standard"})
                                 ).list_tables()
                s.clear_faults()
                self.assertEqual(c.list_tables()["TableNames"], ["ttt"])
                self.assertIn("k_us-east-1", s.reset())
                self.assertEqual(c.list_tables()["TableNames"], [])
        self.assertFalse(alive(pid))
        self.assertFalse(s.running)

    def test_failed_start_shows_stderr(self):
        with self.assertRaises(DynarockServerError) as e:
            DynarockServer(binary=BINARY, args=["--no-such-flag"]).start()
        self.assertIn("exited with status 2", str(e.exception))
        self.assertIn("--no-such-flag", str(e.exception))

    def test_missing_binary_directly(self):
        with self.assertRaises(DynarockServerError) as e:
            DynarockServer(binary=os.path.join(self.tmp, "nothing")).start()
        self.assertIn("not an executable file", str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
