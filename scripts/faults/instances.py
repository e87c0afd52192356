"""The two-instance scenario of the fault suite (scripts/faults/run.py): two deskgraph processes share one
PostgreSQL database (a private cluster, as in postgres) under write load, and one is killed with
SIGKILL. The survivor keeps serving; every create either acknowledged is there, ticket numbers have no gaps,
and every acknowledged ticket's `ticket.created` webhook reaches a recording endpoint at least once, the
dead instance's claimed deliveries included (another worker takes them when their lease runs out).
"""
import time

from common import Server, check
from delivery import WebhookRecorder
from postgres import DELIVERY_WAIT_SECONDS, Cluster, Writers, _bin


def scenario_instances():
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "skipped: no initdb/pg_ctl"
    cluster = Cluster()
    hooks = WebhookRecorder()
    env = {"DATABASE_URL": cluster.url(), **hooks.env()}
    first = Server(env)
    second = None
    writers = []
    try:
        second = Server(env, peer=first)
        writers = [Writers(first, threads=2), Writers(second, threads=2)]
        time.sleep(3)
        check(all(w.acknowledged for w in writers), "an instance acknowledged no write before the kill")
        killed = time.time()
        second.proc.kill()
        second.proc.wait()
        time.sleep(3)
        check(any(a[2] == 201 for a in writers[0].since(killed + 0.5)),
              "the surviving instance stopped acknowledging writes")
        for w in writers:
            w.stop()
        acknowledged = [i for w in writers for i in w.acknowledged]
        lost = []
        conn = first.connection()
        for ticket_id in acknowledged:
            status, _ = first.request("GET", f"/api/tickets/{ticket_id}/", token=first.agent, conn=conn)
            if status != 200:
                lost.append((ticket_id, status))
        conn.close()
        check(not lost, f"acknowledged tickets lost: {lost[:5]}")
        numbers = sorted(cluster.numbers())
        check(numbers == list(range(1, len(numbers) + 1)),
              f"ticket numbers not gapless: {len(numbers)} tickets, highest {numbers[-1] if numbers else 0}")
        missed, duplicates, waited = hooks.wait_for("ticket.created", acknowledged, DELIVERY_WAIT_SECONDS)
        check(not missed, f"{len(missed)} acknowledged creates without a ticket.created webhook after "
                          f"{waited:.0f} s: {missed[:5]}")
        return (f"{len(acknowledged)} acknowledged creates ({len(writers[1].acknowledged)} by the killed "
                f"instance) all kept, {len(numbers)} numbers gapless; every create's webhook delivered "
                f"({duplicates} duplicate(s), all in {waited:.1f} s after the writes stopped)")
    finally:
        for w in writers:
            w.stop()
        if second is not None:
            second.stop()
            second.cleanup()
        first.stop()
        first.cleanup()
        cluster.cleanup()
        hooks.stop()
