#!/usr/bin/env python3
"""Instructions per call of engine_bench's operations and raw baselines (callgrind).

    python3 bench/cgpair.py [--bench build/bench/engine_bench] BENCHMARK...
    python3 bench/cgpair.py BM_QueryFilter1000Encoded BM_RawRocksDBIterate1000

Wall-clock ratios on a shared VM move by tens of percent between runs;
instruction counts do not. For each benchmark this runs engine_bench under
valgrind's callgrind, collecting only inside the benchmark's function (the
shared tables' set-up excluded), and prints:

  calls       how many times the operation's marker function ran (one per
              iteration, over all of Google Benchmark's trial runs)
  loop/iter   instructions of the whole benchmark loop per iteration (what a
              raw baseline costs: its RocksDB calls are inline in the loop)
  op/call     inclusive instructions of the engine operation per call (what an
              engine benchmark costs, without the loop's request building)

Compare an engine benchmark's op/call with its baseline's loop/iter. Counts
leave out cache misses, which the raw loops partly avoid (they never touch
the values).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROCKS_GET = ("rocksdb::DBImpl::Get(rocksdb::ReadOptions const&, rocksdb::ColumnFamilyHandle*, "
             "rocksdb::Slice const&, rocksdb::PinnableSlice*)")
ROCKS_MULTIGET = ("rocksdb::DBImpl::MultiGet(rocksdb::ReadOptions const&, "
                  "rocksdb::ColumnFamilyHandle*, unsigned long, rocksdb::Slice const*, "
                  "rocksdb::PinnableSlice*, rocksdb::Status*, bool)")

# Benchmark (prefix before '/') -> the function called once per iteration.
MARKERS = {
    "BM_GetItem": "dynarock::DBImpl::GetItem(",
    "BM_GetItemEncoded": "dynarock::DBImpl::GetItem(",
    "BM_BatchGetItem100": "dynarock::DBImpl::BatchGetItem(",
    "BM_BatchGetItem100Encoded": "dynarock::DBImpl::BatchGetItem(",
    "BM_Query100": "dynarock::DBImpl::Query(",
    "BM_Query100Encoded": "dynarock::DBImpl::Query(",
    "BM_QueryJson100Encoded": "dynarock::api::EncodeQueryResponse[abi:cxx11](",
    "BM_QueryFilter1000": "dynarock::DBImpl::Query(",
    "BM_QueryFilter1000Encoded": "dynarock::DBImpl::Query(",
    "BM_Scan1000": "dynarock::DBImpl::Scan(",
    "BM_Scan1000Encoded": "dynarock::DBImpl::Scan(",
    "BM_PutItem_0Gsi": "dynarock::DBImpl::PutItem(",
    "BM_PutItemMoved_0Gsi": "dynarock::DBImpl::PutItem(",
    "BM_PutItem_1Gsi": "dynarock::DBImpl::PutItem(",
    "BM_PutItem_5Gsi": "dynarock::DBImpl::PutItem(",
    "BM_BatchWriteItem25": "dynarock::DBImpl::BatchWriteItem(",
    "BM_RawRocksDBMultiGetWrite25": "rocksdb::DBImpl::Write(",
    "BM_RawRocksDBGet": ROCKS_GET,
    "BM_RawRocksDBMultiGet100": ROCKS_MULTIGET,
    "BM_RawRocksDBIterate100": "rocksdb::DBImpl::NewIterator(",
    "BM_RawRocksDBIterate1000": "rocksdb::DBImpl::NewIterator(",
    "BM_RawRocksDBScan1000": "rocksdb::DBImpl::NewIterator(",
    "BM_RawRocksDBPut": "rocksdb::DBImpl::Write(",
}
# The functions whose loops hold each benchmark (collection is on inside them).
LOOPS = {"BM_PutItem_0Gsi": "PutItemBench", "BM_PutItemMoved_0Gsi": "PutItemMovedBench", "BM_PutItem_1Gsi": "PutItemBench",
         "BM_PutItem_5Gsi": "PutItemBench", "BM_QueryJson100Encoded": "QueryJsonBench"}


def measure(bench, name, out_dir):
    base = name.split("/")[0]
    marker = MARKERS.get(base)
    if marker is None:
        sys.exit(f"cgpair: no marker function known for {name} (add it to MARKERS)")
    out = os.path.join(out_dir, "cg." + name.replace("/", "_"))
    loop = LOOPS.get(base, base)
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--collect-atstart=no",
         f"--toggle-collect=*{loop}(*", "--toggle-collect=*Raw::Raw(*",
         "--toggle-collect=*Engine::Engine(*", bench, f"--benchmark_filter=^{name}$",
         "--benchmark_min_time=0.2"],
        capture_output=True, check=True)
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--tree=caller", out],
        capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"([\d,]+) +\(100\.0%\) +PROGRAM TOTALS", text).group(1).replace(",", ""))
    lines = text.splitlines()
    calls = inclusive = 0
    for i, line in enumerate(lines):
        if re.search(r"\*\s+\S*" + re.escape(marker), line):
            inclusive = int(line.split()[0].replace(",", ""))
            j = i - 1
            while j >= 0 and "<" in lines[j]:  # the callers, with their call counts
                m = re.search(r"\((\d[\d,]*)x\)", lines[j])
                if m:
                    calls += int(m.group(1).replace(",", ""))
                j -= 1
            break
    calls = max(calls, 1)
    return calls, total // calls, inclusive // calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default="build/bench/engine_bench")
    parser.add_argument("benchmarks", nargs="+")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out_dir:
        print(f"{'benchmark':30s} {'calls':>7s} {'loop/iter':>12s} {'op/call':>12s}")
        for name in args.benchmarks:
            calls, per_iter, per_call = measure(args.bench, name, out_dir)
            print(f"{name:30s} {calls:7d} {per_iter:12,d} {per_call:12,d}")
            if calls < 10:
                print(f"cgpair: {name} ran {calls} time(s) under callgrind: its figure is a "
                      "first call's, not a steady state's (is something built in its first "
                      "iteration?)", file=sys.stderr)


if __name__ == "__main__":
    main()
