#!/usr/bin/env python3
"""Fault suite: drives the deskgraph binary over real sockets through the failures production brings.

    scripts/faults.sh                      # quick variant (CI), every scenario
    scripts/faults.sh webhook redis        # some scenarios
    FAULTS_SOAK_SECONDS=1800 scripts/faults.sh soak   # the long soak (mixed reads and writes, RSS sampled)

Scenarios (each bounded in time, each on its own SQLite database and random port):
  webhook    a webhook endpoint that never answers, beside a working SMTP sink: every email goes out
  slow       crawling clients (half a header) are cut at the header timeout, others keep their latency
  documents  distinct GraphQL documents: RSS stays under the documented ceiling
  sqlite     the database file may not grow (a full disk): 503, nothing acknowledged lost, recovery
  redis      Redis dies mid-load and comes back: latency holds, budgets are shared again
  postgres   a private PostgreSQL cluster is killed under write load and started again: 503 while it is
             down, recovery without a restart, nothing acknowledged lost (scripts/faults_postgres.py)
  soak       mixed reads and writes for FAULTS_SOAK_SECONDS (default 60), RSS sampled

Only the Python standard library; the binary is FAULTS_BIN (scripts/faults.sh builds the release one).
"""
import asyncio
import http.client
import json
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

BIN = os.environ.get("FAULTS_BIN", "target/release/deskgraph")
QUICK = os.environ.get("FAULTS_LONG", "") == ""
RSS_CEILING_MB = 100


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Server:
    """One deskgraph process on a fresh SQLite database, with an admin, an agent and a requester."""

    def __init__(self, env=None, preexec=None):
        self.dir = tempfile.mkdtemp(prefix="dg-faults-")
        self.db = os.path.join(self.dir, "faults.db")
        self.port = free_port()
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "DATABASE_URL": f"sqlite://{self.db}?mode=rwc",
            "DESKGRAPH_JWT_SECRET": "faults-secret-faults-secret",
            "DESKGRAPH_RATE_LIMIT_AUTHENTICATED": "1000000000",
            "DESKGRAPH_RATE_LIMIT_ANONYMOUS": "1000000000",
            "DESKGRAPH_GRAPHQL_POINTS": "1000000000",
            "DESKGRAPH_GRAPHQL_POINTS_ANONYMOUS": "1000000000",
            "RUST_LOG": "warn",
        }
        self.env.update(env or {})
        run = lambda *args: subprocess.run(
            [BIN, *args], env=self.env, cwd=self.dir, check=True, capture_output=True, text=True
        )
        run("migrate")
        run("user", "create", "agent", "--password", "agent-password-1", "--email",
            "agent@example.com", "--group", "Agents")
        run("user", "create", "ann", "--password", "ann-password-12", "--email", "ann@example.com")
        self.agent = run("token", "create", "agent").stdout.strip().splitlines()[-1]
        self.ann = run("token", "create", "ann").stdout.strip().splitlines()[-1]
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--bind", f"127.0.0.1:{self.port}"],
            env=self.env, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=preexec,
        )
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            self.proc.kill()
            raise AssertionError("the server did not come up")
        self.ann_id = None

    def _drain(self):
        # The log goes through a pipe: a file would be subject to the file-size limit of `sqlite`.
        for line in self.proc.stderr:
            self.log.write(line.decode(errors="replace"))
            self.log.flush()

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def request(self, method, path, body=None, token=None, conn=None):
        own = conn is None
        conn = conn or self.connection()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        response = conn.getresponse()
        data = response.read()
        if own:
            conn.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return response.status, parsed

    def requester_id(self):
        if self.ann_id is None:
            status, body = self.request("POST", "/api/tickets/", {"title": "mine"}, self.ann)
            check(status == 201, f"ann's own ticket: {status} {body}")
            status, body = self.request("GET", f"/api/tickets/{body['id']}/", token=self.ann)
            check(status == 200, f"ann's own ticket: {status} {body}")
            requester = body["requester"]
            self.ann_id = requester["id"] if isinstance(requester, dict) else requester
        return self.ann_id

    def metrics(self):
        conn = self.connection()
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        conn.close()
        return text

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def latencies(server, n, path="/api/tickets/?page_size=5", token=None):
    conn = server.connection()
    out = []
    for _ in range(n):
        started = time.perf_counter()
        status, _ = server.request("GET", path, token=token or server.agent, conn=conn)
        out.append((time.perf_counter() - started) * 1000)
        check(status == 200, f"GET {path}: {status}")
    conn.close()
    return out


