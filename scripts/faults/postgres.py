"""The PostgreSQL scenario of the fault suite (scripts/faults/run.py): the database is killed under write load.

It runs a private PostgreSQL cluster (initdb into a temporary directory, a random port), never a shared
server: `pg_ctl stop -m immediate` kills it as a crash would. While it is down, writes and reads answer 503
`unavailable` within the acquire timeout; once it is started again the same deskgraph process serves
writes, every acknowledged ticket is there, ticket numbers have no gaps, and every acknowledged ticket's
`ticket.created` webhook reaches a recording endpoint at least once (duplicates are allowed: delivery is at
least once).
"""
import glob
import os
import shutil
import subprocess
import tempfile
import threading
import time

from common import Server, check, free_port, percentile
from delivery import WebhookRecorder

ACQUIRE_TIMEOUT_MS = 1000
# How long, after the writes stop, every acknowledged create's webhook may take to arrive.
DELIVERY_WAIT_SECONDS = 45


def _bin(name):
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class Cluster:
    """A throwaway PostgreSQL cluster; run as the `postgres` user when this process is root."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="dg-faults-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.as_user = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run(_bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    def _run(self, *args):
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, text=True)

    def start(self):
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(_bin("pg_ctl"), "-D", self.data, "-o", options, "-l",
                  os.path.join(self.dir, "pg.log"), "-w", "start")

    def kill(self):
        self._run(_bin("pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop")

    def numbers(self):
        """Every ticket's number, as the database holds them."""
        out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d",
                              "postgres", "-Atc", "SELECT ticket_number FROM tickets"],
                             check=True, capture_output=True, text=True).stdout
        return [int(line.rsplit("-", 1)[1]) for line in out.split()]

    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def cleanup(self):
        try:
            self.kill()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


class Writers:
    """Threads creating tickets without pause; keeps every acknowledged id and every answer's status."""

    def __init__(self, server, threads=4):
        self.server = server
        self.acknowledged, self.answers = [], []
        self.lock = threading.Lock()
        self.running = True
        self.threads = [threading.Thread(target=self._write, daemon=True) for _ in range(threads)]
        for t in self.threads:
            t.start()

    def _write(self):
        while self.running:
            started = time.time()
            try:
                status, body = self.server.request("POST", "/api/tickets/", {"title": "under fault"},
                                                   self.server.agent)
            except OSError as e:
                status, body = None, str(e)
            with self.lock:
                self.answers.append((started, time.time() - started, status, body))
                if status == 201:
                    self.acknowledged.append(body["id"])
            if status != 201:
                time.sleep(0.05)

    def since(self, when):
        with self.lock:
            return [a for a in self.answers if a[0] >= when]

    def stop(self):
        self.running = False
        for t in self.threads:
            t.join(timeout=30)


def scenario_postgres():
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "skipped: no initdb/pg_ctl"
    cluster = Cluster()
    hooks = WebhookRecorder()
    server = Server({"DATABASE_URL": cluster.url(),
                     "DESKGRAPH_DB_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_TIMEOUT_MS), **hooks.env()})
    writers = None
    try:
        writers = Writers(server)
        time.sleep(2)
        before = len(writers.acknowledged)
        check(before > 0, "no write succeeded before the fault")
        killed = time.time()
        cluster.kill()
        time.sleep(4)
        down = [a for a in writers.since(killed + 0.5) if a[0] + a[1] < time.time() - 0.1]
        check(down, "no request answered while the database was down")
        refused = [a for a in down if a[2] != 201]
        wrong = [a[2:] for a in refused if a[2] != 503 or not isinstance(a[3], dict)
                 or a[3].get("code") != "unavailable"]
        check(not wrong, f"while down, answers other than 503 unavailable: {wrong[:3]}")
        slowest = max(a[1] for a in down)
        check(slowest < ACQUIRE_TIMEOUT_MS / 1000 + 2, f"a request waited {slowest:.1f} s while down")
        status, body = server.request("GET", "/api/tickets/?page_size=5", token=server.agent)
        check(status == 503 and body.get("code") == "unavailable", f"read while down: {status} {body}")
        restarted = time.time()
        cluster.start()
        deadline = time.time() + 20
        while time.time() < deadline and not any(a[2] == 201 for a in writers.since(restarted)):
            time.sleep(0.1)
        recovered = [a for a in writers.since(restarted) if a[2] == 201]
        check(recovered, "writes did not resume after the database came back")
        recovery = recovered[0][0] + recovered[0][1] - restarted
        time.sleep(1)
        writers.stop()
        acknowledged = list(writers.acknowledged)
        missing = []
        conn = server.connection()
        for ticket_id in acknowledged:
            status, _ = server.request("GET", f"/api/tickets/{ticket_id}/", token=server.agent, conn=conn)
            if status != 200:
                missing.append((ticket_id, status))
        conn.close()
        check(not missing, f"acknowledged tickets lost: {missing[:5]}")
        # A crash mid-transaction rolls the number back with the ticket: numbers stay gapless.
        numbers = sorted(cluster.numbers())
        check(numbers == list(range(1, len(numbers) + 1)),
              f"ticket numbers not gapless: {len(numbers)} tickets, highest {numbers[-1] if numbers else 0}")
        missed, duplicates, waited = hooks.wait_for("ticket.created", acknowledged, DELIVERY_WAIT_SECONDS)
        check(not missed, f"{len(missed)} acknowledged creates without a ticket.created webhook after "
                          f"{waited:.0f} s: {missed[:5]}")
        p50 = percentile([a[1] * 1000 for a in down], 0.5)
        return (f"{len(acknowledged)} acknowledged creates all kept, {len(numbers)} numbers gapless; while down {len(down)} answers, "
                f"{len(refused)} 503 unavailable, median {p50:.0f} ms, slowest {slowest * 1000:.0f} ms; "
                f"writes resumed {recovery:.1f} s after the restart, same process; every create's webhook "
                f"delivered ({duplicates} duplicate(s), all in {waited:.1f} s after the writes stopped)")
    finally:
        if writers is not None:
            writers.stop()
        server.stop()
        server.cleanup()
        cluster.cleanup()
        hooks.stop()
