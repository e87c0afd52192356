"""Resource scenarios of the fault suite (scripts/faults/run.py): crawling clients, distinct GraphQL documents,
a flood of sign-ins and the long soak."""
import os
import random
import resource
import socket
import threading
import time

from common import QUICK, RSS_CEILING_MB, Server, check, latencies, percentile

# The caches' ceiling, plus the working memory of the password threads (one per core, at most 4, 19 MiB
# each) and what the allocator keeps of it.
LOGINS_CEILING_MB = RSS_CEILING_MB + 100


SILENT_SOCKETS = 200


def silent_websocket(port):
    """A GraphQL WebSocket, upgraded, that never sends its `connection_init`: the socket and what was read
    past the answer's head."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /graphql/ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
              b"Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1024)
        check(chunk, "the upgrade was not answered")
        head += chunk
    check(head.startswith(b"HTTP/1.1 101"), f"no upgrade: {head[:40]!r}")
    return s, head.split(b"\r\n\r\n", 1)[1]


def close_code(upgraded, deadline):
    """The code of the close frame the server sends on an upgraded socket (the socket and the bytes read past
    its answer's head) by `deadline`; None when it closed without one, or not at all."""
    s, data = upgraded
    try:
        while len(data) < 4:
            s.settimeout(max(0.01, deadline - time.time()))
            chunk = s.recv(64)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    finally:
        s.close()
    # A server's close frame: FIN + opcode 8, an unmasked length, then the code in two bytes.
    if len(data) >= 4 and data[0] == 0x88:
        return int.from_bytes(data[2:4], "big")
    return None


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
        # An upgraded socket has no header or idle deadline: one that never signs in must still be let go.
        silent = [silent_websocket(server.port) for _ in range(SILENT_SOCKETS)]
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
        codes = [close_code(s, deadline) for s in silent]
        told = sum(code == 4408 for code in codes)
        check(told == SILENT_SOCKETS, f"{told} of {SILENT_SOCKETS} silent WebSockets closed with 4408: {codes[:5]}")
        p99b, p99d = percentile(before, 0.99), percentile(during, 0.99)
        check(p99d < p99b + 20, f"p99 {p99b:.1f} ms before, {p99d:.1f} ms with crawlers")
        return (f"{crawlers_wanted} crawlers and {SILENT_SOCKETS} silent WebSockets closed within {took:.1f} s "
                f"(header timeout {header_timeout} s); p99 {p99b:.1f} ms before, {p99d:.1f} ms during")
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


# --- sign-ins at once ----------------------------------------------------------------------------

def scenario_logins():
    # Each password check takes argon2's 19 MiB: two hundred at once took over 1 GB before checks were bounded.
    # The per-address throttle is lifted, as for many clients behind one proxy address.
    wanted = 200
    server = Server({"DESKGRAPH_LOGIN_MAX_FAILURES_PER_ADDRESS": "1000000"})
    try:
        start = server.peak_rss_mb()
        peaks, took = [], []
        for _ in range(2):
            codes = {}
            lock = threading.Lock()

            def sign_in(i):
                status, _ = server.request(
                    "POST", "/api/auth/token/", {"username": f"nobody{i}", "password": "wrong guess"})
                with lock:
                    codes[status] = codes.get(status, 0) + 1

            started = time.time()
            threads = [threading.Thread(target=sign_in, args=(i,), daemon=True) for i in range(wanted)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            took.append(time.time() - started)
            check(codes == {401: wanted}, f"answers {codes}, wanted {wanted} × 401")
            peaks.append(server.peak_rss_mb())
        status, body = server.request(
            "POST", "/api/auth/token/", {"username": "ann", "password": "ann-password-12"})
        check(status == 200 and "token" in (body or {}), f"a real sign-in after the floods: {status} {body}")
        # Bounded, not proportional to the flood: a second flood takes no more memory than the first.
        check(peaks[0] < LOGINS_CEILING_MB, f"RSS peaked at {peaks[0]:.0f} MB (ceiling {LOGINS_CEILING_MB} MB)")
        check(peaks[1] <= peaks[0] + 10, f"RSS peaked at {peaks[0]:.0f} MB, then {peaks[1]:.0f} MB")
        return (f"{wanted} sign-ins at once, twice: all 401 within {max(took):.1f} s; RSS {start:.0f} MB at "
                f"start, peaks {peaks[0]:.0f} and {peaks[1]:.0f} MB")
    finally:
        server.stop()
        server.cleanup()


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