# --- webhook -------------------------------------------------------------------------------------

class Sinks:
    """A webhook endpoint that accepts and never answers, and an SMTP server that accepts everything."""

    def __init__(self):
        self.emails = 0
        self.hook_connections = 0
        self.loop = asyncio.new_event_loop()
        self.hook_port, self.smtp_port = free_port(), free_port()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait(5)

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(asyncio.start_server(self._hook, "127.0.0.1", self.hook_port))
        self.loop.run_until_complete(asyncio.start_server(self._smtp, "127.0.0.1", self.smtp_port))
        ready.set()
        self.loop.run_forever()

    async def _hook(self, reader, writer):
        self.hook_connections += 1
        await asyncio.sleep(3600)

    async def _smtp(self, reader, writer):
        writer.write(b"220 sink ESMTP\r\n")
        while True:
            line = await reader.readline()
            if not line:
                return
            upper = line.strip().upper()
            if upper.startswith(b"EHLO"):
                writer.write(b"250-sink\r\n250 8BITMIME\r\n")
            elif upper == b"DATA":
                writer.write(b"354 go on\r\n")
                while (await reader.readline()).rstrip(b"\r\n") != b".":
                    pass
                self.emails += 1
                writer.write(b"250 queued\r\n")
            elif upper == b"QUIT":
                writer.write(b"221 bye\r\n")
                return
            else:
                writer.write(b"250 OK\r\n")


def scenario_webhook():
    sinks = Sinks()
    server = Server({
        "DESKGRAPH_WEBHOOK_URL": f"http://127.0.0.1:{sinks.hook_port}/hook",
        # The hanging endpoint listens on this host, which the target policy allows only when asked.
        "DESKGRAPH_WEBHOOK_ALLOW_PRIVATE": "true",
        "DESKGRAPH_WEBHOOK_SECRET": "fault-suite",
        "DESKGRAPH_SMTP_URL": f"smtp://127.0.0.1:{sinks.smtp_port}",
    })
    try:
        ann = server.requester_id()
        started = time.time()
        for i in range(20):
            status, body = server.request(
                "POST", "/api/tickets/", {"title": f"Printer {i}", "requester": ann}, server.agent)
            check(status == 201, f"create: {status} {body}")
        while sinks.emails < 20 and time.time() - started < 15:
            time.sleep(0.05)
        took = time.time() - started
        check(sinks.emails == 20, f"{sinks.emails} of 20 emails after {took:.1f} s")
        check(took < 5, f"20 emails took {took:.1f} s")
        metrics = server.metrics()
        pending = [l for l in metrics.splitlines()
                   if l.startswith('outbox_destination_pending{destination="webhook:configured"}')]
        check(pending and float(pending[0].split()[-1]) >= 20, f"webhook backlog: {pending}")
        return f"20 emails in {took:.2f} s; the dead endpoint got {sinks.hook_connections} connection(s); {pending[0]}"
    finally:
        server.stop()
        server.cleanup()


# --- slow clients --------------------------------------------------------------------------------

def scenario_slow():
    crawlers_wanted = 1000 if QUICK else 3000
    header_timeout = 2
    server = Server({"DESKGRAPH_HEADER_TIMEOUT_SECONDS": str(header_timeout)})
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, crawlers_wanted + 500)), hard))
    try:
        before = latencies(server, 200)
        started = time.time()
        crawlers = []
        for _ in range(crawlers_wanted):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            crawlers.append(s)
        during = latencies(server, 200)
        closed, deadline = 0, started + header_timeout + 8
        for s in crawlers:
            s.settimeout(max(0.01, deadline - time.time()))
            try:
                closed += s.recv(1) == b""
            except ConnectionResetError:
                closed += 1
            except socket.timeout:
                pass
            s.close()
        took = time.time() - started
        check(closed == crawlers_wanted, f"{closed} of {crawlers_wanted} crawlers closed")
        p99b, p99d = percentile(before, 0.99), percentile(during, 0.99)
        check(p99d < p99b + 20, f"p99 {p99b:.1f} ms before, {p99d:.1f} ms with crawlers")
        return (f"{crawlers_wanted} crawlers closed within {took:.1f} s (header timeout "
                f"{header_timeout} s); p99 {p99b:.1f} ms before, {p99d:.1f} ms during")
    finally:
        server.stop()
        server.cleanup()


