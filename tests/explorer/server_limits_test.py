#!/usr/bin/env python3
"""`axe serve` under attack (ctest explorer.server_limits): the server's limits of
docs/reliability.md, each against the request that once took the explorer down, and a load
test with slow clients.

Starts `axe serve --port 0` (127.0.0.1 only) and talks raw HTTP to it over loopback:

- a Range header of 2,700 ranges is answered whole, not as a multipart answer built in memory;
- header sections and bodies past their limits, whichever way they arrive (many header lines,
  one endless line, a chunked body, an endless chunk-size line, a deflate body that inflates
  to megabytes), get a 413 or 431 naming the limit hit;
- form bodies over 8 KiB are read (the body limit is 64 KiB for every Content-Type);
- one client holds at most 16 connections; the 17th is answered 503;
- 1,000 requests from 4 clients while 8 clients trickle a byte every 0.5 s (4 of them their
  whole request, 4 only the body): every request is answered within 2 s, and every trickling
  request is cut off (408) at its 10 s deadline;
- SIGTERM stops the server at once beside an idle connection.

Everything it starts stops by itself: every socket wait has a 10 s timeout, the load test's
clients stop when it ends, and the server is stopped on exit (ctest's timeout is 90 s; the
test takes about 12 s). Exits 77 (ctest's SKIP_RETURN_CODE) when axe was built without `axe serve`.
"""

import argparse
import http.client
import json
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib

from browser_test import SKIP, Failure, log, start_server, stop

BODY_LIMIT = 65536
HEADER_LIMIT = 32768
WIRE_LIMIT = 262144
PER_CLIENT = 16
DEADLINE_S = 10
LAYOUT = "S%5B(4%2C8)%3A(8%2C1)%5D"  # S[(4,8):(8,1)]


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def error(self):
        return json.loads(self.body)["error"]


def connect(port, timeout=10.0):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def read_answer(sock):
    response = http.client.HTTPResponse(sock)
    response.begin()
    return Answer(response.status, {k.lower(): v for k, v in response.getheaders()},
                  response.read())


def exchange(port, *parts, timeout=10.0):
    """Sends the byte strings `parts` on a fresh connection and reads one answer."""
    with connect(port, timeout) as sock:
        try:
            for part in parts:
                sock.sendall(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before taking everything: read its answer
        return read_answer(sock)


def head(method, path, *headers):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "", ""]
    return "\r\n".join(lines).encode()


def expect(what, answer, status, *words):
    text = answer.body.decode(errors="replace")
    if answer.status != status or any(w not in text for w in words):
        raise Failure(f"{what}: HTTP {answer.status} {text[:300]!r} (expected {status} "
                      f"naming {words})")
    log(f"{what}: HTTP {answer.status} {text[:90]}")


def check_ranges(port):
    page = exchange(port, head("GET", "/"))
    many = "bytes=" + ",".join(["0-"] * 2700)  # a header line of 8,113 bytes (at most 8,192)
    answer = exchange(port, head("GET", "/", f"Range: {many}"))
    if answer.status != 200 or answer.body != page.body or "multipart" in str(answer.headers):
        raise Failure(f"a Range of 2,700 ranges: HTTP {answer.status}, "
                      f"{len(answer.body)} bytes (the page has {len(page.body)})")
    log(f"Range of 2,700 ranges: HTTP 200, the page whole ({len(answer.body)} bytes)")
    answer = exchange(port, head("GET", "/", "Range: bytes=0-9"))
    if answer.status != 200 or answer.body != page.body:
        raise Failure(f"Range bytes=0-9: HTTP {answer.status}, {len(answer.body)} bytes")
    # A bad range after 2,000 good ones: a short 416, not 2,000 copies of the refusal.
    bad = "bytes=" + ",".join(["0-"] * 2000) + ",5-1"
    answer = exchange(port, head("GET", "/", f"Range: {bad}"))
    expect("a bad range after 2,000", answer, 416, "Range")
    if len(answer.body) > 1000:
        raise Failure(f"the 416 for a bad Range has {len(answer.body)} bytes")


def check_headers(port):
    filler = b"".join(b"X-Filler-%06d: %s\r\n" % (i, b"f" * 40) for i in range(2000))
    answer = exchange(port, head("GET", "/healthz")[:-2], filler, b"\r\n")
    expect("2,000 header lines", answer, 431, str(HEADER_LIMIT))
    answer = exchange(port, head("GET", "/healthz")[:-2], b"X-Long: " + b"a" * 100000)
    expect("an endless header line", answer, 431, str(HEADER_LIMIT))
    answer = exchange(port, b"GET /" + b"a" * 100000)
    expect("an endless request line", answer, 431, str(HEADER_LIMIT))


