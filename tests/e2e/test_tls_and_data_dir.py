"""`dynarock serve --tls-cert FILE --tls-key FILE` (HTTPS) with boto3 and the
AWS CLI against a self-signed certificate made here with the `openssl`
command line, and the data directory's protection: created owner-only
(0700), and a second process on the same directory refused with a message
that names it and says another process has it open.

* the listening line says https://; boto3 with verify=cert.pem and the AWS
  CLI with --ca-bundle cert.pem create, write and read a table; without
  trusting the certificate both refuse it;
* plain HTTP to the TLS port, and a client that never starts the handshake,
  get a closed connection (the latter at the header timeout), and the
  server keeps serving;
* an unusable certificate or key, or one without the other, fails at start,
  before any data directory is created;
* new data directories (the data directory, -dbPath's nested one, each
  access key's namespace) are 0700; an existing one keeps its mode.

Runs its own servers, so not against DYNAROCK_E2E_ENDPOINT.
"""

import http.client
import os
import shutil
import socket
import ssl
import stat
import subprocess
import tempfile
import time
import unittest

import boto3
from botocore.config import Config
from botocore.exceptions import SSLError

import harness


def make_certificate(directory, name="server"):
    """A self-signed EC certificate for localhost and 127.0.0.1: (cert, key)."""
    cert = os.path.join(directory, name + "-cert.pem")
    key = os.path.join(directory, name + "-key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30)
    return cert, key


def tls_client(url, verify):
    return boto3.client("dynamodb", endpoint_url=url, region_name=harness.REGION,
                        aws_access_key_id="test", aws_secret_access_key="test", verify=verify,
                        config=Config(retries={"max_attempts": 1, "mode": "standard"},
                                      connect_timeout=5, read_timeout=30))


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="dynarock-tls-")
        cls.cert, cls.key = make_certificate(cls.dir)
        cls.data = os.path.join(cls.dir, "data")
        cls.proc, cls.url = harness.launch(cls.data, [
            "--tls-cert", cls.cert, "--tls-key", cls.key, "--header-timeout-seconds", "2"])

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_the_listening_line_says_https(self):
        self.assertTrue(self.url.startswith("https://127.0.0.1:"), self.url)

    def test_boto3_trusting_the_certificate(self):
        c = tls_client(self.url, self.cert)
        name = harness.create_table(c, "tls-boto3", range_key=("sk", "N"))
        for i in range(20):
            c.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": str(i)},
                                             "v": {"S": "x" * 2000}})  # compressed replies too
        got = c.get_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"N": "7"}})
        self.assertEqual(got["Item"]["sk"]["N"], "7")
        q = c.query(TableName=name, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "p"}})
        self.assertEqual(q["Count"], 20)

    def test_boto3_not_trusting_the_certificate_refuses_it(self):
        with self.assertRaises(SSLError):
            tls_client(self.url, True).list_tables()

    @unittest.skipUnless(shutil.which("aws"), "the AWS CLI is not installed")
    def test_aws_cli_with_ca_bundle(self):
        env = harness.set_dummy_credentials(dict(os.environ))
        env["AWS_MAX_ATTEMPTS"] = "1"  # a refused certificate is not retried for half a minute

        def aws(*args, bundle=True):
            cmd = ["aws", "dynamodb", *args, "--endpoint-url", self.url, "--output", "json"]
            if bundle:
                cmd += ["--ca-bundle", self.cert]
            return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)

        r = aws("create-table", "--table-name", "tls-cli", "--billing-mode", "PAY_PER_REQUEST",
                "--key-schema", "AttributeName=pk,KeyType=HASH",
                "--attribute-definitions", "AttributeName=pk,AttributeType=S")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = aws("put-item", "--table-name", "tls-cli", "--item", '{"pk": {"S": "over-tls"}}')
        self.assertEqual(r.returncode, 0, r.stderr)
        r = aws("get-item", "--table-name", "tls-cli", "--key", '{"pk": {"S": "over-tls"}}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("over-tls", r.stdout)
        r = aws("list-tables", bundle=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("SSL", r.stderr)

    def test_plain_http_to_the_tls_port_gets_a_closed_connection(self):
        host, port = self.url[len("https://"):].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        with self.assertRaises((http.client.HTTPException, ConnectionError)):
            conn.request("GET", "/")
            conn.getresponse()
        conn.close()
        self.assertEqual(tls_client(self.url, self.cert).list_tables()["ResponseMetadata"]
                         ["HTTPStatusCode"], 200)

    def test_a_client_that_never_starts_the_handshake_is_cut(self):
        host, port = self.url[len("https://"):].rsplit(":", 1)
        start = time.monotonic()
        with socket.create_connection((host, int(port)), timeout=10) as s:
            self.assertEqual(s.recv(1), b"")  # EOF: closed by the server
        took = time.monotonic() - start
        self.assertGreaterEqual(took, 1.5)
        self.assertLess(took, 5)

    def test_tls_1_2_or_later(self):
        host, port = self.url[len("https://"):].rsplit(":", 1)
        ctx = ssl.create_default_context(cafile=self.cert)
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                self.assertIn(s.version(), ("TLSv1.2", "TLSv1.3"))
                s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 200"))


class StartupTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dynarock-tls-")
        self.data = os.path.join(self.dir, "data")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def serve(self, *args):
        return subprocess.run([harness._find_binary(), "serve", "--port", "0", "--data", self.data,
                               *args], capture_output=True, text=True, timeout=30)

    def test_unusable_certificates_fail_before_creating_anything(self):
        cert, key = make_certificate(self.dir)
        _, other_key = make_certificate(self.dir, "other")
        r = self.serve("--tls-cert", cert, "--tls-key", other_key)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, "does not match the certificate|key values mismatch")
        r = self.serve("--tls-cert", os.path.join(self.dir, "missing.pem"), "--tls-key", key)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot use the TLS certificate", r.stderr)
        r = self.serve("--tls-cert", key, "--tls-key", key)  # a key is no certificate
        self.assertEqual(r.returncode, 1)
        r = self.serve("--tls-cert", cert)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--tls-cert and --tls-key go together", r.stderr)
        self.assertFalse(os.path.exists(self.data))

    def test_new_data_directories_are_owner_only(self):
        nested = os.path.join(self.dir, "a", "b", "data")
        kept = os.path.join(self.dir, "kept")
        os.mkdir(kept, 0o755)
        os.chmod(kept, 0o755)
        for d in (self.data, nested, kept):
            proc, url = harness.launch(d)
            try:
                # A signed request: its access key's namespace is created too.
                harness.client(url).list_tables()
            finally:
                harness.stop_process(proc)
        self.assertEqual(mode_of(self.data), 0o700)
        self.assertEqual(mode_of(nested), 0o700)
        self.assertEqual(mode_of(kept), 0o755)
        spaces = os.path.join(self.data, "namespaces")
        for name in os.listdir(spaces):
            self.assertEqual(mode_of(os.path.join(spaces, name)), 0o700, name)

    def test_a_second_process_on_the_directory_is_refused_clearly(self):
        proc, _ = harness.launch(self.data)
        try:
            r = self.serve()
        finally:
            harness.stop_process(proc)
        self.assertEqual(r.returncode, 1)
        self.assertIn("The data directory %s is in use by another process, which has it open"
                      % self.data, r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
