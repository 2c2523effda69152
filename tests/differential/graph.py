#!/usr/bin/env python3
"""The graph layer against DynamoDB Local: the seed graphs loaded through the
layer (`dynarock graph demo --endpoint`) into `dynarock serve` and into
DynamoDB Local, then the same questions asked of both from the command line
(`dynarock graph query` neighbours, khop, path, common, degree and walk,
`graph export`, `graph stats`), every answer compared in its defined order.

    tests/differential/graph.py            # every question, a summary
    tests/differential/graph.py -v         # each question and any difference

The walk questions also compare their plan and cost (requests, items read and
the read capacity units each server reports), so the layer's accounting is held
to DynamoDB Local's; the walks' answers are also held to the seeds'. Setup as
for run.py (scripts/install-deps.sh --differential). Fails (AssertionError,
exit 1) when an answer differs, is missing on either side, or is not the
seed's.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (start_servers: DynamoDB Local and dynarock serve)

KOAN = ["--table", "demo_records"]
CONTACT = ["--table", "demo_Contact", "--valid-from", "StartTimestampUTC",
           "--valid-to", "EndTimestampUTC"]
LEADS = ["--step", "out:GOALMEMBERSHIP", "--edge-filter", "#r = :lead", "--names",
         '{"#r": "memberRole"}', "--values", '{":lead": {"S": "LEAD"}}']

# (name, arguments after `dynarock graph`); JSON answers where there is a choice.
QUESTIONS = [
    ("neighbours", ["query", "neighbours", "USER#Frodo", "--table", "demo_middle_earth", "--format", "json"]),
    ("khop", ["query", "khop", "USER#Samwise", "--hops", "2", "--table", "demo_middle_earth", "--format", "json"]),
    ("path", ["query", "path", "USER-U2", "USER-U3", "--direction", "both", "--table", "demo_records",
              "--format", "json"]),
    ("common", ["query", "common", "USER#Alice", "USER#Bob", "--type", "FRIEND", "--table", "demo_users",
                "--format", "json"]),
    ("degree", ["query", "degree", "GOAL-G1", "--table", "demo_records", "--format", "json"]),
    ("walk rank range + edge filter", ["query", "walk", "USER-U1", "--step", "in:GOALMEMBERSHIP", "--key",
                                       "= 400-CONTRIBUTOR", *LEADS, *KOAN, "--plan", "--format", "json"]),
    ("walk rank >= ", ["query", "walk", "USER-U1", "--step", "in:GOALMEMBERSHIP", "--key", ">= 400-CONTRIBUTOR",
                       *KOAN, "--plan", "--format", "json"]),
    ("walk two steps by edge sets", ["query", "walk", "GOAL-G1", "--step", "out:GOALMEMBERSHIP", "--step",
                                     "in:GOALMEMBERSHIP", *KOAN, "--plan", "--format", "json"]),
    ("walk page 1", ["query", "walk", "GOAL-G1", "--step", "out:GOALMEMBERSHIP", "--step", "in:GOALMEMBERSHIP",
                     "--limit", "1", *KOAN, "--format", "json"]),
    ("walk as of 2005", ["query", "walk", "Person#bob", "--step", "out:PersonAddress", "--valid-at", "1117584000",
                         "--step", "in:PersonAddress", "--valid-at", "1117584000", *CONTACT, "--plan",
                         "--format", "json"]),
    ("walk node filter", ["query", "walk", "GOAL-G1", "--step", "out:GOALMEMBERSHIP", "--node-filter", "#n = :n",
                          "--names", '{"#n": "name"}', "--values", '{":n": {"S": "Ravi Shah"}}', *KOAN, "--plan",
                          "--format", "json"]),
    ("walk out, every type", ["query", "walk", "USER#Frodo", "--step", "out", "--table", "demo_middle_earth",
                              "--plan", "--format", "json"]),
    ("export neighbourhood", ["export", "--table", "demo_middle_earth", "--node", "USER#Samwise", "--hops", "2"]),
    ("export whole graph", ["export", "--table", "demo_Contact", "--format", "graphml"]),
    ("stats", ["stats", "--table", "demo_records", "--format", "json"]),
]


# The seeds' answers to the walks (in the order found), which both servers
# must give.
EXPECTED = {
    "walk rank range + edge filter": ["USER-U3"],
    "walk rank >= ": ["GOAL-G3", "GOAL-G2", "GOAL-G1"],
    "walk two steps by edge sets": ["GOAL-G2", "GOAL-G3"],
    "walk page 1": ["GOAL-G2"],
    "walk as of 2005": ["Person#sally"],
    "walk node filter": ["USER-U2"],
    "walk out, every type": ["USER#Gandalf", "USER#Samwise", "PLACE#Gondor", "PLACE#TheShire"],
}


def dynarock(binary, args, port):
    out = subprocess.run([binary, "graph", *args, "--endpoint", "http://127.0.0.1:%d" % port],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, AWS_ACCESS_KEY_ID="AKIDGRAPH", AWS_SECRET_ACCESS_KEY="x"))
    return out.returncode, out.stdout, out.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()
    binary = os.environ.get("DYNAROCK_BIN") or os.path.join(run.ROOT, "build", "dynarock")
    with tempfile.TemporaryDirectory(prefix="dynarock-graph-diff-") as work:
        (local, local_port), (rock, rock_port) = run.start_servers(work)
        try:
            for port in (local_port, rock_port):
                rc, _, err = dynarock(binary, ["demo"], port)
                if rc != 0:
                    sys.exit("graph demo failed on port %d: %s" % (port, err))
            failures = []
            for name, args in QUESTIONS:
                a = dynarock(binary, args, local_port)
                b = dynarock(binary, args, rock_port)
                same = a == b
                if opts.verbose or not same:
                    print("%s %s" % ("same   " if same else "DIFFERS", name))
                if not same:
                    print("  DynamoDB Local: exit %d\n%s%s" % (a[0], a[1], a[2]))
                    print("  dynarock:       exit %d\n%s%s" % (b[0], b[1], b[2]))
                    failures.append(name + ": the answers differ")
                # Two servers failing alike is not an agreement: every question
                # has an answer.
                if a[0] != 0 or not a[1].strip():
                    failures.append("%s: DynamoDB Local gave no answer (exit %d): %s" % (name, a[0], a[2].strip()))
                if b[0] != 0 or not b[1].strip():
                    failures.append("%s: dynarock gave no answer (exit %d): %s" % (name, b[0], b[2].strip()))
                want = EXPECTED.get(name)
                if want is not None and b[0] == 0:
                    got = json.loads(b[1])["Results"]
                    if got != want:
                        failures.append("%s: results %s, the seed says %s" % (name, got, want))
                if opts.verbose and same and name in EXPECTED:
                    print("  " + json.dumps(json.loads(a[1]).get("Results")))
            print("graph differential: %d questions, %d failures" % (len(QUESTIONS), len(failures)))
            assert not failures, "\n".join(failures)
            return 0
        finally:
            for p in (local, rock):
                p.kill()
                p.wait()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("graph differential failed:\n" + str(e), file=sys.stderr)
        sys.exit(1)
