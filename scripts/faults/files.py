"""The file scenario of the fault suite (scripts/faults/run.py): a 100 MiB attachment goes up and comes back
over real sockets while the server's memory stays bounded by its chunks, not by the file; and a GraphQL
multipart upload from curl (a real multipart client) whose signed link serves the bytes without credentials."""
import hashlib
import json
import os
import subprocess
import threading
import time
import urllib.request

from common import Server, check

MIB = 1 << 20
# Streaming holds a chunk at a time; what the server may add to its resident memory for one large file.
GROWTH_CEILING_MB = 40


def chunks(size, seed=b"deskgraph"):
    """`size` bytes of repeatable, incompressible-looking data, one MiB at a time."""
    block = hashlib.sha256(seed).digest() * (MIB // 32)
    sent = 0
    while sent < size:
        piece = block[: min(MIB, size - sent)]
        # Vary each MiB, so the file is not one block repeated.
        piece = hashlib.sha256(sent.to_bytes(8, "big")).digest() + piece[32:]
        sent += len(piece)
        yield piece


def graphql_upload(server, ticket_id):
    """`addAttachment` through the GraphQL multipart request spec, sent by curl; then its signed `url`."""
    status, found = server.request(
        "POST", "/graphql", {"query": f"{{ ticket(databaseId: {ticket_id}) {{ id }} }}"}, server.ann)
    check(status == 200, f"ticket id: {status} {found}")
    node = found["data"]["ticket"]["id"]
    path = os.path.join(server.dir, "screenshot.png")
    # A PNG signature and header are enough for the type to be detected from the bytes.
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 64
    with open(path, "wb") as f:
        f.write(png)
    operations = json.dumps({
        "query": "mutation($input: AddAttachmentInput!) { addAttachment(input: $input) "
                 "{ attachment { filename contentType size url } } }",
        "variables": {"input": {"ticketId": node, "file": None}},
    })
    out = subprocess.run(
        ["curl", "-sS", "-H", f"Authorization: Bearer {server.ann}", "-H", "apollo-require-preflight: true",
         "-F", f"operations={operations}", "-F", 'map={"0": ["variables.input.file"]}',
         "-F", f"0=@{path};type=text/plain", f"http://127.0.0.1:{server.port}/graphql"],
        capture_output=True, text=True, timeout=30, check=False)
    check(out.returncode == 0, f"curl: {out.stderr}")
    body = json.loads(out.stdout)
    attachment = (body.get("data") or {}).get("addAttachment", {}).get("attachment")
    check(attachment is not None, f"addAttachment: {out.stdout[:300]}")
    check(attachment["contentType"] == "image/png" and attachment["size"] == len(png),
          f"stored as {attachment}")
    url = attachment["url"]
    if url.startswith("/"):
        url = f"http://127.0.0.1:{server.port}{url}"
    with urllib.request.urlopen(url, timeout=30) as response:
        check(response.read() == png, "the signed link serves the same bytes")
    return "GraphQL multipart upload from curl: typed from its bytes, signed link serves it"


def scenario_upload():
    size = 100 * MIB
    server = Server({"DESKGRAPH_MAX_UPLOAD_BYTES": str(size + MIB)})
    peak = [0.0]
    sampling = [True]

    def sample():
        while sampling[0]:
            peak[0] = max(peak[0], server.rss_mb())
            time.sleep(0.05)

    try:
        status, ticket = server.request("POST", "/api/tickets/", {"title": "big log"}, server.ann)
        check(status == 201, f"ticket: {status} {ticket}")
        start = server.rss_mb()
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()

        boundary = "deskgraph-faults-boundary"
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.log\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        digest = hashlib.sha256()
        started = time.time()
        conn = server.connection()
        conn.timeout = 120
        conn.putrequest("POST", f"/api/tickets/{ticket['id']}/attachments/")
        conn.putheader("Authorization", f"Bearer {server.ann}")
        conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
        conn.putheader("Content-Length", str(len(head) + size + len(tail)))
        conn.endheaders()
        conn.send(head)
        for piece in chunks(size):
            digest.update(piece)
            conn.send(piece)
        conn.send(tail)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        up = time.time() - started
        check(response.status == 201, f"upload: {response.status} {body[:300]!r}")
        created = json.loads(body)
        check(created.get("size") == size, f"stored size {created.get('size')}")

        started = time.time()
        conn = server.connection()
        conn.timeout = 120
        conn.request("GET", f"/api/attachments/{created['id']}/download/",
                     headers={"Authorization": f"Bearer {server.ann}"})
        response = conn.getresponse()
        check(response.status == 200, f"download: {response.status}")
        back = hashlib.sha256()
        received = 0
        while True:
            piece = response.read(MIB)
            if not piece:
                break
            back.update(piece)
            received += len(piece)
        conn.close()
        down = time.time() - started
        sampling[0] = False
        sampler.join()
        check(received == size and back.hexdigest() == digest.hexdigest(),
              f"downloaded {received} bytes, same bytes: {back.hexdigest() == digest.hexdigest()}")
        growth = peak[0] - start
        check(growth < GROWTH_CEILING_MB,
              f"RSS grew {growth:.0f} MB over a {size // MIB} MiB file (ceiling {GROWTH_CEILING_MB} MB)")
        graphql = graphql_upload(server, ticket["id"])
        return (f"{graphql}; {size // MIB} MiB up in {up:.1f} s ({size / MIB / up:.0f} MiB/s), down in {down:.1f} s "
                f"({size / MIB / down:.0f} MiB/s), same bytes; RSS {start:.0f} MB, peak {peak[0]:.0f} MB")
    finally:
        sampling[0] = False
        server.stop()
        server.cleanup()
