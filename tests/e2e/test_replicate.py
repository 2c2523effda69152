"""`dynarock replicate` end to end: a table written through one `dynarock serve`
(with its stream on) is shipped to another `dynarock serve` by `dynarock
replicate`, which is killed with SIGKILL several times mid-stream and started
again; in the end both tables hold exactly the same items, and the remote
received every item's last state (the order of each item's changes kept).
Also: `dynarock streams tail` prints the records as JSON lines, and a table
without a stream is refused with a clear message.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import harness

KILLS = 5


def scan_all(client, table):
    items, kwargs = [], {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["N"]))
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class ReplicateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not harness._find_binary():
            raise unittest.SkipTest("needs the dynarock binary (DYNAROCK_BIN): it runs its own servers")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dynarock_replicate_")
        self.local_dir = os.path.join(self.tmp, "local")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            harness.stop_process(p)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def serve(self, data_dir=None):
        proc, url = harness.launch(data_dir=data_dir)
        self.procs.append(proc)
        return proc, url

    def write_local(self, view="NEW_AND_OLD_IMAGES", table="notes"):
        proc, url = self.serve(self.local_dir)
        c = harness.client(url)
        spec = {"StreamEnabled": True, "StreamViewType": view} if view else {"StreamEnabled": False}
        c.create_table(
            TableName=table, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "N"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            StreamSpecification=spec)
        rng = random.Random(7)
        # Many changes to few items: the last state of each depends on order.
        for i in range(1500):
            pk, sk = "p%d" % rng.randrange(40), str(rng.randrange(5))
            if rng.random() < 0.15:
                c.delete_item(TableName=table, Key={"pk": {"S": pk}, "sk": {"N": sk}})
            else:
                c.put_item(TableName=table, Item={"pk": {"S": pk}, "sk": {"N": sk},
                                                  "step": {"N": str(i)},
                                                  "body": {"S": "x" * rng.randrange(200)}})
        batch = [{"PutRequest": {"Item": {"pk": {"S": "batch"}, "sk": {"N": str(j)}}}}
                 for j in range(25)]
        c.batch_write_item(RequestItems={table: batch})
        expected = scan_all(c, table)
        harness.stop_process(proc)
        return expected

    def replicate(self, to, extra=(), table="notes"):
        return subprocess.Popen(
            [harness._find_binary(), "replicate", "--data", self.local_dir, "--table", table,
             "--to", to] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)

    def test_killed_replication_ends_identical(self):
        expected = self.write_local()
        self.assertGreater(len(expected), 30)
        _, remote_url = self.serve()  # in memory
        remote = harness.client(remote_url)
        rng = random.Random(11)
        kills = 0
        for _ in range(KILLS):
            p = self.replicate(remote_url)
            time.sleep(rng.uniform(0.05, 0.4))
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                kills += 1
            p.wait(timeout=10)
        final = self.replicate(remote_url, ["--once"])
        out, err = final.communicate(timeout=120)
        self.assertEqual(final.returncode, 0, err)
        self.assertIn("shipped", err)
        self.assertGreater(kills, 0, "every run finished before it could be killed")
        self.assertEqual(scan_all(remote, "notes"), expected)

        # Nothing new: a further run ships nothing and changes nothing.
        again = self.replicate(remote_url, ["--once"])
        _, err = again.communicate(timeout=60)
        self.assertEqual(again.returncode, 0, err)
        self.assertIn(" 0 shipped", err)
        self.assertEqual(scan_all(remote, "notes"), expected)

    def test_serve_replicates_across_kill9(self):
        # serve A --replicate notes=B: A is killed with SIGKILL several times
        # while a client writes to it, and restarted; B ends identical to A.
        _, remote_url = self.serve()
        remote = harness.client(remote_url)
        args = ["--replicate", "notes=" + remote_url]
        proc, url = harness.launch(data_dir=self.local_dir, extra_args=args)
        self.procs.append(proc)
        c = harness.client(url)
        c.create_table(  # after the server started: its replicator waits for it
            TableName="notes", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "N"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        rng = random.Random(5)
        step = 0
        for _ in range(KILLS):
            for _ in range(300):
                pk, sk = "p%d" % rng.randrange(30), str(rng.randrange(3))
                step += 1
                if rng.random() < 0.2:
                    c.delete_item(TableName="notes", Key={"pk": {"S": pk}, "sk": {"N": sk}})
                else:
                    c.put_item(TableName="notes", Item={"pk": {"S": pk}, "sk": {"N": sk},
                                                        "step": {"N": str(step)}})
            os.killpg(proc.pid, signal.SIGKILL)  # mid-stream: shipping lags the writes
            proc.wait(timeout=10)
            proc, url = harness.launch(data_dir=self.local_dir, extra_args=args)
            self.procs.append(proc)
            c = harness.client(url)
        expected = scan_all(c, "notes")
        deadline = time.monotonic() + 60
        while scan_all(remote, "notes") != expected and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(scan_all(remote, "notes"), expected)
        self.assertGreater(len(expected), 20)

    def test_streams_tail_prints_records_as_json_lines(self):
        self.write_local(view="NEW_IMAGE")
        p = subprocess.run([harness._find_binary(), "streams", "tail", "notes", "--data",
                            self.local_dir], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        self.assertGreater(len(lines), 1000)
        first = lines[0]
        self.assertEqual(first["eventName"], "INSERT")
        self.assertEqual(first["eventSource"], "aws:dynamodb")
        self.assertIn("NewImage", first["dynamodb"])
        self.assertNotIn("OldImage", first["dynamodb"])
        seqs = [int(l["dynamodb"]["SequenceNumber"]) for l in lines]
        self.assertEqual(seqs, sorted(seqs))
        self.assertEqual(len(set(seqs)), len(seqs))

    def test_table_without_a_stream_is_refused(self):
        self.write_local(view=None)
        _, remote_url = self.serve()
        p = self.replicate(remote_url, ["--once"])
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("has no stream enabled", err)


if __name__ == "__main__":
    unittest.main()
