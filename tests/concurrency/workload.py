"""The workload of the history checker (tests/concurrency/checker.py): client
processes doing conditional writes, updates, deletes and transactions on a
few hot keys of `dynarock serve`, each recording every invocation and
completion; and the embedded run (history_driver.cc, threads on DB::Open).

    workload.py run --seconds 20 --out DIR [--processes 4] [--threads 2]
                    [--faults] [--data DIR] [--driver BIN --driver-seconds 5]
                    [--check]

`run` starts `$DYNAROCK_BIN serve` on a free loopback port (harness.launch),
creates table "history" (pk S) and the accounts, starts the processes
(`workload.py worker`, each a boto3 client with its own connection pool used
by its threads; botocore's retries off, total_max_attempts 1, read timeout
1 s) for --seconds, then reads the final state and writes one history:
DIR/server/*.jsonl. With --driver it also runs the C++ driver, whose history
(another database: checked on its own) is DIR/embedded/history.jsonl. With
--check it checks both and exits 1 on an anomaly.

    workload.py long --seconds 600 [--round-seconds 60] [--embedded-seconds 60]
                     [--driver BIN] [--in-memory] [--keep DIR] [--faults]

`long` (scripts/history-check.sh) keeps one server up (on disk unless
--in-memory) and runs rounds of --round-seconds, each on a new table, for
--seconds; then rounds of the embedded driver, each on a new database, for
--embedded-seconds. Each round's history is checked as soon as it ends and
then deleted (a failing one is kept), so memory and disk stay bounded however
long the run; the last line sums the operations checked and the anomalies.

The keys. Time is cut into epochs of --epoch-seconds; epoch e has registers
reg#e#0.. (single-item operations and two-key transactions) and a bank of
accounts acct#e#0.. (transfers and snapshot reads), created with balance 100
and an empty log. Operations use the keys of the current epoch, so that each
key's history stays short enough for the linearizability search and the
accounts' logs stay small, however long the run.

The operations (f, the args recorded; value on success):

  get       {key}                 GetItem ConsistentRead           {item}
  put_new   {key, val}            PutItem attribute_not_exists(pk) {}
  put_ver   {key, ver, val}       PutItem ver = :ver, ALL_OLD      {old}
  upd_add   {key, d, val}         UpdateItem SET val ADD cnt, ver; ALL_NEW {new}
  upd_cas   {key, ver, val}       UpdateItem SET val ADD ver if ver = :ver;
                                  UPDATED_NEW                      {upd: {ver, val}}
  del       {key, ver|null}       DeleteItem (ver = :ver), ALL_OLD {old}
  txn_add   {keys, d, val}        TransactWriteItems: upd_add on two registers,
                                  each attribute_exists(pk)        {}
  transfer  {keys, from, to, check, amt, id}
                                  TransactWriteItems: from: SET bal = bal - amt,
                                  log = list_append(log, [id]) if bal >= amt;
                                  to: bal + amt, log + [id]; a ConditionCheck on
                                  a third account sometimes        {}
  read_all  {keys[, final]}       TransactGetItems of every account
                                  {accounts: {key: {bal, n, last, crc}}}

A register state is [ver, val, cnt] or null; a conditional failure's value is
{old: state} (ReturnValuesOnConditionCheckFailure ALL_OLD); a cancelled
transaction's is {reasons: [codes]}, plus for a transfer the source account
its failed condition returned, {from: {bal, n, last, crc}}. An account in a
snapshot is its balance and its log's length, last id and CRC-32 (of the ids,
each followed by a newline), so that a read stays small; the final read holds
the whole log. Every val and transfer id is unique ("process:index").

Outcomes: ok; fail with the error's type for a 4xx reply; info (unknown) for
a 5xx reply, a timeout or a broken connection. --faults makes the server
(its fault injection) delay a few requests past the client's timeout and drop
a few connections before or after applying the request, so that unknown
outcomes happen, some of them applied.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

TABLE = "history"
INITIAL_BALANCE = 100
READ_TIMEOUT_S = 1.0
FAULT_LATENCY_MS = 1300

WEIGHTS = {"get": 14, "put_new": 10, "put_ver": 10, "upd_add": 12, "upd_cas": 12, "del": 8,
           "txn_add": 8, "transfer": 18, "read_all": 8}


def register_key(epoch, k):
    return "reg#%d#%d" % (epoch, k)


def account_key(epoch, i):
    return "acct#%d#%d" % (epoch, i)


def S(s):
    return {"S": s}


def N(n):
    return {"N": str(n)}


def register_state(item):
    if not item:
        return None
    return [int(item["ver"]["N"]), item["val"]["S"], int(item["cnt"]["N"])]


def account_snapshot(item, full=False):
    if not item:
        return None
    log = [x["S"] for x in item["log"]["L"]]
    snap = {"bal": int(item["bal"]["N"]), "n": len(log), "last": log[-1] if log else None,
            "crc": zlib.crc32("".join(t + "\n" for t in log).encode())}
    if full:
        snap["log"] = log
    return snap


# ---------------------------------------------------------------- the clients

def make_client(url, pool):
    import boto3
    from botocore.config import Config
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=2,
                      read_timeout=READ_TIMEOUT_S, max_pool_connections=pool,
                      tcp_keepalive=False))


class Actor:
    """One thread of a client process: a sequence of operations, each
    recorded as an invoke event and a completion event."""

    def __init__(self, name, client, cfg, seed):
        self.name, self.c, self.cfg = name, client, cfg
        self.t = cfg.get("table", TABLE)
        self.rng = random.Random(seed)
        self.events = []
        self.index = 0
        self.vers = {}  # register key -> the last version seen
        self.ops = list(WEIGHTS)
        self.weights = [WEIGHTS[f] for f in self.ops]

    def epoch(self):
        e = int((time.monotonic() - self.cfg["start"]) / self.cfg["epoch_seconds"])
        return min(max(e, 0), self.cfg["epochs"] - 1)

    def run(self, deadline):
        while time.monotonic() < deadline:
            f = self.rng.choices(self.ops, self.weights)[0]
            getattr(self, "op_" + f)(self.epoch())

    def do(self, f, args, call, on_fail=None):
        from botocore.exceptions import ClientError, ConnectionError, HTTPClientError
        i = self.index
        self.index += 1
        self.events.append({"type": "invoke", "process": self.name, "index": i, "f": f,
                            "args": args, "time": time.monotonic_ns()})
        end = {"process": self.name, "index": i}
        try:
            value = call()
            end.update(type="ok", value=value)
        except ClientError as e:
            status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
            end.update(type="info" if status >= 500 else "fail",
                       error=e.response.get("Error", {}).get("Code") or "?")
            if end["type"] == "fail" and on_fail:
                end["value"] = on_fail(e)
        except (HTTPClientError, ConnectionError) as e:  # timeouts, broken connections
            end.update(type="info", error=type(e).__name__)
        end["time"] = time.monotonic_ns()
        self.events.append(end)
        return end.get("value") if end["type"] == "ok" else None

    # Helpers.
    def register(self, e):
        return register_key(e, self.rng.randrange(self.cfg["registers"]))

    def accounts(self, e):
        return [account_key(e, i) for i in range(self.cfg["accounts"])]

    def val(self):
        return "%s:%d" % (self.name, self.index)

    def guess_ver(self, key):
        v = self.vers.get(key, 1)
        return v if self.rng.random() < 0.75 else self.rng.randint(1, v + 1)

    def saw(self, key, state):
        if state:
            self.vers[key] = state[0]

    def old_on_fail(self, key):
        def f(e):
            old = register_state(e.response.get("Item"))
            self.saw(key, old)
            return {"old": old}
        return f

    # The operations.
    def op_get(self, e):
        k = self.register(e)

        def call():
            item = register_state(self.c.get_item(TableName=self.t, Key={"pk": S(k)},
                                                  ConsistentRead=True).get("Item"))
            self.saw(k, item)
            return {"item": item}
        self.do("get", {"key": k}, call)

    def op_put_new(self, e):
        k, v = self.register(e), self.val()

        def call():
            self.c.put_item(TableName=self.t, Item={"pk": S(k), "ver": N(1), "val": S(v),
                                                   "cnt": N(0)},
                            ConditionExpression="attribute_not_exists(pk)",
                            ReturnValuesOnConditionCheckFailure="ALL_OLD")
            self.vers[k] = 1
            return {}
        self.do("put_new", {"key": k, "val": v}, call, self.old_on_fail(k))

    def op_put_ver(self, e):
        k, v = self.register(e), self.val()
        ver = self.guess_ver(k)

        def call():
            r = self.c.put_item(TableName=self.t, Item={"pk": S(k), "ver": N(ver + 1),
                                                       "val": S(v), "cnt": N(0)},
                                ConditionExpression="ver = :v",
                                ExpressionAttributeValues={":v": N(ver)}, ReturnValues="ALL_OLD",
                                ReturnValuesOnConditionCheckFailure="ALL_OLD")
            self.vers[k] = ver + 1
            return {"old": register_state(r.get("Attributes"))}
        self.do("put_ver", {"key": k, "ver": ver, "val": v}, call, self.old_on_fail(k))

    def op_upd_add(self, e):
        k, v = self.register(e), self.val()
        d = self.rng.randint(1, 5)

        def call():
            r = self.c.update_item(TableName=self.t, Key={"pk": S(k)},
                                   UpdateExpression="SET val = :v ADD cnt :d, ver :one",
                                   ExpressionAttributeValues={":v": S(v), ":d": N(d),
                                                              ":one": N(1)},
                                   ReturnValues="ALL_NEW")
            new = register_state(r.get("Attributes"))
            self.saw(k, new)
            return {"new": new}
        self.do("upd_add", {"key": k, "d": d, "val": v}, call)

    def op_upd_cas(self, e):
        k, v = self.register(e), self.val()
        ver = self.guess_ver(k)

        def call():
            r = self.c.update_item(TableName=self.t, Key={"pk": S(k)},
                                   UpdateExpression="SET val = :x ADD ver :one",
                                   ConditionExpression="ver = :v",
                                   ExpressionAttributeValues={":x": S(v), ":v": N(ver),
                                                              ":one": N(1)},
                                   ReturnValues="UPDATED_NEW",
                                   ReturnValuesOnConditionCheckFailure="ALL_OLD")
            a = r.get("Attributes") or {}
            upd = {"ver": int(a["ver"]["N"]) if "ver" in a else None,
                   "val": a["val"]["S"] if "val" in a else None}
            self.vers[k] = ver + 1
            return {"upd": upd}
        self.do("upd_cas", {"key": k, "ver": ver, "val": v}, call, self.old_on_fail(k))

    def op_del(self, e):
        k = self.register(e)
        ver = self.guess_ver(k) if self.rng.random() < 0.5 else None
        kw = {}
        if ver is not None:
            kw = {"ConditionExpression": "ver = :v", "ExpressionAttributeValues": {":v": N(ver)},
                  "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}

        def call():
            r = self.c.delete_item(TableName=self.t, Key={"pk": S(k)}, ReturnValues="ALL_OLD", **kw)
            self.vers.pop(k, None)
            return {"old": register_state(r.get("Attributes"))}
        self.do("del", {"key": k, "ver": ver}, call, self.old_on_fail(k))

    def op_txn_add(self, e):
        keys = sorted(self.rng.sample(range(self.cfg["registers"]), 2))
        keys = [register_key(e, k) for k in keys]
        v = self.val()
        d = self.rng.randint(1, 5)
        items = [{"Update": {"TableName": self.t, "Key": {"pk": S(k)},
                             "UpdateExpression": "SET val = :v ADD cnt :d, ver :one",
                             "ConditionExpression": "attribute_exists(pk)",
                             "ExpressionAttributeValues": {":v": S(v), ":d": N(d), ":one": N(1)}}}
                 for k in keys]

        def call():
            self.c.transact_write_items(TransactItems=items)
            return {}

        def on_fail(err):
            return {"reasons": [r.get("Code") for r in err.response.get("CancellationReasons", [])]}
        self.do("txn_add", {"keys": keys, "d": d, "val": v}, call, on_fail)

    def op_transfer(self, e):
        accts = self.accounts(e)
        chosen = self.rng.sample(accts, 3 if len(accts) >= 3 else 2)
        src, dst = chosen[0], chosen[1]
        check = chosen[2] if len(chosen) > 2 and self.rng.random() < 0.3 else None
        amt = self.rng.randint(1, 40)
        tid = self.val()
        items = [
            {"Update": {"TableName": self.t, "Key": {"pk": S(src)},
                        "UpdateExpression": "SET bal = bal - :a, #l = list_append(#l, :id)",
                        "ConditionExpression": "bal >= :a",
                        "ExpressionAttributeNames": {"#l": "log"},
                        "ExpressionAttributeValues": {":a": N(amt), ":id": {"L": [S(tid)]}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            {"Update": {"TableName": self.t, "Key": {"pk": S(dst)},
                        "UpdateExpression": "SET bal = bal + :a, #l = list_append(#l, :id)",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeNames": {"#l": "log"},
                        "ExpressionAttributeValues": {":a": N(amt), ":id": {"L": [S(tid)]}}}}]
        if check:
            items.append({"ConditionCheck": {"TableName": self.t, "Key": {"pk": S(check)},
                                             "ConditionExpression": "attribute_exists(pk)"}})
        keys = [src, dst] + ([check] if check else [])

        def call():
            self.c.transact_write_items(TransactItems=items)
            return {}

        def on_fail(err):
            reasons = err.response.get("CancellationReasons", [])
            out = {"reasons": [r.get("Code") for r in reasons]}
            if reasons and reasons[0].get("Item"):
                out["from"] = account_snapshot(reasons[0]["Item"])
            return out
        self.do("transfer", {"keys": keys, "from": src, "to": dst, "check": check, "amt": amt,
                             "id": tid}, call, on_fail)

    def op_read_all(self, e, final=False):
        keys = self.accounts(e)

        def call():
            r = self.c.transact_get_items(TransactItems=[
                {"Get": {"TableName": self.t, "Key": {"pk": S(k)}}} for k in keys])
            return {"accounts": {k: account_snapshot(x.get("Item"), full=final)
                                 for k, x in zip(keys, r["Responses"])}}

        def on_fail(err):
            return {"reasons": [r.get("Code") for r in err.response.get("CancellationReasons", [])]}
        args = {"keys": keys}
        if final:
            args["final"] = True
        self.do("read_all", args, call, on_fail)


def worker_main(cfg):
    """A client process: cfg["threads"] actors sharing one boto3 client (its
    own connection pool); writes their events to cfg["out"]."""
    client = make_client(cfg["url"], cfg["threads"])
    actors = [Actor("%s.%d" % (cfg["name"], t), client, cfg, cfg["seed"] * 1000 + t)
              for t in range(cfg["threads"])]
    deadline = cfg["start"] + cfg["seconds"]
    errors = []

    def run(a):
        try:
            a.run(deadline)
        except BaseException as e:  # noqa: B902 - reported below, fails the process
            errors.append("%s: %r" % (a.name, e))
    threads = [threading.Thread(target=run, args=(a,)) for a in actors]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(cfg["out"], "w") as f:
        for a in actors:
            for ev in a.events:
                f.write(json.dumps(ev, separators=(",", ":")) + "\n")
    if errors:
        sys.stderr.write("worker %s failed: %s\n" % (cfg["name"], "; ".join(errors)))
        return 1
    return 0


# ---------------------------------------------------------------- the run

def _faults(url, method, body=None):
    req = urllib.request.Request(url + "/_dynarock/faults", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


FAULT_RULES = {"rules": [
    {"name": "slow", "action": "latency", "latency_ms": FAULT_LATENCY_MS, "probability": 0.002},
    {"name": "drop-before", "action": "drop_before_apply", "probability": 0.003},
    {"name": "drop-after", "action": "drop_after_apply", "probability": 0.003},
]}


def launch_server(opts):
    """Starts `dynarock serve` on a free loopback port: (process, url)."""
    import harness
    return harness.launch(data_dir=opts.data, extra_args=["--threads", str(opts.server_threads)])


def stop_server(proc):
    import harness
    harness.stop_process(proc)
    if proc.stdout:
        proc.stdout.close()


def run_clients(opts, url, out_dir, table=TABLE, log=print):
    """Creates `table` on the endpoint, runs the client processes against it
    for opts.seconds, reads the final state; returns the history's files."""
    import harness
    os.makedirs(out_dir, exist_ok=True)
    epochs = max(1, int(math.ceil(opts.seconds / opts.epoch_seconds)))
    c = make_client(url, 2)
    harness.create_table(c, table, hash_key=("pk", "S"))
    banks = []
    puts = []
    for e in range(epochs):
        bank = {}
        for i in range(opts.accounts):
            bank[account_key(e, i)] = INITIAL_BALANCE
            puts.append({"PutRequest": {"Item": {"pk": S(account_key(e, i)),
                                                 "bal": N(INITIAL_BALANCE), "log": {"L": []}}}})
        banks.append(bank)
    for i in range(0, len(puts), 25):
        r = c.batch_write_item(RequestItems={table: puts[i:i + 25]})
        assert not r.get("UnprocessedItems"), r
    with open(os.path.join(out_dir, "init.jsonl"), "w") as f:
        f.write(json.dumps({"type": "init", "banks": banks}) + "\n")
    rules = getattr(opts, "fault_rules", None) or (FAULT_RULES if opts.faults else None)
    if rules:
        _faults(url, "PUT", dict(rules, seed=opts.seed))
    start = time.monotonic()
    workers = []
    for p in range(opts.processes):
        cfg = {"url": url, "table": table, "name": "py%d" % p, "threads": opts.threads,
               "seed": opts.seed + p, "start": start, "seconds": opts.seconds,
               "epoch_seconds": opts.epoch_seconds, "epochs": epochs,
               "registers": opts.registers, "accounts": opts.accounts,
               "out": os.path.join(out_dir, "py%d.jsonl" % p)}
        workers.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker",
                                         json.dumps(cfg)], stdin=subprocess.DEVNULL))
    failed = [w.args for w in workers if w.wait(timeout=opts.seconds + 120) != 0]
    if failed:
        raise RuntimeError("%d client process(es) failed" % len(failed))
    if rules:
        fired = _faults(url, "GET")
        _faults(url, "DELETE")
        log("faults fired: " + ", ".join(
            "%s %s" % (r.get("name"), r.get("fired")) for r in fired.get("rules", [])))
        delays = [r.get("latency_ms", 0) for r in rules["rules"]]
        if any(delays):
            time.sleep(max(delays) / 1000 + 0.5)  # delayed requests finish first
    # The final state, read once nothing else runs.
    final = Actor("final", make_client(url, 1), {"table": table, "registers": opts.registers,
                                                  "accounts": opts.accounts}, 0)
    for e in range(epochs):
        for k in range(opts.registers):
            key = register_key(e, k)
            final.do("get", {"key": key}, lambda key=key: {"item": register_state(
                final.c.get_item(TableName=table, Key={"pk": S(key)},
                                 ConsistentRead=True).get("Item"))})
        final.op_read_all(e, final=True)
    bad = [ev for ev in final.events if ev["type"] not in ("invoke", "ok")]
    if bad:
        raise RuntimeError("the final reads failed: %r" % bad[:3])
    with open(os.path.join(out_dir, "final.jsonl"), "w") as f:
        for ev in final.events:
            f.write(json.dumps(ev, separators=(",", ":")) + "\n")
    return sorted(os.path.join(out_dir, n) for n in os.listdir(out_dir) if n.endswith(".jsonl"))


