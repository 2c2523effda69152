"""The history checker: decides whether a recorded concurrent history of
Dynarock operations is correct.

Input: JSON lines (tests/concurrency/workload.py and history_driver.cc write
them; the format is described there), one event each:

    {"type": "init", "banks": [{"acct#0#0": 100, ...}, ...]}
    {"type": "invoke", "process": "py0.1", "index": 7, "f": "put_ver",
     "args": {...}, "time": NS}
    {"type": "ok" | "fail" | "info", "process": "py0.1", "index": 7,
     "time": NS, "value": {...}, "error": "ConditionalCheckFailedException"}

An operation is an invoke and its completion (same process and index). "ok"
and "fail" are definite outcomes; "info", or an invoke without a completion,
is unknown: the operation may or may not have taken effect, at any moment
after its invocation. Times are CLOCK_MONOTONIC nanoseconds, comparable
between the processes of one machine.

What is checked:

1. Single-item operations are linearizable, key by key. Each key is a
   register whose state is absent or (ver, val, cnt); every operation on it
   (GetItem, the conditional PutItems, UpdateItem with ADD and SET, DeleteItem,
   and each key's share of a TransactWriteItems) has a deterministic effect
   and expected reply in that model (`register_step`). The search is the
   Wing–Gong algorithm with Lowe's memoisation, as Porcupine does it: call and
   return entries in time order in a doubly-linked list, a call is linearized
   when the model accepts it (lifting it and its return out of the list),
   reaching a return entry whose call is not yet linearized backtracks, and a
   (set of linearized operations, state) pair already explored is not explored
   again. The set is kept as a Zobrist hash (XOR of a random word per
   operation); a failure found so is re-checked with exact sets. An unknown
   operation's return is at infinity: it can be linearized anywhere after its
   invocation, and linearizing it after everything else is the same as its
   never having happened.

2. Bank transfers (TransactWriteItems moving `amt` from one account to
   another, each appending its id to both accounts' `log` list in the same
   update) are checked against the final state read once everything stopped:
   every id in a log is a transfer on that account that did not definitely
   fail (no read of an aborted write), appears once, and in both accounts
   (atomicity); every acknowledged transfer is there (no lost update); each
   balance is the initial one plus its log's amounts (so the final balances
   are the initial ones plus the acknowledged transfers plus some of the
   unknown ones), never negative at any point of its log, and the total is
   constant. Every TransactGetItems snapshot (and the account a cancelled
   transfer's ConditionalCheckFailed reason returns) must be a prefix of each
   final log (length, last id, CRC-32), with balances matching the prefix and
   summing to the total, and must not see a transfer on one account but not on
   the other (fractured read). Transfers and snapshots then form a
   serialization graph (write-write order from the logs, write-read and
   read-write edges from what each snapshot saw); a cycle is a serializability
   anomaly, and a cycle once real-time order is added (A completed before B
   was invoked) a strict-serializability one.

3. TransactionConflict only where a real conflict existed: a single-item
   write refused with TransactionConflictException needs a TransactWriteItems
   on that item overlapping it in time; a TransactWriteItems cancelled with a
   TransactionConflict reason needs another transaction on that reason's item
   overlapping it; a TransactGetItems one, an overlapping write of the item.

4. No other error: any failure but ConditionalCheckFailed,
   TransactionCanceled and TransactionConflict is an anomaly.

Run: python3 tests/concurrency/checker.py HISTORY.jsonl [...]  (the files of
one history; exit 1 on any anomaly). As a module: check(events) -> Report.
"""

import bisect
import collections
import json
import random
import sys
import zlib

INF = float("inf")

