"""The web console's server side (tools/console/): its files, the routes its
views read, the explain header, and the guards around them, over HTTP.

* /_dynarock/console redirects to /_dynarock/console/, which serves the page;
  its scripts and the vendored graph library come with their content types,
  an ETag (304 when the browser has it), no-cache and a same-origin-only
  content-security policy; paths outside the console's folder are not found;
* /_dynarock/console/info, /_dynarock/namespaces and /_dynarock/metrics
  (cumulative counters and Prometheus-shaped latency buckets);
* X-Dynarock-Explain: a request that asks gets the request log's facts about
  it (items scanned and returned, why the page ended, capacity by index),
  percent-encoded; one that does not gets nothing extra;
* the graph routes run the graph layer on the caller's namespace: the seed
  tables' conventions detected (including seed 001's source/target keys,
  "-" separator and gsi0-index), a neighbourhood by hops, direction and
  type, edge-set membership, and ValidationException / ResourceNotFound;
* a page of another origin may not change anything through the control API;
* under --require-auth every route but the console's files takes a SigV4
  signature; --no-console turns the console off; --console-dir serves the
  files from a folder.

Runs its own servers, so not against DYNAROCK_E2E_ENDPOINT.
"""

import datetime
import http.client
import json
import os
import subprocess
import tempfile
import unittest
import urllib.parse

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import harness

KEY = "consolekey"


def get(url, path, headers=None, method="GET", body=None):
    """(status, lower-cased headers, body bytes) of one request."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def scope(key=KEY):
    """An Authorization header naming key's namespace (unsigned)."""
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    return {"Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s/%s/dynamodb/aws4_request, "
                             "SignedHeaders=host, Signature=00" % (key, day, harness.REGION)}


def signed_get(url, path, key, secret):
    """GET path signed with SigV4 as the console signs it."""
    req = AWSRequest(method="GET", url=url + path)
    SigV4Auth(Credentials(key, secret), "dynamodb", harness.REGION).add_auth(req)
    return get(url, path, headers=dict(req.headers.items()))


def api(url, operation, body, headers=None):
    h = {"Content-Type": "application/x-amz-json-1.0",
         "X-Amz-Target": "DynamoDB_20120810." + operation}
    h.update(scope())
    h.update(headers or {})
    return get(url, "/", headers=h, method="POST", body=json.dumps(body).encode())