def run_server(opts, out_dir, log=print):
    """run_clients against a `dynarock serve` of its own."""
    proc, url = launch_server(opts)
    try:
        return run_clients(opts, url, out_dir, log=log)
    finally:
        stop_server(proc)


def run_embedded(opts, out_dir, data=None):
    """Runs history_driver (threads on the embedded DB, in memory unless
    `data`, a directory of its own); returns its file."""
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "history.jsonl")
    args = [opts.driver, "--out", out, "--threads", str(opts.driver_threads),
            "--seconds", str(opts.driver_seconds), "--ops", str(opts.driver_ops),
            "--epoch-ops", str(opts.driver_epoch_ops), "--registers", str(opts.registers),
            "--accounts", str(opts.accounts), "--seed", str(opts.seed)]
    if data:
        args += ["--data", data]
    subprocess.run(args, check=True, stdin=subprocess.DEVNULL, timeout=opts.driver_seconds + 300)
    return [out]


def run_long(opts):
    """The long run: rounds of opts.round_seconds of client processes, each
    on a new table of one server (on disk unless opts.in_memory), each round's
    history checked and then deleted (kept with opts.keep); then rounds of the
    embedded driver for opts.embedded_seconds. Returns the exit status."""
    import shutil
    import tempfile
    import checker
    work = tempfile.mkdtemp(prefix="dynarock-history-")
    if not opts.in_memory:
        opts.data = os.path.join(work, "data")
    totals = {"ops": 0, "anomalies": 0, "unknown": 0, "rounds": 0}
    failed_rounds = []

    def account(name, files, dest):
        report = checker.check(checker.load_events(files))
        totals["ops"] += report.ops
        totals["unknown"] += report.by_outcome["info"]
        totals["anomalies"] += len(report.anomalies)
        totals["rounds"] += 1
        print("== %s: %d operations, %d anomalies" % (name, report.ops, len(report.anomalies)))
        if not report.ok():
            print(report.render())
            failed_rounds.append(name)
        if opts.keep or not report.ok():
            keep = opts.keep or os.path.join(tempfile.gettempdir(), "dynarock-history-failed")
            target = os.path.join(keep, name)
            shutil.copytree(dest, target, dirs_exist_ok=True)
            print("   history kept in %s" % target)
        shutil.rmtree(dest, ignore_errors=True)
        sys.stdout.flush()

    began = time.monotonic()
    try:
        proc, url = launch_server(opts)
        print("dynarock serve at %s, data %s" % (url, opts.data or "in memory"))
        try:
            end = began + opts.seconds
            r = 0
            while time.monotonic() < end - 1:
                ropts = argparse.Namespace(**vars(opts))
                ropts.seconds = min(opts.round_seconds, end - time.monotonic())
                ropts.seed = opts.seed + 7919 * r
                dest = os.path.join(work, "server-%d" % r)
                files = run_clients(ropts, url, dest, table="history-%d" % r)
                account("server round %d (%.0f s)" % (r, ropts.seconds), files, dest)
                r += 1
        finally:
            stop_server(proc)
        if opts.driver:
            end = time.monotonic() + opts.embedded_seconds
            r = 0
            while time.monotonic() < end:
                ropts = argparse.Namespace(**vars(opts))
                ropts.seed = opts.seed + 104729 * r
                dest = os.path.join(work, "embedded-%d" % r)
                data = None if opts.in_memory else os.path.join(work, "embedded-data-%d" % r)
                files = run_embedded(ropts, dest, data)
                account("embedded round %d" % r, files, dest)
                if data:
                    shutil.rmtree(data, ignore_errors=True)
                r += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("history check, %.0f s: %d operations checked (%d with unknown outcome) in %d rounds; "
          "anomalies: %d%s" % (time.monotonic() - began, totals["ops"], totals["unknown"],
                               totals["rounds"], totals["anomalies"],
                               (" (in %s)" % ", ".join(failed_rounds)) if failed_rounds else ""))
    return 0 if totals["anomalies"] == 0 else 1