REGISTER_OPS = ("get", "put_new", "put_ver", "upd_add", "upd_cas", "del")
SINGLE_WRITES = ("put_new", "put_ver", "upd_add", "upd_cas", "del")
WRITE_TXNS = ("txn_add", "transfer")
TXNS = ("txn_add", "transfer", "read_all")
EXPECTED_ERRORS = {
    "get": (),
    "put_new": ("ConditionalCheckFailedException", "TransactionConflictException"),
    "put_ver": ("ConditionalCheckFailedException", "TransactionConflictException"),
    "upd_add": ("TransactionConflictException",),
    "upd_cas": ("ConditionalCheckFailedException", "TransactionConflictException"),
    "del": ("ConditionalCheckFailedException", "TransactionConflictException"),
    "txn_add": ("TransactionCanceledException",),
    "transfer": ("TransactionCanceledException",),
    "read_all": ("TransactionCanceledException",),
}
# A linearizability search longer than this many steps on one key is reported
# as inconclusive (the workload's keys rotate so that it never comes close).
DEFAULT_STEP_BUDGET = 20_000_000


class Op:
    __slots__ = ("process", "index", "f", "args", "invoke", "complete", "outcome", "error",
                 "value", "seq")

    def __init__(self, process, index, f, args, invoke):
        self.process, self.index, self.f, self.args, self.invoke = process, index, f, args, invoke
        self.complete, self.outcome, self.error, self.value = None, "info", None, None
        self.seq = 0

    def end(self):
        return INF if self.complete is None else self.complete

    def keys(self):
        """The items the operation names, in request order."""
        if "keys" in self.args:
            return self.args["keys"]
        return [self.args["key"]]

    def describe(self, t0=0):
        def ms(t):
            return "inf" if t is None else "%.3f" % ((t - t0) / 1e6)
        res = self.outcome
        if self.error:
            res += " " + self.error
        if self.value:
            res += " " + json.dumps(self.value, sort_keys=True, default=list)
        args = json.dumps(self.args, sort_keys=True)
        return "[%s..%s ms] %s#%s %s %s -> %s" % (ms(self.invoke), ms(self.complete), self.process,
                                                  self.index, self.f, args, res)


class Report:
    def __init__(self):
        self.anomalies = []      # (kind, text)
        self.lines = []          # the summary
        self.ops = 0
        self.by_outcome = collections.Counter()
        self.processes = 0

    def anomaly(self, kind, text):
        self.anomalies.append((kind, text))

    def ok(self):
        return not self.anomalies

    def render(self, max_anomalies=20):
        out = ["history check: %d operations checked (ok %d, failed %d, unknown %d) from %d "
               "processes" % (self.ops, self.by_outcome["ok"], self.by_outcome["fail"],
                              self.by_outcome["info"], self.processes)]
        out += ["  " + l for l in self.lines]
        out.append("anomalies: %d" % len(self.anomalies))
        kinds = collections.Counter(k for k, _ in self.anomalies)
        for k, n in sorted(kinds.items()):
            out.append("  %s: %d" % (k, n))
        for k, text in self.anomalies[:max_anomalies]:
            out.append("--- %s\n%s" % (k, text))
        if len(self.anomalies) > max_anomalies:
            out.append("... and %d more" % (len(self.anomalies) - max_anomalies))
        return "\n".join(out)


# ---------------------------------------------------------------- loading

def _tuple_state(v):
    return None if v is None else tuple(v)


def _normalize(op):
    """Register states arrive as JSON lists; the model compares tuples."""
    v = op.value
    if not isinstance(v, dict):
        return
    for name in ("old", "new", "item"):
        if name in v and (v[name] is None or isinstance(v[name], list)):
            v[name] = _tuple_state(v[name])


def load_events(paths):
    events = []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    events.append(json.loads(line))
                except ValueError as e:
                    raise ValueError("%s:%d: %s" % (p, n, e))
    return events


