"""Store scenarios of the fault suite (scripts/faults/run.py): a full disk under SQLite and a Redis outage."""
import os
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time

from common import QUICK, Server, check, free_port, latencies, percentile


def scenario_sqlite():
    limit = [resource.RLIM_INFINITY]

    def preexec():
        # The file-size limit (a full disk, seen from the process) is lowered later with prlimit.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    server = Server(preexec=preexec)
    try:
        acknowledged = []
        big = "x" * 20_000
        for i in range(5):
            status, body = server.request("POST", "/api/tickets/", {"title": f"Before {i}", "description": big}, server.ann)
            check(status == 201, f"create: {status} {body}")
            acknowledged.append(body["id"])
        sizes = [os.path.getsize(p) for p in (server.db, server.db + "-wal") if os.path.exists(p)]
        limit[0] = max(sizes) + 64 * 1024
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (limit[0], resource.RLIM_INFINITY))
        refused = None
        for i in range(200):
            status, body = server.request("POST", "/api/tickets/", {"title": f"Full {i}", "description": big}, server.ann)
            if status == 201:
                acknowledged.append(body["id"])
                continue
            refused = (status, body)
            break
        check(refused is not None, "the full disk never refused a write")
        check(refused[0] == 503 and refused[1]["code"] == "unavailable", f"refused with {refused}")
        status, _ = server.request("GET", "/api/tickets/?page_size=5", token=server.ann)
        check(status == 200, f"reads while full: {status}")
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        status, body = server.request("POST", "/api/tickets/", {"title": "After", "description": big}, server.ann)
        check(status == 201, f"after space returned: {status} {body}")
        acknowledged.append(body["id"])
        server.stop()
        db = sqlite3.connect(server.db)
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        stored = {row[0] for row in db.execute("SELECT id FROM tickets")}
        db.close()
        check(integrity == "ok", f"integrity_check: {integrity}")
        lost = [i for i in acknowledged if i not in stored]
        check(not lost, f"acknowledged tickets lost: {lost}")
        return (f"503 unavailable once files could not grow; {len(acknowledged)} acknowledged "
                f"tickets all kept; integrity ok; writes resumed")
    finally:
        server.stop()
        server.cleanup()


# --- Redis outage --------------------------------------------------------------------------------

def scenario_redis():
    if shutil.which("redis-server") is None:
        return "skipped: no redis-server"
    port = free_port()
    rdir = tempfile.mkdtemp(prefix="dg-faults-redis-")

    def start_redis():
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", rdir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return proc
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    redis = start_redis()
    server = Server({"DESKGRAPH_REDIS_URL": f"redis://127.0.0.1:{port}",
                     "DESKGRAPH_REDIS_KEY_PREFIX": f"faults{port}"})
    n = 300 if QUICK else 3000
    try:
        before = latencies(server, n)
        redis.kill()
        redis.wait()
        during = latencies(server, n)
        redis = start_redis()
        time.sleep(2)
        after = latencies(server, n)
        keys = subprocess.run(["redis-cli", "-p", str(port), "--scan", "--pattern", f"faults{port}*"],
                              capture_output=True, text=True).stdout.split()
        check(keys, "no budget counted in Redis after it came back")
        p99 = [percentile(x, 0.99) for x in (before, during, after)]
        check(p99[1] < p99[0] + 10, f"p99 {p99[0]:.1f} ms before, {p99[1]:.1f} ms during the outage")
        switches = [l for l in server.metrics().splitlines() if l.startswith("shared_store_switches_total")]
        return (f"p99 before {p99[0]:.1f} ms, Redis down {p99[1]:.1f} ms, back {p99[2]:.1f} ms; "
                f"counting in Redis again ({len(keys)} keys); {'; '.join(switches)}")
    finally:
        server.stop()
        server.cleanup()
        redis.kill()
        redis.wait()
        shutil.rmtree(rdir, ignore_errors=True)