def default_options(**overrides):
    """The options of `run`, as a namespace, for callers in Python."""
    p = argparse.ArgumentParser()
    add_options(p)
    opts = p.parse_args([])
    for k, v in overrides.items():
        setattr(opts, k, v)
    if opts.seed is None:
        opts.seed = random.randrange(1, 1 << 30)
    return opts


def add_options(p):
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--processes", type=int, default=4)
    p.add_argument("--threads", type=int, default=2, help="threads per client process")
    p.add_argument("--server-threads", type=int, default=8)
    p.add_argument("--epoch-seconds", type=float, default=10)
    p.add_argument("--registers", type=int, default=3)
    p.add_argument("--accounts", type=int, default=5)
    p.add_argument("--faults", action="store_true",
                   help="delay and drop a few requests (unknown outcomes)")
    p.add_argument("--data", help="serve --data DIR (default: in memory)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--driver", help="the history_driver binary: also run the embedded API")
    p.add_argument("--driver-seconds", type=float, default=5)
    p.add_argument("--driver-ops", type=int, default=2000, help="per thread, at most")
    p.add_argument("--driver-threads", type=int, default=8)
    p.add_argument("--driver-epoch-ops", type=int, default=200,
                   help="operations per thread before it moves to the next keys")


def main(argv):
    if len(argv) >= 3 and argv[1] == "worker":
        return worker_main(json.loads(argv[2]))
    p = argparse.ArgumentParser(prog="workload.py")
    p.add_argument("command", choices=["run", "long"])
    p.add_argument("--out", help="run: where the histories go")
    p.add_argument("--check", action="store_true", help="run: check them")
    p.add_argument("--round-seconds", type=float, default=60, help="long: server round length")
    p.add_argument("--embedded-seconds", type=float, default=60,
                   help="long: how long the embedded rounds go on")
    p.add_argument("--in-memory", action="store_true", help="long: no data directories")
    p.add_argument("--keep", help="long: keep every round's history under this directory")
    add_options(p)
    opts = p.parse_args(argv[1:])
    if opts.seed is None:
        opts.seed = random.randrange(1, 1 << 30)
    print("seed %d" % opts.seed)
    sys.stdout.flush()
    if opts.command == "long":
        return run_long(opts)
    if not opts.out:
        p.error("run needs --out")
    histories = [("server", run_server(opts, os.path.join(opts.out, "server")))]
    if opts.driver:
        data = os.path.join(opts.data, "embedded") if opts.data else None
        histories.append(("embedded", run_embedded(opts, os.path.join(opts.out, "embedded"),
                                                   data)))
    if not opts.check:
        return 0
    import checker
    ok = True
    for name, files in histories:
        report = checker.check(checker.load_events(files))
        print("== %s\n%s" % (name, report.render()))
        ok &= report.ok()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