def pair_events(events):
    """(ops, init): operations from invoke/completion pairs; `init` merges the
    init events. Raises ValueError on a malformed history."""
    ops = {}
    init = {"banks": []}
    for e in events:
        t = e.get("type")
        if t == "init":
            init["banks"] += e.get("banks", [])
            continue
        key = (e["process"], e["index"])
        if t == "invoke":
            if key in ops:
                raise ValueError("operation %s#%s invoked twice" % key)
            ops[key] = Op(e["process"], e["index"], e["f"], e.get("args", {}), e["time"])
        elif t in ("ok", "fail", "info"):
            op = ops.get(key)
            if op is None or op.complete is not None:
                raise ValueError("completion of %s#%s without its invocation" % key)
            if t == "info":
                op.outcome, op.error = "info", e.get("error")
                op.complete = None
                op.value = None
                continue
            op.outcome, op.error, op.value = t, e.get("error"), e.get("value")
            op.complete = e["time"]
            if op.complete < op.invoke:
                raise ValueError("%s#%s completes before it is invoked" % key)
        else:
            raise ValueError("unknown event type %r" % t)
    out = sorted(ops.values(), key=lambda o: (o.invoke, o.process, o.index))
    for i, op in enumerate(out):
        op.seq = i
        _normalize(op)
    return out, init


# ---------------------------------------------------------------- registers

class RegOp:
    """One operation's share of one key: `kind` is the op's f, or
    "txn_absent" for a transaction whose condition on this key failed."""
    __slots__ = ("op", "kind", "invoke", "complete", "outcome", "value")

    def __init__(self, op, kind, outcome, value):
        self.op, self.kind, self.outcome, self.value = op, kind, outcome, value
        self.invoke, self.complete = op.invoke, op.complete


def register_step(s, r):
    """The register model: (accepted, new state) for operation share `r` on
    state `s` (None: absent; else (ver, val, cnt))."""
    f, a, out, v = r.kind, r.op.args, r.outcome, r.value or {}
    if f == "get":
        return v.get("item") == s, s
    if f == "txn_absent":
        return s is None, s
    if f == "put_new":
        holds = s is None
        new = (1, a["val"], 0) if holds else s
    elif f == "put_ver":
        holds = s is not None and s[0] == a["ver"]
        new = (a["ver"] + 1, a["val"], 0) if holds else s
    elif f == "upd_add":
        holds = True
        new = (s[0] + 1, a["val"], s[2] + a["d"]) if s else (1, a["val"], a["d"])
    elif f == "upd_cas":
        holds = s is not None and s[0] == a["ver"]
        new = (s[0] + 1, a["val"], s[2]) if holds else s
    elif f == "del":
        holds = a.get("ver") is None or (s is not None and s[0] == a["ver"])
        new = None if holds else s
    elif f == "txn_add":
        holds = s is not None
        new = (s[0] + 1, a["val"], s[2] + a["d"]) if holds else s
    else:
        raise ValueError("no register model for %r" % f)
    if out == "info":
        return True, new
    if out == "fail":  # ConditionalCheckFailed: nothing changed, the old item as seen
        if holds:
            return False, s
        return ("old" not in v or v["old"] == s), s
    if not holds:
        return False, s
    if f in ("put_ver", "del"):
        return v.get("old") == s, new
    if f == "upd_add":
        return v.get("new") == new, new
    if f == "upd_cas":
        upd = v.get("upd") or {}
        return upd.get("ver") == new[0] and upd.get("val") == new[1], new
    return True, new


def register_shares(ops):
    """key -> [RegOp]: every operation's effect or observation on each register
    key. Definite failures without an observation (TransactionConflict,
    unexpected errors) and unknown reads are left out: they changed nothing and
    saw nothing."""
    by_key = collections.defaultdict(list)
    for op in ops:
        if op.f in REGISTER_OPS:
            if op.outcome == "fail" and op.error != "ConditionalCheckFailedException":
                continue
            if op.f == "get" and op.outcome != "ok":
                continue
            by_key[op.args["key"]].append(RegOp(op, op.f, op.outcome, op.value))
        elif op.f == "txn_add":
            keys = op.args["keys"]
            if op.outcome in ("ok", "info"):
                for k in keys:
                    by_key[k].append(RegOp(op, "txn_add", op.outcome, None))
            elif op.error == "TransactionCanceledException":
                reasons = (op.value or {}).get("reasons") or []
                for k, code in zip(keys, reasons):
                    if code == "ConditionalCheckFailed":
                        by_key[k].append(RegOp(op, "txn_absent", "ok", None))
    return by_key


