#!/usr/bin/env python3
"""Soak: mixed load on `dynarock serve` for a long while, with streams and TTL
active, reporting every minute what must stay flat.

    python3 tests/soak/soak.py --minutes 30 [--connections 16] [--out soak.tsv]
    scripts/soak.sh --minutes 30            # the same

The server runs on a data directory (the disk mode a device uses) with the TTL
sweeper every 2 s, stream records kept 5 minutes and shards rolled every 2
minutes, so trimming, shard succession and TTL deletion all happen many times
in a run. Load: wrk (bench/load/common.lua + tests/soak/soak.lua: puts with
expiry times, ADD/SET updates, gets, GSI queries, deletes) at --connections
connections, run as one wrk invocation a minute so that each minute has its own
throughput and p99. Beside it a reader follows the table's stream through
every shard (DescribeStream, GetShardIterator, GetRecords), as a Lambda
trigger would.

Each minute prints one row: requests/s, p50, p99, p99.9 (ms), errors, the
server's RSS (MB), the data directory's size (MB), the table's item count
(DescribeTable) and stream records read. At the end it compares the last third
of the run with the middle third: the run fails (exit 1) if RSS grew more than
--rss-growth (default 25 %) or throughput fell more than --rps-drop (default
30 %), if any request failed, or if the stream reader stopped.

Needs wrk, python3 with boto3 and the built binary (DYNAROCK_BIN or build/dynarock).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import harness  # noqa: E402


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def dir_mb(path):
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(base, name))
            except OSError:
                pass  # compacted away while walking
    return total / (1024.0 * 1024.0)


def create_table(c):
    c.create_table(
        TableName="soak", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    harness.wait_active(c, "soak")
    c.update_time_to_live(TableName="soak",
                          TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    return c.describe_table(TableName="soak")["Table"]["LatestStreamArn"]


class StreamReader(threading.Thread):
    """Follows every shard of the stream to its end, as a trigger would."""

    def __init__(self, url, arn):
        super().__init__(daemon=True)
        self.s = harness.streams_client(url)
        self.arn = arn
        self.records = 0
        self.error = None
        self.stop = threading.Event()
        self.iterators = {}  # shard id -> iterator (None: read to its end)

    def run(self):
        try:
            while not self.stop.is_set():
                shards = self.s.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
                for shard in shards:
                    sid = shard["ShardId"]
                    if sid not in self.iterators:
                        self.iterators[sid] = self.s.get_shard_iterator(
                            StreamArn=self.arn, ShardId=sid,
                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                for sid, it in list(self.iterators.items()):
                    while it is not None and not self.stop.is_set():
                        try:
                            r = self.s.get_records(ShardIterator=it, Limit=1000)
                        except self.s.exceptions.TrimmedDataAccessException:
                            # Trimmed under us (kept 5 minutes): start over at the horizon.
                            it = self.s.get_shard_iterator(
                                StreamArn=self.arn, ShardId=sid,
                                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                            continue
                        except self.s.exceptions.ResourceNotFoundException:
                            it = None  # the shard was trimmed away whole
                            break
                        self.records += len(r["Records"])
                        it = r.get("NextShardIterator")
                        if not r["Records"]:
                            break  # caught up with an open shard
                    self.iterators[sid] = it
                self.stop.wait(1)
        except Exception as e:  # noqa: BLE001 - reported in the summary
            self.error = repr(e)


def wrk_minute(url, script, connections, threads, seconds):
    out = subprocess.run(
        ["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "10s",
         "-s", script, url], capture_output=True, text=True, timeout=seconds + 120)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(kv.split("=", 1) for kv in line[len("RESULT "):].split())
    raise RuntimeError("no RESULT line from wrk: " + out.stdout + out.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=int, default=30)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--wrk-threads", type=int, default=2)
    ap.add_argument("--seconds-per-row", type=int, default=60)
    ap.add_argument("--rss-growth", type=float, default=0.25)
    ap.add_argument("--rps-drop", type=float, default=0.30)
    ap.add_argument("--out", help="also write the rows as TSV here")
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        print("soak: needs wrk (apt-get install wrk)", file=sys.stderr)
        return 2

    work = tempfile.mkdtemp(prefix="dynarock-soak-")
    data = os.path.join(work, "data")
    script = os.path.join(work, "soak.lua")
    with open(script, "w") as f:
        for part in (os.path.join(ROOT, "bench", "load", "common.lua"), os.path.join(HERE, "soak.lua")):
            with open(part) as p:
                f.write(p.read())
    proc, url = harness.launch(data_dir=data, extra_args=[
        "--ttl-sweep-seconds", "2", "--stream-retention-seconds", "300",
        "--stream-shard-seconds", "120", "--shared-db"])
    rows = []
    reader = None
    try:
        c = harness.client(url)
        reader = StreamReader(url, create_table(c))
        reader.start()
        header = "minute\trps\tp50_ms\tp99_ms\tp999_ms\terrors\trss_mb\tdata_mb\titems\tstream_records"
        print(header, flush=True)
        for minute in range(1, args.minutes + 1):
            r = wrk_minute(url, script, args.connections, args.wrk_threads, args.seconds_per_row)
            items = c.describe_table(TableName="soak")["Table"]["ItemCount"]
            row = {
                "minute": minute, "rps": float(r["rps"]), "p50_ms": float(r["p50_ms"]),
                "p99_ms": float(r["p99_ms"]), "p999_ms": float(r["p999_ms"]),
                "errors": int(r["non2xx"]) + int(r["errors"]), "rss_mb": rss_mb(proc.pid),
                "data_mb": dir_mb(data), "items": items, "stream_records": reader.records,
            }
            rows.append(row)
            print("%(minute)d\t%(rps).0f\t%(p50_ms).2f\t%(p99_ms).2f\t%(p999_ms).2f\t%(errors)d\t"
                  "%(rss_mb).1f\t%(data_mb).1f\t%(items)d\t%(stream_records)d" % row, flush=True)
            if proc.poll() is not None:
                print("soak: the server exited with %s" % proc.returncode, file=sys.stderr)
                return 1
    finally:
        if reader is not None:
            reader.stop.set()
        harness.stop_process(proc)
        if args.out and rows:
            with open(args.out, "w") as f:
                f.write("\t".join(rows[0].keys()) + "\n")
                for row in rows:
                    f.write("\t".join(str(v) for v in row.values()) + "\n")
        shutil.rmtree(work, ignore_errors=True)

    # Flat: the last third against the middle third (the first is warm-up:
    # caches and memtables filling, the first TTL expiries).
    failures = []
    third = max(1, len(rows) // 3)
    middle, last = rows[third:2 * third] or rows, rows[-third:]
    avg = lambda rs, k: sum(r[k] for r in rs) / len(rs)  # noqa: E731
    rss_growth = avg(last, "rss_mb") / avg(middle, "rss_mb") - 1
    rps_drop = 1 - avg(last, "rps") / avg(middle, "rps")
    errors = sum(r["errors"] for r in rows)
    print("summary: %d minutes, %.0f requests/s on average, p99 %.2f ms (worst minute %.2f), "
          "RSS %.1f -> %.1f MB (%+.1f%% last third vs middle), throughput %+.1f%%, %d errors, "
          "%d stream records read" % (
              len(rows), avg(rows, "rps"), avg(rows, "p99_ms"), max(r["p99_ms"] for r in rows),
              rows[0]["rss_mb"], rows[-1]["rss_mb"], 100 * rss_growth, -100 * rps_drop, errors,
              rows[-1]["stream_records"]))
    if rss_growth > args.rss_growth:
        failures.append("RSS grew %.0f%% (limit %.0f%%)" % (100 * rss_growth, 100 * args.rss_growth))
    if rps_drop > args.rps_drop:
        failures.append("throughput fell %.0f%% (limit %.0f%%)" % (100 * rps_drop, 100 * args.rps_drop))
    if errors:
        failures.append("%d requests failed" % errors)
    if reader.error:
        failures.append("the stream reader stopped: " + reader.error)
    elif len(rows) > 1 and rows[-1]["stream_records"] == rows[0]["stream_records"]:
        failures.append("the stream reader read nothing after the first minute")
    for f in failures:
        print("soak: FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
