"""Shared pieces of the fault suite (scripts/faults/run.py): the binary, a server on a fresh database, checks and
latency sampling."""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
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
    """One deskgraph process on a fresh SQLite database, with an admin, an agent and a requester; or, with
    `peer`, a second process on the peer's database and with its users and tokens."""

    def __init__(self, env=None, preexec=None, peer=None):
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
            # Like the budgets: each scenario loads the service from one client, and a viewer's share of the
            # database would queue it (the share has its own tests, tests/api/limits/pool_share.rs).
            "DESKGRAPH_VIEWER_CONCURRENCY": "100000",
            "RUST_LOG": "warn",
        }
        self.env.update(env or {})
        run = lambda *args: subprocess.run(
            [BIN, *args], env=self.env, cwd=self.dir, check=True, capture_output=True, text=True
        )
        if peer is not None:
            self.agent, self.ann = peer.agent, peer.ann
        else:
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

    def rss_mb(self, field="VmRSS"):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def peak_rss_mb(self):
        return self.rss_mb("VmHWM")

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