def chunked(data, size):
    pieces = [b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size])
              for i in range(0, len(data), size)]
    return b"".join(pieces) + b"0\r\n\r\n"


def check_bodies(port):
    post = head("POST", "/api/layout", "Transfer-Encoding: chunked")
    answer = exchange(port, post, chunked(b"layout=" + LAYOUT.encode(), 5))
    expect("a small chunked body", answer, 200, '"ok":true')
    big = b"layout=" + b"S" * 80000
    answer = exchange(port, post, chunked(big, 4096))
    expect("an 80 KB chunked body", answer, 413, str(BODY_LIMIT))
    answer = exchange(port, post, b"1" * 300000)
    expect("an endless chunk-size line", answer, 413, str(WIRE_LIMIT))
    bomb = zlib.compress(b"layout=" + b" " * 20_000_000, 9)
    answer = exchange(port, head("POST", "/api/layout", "Content-Encoding: deflate",
                                 f"Content-Length: {len(bomb)}"), bomb)
    expect(f"a {len(bomb)}-byte deflate body of 20 MB", answer, 413, str(BODY_LIMIT))
    # Form bodies over the 8 KiB that HTTP libraries often allow them are read whole.
    form = b"layout=" + LAYOUT.encode() + b"&color=" + b"x" * 20000
    answer = exchange(port, head("POST", "/api/layout",
                                 "Content-Type: application/x-www-form-urlencoded",
                                 f"Content-Length: {len(form)}"), form)
    if answer.status == 413 or "color" not in answer.body.decode():
        raise Failure(f"a 20 KB form body: HTTP {answer.status} {answer.body[:200]!r}")
    log(f"a 20 KB form body: HTTP {answer.status} {answer.error()[:70]}")
    for content_type in ("application/x-www-form-urlencoded", "text/plain"):
        big = b"layout=" + b"S" * 70000
        answer = exchange(port, head("POST", "/api/layout", f"Content-Type: {content_type}",
                                     f"Content-Length: {len(big)}"), big)
        expect(f"a 70 KB {content_type} body", answer, 413, str(BODY_LIMIT))
    answer = exchange(port, head("POST", "/api/layout", "Content-Length: 70000",
                                 "Expect: 100-continue"))
    expect("Expect: 100-continue for 70 KB", answer, 413, str(BODY_LIMIT))


def healthz(port):
    return exchange(port, head("GET", "/healthz")).status == 200


def check_connections_per_client(port):
    held = [connect(port) for _ in range(PER_CLIENT)]
    try:
        # An answer on each makes sure the server holds it (kept alive 2 s after).
        for sock in held:
            sock.sendall(head("GET", "/healthz"))
            if read_answer(sock).status != 200:
                raise Failure("a held connection was not answered")
        with connect(port) as extra:  # sends nothing: the refusal comes first
            refused = read_answer(extra)
        expect(f"connection {PER_CLIENT + 1} of one client", refused, 503, str(PER_CLIENT))
    finally:
        for sock in held:
            sock.close()
    for _ in range(40):
        if healthz(port):
            log("the held connections closed: answered again")
            return
        time.sleep(0.05)
    raise Failure("no answers after the held connections closed")


class Trickler(threading.Thread):
    """A client that sends a request a byte every 0.5 s (or its headers at once and then its
    body a byte every 0.5 s), again whenever it is cut off."""

    def __init__(self, port, stop_event, whole_head):
        super().__init__(daemon=True)
        self.port, self.stop_event, self.whole_head = port, stop_event, whole_head
        self.cuts = []  # (seconds from connecting to the answer, the answer's status line)
        self.error = None

    def run(self):
        try:
            while not self.stop_event.is_set():
                self.one_connection()
        except OSError as e:
            self.error = f"{type(e).__name__}: {e}"

    def one_connection(self):
        request = head("POST", "/api/layout", "Content-Length: 1000")
        body = b"layout=" + b" " * 993
        with connect(self.port) as sock:
            start = time.monotonic()
            if self.whole_head:
                sock.sendall(request)
                request = b""
            for byte in request + body:
                readable, _, _ = select.select([sock], [], [], 0.5)
                if readable or self.stop_event.is_set():
                    break
                sock.sendall(bytes([byte]))
            if self.stop_event.is_set():
                return
            answer = sock.recv(200).split(b"\r\n")[0].decode(errors="replace")
            self.cuts.append((time.monotonic() - start, answer))