def check_linearizable(ops, step, init=None, exact=False, budget=DEFAULT_STEP_BUDGET):
    """Wing–Gong/Lowe search. Returns ("ok", None), ("fail", diagnosis) or
    ("inconclusive", steps)."""
    n = len(ops)
    if n == 0:
        return "ok", None
    entries = []
    for i, r in enumerate(ops):
        entries.append((r.invoke, 0, i))
        entries.append((INF if r.complete is None else r.complete, 1, i))
    entries.sort()  # a call and a return at the same instant: the call first (overlap)
    m = len(entries)
    head, tail = 0, m + 1
    nxt = list(range(1, m + 2)) + [tail]
    prv = [0] + list(range(0, m + 1))
    is_call = [False] * (m + 2)
    opid = [0] * (m + 2)
    match = [0] * (m + 2)
    call_at = [0] * n
    for pos, (_, kind, i) in enumerate(entries, 1):
        opid[pos] = i
        if kind == 0:
            is_call[pos] = True
            call_at[i] = pos
        else:
            match[call_at[i]] = pos
    rng = random.Random(0x5eed)
    zob = [rng.getrandbits(64) for _ in range(n)]

    def lift(e):
        r = match[e]
        nxt[prv[e]] = nxt[e]
        prv[nxt[e]] = prv[e]
        nxt[prv[r]] = nxt[r]
        prv[nxt[r]] = prv[r]

    def unlift(e):
        r = match[e]
        nxt[prv[r]] = r
        prv[nxt[r]] = r
        nxt[prv[e]] = e
        prv[nxt[e]] = e

    cache = set()
    stack = []
    state = init
    lin = 0          # Zobrist hash, or with exact=True the bit set itself
    count = 0
    best, stuck = -1, {}
    steps = 0
    e = nxt[head]
    while nxt[head] != tail:
        steps += 1
        if steps > budget:
            return "inconclusive", steps
        if is_call[e]:
            i = opid[e]
            accepted, new = step(state, ops[i])
            if accepted:
                nl = lin ^ ((1 << i) if exact else zob[i])
                key = (nl, new)
                if key not in cache:
                    cache.add(key)
                    stack.append((e, state, lin))
                    state, lin = new, nl
                    count += 1
                    lift(e)
                    e = nxt[head]
                    continue
            e = nxt[e]
        else:
            i = opid[e]
            if count > best:
                best, stuck = count, {}
            if count == best and len(stuck) < 8:
                stuck.setdefault(i, set())
                if len(stuck[i]) < 6:
                    stuck[i].add(state)
            if not stack:
                return "fail", {"linearized": best, "stuck": stuck}
            e, state, lin = stack.pop()
            count -= 1
            unlift(e)
            e = nxt[e]
    return "ok", None


def _excerpt(ops, marked, t0, before=4, limit=24):
    """The operations of `ops` overlapping the interval of the `marked` ones
    (shown with >>), and the last few that completed before it began."""
    marked = set(marked)
    lo = min(o.invoke for o in marked)
    hi = max(o.end() for o in marked)
    over = [o for o in ops if o.invoke <= hi and o.end() >= lo]
    prior = sorted((o for o in ops if o.end() < lo), key=lambda o: o.end())[-before:]
    rows = sorted(set(prior + over) | marked, key=lambda o: o.invoke)[:limit]
    return "\n".join(("  >> " if o in marked else "     ") + o.describe(t0) for o in rows)