def load_seed_graphs(url):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY="x",
               AWS_SESSION_TOKEN="", AWS_DEFAULT_REGION=harness.REGION)
    env.pop("AWS_SESSION_TOKEN")
    out = subprocess.run([harness._find_binary(), "graph", "demo", "--endpoint", url],
                         env=env, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError("graph demo failed: " + out.stderr)


class ConsoleRoutesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = harness.launch()
        load_seed_graphs(cls.url)

    @classmethod
    def tearDownClass(cls):
        harness.stop_process(cls.proc)

    def graph(self, route, **params):
        status, _, body = get(self.url, "/_dynarock/graph/%s?%s" % (route, urllib.parse.urlencode(params)),
                              headers=scope())
        return status, json.loads(body)

    def test_files(self):
        status, headers, _ = get(self.url, "/_dynarock/console")
        self.assertEqual(status, 308)
        self.assertEqual(headers["location"], "/_dynarock/console/")
        status, headers, page = get(self.url, "/_dynarock/console/")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/html"))
        self.assertIn(b'type="module"', page)
        self.assertIn("default-src 'self'", headers["content-security-policy"])
        self.assertEqual(headers["x-content-type-options"], "nosniff")
        self.assertEqual(headers["cache-control"], "no-cache")
        etag = headers["etag"]
        status, _, body = get(self.url, "/_dynarock/console/", headers={"If-None-Match": etag})
        self.assertEqual((status, body), (304, b""))
        status, headers, script = get(self.url, "/_dynarock/console/js/app.js")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/javascript"))
        self.assertIn(b"import", script)
        status, headers, lib = get(self.url, "/_dynarock/console/vendor/cytoscape.esm.mjs")
        self.assertEqual(status, 200)
        self.assertGreater(len(lib), 100000)
        status, _, licence = get(self.url, "/_dynarock/console/vendor/cytoscape.LICENSE.txt")
        self.assertEqual(status, 200)
        self.assertIn(b"Permission is hereby granted", licence)
        for path in ("/_dynarock/console/../console_routes.cc", "/_dynarock/console/js/../../vendor.txt",
                     "/_dynarock/console/nothing.js", "/_dynarock/console//etc/passwd"):
            status, _, body = get(self.url, path)
            self.assertEqual(status, 404, path)
            self.assertEqual(json.loads(body)["__type"], "ResourceNotFoundException")
        status, _, body = get(self.url, "/_dynarock/console/js/app.js", method="POST", body=b"{}")
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["__type"], "ValidationException")
        # The read-only routes refuse other methods, and change nothing.
        for path in ("/_dynarock/metrics", "/_dynarock/namespaces",
                     "/_dynarock/graph/schema?table=demo_records"):
            status, _, body = get(self.url, path, method="DELETE", headers=scope())
            self.assertEqual(status, 400, path)
            err = json.loads(body)
            self.assertEqual(err["__type"], "ValidationException", path)
            self.assertIn("(GET)", err["message"])
        self.assertEqual(self.graph("schema", table="demo_records")[0], 200)
        status, _, body = get(self.url, "/_dynarock/graph/nothing", headers=scope())
        self.assertEqual(status, 404)
        self.assertIn("schema, neighbourhood", json.loads(body)["message"])

    def test_info_and_namespaces(self):
        status, _, body = get(self.url, "/_dynarock/console/info")
        self.assertEqual(status, 200)
        info = json.loads(body)
        self.assertEqual((info["require_auth"], info["control_api"], info["region"]),
                         (False, True, "us-east-1"))
        status, _, body = get(self.url, "/_dynarock/namespaces")
        listed = json.loads(body)
        self.assertFalse(listed["shared_db"])
        self.assertEqual(listed["namespaces"][0], {"name": "shared"})
        self.assertIn({"name": KEY + "_us-east-1", "access_key": KEY, "region": "us-east-1"},
                      listed["namespaces"])

    def test_explain_header(self):
        name = "explained"
        status, _, body = api(self.url, "CreateTable", {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byG",
                                        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                        "Projection": {"ProjectionType": "ALL"}}]})
        self.assertEqual(status, 200, body)
        for i in range(10):
            status, headers, _ = api(self.url, "PutItem", {"TableName": name, "Item": {
                "pk": {"S": "p"}, "sk": {"N": str(i)}, "g": {"S": "g"}, "odd": {"BOOL": i % 2 == 1},
                "note": {"S": "é%"}}})
            self.assertEqual(status, 200)
            self.assertNotIn("x-dynarock-explain", headers)
        status, headers, body = api(self.url, "Query", {
            "TableName": name, "KeyConditionExpression": "pk = :p", "Limit": 6,
            "FilterExpression": "odd = :t",
            "ExpressionAttributeValues": {":p": {"S": "p"}, ":t": {"BOOL": True}}},
            headers={"X-Dynarock-Explain": "1"})
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["Count"], 3)
        self.assertNotIn("ConsumedCapacity", json.loads(body))  # only the header tells
        facts = json.loads(urllib.parse.unquote(headers["x-dynarock-explain"]))
        self.assertEqual((facts["operation"], facts["table"], facts["status"]), ("Query", name, 200))
        self.assertEqual((facts["items_scanned"], facts["items_returned"], facts["page_end"]),
                         (6, 3, "limit"))
        self.assertTrue(facts["filtered"])
        self.assertEqual(facts["consumed"][0]["table"], name)
        self.assertGreater(facts["consumed"][0]["read"], 0)
        self.assertIn("x-dynarock-explain", headers.get("access-control-expose-headers", "x-dynarock-explain").lower())
        # Index, non-ASCII and '%' in the facts survive the header.
        status, headers, _ = api(self.url, "PutItem", {"TableName": name, "Item": {
            "pk": {"S": "clé%"}, "sk": {"N": "1"}, "g": {"S": "g"}}}, headers={"X-Dynarock-Explain": "1"})
        facts = json.loads(urllib.parse.unquote(headers["x-dynarock-explain"]))
        self.assertEqual(facts["partition_key"], "clé%")
        self.assertEqual(facts["consumed"][0]["indexes"], {"byG": 1.0})
        status, headers, _ = api(self.url, "Query", {"TableName": "missing-table",
                                                     "KeyConditionExpression": "pk = :p",
                                                     "ExpressionAttributeValues": {":p": {"S": "p"}}},
                                 headers={"X-Dynarock-Explain": "1"})
        facts = json.loads(urllib.parse.unquote(headers["x-dynarock-explain"]))
        self.assertEqual((status, facts["error"]), (400, "ResourceNotFoundException"))

    def test_metrics(self):
        before = json.loads(get(self.url, "/_dynarock/metrics")[2])
        for _ in range(5):
            api(self.url, "ListTables", {})
        api(self.url, "DescribeTable", {"TableName": "no-such-table"})
        after = json.loads(get(self.url, "/_dynarock/metrics")[2])
        self.assertGreaterEqual(after["uptime_seconds"], before["uptime_seconds"])
        lt = after["operations"]["ListTables"]
        self.assertGreaterEqual(lt["requests"] - before["operations"].get("ListTables", {}).get("requests", 0), 5)
        counts = [b["count"] for b in lt["latency_buckets"]]
        self.assertEqual(counts, sorted(counts))
        self.assertEqual(lt["latency_buckets"][-1], {"le": "+Inf", "count": lt["requests"]})
        self.assertGreaterEqual(after["operations"]["DescribeTable"]["errors"], 1)
        self.assertEqual(after["requests"], sum(o["requests"] for o in after["operations"].values()))

    def test_graph_schema_detection(self):
        status, koan = self.graph("schema", table="demo_records")
        self.assertEqual(status, 200)
        self.assertTrue(koan["graph"])
        self.assertEqual(koan["schema"], {
            "pk": "source", "sk": "target", "separator": "-", "inverted_index": "gsi0-index",
            "rank_attribute": "gsi0", "edge_set_attribute": "edgeSet",
            "incoming_types_attribute": "inTypes", "edge_pages_attribute": "edgePages"})
        self.assertIn("GOAL-G1", koan["sample_nodes"])
        status, earth = self.graph("schema", table="demo_middle_earth")
        self.assertEqual(earth["schema"]["separator"], "#")
        self.assertEqual(earth["schema"]["edge_set_attribute"], "edges")
        api(self.url, "CreateTable", {
            "TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
        status, plain = self.graph("schema", table="plain")
        self.assertEqual(status, 200)
        self.assertFalse(plain["graph"])
        self.assertIn("sort key", plain["reason"])
        status, missing = self.graph("schema", table="nope")
        self.assertEqual((status, missing["__type"]), (400, "ResourceNotFoundException"))
        # Tables are per namespace: unsigned requests see the shared one's.
        status, _, body = get(self.url, "/_dynarock/graph/schema?table=demo_records")
        self.assertEqual(json.loads(body)["__type"], "ResourceNotFoundException")

    def test_graph_neighbourhood(self):
        status, g = self.graph("neighbourhood", table="demo_middle_earth", node="USER#Frodo",
                               hops=1, direction="out")
        self.assertEqual(status, 200, g)
        ids = {n["id"]: n for n in g["nodes"]}
        self.assertEqual(ids["USER#Frodo"]["depth"], 0)
        self.assertEqual(ids["USER#Frodo"]["attributes"]["username"], {"S": "ringBearer"})
        self.assertEqual(ids["USER#Gandalf"]["depth"], 1)
        self.assertEqual(set(g["edge_types"]), {"FRIEND", "VISITED"})
        self.assertTrue(all(e["source"] == "USER#Frodo" for e in g["edges"]))
        self.assertTrue(all(e["in_edge_set"] for e in g["edges"]))
        friends = self.graph("neighbourhood", table="demo_middle_earth", node="USER#Frodo",
                             hops=1, direction="out", types="FRIEND")[1]
        self.assertEqual({e["type"] for e in friends["edges"]}, {"FRIEND"})
        self.assertFalse(any(n["type"] == "PLACE" for n in friends["nodes"]))
        # Incoming edges through the inverted index: who visited the Shire.
        shire = self.graph("neighbourhood", table="demo_middle_earth", node="PLACE#TheShire",
                           hops=1, direction="in")[1]
        self.assertEqual({e["source"] for e in shire["edges"] if e["type"] == "VISITED"},
                         {"USER#Frodo", "USER#Samwise", "USER#Gandalf"})
        # Seed 001: subscribers are outside the goals' edge sets, members inside.
        goal = self.graph("neighbourhood", table="demo_records", node="GOAL-G1", hops=1, direction="both")[1]
        kinds = {(e["type"], e["in_edge_set"]) for e in goal["edges"]}
        self.assertIn(("GOALMEMBERSHIP", True), kinds)
        two = self.graph("neighbourhood", table="demo_middle_earth", node="USER#Frodo", hops=2)[1]
        self.assertGreaterEqual(len(two["nodes"]), len(ids))
        capped = self.graph("neighbourhood", table="demo_middle_earth", node="USER#Frodo", hops=2,
                            max_nodes=2)[1]
        self.assertEqual(len(capped["nodes"]), 2)
        self.assertTrue(capped["truncated"])
        for params, word in (({"node": "USER#Frodo", "hops": 9}, "hops"),
                             ({"node": "USER#Frodo", "direction": "up"}, "direction"),
                             ({"node": "USER#Frodo", "max_nodes": "x"}, "max_nodes"),
                             ({}, "node")):
            status, err = self.graph("neighbourhood", table="demo_middle_earth", **params)
            self.assertEqual((status, err["__type"]), (400, "ValidationException"), params)
            self.assertIn(word, err["message"])

    def test_cross_origin_changes_refused(self):
        api(self.url, "CreateTable", {
            "TableName": "kept", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
        status, _, body = get(self.url, "/_dynarock/reset", method="POST", body=b"{}",
                              headers={"Origin": "http://attacker.example", "Content-Type": "text/plain"})
        self.assertEqual(status, 403)
        self.assertEqual(json.loads(body)["__type"], "AccessDeniedException")
        names = json.loads(api(self.url, "ListTables", {})[2])["TableNames"]
        self.assertIn("kept", names)
        # The console's own page (same origin) may read.
        host = urllib.parse.urlparse(self.url).netloc
        status, headers, _ = get(self.url, "/_dynarock/metrics", headers={"Origin": "http://" + host})
        self.assertEqual(status, 200)
        self.assertNotIn("access-control-allow-origin", headers)


class ConsoleGuardsTest(unittest.TestCase):
    def test_require_auth(self):
        proc, url = harness.launch(extra_args=["--require-auth", "admin:s3cret"])
        try:
            status, _, _ = get(url, "/_dynarock/console/")
            self.assertEqual(status, 200)  # the page holds no data
            info = json.loads(get(url, "/_dynarock/console/info")[2])
            self.assertTrue(info["require_auth"])
            for path in ("/_dynarock/namespaces", "/_dynarock/metrics", "/_dynarock/reset"):
                status, _, body = get(url, path, method="POST" if path.endswith("reset") else "GET")
                self.assertEqual(status, 400, path)
                self.assertEqual(json.loads(body)["__type"], "MissingAuthenticationTokenException")
            status, _, body = signed_get(url, "/_dynarock/namespaces", "admin", "wrong")
            self.assertEqual(json.loads(body)["__type"], "InvalidSignatureException")
            status, _, body = signed_get(url, "/_dynarock/graph/schema?table=none&x=a%20b", "admin", "s3cret")
            self.assertEqual(json.loads(body)["__type"], "ResourceNotFoundException")
            status, _, body = signed_get(url, "/_dynarock/namespaces", "admin", "s3cret")
            self.assertEqual(status, 200, body)
        finally:
            harness.stop_process(proc)

    def test_no_console_and_console_dir(self):
        proc, url = harness.launch(extra_args=["--no-console"])
        try:
            self.assertEqual(get(url, "/_dynarock/console/")[0], 404)
            self.assertEqual(get(url, "/_dynarock/metrics")[0], 404)
            self.assertEqual(harness.control(url, "clock")[0], 200)  # the control API stays
        finally:
            harness.stop_process(proc)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "index.html"), "w") as f:
                f.write("<!doctype html><title>from disk</title>")
            with open(os.path.join(d, "vendor.txt"), "w") as f:
                f.write("vendor/lib.mjs <- node_modules/lib/dist/lib.mjs\n")
            os.makedirs(os.path.join(d, "node_modules", "lib", "dist"))
            with open(os.path.join(d, "node_modules", "lib", "dist", "lib.mjs"), "w") as f:
                f.write("export const x = 1;")
            proc, url = harness.launch(extra_args=["--console-dir", d])
            try:
                self.assertIn(b"from disk", get(url, "/_dynarock/console/")[2])
                self.assertEqual(get(url, "/_dynarock/console/vendor/lib.mjs")[2], b"export const x = 1;")
                self.assertEqual(get(url, "/_dynarock/console/node_modules/lib/dist/lib.mjs")[0], 404)
                with open(os.path.join(d, "index.html"), "w") as f:
                    f.write("<!doctype html><title>edited</title>")
                self.assertIn(b"edited", get(url, "/_dynarock/console/")[2])
            finally:
                harness.stop_process(proc)
            empty = os.path.join(d, "empty")
            os.mkdir(empty)
            out = subprocess.run([harness._find_binary(), "serve", "--in-memory", "--port", "0",
                                  "--console-dir", empty], capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 2)
            self.assertIn("holds no index.html", out.stderr)


if __name__ == "__main__":
    unittest.main()
