#!/usr/bin/env python3
"""Fault suite: drives the deskgraph binary over real sockets through the failures production brings.

    scripts/faults.sh                      # quick variant (CI), every scenario
    scripts/faults.sh webhook redis        # some scenarios
    FAULTS_SOAK_SECONDS=1800 scripts/faults.sh soak   # the long soak (mixed reads and writes, RSS sampled)

Scenarios (each bounded in time, each on its own database and random port):
  webhook    a webhook endpoint that never answers, beside a working SMTP sink: every email goes out
  slow       crawling clients (half a header) and WebSockets that never sign in are cut at the header
             timeout (the sockets with 4408), others keep their latency
  documents  distinct GraphQL documents: RSS stays under the documented ceiling
  hostile    GraphQL documents made to stop, stall or starve the server (fragment chains and fan-out,
             floods, deep nesting, huge strings, counts), anonymous and as an agent, on SQLite,
             PostgreSQL and an allow-listed instance: each answered within 50 ms of server CPU, RSS
             flat, the process alive (scripts/faults/documents_hostile.py)
  logins     200 sign-ins at once: all answered, RSS under the ceiling (password checks are bounded)
  upload     a 100 MiB attachment up and back down: the same bytes, RSS growth bounded (streaming); a
             GraphQL multipart upload from curl, served by its signed link
  sqlite     the database file may not grow (a full disk): 503, nothing acknowledged lost, recovery
  redis      Redis dies mid-load and comes back: latency holds, budgets are shared again
  postgres   a private PostgreSQL cluster is killed under write load and started again: 503 while it is
             down, recovery without a restart, nothing acknowledged lost, every create's webhook
             delivered at least once (scripts/faults/postgres.py)
  vanish     10,000 creates whose clients close the socket 0-6 ms after sending, on a private PostgreSQL
             cluster: no connection left idle in a transaction, no transaction warning in the server's
             log, every committed ticket with its audit record and outbox row (scripts/faults/vanish.py)
  instances  two instances on one PostgreSQL database, one killed with SIGKILL under write load: nothing
             acknowledged lost, numbers gapless, every create's webhook delivered at least once
  soak       mixed reads and writes for FAULTS_SOAK_SECONDS (default 60), RSS sampled

Only the Python standard library; the binary is FAULTS_BIN (scripts/faults.sh builds the release one). The
scenarios live in delivery, files, resources, stores, postgres,
documents_hostile, vanish and instances; the shared pieces in common.
"""
import signal
import sys
import time

import delivery
import documents_hostile
import files
import instances
import postgres
import resources
import stores
import vanish

SCENARIOS = {
    "webhook": (delivery.scenario_webhook, 60),
    "slow": (resources.scenario_slow, 90),
    "documents": (resources.scenario_documents, 600),
    "hostile": (documents_hostile.scenario_hostile, 120),
    "logins": (resources.scenario_logins, 90),
    "upload": (files.scenario_upload, 180),
    "sqlite": (stores.scenario_sqlite, 90),
    "redis": (stores.scenario_redis, 120),
    "postgres": (postgres.scenario_postgres, 150),
    "vanish": (vanish.scenario_vanish, 150),
    "instances": (instances.scenario_instances, 150),
    "soak": (resources.scenario_soak, None),
}
QUICK_SET = ["webhook", "slow", "documents", "hostile", "logins", "upload", "sqlite", "redis", "postgres",
             "vanish", "instances"]


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
