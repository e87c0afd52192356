"""The vanishing-clients scenario of the fault suite (scripts/faults/run.py): creates whose clients give up.

Thousands of `POST /api/tickets/` are sent over real sockets to the release binary on a private PostgreSQL
cluster (see `postgres.Cluster`), each client closing its socket 0-6 ms after sending, so that the
service sees requests abandoned at every point of a create. Afterwards:
- no connection of the service is left idle inside a transaction (`pg_stat_activity`);
- the PostgreSQL log written during the run has no transaction warning or error (a pooled connection handed
  on inside a stale transaction shows up there as `there is already a transaction in progress`, `there is no
  transaction in progress` or `current transaction is aborted`);
- every ticket that was committed has its audit record and its `ticket.created` outbox row;
- ordinary traffic afterwards (reads and creates that wait for their answers) gets no 5xx;
- the pool never had to close a connection given back inside a transaction (the service's own log): no write
  was dropped halfway.
"""
import os
import random
import socket
import subprocess
import threading
import time

from common import QUICK, Server, check
from delivery import WebhookRecorder
from postgres import Cluster, _bin

CREATES = 10_000 if QUICK else 50_000
# Few enough that most creates are under way, not still queued, when their client leaves.
THREADS = 8
# How long the service may take, after the last client left, to finish what it had admitted.
SETTLE_SECONDS = 45
# What in the server log would show a connection handed on inside a transaction it did not start.
TRANSACTION_TROUBLE = ("transaction in progress", "current transaction is aborted",
                       "idle-in-transaction", "transaction timeout")


def _psql(cluster, sql):
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "-d",
                          "postgres", "-Atc", sql], check=True, capture_output=True, text=True).stdout
    return out.strip()


def _vanishing_creates(server, count):
    """`count` creates from clients that close their socket 0-6 ms after sending; returns how many
    requests were sent."""
    sent = [0]
    lock = threading.Lock()
    left = [count]

    def client():
        rng = random.Random()
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
                n = left[0]
            body = ('{"title": "vanishing %d"}' % n).encode()
            request = (f"POST /api/tickets/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       f"Authorization: Bearer {server.agent}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body
            try:
                with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
                    s.sendall(request)
                    time.sleep(rng.uniform(0, 0.006))
            except OSError:
                continue
            with lock:
                sent[0] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sent[0]


def _settle(cluster):
    """Wait until the service has finished what it admitted (the ticket count holds still for two seconds);
    returns the backends then idle in a transaction for over a second (a live transaction never pauses that
    long between statements; a stale one stays so until its connection is next used)."""
    deadline = time.time() + SETTLE_SECONDS
    last, still_since = None, time.time()
    while time.time() < deadline:
        count = _psql(cluster, "SELECT count(*) FROM tickets")
        if count != last:
            last, still_since = count, time.time()
        elif time.time() - still_since >= 2:
            break
        time.sleep(0.2)
    stale = []
    for _ in range(5):
        rows = _psql(cluster, "SELECT pid, state, left(query, 60) FROM pg_stat_activity "
                              "WHERE datname = 'postgres' AND state LIKE 'idle in transaction%' "
                              "AND state_change < now() - interval '1 second'")
        stale.extend(line for line in rows.splitlines() if line)
        time.sleep(0.3)
    return stale


def _orphans(cluster):
    """Tickets committed without their audit record, and without their `ticket.created` outbox row."""
    no_audit = _psql(cluster, "SELECT count(*) FROM tickets t WHERE NOT EXISTS (SELECT 1 FROM audit_events a "
                              "WHERE a.entity_type = 'ticket' AND a.entity_id = t.id AND a.action = 'create')")
    no_outbox = _psql(cluster, "SELECT count(*) FROM tickets t WHERE NOT EXISTS (SELECT 1 FROM outbox o "
                               "WHERE o.event = 'ticket.created' AND o.kind = 'webhook' "
                               "AND (o.payload::jsonb ->> 'ticket_id')::int = t.id)")
    return int(no_audit), int(no_outbox)


def _normal_traffic(server, rounds=100):
    """Reads and creates that wait for their answers; returns the 5xx answers."""
    bad = []
    conn = server.connection()
    for i in range(rounds):
        for method, path, body in (("GET", "/api/tickets/?limit=5", None),
                                   ("POST", "/api/tickets/", {"title": f"after {i}"})):
            status, answer = server.request(method, path, body, server.agent, conn=conn)
            if status >= 500 or (method == "POST" and status != 201):
                bad.append((method, status, answer))
    conn.close()
    return bad


def scenario_vanish():
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "skipped: no initdb/pg_ctl"
    cluster = Cluster()
    hooks = WebhookRecorder()
    server = Server({"DATABASE_URL": cluster.url(), **hooks.env()})
    log = os.path.join(cluster.dir, "pg.log")
    try:
        status, body = server.request("POST", "/api/tickets/", {"title": "warm-up"}, server.agent)
        check(status == 201, f"warm-up create: {status} {body}")
        offset = os.path.getsize(log)
        started = time.time()
        sent = _vanishing_creates(server, CREATES)
        flood = time.time() - started
        stale = _settle(cluster)
        with open(log, errors="replace") as f:
            f.seek(offset)
            written = f.read()
        trouble = [line for line in written.splitlines()
                   if any(words in line for words in TRANSACTION_TROUBLE)]
        errors = [line for line in written.splitlines() if " ERROR: " in line or " WARNING: " in line]
        committed = int(_psql(cluster, "SELECT count(*) FROM tickets")) - 1
        no_audit, no_outbox = _orphans(cluster)
        bad = _normal_traffic(server)
        with open(os.path.join(server.dir, "server.log"), errors="replace") as f:
            closed = [line for line in f if "came back inside a transaction" in line]
        check(not stale, f"{len(stale)} connection(s) idle in a transaction: {stale[:3]}")
        check(not trouble, f"{len(trouble)} transaction warning(s) in the PostgreSQL log: {trouble[:3]}")
        check(not errors, f"{len(errors)} error(s) in the PostgreSQL log: {errors[:3]}")
        check(no_audit == 0 and no_outbox == 0,
              f"of {committed} committed tickets, {no_audit} lack their audit record, {no_outbox} their outbox row")
        check(not bad, f"{len(bad)} failed answer(s) to ordinary traffic afterwards: {bad[:3]}")
        check(not closed, f"the pool closed {len(closed)} connection(s) given back inside a transaction")
        check(server.proc.poll() is None, "the server died")
        return (f"{sent} creates abandoned 0-6 ms after sending in {flood:.1f} s, {committed} committed, each "
                f"with its audit record and outbox row; no connection idle in a transaction, no transaction "
                f"warning in the PostgreSQL log; 200 ordinary requests afterwards all answered")
    finally:
        server.stop()
        server.cleanup()
        cluster.cleanup()
        hooks.stop()