def check_registers(report, ops, t0, budget):
    by_key = register_shares(ops)
    n_shares = sum(len(v) for v in by_key.values())
    bad = 0
    for key in sorted(by_key):
        shares = by_key[key]
        verdict, info = check_linearizable(shares, register_step, budget=budget)
        if verdict == "fail":
            verdict, info = check_linearizable(shares, register_step, exact=True, budget=budget)
        if verdict == "ok":
            continue
        bad += 1
        if verdict == "inconclusive":
            report.anomaly("inconclusive", "key %s: the linearizability search gave up after %d "
                           "steps (%d operations)" % (key, info, len(shares)))
            continue
        stuck = {shares[i].op for i in info["stuck"]}
        states = sorted({repr(s) for ss in info["stuck"].values() for s in ss})
        report.anomaly(
            "not linearizable",
            "key %s: %d operations, at most %d linearized; no linearization can place the "
            "operation(s) marked >>, with the register in any of the states %s just before:\n%s"
            % (key, len(shares), info["linearized"], ", ".join(states),
               _excerpt([s.op for s in shares], stuck, t0)))
    report.lines.append("registers: %d keys, %d operation shares, %s" % (
        len(by_key), n_shares, "linearizable" if not bad else "%d keys NOT linearizable" % bad))


# ---------------------------------------------------------------- bank

def _log_crcs(log):
    crcs = [0]
    c = 0
    for tid in log:
        c = zlib.crc32((tid + "\n").encode(), c)
        crcs.append(c)
    return crcs


class Bank:
    """One group of accounts (one epoch's) and their initial balances."""

    def __init__(self, initial):
        self.initial = dict(initial)
        self.keys = sorted(initial)
        self.total = sum(initial.values())


def _transfer_delta(t, account):
    if account == t.args["from"]:
        return -t.args["amt"]
    if account == t.args["to"]:
        return t.args["amt"]
    return None


