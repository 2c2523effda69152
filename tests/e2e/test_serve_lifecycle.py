"""`dynarock serve` as a process: what survives a clean shutdown and a restart
(items, indexes, tags, time to live), the expiry of items whose TTL has passed,
startup failures that must leave nothing behind, raw-HTTP error paths the SDKs
never produce (malformed JSON, an empty body, other media types, malformed
HTTP), and --require-auth with boto3's real SigV4 signatures.

Each test starts its own server (harness.launch) on a free loopback port.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

import harness


def client_for(url, key="test", secret="test"):
    return boto3.client("dynamodb", endpoint_url=url, region_name=harness.REGION,
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=Config(retries={"max_attempts": 1, "mode": "standard"}))


def raw_post(url, body, target="DynamoDB_20120810.ListTables",
             content_type="application/x-amz-json-1.0"):
    host, port = url.replace("http://", "").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"X-Amz-Target": target}
    if content_type:
        headers["Content-Type"] = content_type
    conn.request("POST", "/", body=body, headers=headers)
    r = conn.getresponse()
    data = r.read().decode()
    conn.close()
    return r.status, data


class RestartTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dynarock-e2e-")
        self.data = os.path.join(self.dir, "data")
        self.proc = None

    def tearDown(self):
        harness.stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, *extra):
        self.proc, url = harness.launch(self.data, extra)
        return client_for(url)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(timeout=20), 0)
        self.proc = None

    def test_metadata_and_items_survive_sigterm_and_restart(self):
        c = self.start()
        c.create_table(TableName="kept", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                             {"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexes=[{"IndexName": "by-g",
                                                "KeySchema": [{"AttributeName": "g",
                                                               "KeyType": "HASH"}],
                                                "Projection": {"ProjectionType": "ALL"}}],
                       Tags=[{"Key": "env", "Value": "dev"}])
        arn = c.describe_table(TableName="kept")["Table"]["TableArn"]
        c.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "x"}])
        c.update_time_to_live(TableName="kept", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        for i in range(300):
            c.put_item(TableName="kept", Item={"pk": {"S": "k%d" % i}, "g": {"S": "G%d" % (i % 3)},
                                               "expires": {"N": str(int(time.time()) + 3600)}})
        self.stop()

        c = self.start()
        self.assertEqual(sorted((t["Key"], t["Value"])
                                for t in c.list_tags_of_resource(ResourceArn=arn)["Tags"]),
                         [("env", "dev"), ("team", "x")])
        ttl = c.describe_time_to_live(TableName="kept")["TimeToLiveDescription"]
        self.assertEqual(ttl, {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"})
        d = c.describe_table(TableName="kept")["Table"]
        self.assertEqual(d["ItemCount"], 300)
        n = 0
        for page in c.get_paginator("query").paginate(
                TableName="kept", IndexName="by-g", KeyConditionExpression="g = :g",
                ExpressionAttributeValues={":g": {"S": "G1"}}):
            n += page["Count"]
        self.assertEqual(n, 100)
        self.stop()
        # The data directory checks clean.
        out = subprocess.run([harness._find_binary(), "check", "--data", self.data],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("OK", out.stdout)

    def test_acknowledged_writes_survive_sigkill_under_concurrent_load(self):
        # Group commit (the default): writes arriving together on many
        # connections are answered after one write of their log records. A
        # kill at any moment must keep every write that was answered: the
        # process dies mid-load, with writes held and unanswered. Scans of
        # ~600 KB on other connections hold the server's one thread between
        # a write and the flush of its round much of the time, so that a
        # write answered before its flush is lost to the kill (a build that
        # answered before flushing failed in 8 of 8 runs). The sixth of
        # seven cycles runs without group commit (each write's record
        # written on its own).
        c = self.start("--threads", "1")
        harness.create_table(c, "load")
        harness.create_table(c, "bulk")
        for b in range(0, 2400, 25):
            c.batch_write_item(RequestItems={"bulk": [
                {"PutRequest": {"Item": {"pk": {"S": "b%d" % k}, "pad": {"S": "y" * 400}}}}
                for k in range(b, b + 25)]})
        answered = []
        for cycle in range(7):
            url = c.meta.endpoint_url
            answered += self._writes_until_killed(url, "c%d" % cycle)
            c = self.start("--threads", "1", *(["--no-group-commit"] if cycle == 5 else []))
            found = set()
            for page in c.get_paginator("scan").paginate(TableName="load"):
                found.update(item["pk"]["S"] for item in page["Items"])
            lost = [k for k in answered if k not in found]
            self.assertEqual(lost, [], "cycle %d: %d of %d answered writes lost"
                             % (cycle, len(lost), len(answered)))
            self.assertEqual(c.describe_table(TableName="load")["Table"]["ItemCount"],
                             len(found))

    def _writes_until_killed(self, url, prefix):
        """PutItems on 8 connections (Scans of the bulk table on 6 more) until
        a SIGKILL; the keys of the PutItems answered 200."""
        acked = [[] for _ in range(8)]
        stop_at = time.monotonic() + 30

        def call(conn, op, payload):
            conn.request("POST", "/", body=json.dumps(payload), headers={
                "X-Amz-Target": "DynamoDB_20120810." + op,
                "Content-Type": "application/x-amz-json-1.0",
                # The client's namespace (its key and region); not verified.
                "Authorization": "AWS4-HMAC-SHA256 Credential=test/20260101/%s/"
                                 "dynamodb/aws4_request, SignedHeaders=host, "
                                 "Signature=0" % harness.REGION})
            r = conn.getresponse()
            r.read()
            return r.status

        def connect():
            # A connection of its own (http.client, kept alive): boto3's
            # clients would share a pool's connections.
            host, port = url.replace("http://", "").rsplit(":", 1)
            return http.client.HTTPConnection(host, int(port), timeout=10)

        def writer(slot):
            conn = connect()
            i = 0
            while time.monotonic() < stop_at:
                key = "%s-w%d-%d" % (prefix, slot, i)
                try:
                    status = call(conn, "PutItem", {"TableName": "load", "Item": {
                        "pk": {"S": key}, "n": {"N": str(i)}, "pad": {"S": "x" * 200}}})
                except (OSError, http.client.HTTPException):
                    return  # the server is gone
                if status == 200:
                    acked[slot].append(key)
                i += 1

        def reader():
            conn = connect()
            while time.monotonic() < stop_at:
                try:
                    call(conn, "Scan", {"TableName": "bulk"})
                except (OSError, http.client.HTTPException):
                    return

        threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
        threads += [threading.Thread(target=reader) for _ in range(6)]
        for t in threads:
            t.start()
        # Kill once each writer has had answers (and while they write on).
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and min(len(a) for a in acked) < 50:
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=20)
        self.proc = None
        for t in threads:
            t.join(timeout=30)
        answered = [k for a in acked for k in a]
        self.assertGreater(len(answered), 400)
        return answered

    def test_a_token_retried_after_a_restart_applies_once(self):
        c = self.start()
        c.create_table(TableName="stock", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        c.put_item(TableName="stock", Item={"pk": {"S": "p"}, "n": {"N": "4"}})
        order = dict(TransactItems=[{"Update": {
            "TableName": "stock", "Key": {"pk": {"S": "p"}}, "UpdateExpression": "SET n = n - :q",
            "ExpressionAttributeValues": {":q": {"N": "1"}}}}], ClientRequestToken="order-42")
        c.transact_write_items(**order)
        self.stop()
        c = self.start()
        c.transact_write_items(**order)  # the client's retry after the server came back
        self.assertEqual(c.get_item(TableName="stock", Key={"pk": {"S": "p"}})["Item"]["n"],
                         {"N": "3"})

    def test_expired_items_are_deleted_with_their_index_entries(self):
        c = self.start("--ttl-sweep-seconds", "1")
        c.create_table(TableName="ttl", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                             {"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexes=[{"IndexName": "by-g",
                                                "KeySchema": [{"AttributeName": "g",
                                                               "KeyType": "HASH"}],
                                                "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        now = int(time.time())
        items = {
            "expired": {"N": str(now - 60)},
            "future": {"N": str(now + 3600)},
            "ancient": {"N": str(now - 6 * 365 * 24 * 3600)},  # over five years: ignored
            "text": {"S": str(now - 60)},                      # not a number: ignored
        }
        for k, v in items.items():
            c.put_item(TableName="ttl", Item={"pk": {"S": k}, "g": {"S": "G"}, "exp": v})
        c.put_item(TableName="ttl", Item={"pk": {"S": "none"}, "g": {"S": "G"}})
        c.update_time_to_live(TableName="ttl", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        deadline = time.monotonic() + 20
        while "Item" in c.get_item(TableName="ttl", Key={"pk": {"S": "expired"}}):
            self.assertLess(time.monotonic(), deadline, "expired item never deleted")
            time.sleep(0.2)
        keys = sorted(x["pk"]["S"] for x in c.scan(TableName="ttl")["Items"])
        self.assertEqual(keys, ["ancient", "future", "none", "text"])
        r = c.query(TableName="ttl", IndexName="by-g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "G"}})
        self.assertEqual(sorted(x["pk"]["S"] for x in r["Items"]), keys)
        self.assertEqual(c.describe_table(TableName="ttl")["Table"]["ItemCount"], 4)

    def test_port_in_use_fails_without_creating_the_data_directory(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            port = s.getsockname()[1]
            out = subprocess.run([harness._find_binary(), "serve", "--port", str(port),
                                  "--data", self.data], capture_output=True, text=True,
                                 timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn("Address already in use", out.stderr)
        self.assertFalse(os.path.exists(self.data))

    def test_a_memory_budget_serves_and_a_bad_one_is_a_usage_error(self):
        c = self.start("--memory-budget", "8M")
        c.create_table(TableName="budget", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        for i in range(50):
            c.put_item(TableName="budget", Item={"pk": {"S": str(i)}, "v": {"S": "x" * 3000}})
        self.assertEqual(c.scan(TableName="budget", Select="COUNT")["Count"], 50)
        for bad in ("12X", "0", "512K", "M"):
            p = subprocess.run([harness._find_binary(), "serve", "--in-memory", "--port", "0",
                                "--memory-budget", bad], capture_output=True, text=True,
                               timeout=30)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--memory-budget must be a size from 1M to 1T", p.stderr)

    def test_no_group_commit_takes_no_value(self):
        p = subprocess.run([harness._find_binary(), "serve", "--data", self.data, "--port", "0",
                            "--no-group-commit=yes"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--no-group-commit takes no value", p.stderr)
        self.assertFalse(os.path.exists(self.data))  # refused before anything is made

    def test_a_directory_in_use_is_refused_clearly(self):
        self.start()
        out = subprocess.run([harness._find_binary(), "serve", "--port", "0",
                              "--data", self.data], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn("in use by another process", out.stderr)


class RawProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch()

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def test_malformed_json_is_a_serialization_exception(self):
        for body in ("{", "{\"TableName\":}", "nope", "[1,2]"):
            status, data = raw_post(self.url, body, "DynamoDB_20120810.DescribeTable")
            self.assertEqual(status, 400, body)
            self.assertIn("SerializationException", json.loads(data)["__type"], body)

    def test_empty_body_is_a_serialization_exception(self):
        status, data = raw_post(self.url, "")
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["__type"],
                         "com.amazon.coral.service#SerializationException")

    def test_unknown_operation(self):
        status, data = raw_post(self.url, "{}", "DynamoDB_20120810.Frobnicate")
        self.assertEqual(status, 400)
        self.assertIn("UnknownOperationException", json.loads(data)["__type"])

    def test_other_media_types_are_not_found(self):
        status, data = raw_post(self.url, "{}", content_type="text/plain")
        self.assertEqual(status, 404)
        self.assertIn("UnknownOperationException", data)
        for ct in ("application/x-amz-json-1.0", "application/x-amz-json-1.1",
                   "application/json", None):
            status, _ = raw_post(self.url, "{}", content_type=ct)
            self.assertEqual(status, 200, ct)

    def test_malformed_http_gets_a_400_and_the_server_stays_up(self):
        host, port = self.url.replace("http://", "").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
            data = s.recv(65536).decode(errors="replace")
        self.assertTrue(data.startswith("HTTP/1.1 400"), data)
        self.assertIn("x-amzn-RequestId", data)
        status, _ = raw_post(self.url, "{}")
        self.assertEqual(status, 200)


class RegionTest(unittest.TestCase):
    def test_arns_name_the_region_served(self):
        proc, url = harness.launch(None, ["--region", "eu-west-1"])
        try:
            c = client_for(url)
            c.create_table(TableName="regional", BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           Tags=[{"Key": "k", "Value": "v"}])
            arn = c.describe_table(TableName="regional")["Table"]["TableArn"]
            self.assertTrue(arn.startswith("arn:aws:dynamodb:eu-west-1:"), arn)
            self.assertEqual(c.list_tags_of_resource(ResourceArn=arn)["Tags"],
                             [{"Key": "k", "Value": "v"}])
            self.assertEqual(c.describe_table(TableName=arn)["Table"]["TableName"], "regional")
            # An ARN of another region or account names no table here, whatever the
            # operation; the tagging operations refuse it as DynamoDB does (another
            # region's ARN is invalid input, another account's resource is denied).
            for other, tag_error in ((arn.replace("eu-west-1", "us-east-1"), "ValidationException"),
                                     (arn.replace(arn.split(":")[4], "999999999999"),
                                      "AccessDeniedException")):
                with self.assertRaises(ClientError) as e:
                    c.list_tags_of_resource(ResourceArn=other)
                self.assertEqual(harness.error_of(e.exception)[0], tag_error)
                for call in (lambda: c.describe_table(TableName=other),
                             lambda: c.describe_time_to_live(TableName=other),
                             lambda: c.get_item(TableName=other, Key={"pk": {"S": "x"}})):
                    with self.assertRaises(ClientError) as e:
                        call()
                    self.assertEqual(harness.error_of(e.exception)[0], "ResourceNotFoundException")
        finally:
            harness.stop_process(proc)


class RequireAuthTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch(None, ["--require-auth", "AKIDGOOD:s3cr3t/key"])

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def code_of(self, fn):
        with self.assertRaises(ClientError) as e:
            fn()
        return harness.error_of(e.exception)

    def test_boto3_signatures_are_verified(self):
        good = client_for(self.url, "AKIDGOOD", "s3cr3t/key")
        self.assertIn("TableNames", good.list_tables())
        code, _ = self.code_of(lambda: client_for(self.url, "AKIDGOOD", "wrong").list_tables())
        self.assertEqual(code, "InvalidSignatureException")
        code, _ = self.code_of(lambda: client_for(self.url, "AKIDOTHER", "x").list_tables())
        self.assertEqual(code, "UnrecognizedClientException")
        status, data = raw_post(self.url, "{}")  # unsigned
        self.assertEqual(status, 400)
        self.assertIn("MissingAuthenticationTokenException", data)


    def signed(self, service="dynamodb", key="AKIDGOOD", secret="s3cr3t/key", when=None):
        """ListTables signed by botocore's SigV4 signer, for `service`, at `when`."""
        status, _, data = harness.signed_post(self.url, "DynamoDB_20120810.ListTables", b"{}",
                                              key, secret, service, when)
        doc = json.loads(data or b"{}")
        return status, doc.get("__type", "").split("#")[-1], doc.get("message", doc.get("Message"))

    def test_each_refusal_has_dynamodbs_type_message_and_status(self):
        import datetime
        self.assertEqual(self.signed()[0], 200)
        self.assertEqual(self.signed(service="s3"), (
            400, "InvalidSignatureException",
            "Credential should be scoped to correct service: 'dynamodb'. "))
        old = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - \
            datetime.timedelta(minutes=20)
        status, kind, message = self.signed(when=old)
        self.assertEqual((status, kind), (400, "InvalidSignatureException"))
        self.assertRegex(message, r"^Signature expired: \d{8}T\d{6}Z is now earlier than "
                                  r"\d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$")
        self.assertEqual(self.signed(secret="wrong"), (
            400, "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details."))
        self.assertEqual(self.signed(key="AKIDOTHER"), (
            400, "UnrecognizedClientException",
            "The security token included in the request is invalid."))
        status, data = raw_post(self.url, "{}")
        self.assertEqual(status, 400)
        doc = json.loads(data)
        self.assertEqual(doc["__type"].split("#")[-1], "MissingAuthenticationTokenException")
        self.assertEqual(doc.get("message", doc.get("Message")),
                         "Request is missing Authentication Token")


