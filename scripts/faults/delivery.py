"""Delivery in the fault suite (scripts/faults/run.py): the scenario of a webhook endpoint that never answers,
beside a working SMTP sink, and a recording endpoint the crash scenarios count deliveries with."""
import asyncio
import http.server
import json
import threading
import time

from common import Server, check, free_port


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


class WebhookRecorder:
    """A webhook endpoint that answers 204 at once and keeps every delivery's event and ticket id."""

    def __init__(self):
        self.port = free_port()
        self.deliveries = []
        self.lock = threading.Lock()
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    parsed = json.loads(body)
                    entry = (parsed.get("event"), parsed.get("ticket_id"))
                except ValueError:
                    entry = (None, None)
                with recorder.lock:
                    recorder.deliveries.append(entry)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.port}/hook"

    def env(self):
        """The server settings that make this the configured endpoint (it listens on this host)."""
        return {"DESKGRAPH_WEBHOOK_URL": self.url(), "DESKGRAPH_WEBHOOK_ALLOW_PRIVATE": "true",
                "DESKGRAPH_WEBHOOK_SECRET": "fault-suite",
                # A short call limit shortens the lease (three limits and 30 s) after which the rows a
                # crashed worker had claimed are delivered by another.
                "DESKGRAPH_DELIVERY_TIMEOUT_MS": "2000"}

    def counts(self, event):
        """How many times each ticket's `event` arrived."""
        out = {}
        with self.lock:
            for name, ticket_id in self.deliveries:
                if name == event:
                    out[ticket_id] = out.get(ticket_id, 0) + 1
        return out

    def wait_for(self, event, ticket_ids, seconds):
        """Wait up to `seconds` until each of `ticket_ids` got `event` at least once; returns
        (missing ids, duplicate deliveries, seconds waited)."""
        wanted = set(ticket_ids)
        started = time.time()
        while True:
            counts = self.counts(event)
            missing = [i for i in wanted if i not in counts]
            if not missing or time.time() - started > seconds:
                duplicates = sum(n - 1 for i, n in counts.items() if i in wanted)
                return missing, duplicates, time.time() - started
            time.sleep(0.2)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