# --- distinct documents --------------------------------------------------------------------------

def scenario_documents():
    total = 60_000 if QUICK else 200_000
    server = Server()
    try:
        start_rss = server.rss_mb()
        peak = [start_rss]
        sent = [0]
        lock = threading.Lock()

        def flood(offset, step):
            conn = server.connection()
            for i in range(offset, total, step):
                # About 110 bytes, each distinct and valid, so both caches keep it.
                query = f"query Q{i} {{ a{i}: __typename b{i}: __typename c: __typename d: __typename e: __typename }}"
                status, body = server.request("POST", "/graphql", {"query": query}, conn=conn)
                if status != 200 or "errors" in body:
                    raise AssertionError(f"document {i}: {status} {body}")
                with lock:
                    sent[0] += 1

        threads = [threading.Thread(target=flood, args=(k, 4), daemon=True) for k in range(4)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak.append(server.rss_mb())
            time.sleep(0.2)
        check(sent[0] == total, f"{sent[0]} of {total} documents answered")
        top = max(peak)
        check(top < RSS_CEILING_MB, f"RSS peaked at {top:.0f} MB (ceiling {RSS_CEILING_MB} MB)")
        return f"{total} distinct documents: RSS {start_rss:.0f} MB at start, peak {top:.0f} MB"
    finally:
        server.stop()
        server.cleanup()


# --- SQLite write failure ------------------------------------------------------------------------

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


# --- soak ----------------------------------------------------------------------------------------

def scenario_soak():
    seconds = int(os.environ.get("FAULTS_SOAK_SECONDS", "60"))
    server = Server()
    try:
        ann = server.requester_id()
        samples, created, reads = [], 0, 0
        conn = server.connection()
        end = time.time() + seconds
        while time.time() < end:
            for _ in range(50):
                if random.random() < 0.2:
                    status, _ = server.request("POST", "/api/tickets/",
                                               {"title": "soak", "requester": ann}, server.agent, conn)
                    check(status == 201, f"soak write: {status}")
                    created += 1
                else:
                    query = f"query S{random.randrange(10**9)} {{ __typename }}"
                    status, _ = server.request("POST", "/graphql", {"query": query}, server.agent, conn)
                    check(status == 200, f"soak read: {status}")
                    reads += 1
            samples.append(server.rss_mb())
        top = max(samples)
        check(top < RSS_CEILING_MB, f"RSS peaked at {top:.0f} MB")
        return f"{seconds} s: {created} writes, {reads} reads; RSS first {samples[0]:.0f} MB, peak {top:.0f} MB, last {samples[-1]:.0f} MB"
    finally:
        server.stop()
        server.cleanup()


SCENARIOS = {
    "webhook": (scenario_webhook, 60),
    "slow": (scenario_slow, 90),
    "documents": (scenario_documents, 600),
    "sqlite": (scenario_sqlite, 90),
    "redis": (scenario_redis, 120),
    "postgres": (lambda: __import__("faults_postgres").scenario_postgres(), 90),
    "soak": (scenario_soak, None),
}
QUICK_SET = ["webhook", "slow", "documents", "sqlite", "redis", "postgres"]


def main(names):
    failed = []
    for name in names or QUICK_SET:
        run, limit = SCENARIOS[name]
        if limit is not None:
            signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError(f"over {limit} s")))
            signal.alarm(limit)
        started = time.time()
        try:
            result = run()
            print(f"ok    {name:10} {time.time() - started:6.1f} s  {result}", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, the others still run
            print(f"FAIL  {name:10} {time.time() - started:6.1f} s  {type(e).__name__}: {e}", flush=True)
            failed.append(name)
        finally:
            signal.alarm(0)
    if failed:
        print(f"failed: {' '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    unknown = [n for n in sys.argv[1:] if n not in SCENARIOS]
    if unknown:
        sys.exit(f"unknown scenario(s) {unknown}; known: {' '.join(SCENARIOS)}")
    main(sys.argv[1:])