def check_bank(report, bank, ops, t0):
    keyset = set(bank.keys)
    transfers = {}
    for op in ops:
        if op.f == "transfer" and op.args["from"] in keyset:
            transfers[op.args["id"]] = op
    reads = [op for op in ops if op.f == "read_all" and op.outcome == "ok"
             and set(op.args["keys"]) == keyset]
    finals = [r for r in reads if r.args.get("final")]
    name = bank.keys[0].rsplit("#", 1)[0] if bank.keys else "?"
    if not finals:
        report.anomaly("no final state", "bank %s: no final read of its accounts" % name)
        return None
    final = max(finals, key=lambda r: r.invoke)
    accts = final.value["accounts"]
    logs, bals = {}, {}
    for a in bank.keys:
        item = accts.get(a)
        if item is None or "log" not in item:
            report.anomaly("lost item", "bank %s: account %s is gone at the end" % (name, a))
            return None
        logs[a], bals[a] = item["log"], item["bal"]
    found = 0

    def bad(kind, text):
        nonlocal found
        found += 1
        report.anomaly(kind, "bank %s: %s" % (name, text))

    # The final logs.
    pos = {a: {} for a in bank.keys}
    prefix_bal = {}
    for a in bank.keys:
        bal = bank.initial[a]
        sums = [bal]
        for i, tid in enumerate(logs[a]):
            t = transfers.get(tid)
            if tid in pos[a]:
                bad("duplicate write", "transfer %s applied twice to %s" % (tid, a))
                continue
            pos[a][tid] = i
            if t is None:
                bad("phantom write", "%s's log holds %s, which no client sent" % (a, tid))
                sums.append(bal)
                continue
            d = _transfer_delta(t, a)
            if d is None:
                bad("phantom write", "%s's log holds %s, which does not write %s:\n%s"
                    % (a, tid, a, t.describe(t0)))
                d = 0
            if t.outcome == "fail":
                bad("read of an aborted write", "%s's log holds %s, which failed:\n%s"
                    % (a, tid, t.describe(t0)))
            bal += d
            sums.append(bal)
            if bal < 0:
                bad("negative balance", "%s reaches %d after %s (log position %d)"
                    % (a, bal, tid, i))
        prefix_bal[a] = sums
        if bals[a] != sums[-1]:
            bad("lost update", "%s's final balance is %d, but its initial %d plus the %d "
                "transfers in its log make %d" % (a, bals[a], bank.initial[a], len(logs[a]),
                                                  sums[-1]))
    if sum(bals.values()) != bank.total:
        bad("total changed", "final balances %s sum to %d, not %d"
            % (bals, sum(bals.values()), bank.total))
    acked = cancelled = unknown = applied_unknown = 0
    for tid, t in sorted(transfers.items(), key=lambda kv: kv[1].invoke):
        a, b = t.args["from"], t.args["to"]
        in_a, in_b = tid in pos[a], tid in pos[b]
        if in_a != in_b:
            bad("partial transaction", "transfer %s is in %s's log but not in %s's:\n%s"
                % (tid, a if in_a else b, b if in_a else a, t.describe(t0)))
        if t.outcome == "ok":
            acked += 1
            if not (in_a and in_b):
                bad("lost update", "acknowledged transfer %s is missing from the final log of "
                    "%s:\n%s" % (tid, " and ".join(x for x, i in ((a, in_a), (b, in_b)) if not i),
                                 t.describe(t0)))
        elif t.outcome == "fail":
            cancelled += 1
        else:
            unknown += 1
            applied_unknown += in_a and in_b

    # Snapshots: the reads, and the account a failed condition returned.
    crcs = {a: _log_crcs(logs[a]) for a in bank.keys}
    # For accounts a, b: the largest position in b's log of the transfers in
    # a's log up to each prefix (atomic visibility of a snapshot).
    reach = {}
    for a in bank.keys:
        for b in bank.keys:
            if a == b:
                continue
            m, arr = -1, [-1]
            for tid in logs[a]:
                p = pos[b].get(tid)
                if p is not None and p > m:
                    m = p
                arr.append(m)
            reach[a, b] = arr

    def prefix_of(a, snap):
        """The prefix length of a's final log that snapshot entry `snap` shows,
        or None when it shows no prefix of it."""
        n = snap.get("n")
        if "log" in snap:
            lg = snap["log"]
            n = len(lg)
            if lg != logs[a][:n]:
                return None
        elif n is None or n > len(logs[a]) or crcs[a][n] != snap.get("crc") or \
                (n > 0 and logs[a][n - 1] != snap.get("last")):
            return None
        return n

    snapshot_nodes = []  # (op, {account: prefix length})
    n_reads = 0
    for r in reads:
        n_reads += 1
        seen, ok = {}, True
        total = 0
        for a in bank.keys:
            snap = r.value["accounts"].get(a)
            if snap is None:
                bad("lost item", "a snapshot finds no account %s:\n%s" % (a, r.describe(t0)))
                ok = False
                continue
            n = prefix_of(a, snap)
            if n is None:
                bad("snapshot of a state that never existed", "the snapshot's log of %s is "
                    "not a prefix of its final log:\n%s" % (a, r.describe(t0)))
                ok = False
                continue
            seen[a] = n
            total += snap["bal"]
            if snap["bal"] != prefix_bal[a][n]:
                bad("wrong balance in snapshot", "%s shows balance %d with %d transfers in its "
                    "log, which make %d:\n%s" % (a, snap["bal"], n, prefix_bal[a][n],
                                                 r.describe(t0)))
            if snap["bal"] < 0:
                bad("negative balance", "a snapshot shows %s at %d:\n%s" % (a, snap["bal"],
                                                                           r.describe(t0)))
        if not ok:
            continue
        if total != bank.total:
            bad("total changed", "a snapshot's balances sum to %d, not %d:\n%s"
                % (total, bank.total, r.describe(t0)))
        fractured = False
        for (a, b), arr in reach.items():
            if arr[seen[a]] >= seen[b]:
                tid = logs[b][arr[seen[a]]]
                bad("fractured read", "a snapshot sees transfer %s in %s's log but not in %s's:"
                    "\n%s" % (tid, a, b, r.describe(t0)))
                fractured = True
                break
        if not fractured:  # (a fractured read would also close a cycle: reported once)
            snapshot_nodes.append((r, seen))
    n_ccf = 0
    for tid, t in transfers.items():
        if t.outcome != "fail" or t.error != "TransactionCanceledException":
            continue
        reasons = (t.value or {}).get("reasons") or []
        snap = (t.value or {}).get("from")
        if not reasons or reasons[0] != "ConditionalCheckFailed" or not snap:
            continue
        n_ccf += 1
        a = t.args["from"]
        n = prefix_of(a, snap)
        if n is None:
            bad("snapshot of a state that never existed", "the account a failed condition "
                "returned is not a prefix of %s's final log:\n%s" % (a, t.describe(t0)))
            continue
        if snap["bal"] != prefix_bal[a][n] or snap["bal"] >= t.args["amt"]:
            bad("wrong condition", "transfer %s was cancelled with %s at %d (log of %d), "
                "needing %d:\n%s" % (tid, a, snap["bal"], n, t.args["amt"], t.describe(t0)))
        snapshot_nodes.append((t, {a: n}))

    cycles = _serialization_cycles(bank, logs, transfers, snapshot_nodes, t0)
    for kind, text in cycles:
        bad(kind, text)
    report.lines.append(
        "bank %s: %d accounts, %d transfers (acknowledged %d, cancelled %d, unknown %d of which "
        "%d applied), %d snapshot reads, %d cancelled-condition reads, %s" % (
            name, len(bank.keys), len(transfers), acked, cancelled, unknown, applied_unknown,
            n_reads, n_ccf, "strict serializable" if not found else "%d ANOMALIES" % found))
    return found


