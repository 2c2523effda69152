"""The endpoint's HTTP beyond plain JSON: request bodies compressed with gzip or
deflate (also under SigV4, which signs the bytes as sent), responses compressed
for clients that accept it (x-amz-crc32 over the bytes sent, as DynamoDB
computes it), a decompression bomb and corrupt data refused with nothing
changed, and CORS for pages on another origin (preflight and the headers on
every answer). Raw HTTP with http.client, curl --compressed, and boto3.
"""

import gzip
import http.client
import json
import os
import shutil
import subprocess
import unittest
import zlib
from urllib.parse import urlparse

import harness

J = "application/x-amz-json-1.0"
# The credential scope of the harness's clients: the server keeps each access
# key's tables apart (as DynamoDB Local does), so raw requests name the same
# key as boto3's (the signature itself is not checked without --require-auth).
AUTH = ("AWS4-HMAC-SHA256 Credential=test/20240101/%s/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0" % harness.REGION)


def post(url, body, target="DynamoDB_20120810.ListTables", headers=None, method="POST"):
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    h = {"Content-Type": J, "X-Amz-Target": target, "Authorization": AUTH}
    h.update(headers or {})
    conn.request(method, "/", body=body, headers=h)
    r = conn.getresponse()
    data = r.read()
    result = (r.status, {k.lower(): v for k, v in r.getheaders()}, data)
    conn.close()
    return result


def create_body(name):
    return json.dumps({
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}).encode()


def setUpModule():
    harness.start()


def tearDownModule():
    harness.stop()


class CompressedRequestsTest(unittest.TestCase):
    def tables(self):
        return set(harness.client().list_tables()["TableNames"])

    def test_gzip_and_both_deflate_forms_are_inflated(self):
        url = harness.endpoint()
        raw_deflate = zlib.compressobj(wbits=-15)
        forms = {
            "gzip": gzip.compress,
            "deflate": zlib.compress,  # zlib-wrapped, as the standard says
            "raw": lambda b: raw_deflate.compress(b) + raw_deflate.flush(),
        }
        for form, pack in forms.items():
            name = harness.table_name("enc")
            coding = "gzip" if form == "gzip" else "deflate"
            status, _, data = post(url, pack(create_body(name)), "DynamoDB_20120810.CreateTable",
                                   {"Content-Encoding": coding})
            self.assertEqual(status, 200, (form, data))
            self.assertEqual(json.loads(data)["TableDescription"]["TableName"], name)
            self.assertIn(name, self.tables())

    def test_corrupt_unknown_and_oversized_bodies_change_nothing(self):
        url = harness.endpoint()
        before = self.tables()
        name = harness.table_name("bad")
        packed = gzip.compress(create_body(name))
        status, _, data = post(url, packed[:-9], "DynamoDB_20120810.CreateTable",
                               {"Content-Encoding": "gzip"})
        self.assertEqual(status, 400)
        self.assertTrue(json.loads(data)["__type"].endswith("#SerializationException"), data)
        status, _, data = post(url, create_body(name), "DynamoDB_20120810.CreateTable",
                               {"Content-Encoding": "br"})
        self.assertEqual(status, 400)
        self.assertIn("Unsupported Content-Encoding: br", data.decode())
        # 17 MB of zeros, 17 KB compressed: refused once past 16 MB inflated.
        bomb = gzip.compress(b"0" * (17 << 20))
        self.assertLess(len(bomb), 1 << 20)
        status, _, data = post(url, bomb, "DynamoDB_20120810.PutItem",
                               {"Content-Encoding": "gzip"})
        self.assertEqual(status, 413, data)
        self.assertTrue(json.loads(data)["__type"].endswith("#ValidationException"), data)
        self.assertEqual(self.tables(), before)
        # The server is still up and answering.
        status, _, _ = post(url, b"{}")
        self.assertEqual(status, 200)


class CompressedResponsesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.name = harness.table_name("big")
        c = harness.client()
        c.create_table(TableName=cls.name, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        for i in range(40):
            c.put_item(TableName=cls.name, Item={"pk": {"S": "k%02d" % i},
                                                 "v": {"S": "value %d " % i * 8}})

    def scan(self, accept):
        return post(harness.endpoint(), json.dumps({"TableName": self.name}).encode(),
                    "DynamoDB_20120810.Scan", {"Accept-Encoding": accept})

    def test_gzip_and_deflate_when_accepted_with_the_crc_of_the_bytes_sent(self):
        for accept, coding, unpack in [("gzip", "gzip", gzip.decompress),
                                       ("deflate", "deflate", zlib.decompress),
                                       ("gzip;q=0, deflate", "deflate", zlib.decompress),
                                       ("br, *", "gzip", gzip.decompress)]:
            status, headers, data = self.scan(accept)
            self.assertEqual(status, 200)
            self.assertEqual(headers.get("content-encoding"), coding, accept)
            self.assertEqual(int(headers["x-amz-crc32"]), zlib.crc32(data))
            self.assertEqual(int(headers["content-length"]), len(data))
            self.assertEqual(json.loads(unpack(data))["Count"], 40)

    def test_identity_and_small_answers_stay_plain(self):
        for accept in ["identity", "gzip;q=0", ""]:
            status, headers, data = self.scan(accept)
            self.assertEqual(status, 200)
            self.assertNotIn("content-encoding", headers)
            self.assertEqual(json.loads(data)["Count"], 40)
        status, headers, data = post(harness.endpoint(), b"{}", headers={"Accept-Encoding": "gzip"})
        self.assertNotIn("content-encoding", headers)  # a small ListTables answer
        self.assertIn("TableNames", json.loads(data))

    @unittest.skipUnless(shutil.which("curl"), "needs curl")
    def test_curl_compressed(self):
        p = subprocess.run(
            ["curl", "-s", "--compressed", "-H", "Authorization: " + AUTH,
             "-H", "Content-Type: " + J, "-H",
             "X-Amz-Target: DynamoDB_20120810.Scan", "-d", json.dumps({"TableName": self.name}),
             "-D", "-", harness.endpoint() + "/"], capture_output=True, timeout=30)
        head, _, body = p.stdout.partition(b"\r\n\r\n")
        self.assertIn(b"content-encoding: gzip", head.lower())
        self.assertEqual(json.loads(body)["Count"], 40)

    def test_botocore_request_compression(self):
        """botocore's own request compressor (botocore/compress.py) gzips a
        request body when the operation carries the requestcompression trait;
        DynamoDB's model has none yet, so give PutItem and Query the trait the
        way such a model would, and let botocore compress and sign."""
        import boto3
        import botocore.config
        c = boto3.client(
            "dynamodb", endpoint_url=harness.endpoint(), region_name="us-east-1",
            config=botocore.config.Config(request_min_compression_size_bytes=1,
                                          retries={"max_attempts": 0}))
        ops = c.meta.service_model._service_description["operations"]
        for op in ("PutItem", "Query"):
            ops[op]["requestcompression"] = {"encodings": ["gzip"]}
        sent = []

        def before_send(request, **_):
            encoding = request.headers.get("Content-Encoding")
            if isinstance(encoding, bytes):
                encoding = encoding.decode()
            sent.append((encoding, bytes(request.body[:2])))
        c.meta.events.register("before-send.dynamodb.*", before_send)
        big = "z" * 5000
        c.put_item(TableName=self.name, Item={"pk": {"S": "botocore-gzip"}, "v": {"S": big}})
        r = c.query(TableName=self.name, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "botocore-gzip"}})
        self.assertEqual(r["Items"][0]["v"]["S"], big)
        self.assertEqual(sent, [("gzip", b"\x1f\x8b")] * 2)  # gzip's magic bytes
        c.delete_item(TableName=self.name, Key={"pk": {"S": "botocore-gzip"}})

    def test_boto3_is_unaffected(self):
        items = harness.client().scan(TableName=self.name)["Items"]
        self.assertEqual(len(items), 40)


class CorsTest(unittest.TestCase):
    def test_preflight_allows_the_sdk_headers(self):
        asked = "authorization,content-type,x-amz-date,x-amz-target,amz-sdk-invocation-id"
        status, headers, data = post(harness.endpoint(), None, headers={
            "Origin": "http://app.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": asked}, method="OPTIONS")
        self.assertEqual(status, 200)
        self.assertEqual(data, b"")
        self.assertEqual(headers["access-control-allow-origin"], "*")
        self.assertIn("POST", headers["access-control-allow-methods"])
        self.assertEqual(headers["access-control-allow-headers"], asked)

    def test_answers_to_another_origin_expose_the_aws_headers(self):
        status, headers, _ = post(harness.endpoint(), b"{}", headers={"Origin": "http://app.example"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["access-control-allow-origin"], "*")
        exposed = headers["access-control-expose-headers"].lower()
        for h in ("x-amzn-requestid", "x-amz-crc32", "x-amzn-errortype"):
            self.assertIn(h, exposed)
        # An error answer too; and none without an Origin.
        status, headers, _ = post(harness.endpoint(), b"{", headers={"Origin": "http://a.example"})
        self.assertEqual(status, 400)
        self.assertEqual(headers["access-control-allow-origin"], "*")
        _, headers, _ = post(harness.endpoint(), b"{}")
        self.assertNotIn("access-control-allow-origin", headers)


class SignedCompressedRequestTest(unittest.TestCase):
    """Under --require-auth the signature covers the compressed bytes as sent."""

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch(None, ["--require-auth", "AKIDGOOD:s3cr3t"])

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def signed(self, body, key="AKIDGOOD", secret="s3cr3t"):
        return harness.signed_post(self.url, "DynamoDB_20120810.CreateTable", body, key, secret,
                                   headers={"Content-Encoding": "gzip"})

    def test_a_signed_gzip_body_is_accepted_and_a_wrong_key_refused(self):
        name = harness.table_name("sig")
        status, _, data = self.signed(gzip.compress(create_body(name)))
        self.assertEqual(status, 200, data)
        status, _, data = self.signed(gzip.compress(create_body(name + "x")), secret="wrong")
        self.assertEqual(status, 400)
        self.assertIn("InvalidSignatureException", data.decode())


if __name__ == "__main__":
    unittest.main()