def normal_requests(port, count, latencies, failures):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    requests = [("GET", "/healthz", None), ("GET", f"/api/layout?layout={LAYOUT}", None),
                ("POST", "/api/layout", f"layout={LAYOUT}"),
                ("POST", "/api/xla", "shape=f32%5B8%2C128%5D%7B1%2C0%7D")]
    for i in range(count):
        method, path, body = requests[i % len(requests)]
        start = time.monotonic()
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "text/plain"})
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            status = f"{type(e).__name__}: {e}"
        latencies.append(time.monotonic() - start)
        if status != 200:
            failures.append(f"{method} {path}: {status}")
    conn.close()


def check_load(port, total=1000, clients=4, slow=8, bound_s=2.0):
    stop_event = threading.Event()
    tricklers = [Trickler(port, stop_event, whole_head=i % 2 == 1) for i in range(slow)]
    for t in tricklers:
        t.start()
    time.sleep(1.0)  # the slow clients hold their connections first
    latencies, failures = [], []
    start = time.monotonic()
    workers = [threading.Thread(target=normal_requests,
                                args=(port, total // clients, latencies, failures))
               for _ in range(clients)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=30)
    took = time.monotonic() - start
    if any(w.is_alive() for w in workers):
        stop_event.set()
        raise Failure("the normal clients did not finish in 30 s")
    # Every slow client is cut off at its deadline (the first cut comes ~10 s after it began).
    give_up = time.monotonic() + DEADLINE_S + 5
    while time.monotonic() < give_up and not all(t.cuts for t in tricklers):
        time.sleep(0.2)
    stop_event.set()
    for t in tricklers:
        t.join(timeout=5)
    if failures:
        raise Failure(f"{len(failures)} normal requests failed under load, first: {failures[0]}")
    worst = max(latencies)
    log(f"{len(latencies)} requests in {took:.1f} s beside {slow} slow clients; the slowest "
        f"answer took {worst * 1000:.0f} ms")
    if len(latencies) != total or worst >= bound_s:
        raise Failure(f"{len(latencies)} answers, the slowest in {worst:.2f} s (bound {bound_s} s)")
    for t in tricklers:
        if t.error or not t.cuts:
            raise Failure(f"a slow client was not cut off: {t.error or 'still connected'}")
        seconds, status_line = t.cuts[0]
        if not status_line.startswith("HTTP/1.1 408") or not (
                DEADLINE_S - 1 <= seconds <= DEADLINE_S + 4):
            raise Failure(f"a slow client got {status_line!r} after {seconds:.1f} s "
                          f"(expected 408 at the {DEADLINE_S} s deadline)")
    log(f"every slow client was cut off with 408 after "
        f"{min(t.cuts[0][0] for t in tricklers):.1f}-{max(t.cuts[0][0] for t in tricklers):.1f} s")


def check_stop_with_idle_connection(server, port):
    """SIGTERM stops the server at once, though a connection that sent nothing is open (it
    would otherwise be waited for until its 10 s deadline)."""
    with connect(port):
        time.sleep(0.2)
        start = time.monotonic()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=DEADLINE_S / 2)
        except subprocess.TimeoutExpired:
            raise Failure(f"axe serve took over {DEADLINE_S / 2:.0f} s to stop beside an idle "
                          f"connection") from None
    if server.returncode != 0:
        raise Failure(f"axe serve exited {server.returncode} on SIGTERM")
    log(f"SIGTERM beside an idle connection: stopped in {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--axe", required=True, help="the axe binary ('' when built without serve)")
    args = parser.parse_args()
    if not args.axe:
        print("SKIP: axe was built without cpp-httplib (libcpp-httplib-dev), so it has no "
              "`axe serve`")
        return SKIP
    server = None
    try:
        server, base = start_server(args.axe)
        port = int(base.rstrip("/").rsplit(":", 1)[1])
        for check in (check_ranges, check_headers, check_bodies, check_connections_per_client,
                      check_load):
            check(port)
            if server.poll() is not None:
                raise Failure(f"axe serve exited ({server.returncode}) during {check.__name__}")
        if not healthz(port):
            raise Failure("the server stopped answering")
        check_stop_with_idle_connection(server, port)
        log("PASS")
        return 0
    except (Failure, OSError, http.client.HTTPException, ValueError) as e:
        log(f"FAIL: {type(e).__name__}: {e}")
        return 1
    finally:
        stop(server, "axe serve")


if __name__ == "__main__":
    sys.exit(main())
