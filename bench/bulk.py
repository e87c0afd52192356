#!/usr/bin/env python3
"""Times one bulk change of the tickets in IDS_FILE (comma-separated ids, up to 10,000), asked for over REST and
made by the running instance's worker, and appends a row in bench/run.sh's shape to RESULTS: `requests` is the
tickets tried, `rps` tickets per second, `p50_ms` and `p99_ms` the time from asking to done.

    bench/bulk.py BASE TOKEN IDS_FILE SERVER_PID RESULTS.jsonl SYSTEM
"""
import json
import sys
import time
import urllib.request

BASE, TOKEN, IDS_FILE, PID, RESULTS, SYSTEM = sys.argv[1:7]


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req) as answer:
        return json.loads(answer.read())


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return 0.0


ids = [int(i) for i in open(IDS_FILE).read().strip().split(",") if i]
started = time.perf_counter()
job = call("POST", "/api/tickets/bulk/", {"ids": ids, "changes": {"priority": "low", "add_tags": ["bulk"]}})
while job["status"] != "done":
    time.sleep(0.2)
    job = call("GET", job["url"].removeprefix(BASE))
seconds = time.perf_counter() - started
row = {
    "scenario": f"bulk_{len(ids)}", "system": SYSTEM, "requests": job["processed"], "seconds": seconds,
    "rps": job["processed"] / seconds, "p50_ms": seconds * 1000, "p99_ms": seconds * 1000,
    "non2xx": job["failed"], "socket_errors": 0, "peak_rss_mb": peak_rss_mb(PID),
}
with open(RESULTS, "a") as out:
    out.write(json.dumps(row) + "\n")
print(f"[bench] {json.dumps(row)}", file=sys.stderr)