def _serialization_cycles(bank, logs, transfers, snapshots, t0):
    """Builds the serialization graph and returns [(kind, text)] for the
    first cycle without real-time edges, or else the first with them."""
    nodes = []           # Op
    index = {}
    for a in bank.keys:
        for tid in logs[a]:
            if tid not in index and tid in transfers:
                index[tid] = len(nodes)
                nodes.append(transfers[tid])
    edges = collections.defaultdict(dict)  # u -> {v: kind}

    def add(u, v, kind):
        if u != v and v not in edges[u]:
            edges[u][v] = kind
    for a in bank.keys:
        ids = [index[t] for t in logs[a] if t in index]
        for u, v in zip(ids, ids[1:]):
            add(u, v, "ww on %s" % a)
    for op, seen in snapshots:
        r = len(nodes)
        nodes.append(op)
        for a, n in seen.items():
            lg = logs[a]
            if n > 0 and lg[n - 1] in index:
                add(index[lg[n - 1]], r, "wr on %s" % a)
            if n < len(lg) and lg[n] in index:
                add(r, index[lg[n]], "rw on %s" % a)
    cyc = _find_cycle(len(nodes), edges)
    if cyc:
        return [("not serializable", _render_cycle(cyc, nodes, edges, t0))]
    # Real-time order through a chain of time points: op -> TP(its completion),
    # TP_j -> TP_j+1, TP(last completion before an op's invocation) -> op.
    done = sorted((op.complete, u) for u, op in enumerate(nodes) if op.complete is not None)
    base = len(nodes)
    times = [t for t, _ in done]
    for j, (_, u) in enumerate(done):
        add(u, base + j, "rt")
        if j + 1 < len(done):
            add(base + j, base + j + 1, "rt")
    for v, op in enumerate(nodes):
        j = bisect.bisect_left(times, op.invoke) - 1
        if j >= 0:
            add(base + j, v, "rt")
    cyc = _find_cycle(base + len(done), edges)
    if cyc:
        return [("not strictly serializable", _render_cycle(cyc, nodes, edges, t0))]
    return []


def _find_cycle(n, edges):
    """A cycle as a list of nodes, or None (iterative DFS)."""
    color = [0] * n
    parent = [-1] * n
    for s in range(n):
        if color[s]:
            continue
        stack = [(s, iter(edges.get(s, ())))]
        color[s] = 1
        while stack:
            u, it = stack[-1]
            for v in it:
                if color[v] == 0:
                    color[v] = 1
                    parent[v] = u
                    stack.append((v, iter(edges.get(v, ()))))
                    break
                if color[v] == 1:
                    cyc = [u]
                    while cyc[-1] != v:
                        cyc.append(parent[cyc[-1]])
                    return cyc[::-1]
            else:
                color[u] = 2
                stack.pop()
    return None


