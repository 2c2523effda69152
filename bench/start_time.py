#!/usr/bin/env python3
"""How fast the tool starts, and how much memory it holds idle.

    python3 bench/start_time.py [--runs 30] [BINARY...]      (default build/dynarock)

For each binary, the median and minimum over --runs runs of:
  help        `dynarock --help`, exec to exit
  in-memory   `serve --port 0 --in-memory`, exec to the first accepted connection
  data dir    `serve --port 0 --data <new empty dir>`, the same
and the server's VmRSS (and its private part, Private_Dirty + Private_Clean
of anonymous memory: RssAnon) 0.3 s after it accepted its first connection.
"""

import argparse
import shutil
import socket
import statistics
import subprocess
import tempfile
import time


def timed_help(binary, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([binary, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        times.append((time.perf_counter() - start) * 1000)
    return times


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def timed_serve(binary, mode, runs):
    times, rss, anon = [], [], []
    for _ in range(runs):
        work = tempfile.mkdtemp(prefix="dynarock-start.")
        args = ["--in-memory"] if mode == "in-memory" else ["--data", work + "/data"]
        start = time.perf_counter()
        proc = subprocess.Popen([binary, "serve", "--port", "0"] + args, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        try:
            line = proc.stdout.readline()  # dynarock listening on http://HOST:PORT ...
            url = line.split()[3]
            host, port = url.split("//")[1].rstrip("/").split(":")
            socket.create_connection((host, int(port)), timeout=5).close()
            times.append((time.perf_counter() - start) * 1000)
            time.sleep(0.3)
            rss.append(status_kb(proc.pid, "VmRSS") / 1024)
            anon.append(status_kb(proc.pid, "RssAnon") / 1024)
        finally:
            proc.terminate()
            proc.wait()
            shutil.rmtree(work, ignore_errors=True)
    return times, rss, anon


def summary(times):
    return f"median {statistics.median(times):6.2f} ms  min {min(times):6.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("binaries", nargs="*", default=["build/dynarock"])
    args = parser.parse_args()
    for binary in args.binaries:
        print(binary)
        print(f"  help       {summary(timed_help(binary, args.runs))}")
        for mode in ("in-memory", "data dir"):
            times, rss, anon = timed_serve(binary, mode, args.runs)
            print(f"  {mode:10s} {summary(times)}  RSS {statistics.median(rss):5.1f} MB"
                  f" (anonymous {statistics.median(anon):4.1f} MB)")


if __name__ == "__main__":
    main()