class RequireAuthFromFileOrEnvironmentTest(unittest.TestCase):
    """Credentials kept out of the process list: a file, or the environment."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dynarock_auth_")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            harness.stop_process(p)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def launch(self, args, env_value=None):
        saved = os.environ.get("DYNAROCK_REQUIRE_AUTH")
        if env_value is not None:
            os.environ["DYNAROCK_REQUIRE_AUTH"] = env_value
        try:
            proc, url = harness.launch(None, args)
        finally:
            if saved is None:
                os.environ.pop("DYNAROCK_REQUIRE_AUTH", None)
            else:
                os.environ["DYNAROCK_REQUIRE_AUTH"] = saved
        self.procs.append(proc)
        return url

    def check(self, url, good, other):
        self.assertIn("TableNames", client_for(url, *good).list_tables())
        with self.assertRaises(ClientError) as e:
            client_for(url, *other).list_tables()
        self.assertEqual(harness.error_of(e.exception)[0], "UnrecognizedClientException")

    def test_a_file_of_keys(self):
        path = os.path.join(self.tmp, "keys")
        with open(path, "w") as f:
            f.write("# who may call\n\nAKIDONE:first:secret\n  AKIDTWO:second\n")
        url = self.launch(["--require-auth-file", path])
        self.check(url, ("AKIDONE", "first:secret"), ("AKIDTHREE", "x"))
        self.check(url, ("AKIDTWO", "second"), ("AKIDTHREE", "x"))

    def test_the_environment(self):
        url = self.launch([], env_value="AKIDENV:envsecret,AKIDENV2:other")
        self.check(url, ("AKIDENV", "envsecret"), ("AKIDNONE", "x"))
        self.check(url, ("AKIDENV2", "other"), ("AKIDNONE", "x"))

    def test_a_bad_file_is_a_usage_error(self):
        path = os.path.join(self.tmp, "bad")
        with open(path, "w") as f:
            f.write("AKIDONE:ok\nnot a key\n")
        p = subprocess.run([harness._find_binary(), "serve", "--in-memory", "--port", "0",
                            "--require-auth-file", path], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("line 2: not KEY:SECRET", p.stderr)
        p = subprocess.run([harness._find_binary(), "serve", "--in-memory", "--port", "0",
                            "--require-auth-file", os.path.join(self.tmp, "missing")],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read --require-auth-file", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
