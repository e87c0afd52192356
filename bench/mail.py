#!/usr/bin/env python3
"""Mail-in benchmark: messages per second through `deskgraph mail-in`, one process per message as a mail
server's pipe runs it, several at once, and the largest process's peak RSS.

    bench/mail.py BIN DATABASE_URL RESULTS.jsonl [SYSTEM]

Environment: MAIL_MESSAGES=5000 (half new tickets, half replies threading onto them by `References`),
MAIL_PARALLEL=8 (pipes at once, as Postfix's default local delivery runs several), MAIL_FILE_EVERY=4 (every
fourth message carries a 120 KiB file, so that the run takes in about 100 MiB of mail). Appends two rows,
`mail_in_new` and `mail_in_reply`, to RESULTS in bench/run.sh's shape (req/s is messages per second, errors
the messages not answered 0).

With MAIL_URL (and DESKGRAPH_MAIL_IN_SECRET) set, each pipe runs `mail-in --url MAIL_URL`, handing its message
to the service running there; the rows are `mail_in_http_new` and `mail_in_http_reply`, and their CPU adds the
service's (MAIL_SERVER_PID) to the pipes'.
"""
import base64
import concurrent.futures
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

BIN, URL, RESULTS = sys.argv[1:4]
SYSTEM = sys.argv[4] if len(sys.argv) > 4 else "deskgraph-sqlite"
COUNT = int(os.environ.get("MAIL_MESSAGES", "5000"))
PARALLEL = int(os.environ.get("MAIL_PARALLEL", "8"))
FILE_EVERY = int(os.environ.get("MAIL_FILE_EVERY", "4"))
# Under the per-sender pace (60 an hour): each sender writes at most 40 messages in the run.
SENDERS = max(1, COUNT // 40)
URL_BASE = os.environ.get("MAIL_URL")
SERVER_PID = os.environ.get("MAIL_SERVER_PID")
COMMAND = [BIN, "mail-in"] + (["--url", URL_BASE] if URL_BASE else [])
PREFIX = "mail_in_http" if URL_BASE else "mail_in"
FILE = base64.encodebytes(b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(3840)))


def message(n, who, subject, extra=""):
    sender = f"sender{who % SENDERS}@bench.example.com"
    head = (f"From: Sender {who % SENDERS} <{sender}>\r\nTo: help@example.com\r\nSubject: {subject}\r\n"
            f"Message-ID: <bench-{n}-{time.time_ns()}@bench.example.com>\r\nMIME-Version: 1.0\r\n{extra}")
    text = f"Message {n}: the printer on floor {n % 7} shows error E{n % 90:02}.\r\n" * 8
    if n % FILE_EVERY:
        return (head + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + text).encode()
    return (head + "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
            + text + "--b\r\nContent-Type: application/octet-stream; name=\"trace.bin\"\r\n"
            "Content-Disposition: attachment; filename=\"trace.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + FILE.decode().replace("\n", "\r\n") + "--b--\r\n").encode()


def pipe(raw):
    started = time.perf_counter()
    done = subprocess.run(COMMAND, input=raw, capture_output=True,
                          env={**os.environ, "DATABASE_URL": URL, "RUST_LOG": "warn"})
    return done.returncode, done.stdout.decode(), time.perf_counter() - started


def server_seconds():
    """CPU seconds the service has used so far (0 without MAIL_SERVER_PID)."""
    if not SERVER_PID:
        return 0.0
    with open(f"/proc/{SERVER_PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(name, messages):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = server_seconds()
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        answers = list(pool.map(pipe, messages))
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    took = sorted(a[2] for a in answers)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    cpu += server_seconds() - server_before
    failed = [a for a in answers if a[0] != 0]
    row = {
        "scenario": name, "system": SYSTEM, "requests": len(messages), "seconds": seconds,
        "rps": len(messages) / seconds, "p50_ms": took[len(took) // 2] * 1000,
        "p99_ms": took[min(len(took) - 1, int(len(took) * 0.99))] * 1000,
        # ru_maxrss of the children is the largest single process's peak, in KiB.
        "peak_rss_mb": after.ru_maxrss / 1024, "server_cpu_ms": cpu * 1000 / len(messages),
        "non2xx": len(failed), "socket_errors": 0,
        "mail_mib": sum(len(m) for m in messages) / 1048576, "parallel": PARALLEL,
    }
    with open(RESULTS, "a") as out:
        out.write(json.dumps(row) + "\n")
    print(f"[bench] {json.dumps(row)}", file=sys.stderr)
    if failed:
        print(f"[bench] {name}: {len(failed)} not taken in, e.g. exit {failed[0][0]}", file=sys.stderr)
    return answers


half = COUNT // 2
opened = run(f"{PREFIX}_new", [message(n, n, f"Printer error {n}") for n in range(half)])
# Each reply comes from the sender of the ticket it answers (a stranger's reply would open a new ticket).
replies = [message(half + n, n, f"Re: Printer error {n}",
                   f"In-Reply-To: <ticket-{out.split()[1]}.n{n}@localhost>\r\n"
                   f"References: <ticket-{out.split()[1]}@localhost>\r\n")
           for n, (code, out, _) in enumerate(opened) if code == 0 and out.startswith("ticket ")]
answered = run(f"{PREFIX}_reply", replies)
threaded = sum(1 for code, out, _ in answered if code == 0 and out.startswith("comment"))
print(f"[bench] {threaded} of {len(replies)} replies threaded onto their ticket", file=sys.stderr)