def _render_cycle(cyc, nodes, edges, t0):
    """The cycle's operations, each followed by the edge leaving it (a path
    through real-time points shown as one "rt" edge)."""
    real = [i for i, u in enumerate(cyc) if u < len(nodes)]
    rows = []
    for j, i in enumerate(real):
        u = cyc[i]
        v = cyc[(i + 1) % len(cyc)]
        rows.append("     " + nodes[u].describe(t0))
        rows.append("        --%s-->" % edges[u][v])
    return "a cycle of %d operations (back to the first):\n%s" % (len(real), "\n".join(rows))


# ---------------------------------------------------------------- conflicts

def check_conflicts(report, ops, t0):
    by_key = collections.defaultdict(list)
    for op in ops:
        for k in op.keys():
            by_key[k].append(op)
    starts = {k: [o.invoke for o in v] for k, v in by_key.items()}
    n = 0
    for op in ops:
        if op.outcome != "fail":
            continue
        if op.error == "TransactionConflictException":
            targets = op.keys()
            if op.f not in SINGLE_WRITES:
                continue  # already an unexpected error
            ok_other = lambda o: o.f in WRITE_TXNS  # noqa: E731
        elif op.error == "TransactionCanceledException":
            reasons = (op.value or {}).get("reasons") or []
            keys = op.keys()
            targets = [k for k, c in zip(keys, reasons) if c == "TransactionConflict"]
            if op.f == "read_all":
                ok_other = lambda o: o.f in SINGLE_WRITES or o.f in WRITE_TXNS  # noqa: E731
            else:
                ok_other = lambda o: o.f in TXNS  # noqa: E731
        else:
            continue
        for k in targets:
            n += 1
            lst = by_key[k]
            hi = bisect.bisect_right(starts[k], op.end())
            found = False
            for o in reversed(lst[:hi]):
                if o is not op and o.end() >= op.invoke and ok_other(o):
                    found = True
                    break
            if not found:
                report.anomaly("conflict without a concurrent operation",
                               "%s on %s reports TransactionConflict, but no operation that "
                               "could conflict on %s overlapped it:\n%s"
                               % (op.f, k, k, _excerpt(lst, [op], t0)))
    report.lines.append("conflicts: %d TransactionConflict reasons, each checked for an "
                        "overlapping operation on its item" % n)


# ---------------------------------------------------------------- the whole

def check(events, budget=DEFAULT_STEP_BUDGET):
    """Checks a history (an iterable of event dicts). Returns a Report."""
    report = Report()
    ops, init = pair_events(events)
    report.ops = len(ops)
    report.by_outcome.update(op.outcome for op in ops)
    report.processes = len({op.process for op in ops})
    t0 = ops[0].invoke if ops else 0
    for op in ops:
        if op.outcome == "fail" and op.error not in EXPECTED_ERRORS.get(op.f, ()):
            report.anomaly("unexpected error", op.describe(t0))
    per_f = collections.defaultdict(collections.Counter)
    for op in ops:
        per_f[op.f][op.error if op.outcome == "fail" else op.outcome] += 1
    for f in sorted(per_f):
        report.lines.append("%-8s %6d: %s" % (f, sum(per_f[f].values()), ", ".join(
            "%s %d" % (k.replace("Exception", ""), n) for k, n in sorted(per_f[f].items()))))
    unknown = collections.Counter(op.error or "no completion" for op in ops
                                  if op.outcome == "info")
    if unknown:
        report.lines.append("unknown outcomes: " + ", ".join(
            "%s %d" % kv for kv in sorted(unknown.items())))
    check_registers(report, ops, t0, budget)
    for initial in init["banks"]:
        check_bank(report, Bank(initial), ops, t0)
    check_conflicts(report, ops, t0)
    return report


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: checker.py HISTORY.jsonl [...]  (the files of one history)\n")
        return 2
    report = check(load_events(argv[1:]))
    print(report.render())
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
