#!/usr/bin/env python3
"""End-to-end tests of the explorer: in a real browser (ctest label `browser`), and its
server alone over HTTP (--server-only: ctest explorer.server).

Starts `axe serve --port 0`, drives headless Chromium through chromedriver's WebDriver HTTP
API (the standard library only: urllib, json, zlib), types a layout into the page, waits for
the drawing, and checks the DOM (the cell labels of Figure 2), a bad input's error under its
field, the shareable URL (restored on a fresh load), and a screenshot compared loosely (its
size, and enough non-background pixels in several colours).

Exits 77 (ctest's SKIP_RETURN_CODE) when chromium or chromedriver is missing or axe was built
without `axe serve`. Everything it starts is stopped on exit, whatever happens.
"""

import argparse
import base64
import json
import os
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zlib

SKIP = 77
DEADLINE_S = 50.0
FIGURE2 = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
WIDTH, HEIGHT = 1280, 1000
START = time.monotonic()


class Failure(Exception):
    pass


def log(message):
    print(f"[{time.monotonic() - START:5.1f}s] {message}", flush=True)


def left():
    remaining = DEADLINE_S - (time.monotonic() - START)
    if remaining <= 0:
        raise Failure(f"the test ran past its {DEADLINE_S:.0f} s deadline")
    return remaining


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, payload=None, timeout=15.0):
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=min(timeout, left())) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_for(what, predicate, timeout=15.0, interval=0.1):
    end = time.monotonic() + min(timeout, left())
    last = None
    while time.monotonic() < end:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise Failure(f"timed out waiting for {what} (last: {last!r})")


class WebDriver:
    """The few WebDriver commands the test needs, over chromedriver's HTTP API."""

    def __init__(self, base):
        self.base = base
        self.session = None

    def command(self, method, path, payload=None):
        status, body = http(method, f"{self.base}/session/{self.session}{path}", payload)
        value = json.loads(body or b"{}").get("value")
        if status != 200:
            raise Failure(f"WebDriver {method} {path}: HTTP {status}: {value}")
        return value

    def start(self, chromium):
        options = {"binary": chromium,
                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                            "--disable-dev-shm-usage", f"--window-size={WIDTH},{HEIGHT}",
                            "--hide-scrollbars", "--force-device-scale-factor=1"]}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                 "goog:chromeOptions": options}}}
        status, body = http("POST", f"{self.base}/session", caps, timeout=30.0)
        value = json.loads(body).get("value", {})
        if status != 200 or "sessionId" not in value:
            raise Failure(f"could not start Chromium: HTTP {status}: {value}")
        self.session = value["sessionId"]

    def stop(self):
        if self.session:
            try:
                http("DELETE", f"{self.base}/session/{self.session}", timeout=10.0)
            except Exception as e:  # noqa: BLE001 - best effort on the way out
                log(f"closing the session: {e}")
            self.session = None

    def go(self, url):
        self.command("POST", "/url", {"url": url})

    def script(self, source, *args):
        return self.command("POST", "/execute/sync", {"script": source, "args": list(args)})

    def element(self, css):
        value = self.command("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(value.values()))

    def type_into(self, css, text):
        element = self.element(css)
        self.command("POST", f"/element/{element}/clear", {})
        self.command("POST", f"/element/{element}/value", {"text": text})

    def screenshot(self):
        return base64.b64decode(self.command("GET", "/screenshot"))


def png_pixels(png):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("the screenshot is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise Failure(f"unexpected PNG format: depth {depth}, colour type {colour}")
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def check_screenshot(png, out_dir):
    if out_dir:
        with open(os.path.join(out_dir, "explorer_screenshot.png"), "wb") as f:
            f.write(png)
    width, height, bpp, rows = png_pixels(png)
    log(f"screenshot {width}x{height}, {len(png)} bytes")
    if width < WIDTH // 2 or height < HEIGHT // 2:
        raise Failure(f"the screenshot is only {width}x{height}")
    background = rows[0][0:3]
    inked, colours = 0, set()
    for row in rows[::2]:
        for x in range(0, width * bpp, 2 * bpp):
            pixel = row[x:x + 3]
            if pixel != background:
                inked += 1
                colours.add(bytes(pixel))
    sampled = (height + 1) // 2 * ((width + 1) // 2)
    log(f"{inked} of {sampled} sampled pixels differ from the background; {len(colours)} colours")
    if inked < sampled // 20:
        raise Failure(f"the page looks blank: {inked} of {sampled} pixels are not background")
    if len(colours) < 8:
        raise Failure(f"the page has only {len(colours)} colours; the drawing is missing")


def start_server(axe):
    server = subprocess.Popen([axe, "serve", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    with selectors.DefaultSelector() as sel:
        sel.register(server.stdout, selectors.EVENT_READ)
        if not sel.select(timeout=min(10.0, left())):
            raise Failure("axe serve printed nothing in 10 s")
    line = server.stdout.readline().strip()
    log(f"started: {line}")
    if "http://" not in line:
        raise Failure(f"axe serve did not start: {line!r} (exit {server.poll()})")
    return server, line[line.index("http://"):].split()[0]


def stop(process, name, group=False):
    if process is None or process.poll() is not None:
        return
    try:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        process.wait(timeout=5)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
            process.wait(timeout=5)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            log(f"could not stop {name} (pid {process.pid})")


def check_server(base):
    """The server's own answers: the page, an API answer, and clean 4xx for bad requests."""
    status, body = http("GET", base)
    if status != 200 or b"axe explorer" not in body:
        raise Failure(f"GET / answered {status}")
    status, body = http("GET", base + "api/layout?layout=S%5B(4%2C8)%3A(8%2C1)%5D")
    if status != 200 or json.loads(body)["answer"]["shape"] != [1, 32]:
        raise Failure(f"GET /api/layout answered {status}: {body[:200]!r}")
    refusals = [
        ("a URL over 8 KiB", "GET", base + "api/layout?layout=" + "S" * 9000, None, 414),
        ("a body over 64 KiB", "POST", base + "api/layout", b"layout=" + b"S" * 70000, 413),
        ("a bad escape", "GET", base + "api/xla?shape=%ZZ", None, 400),
        ("an unknown field", "GET", base + "api/xla?shap=f32%5B2%5D", None, 400),
        ("an unknown path", "GET", base + "nope", None, 404),
        ("a DELETE", "DELETE", base + "api/layout", None, 405),
    ]
    for what, method, url, data, expected in refusals:
        request = urllib.request.Request(url, data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=min(10.0, left())) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        reply = json.loads(body)
        if status != expected or reply.get("ok") is not False or not reply.get("error"):
            raise Failure(f"{what}: HTTP {status} {body[:200]!r} (expected {expected})")
        log(f"{what}: HTTP {status}: {reply['error'][:70]}")
    # A request naming another host (DNS rebinding) is refused.
    request = urllib.request.Request(base + "healthz", headers={"Host": "evil.example:80"})
    try:
        with urllib.request.urlopen(request, timeout=min(10.0, left())) as response:
            status = response.status
    except urllib.error.HTTPError as e:
        status = e.code
    if status != 403:
        raise Failure(f"a request with Host: evil.example got HTTP {status}, not 403")
    log("Host: evil.example: HTTP 403")
    # A raw request that is not HTTP gets a 400 and the server goes on.
    host, port = base[len("http://"):].rstrip("/").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        first = s.recv(100)
    if not first.startswith(b"HTTP/1.1 400"):
        raise Failure(f"a malformed request got {first!r}")
    status, _ = http("GET", base + "healthz")
    if status != 200:
        raise Failure("the server stopped answering after a malformed request")
    log("malformed request: HTTP 400, the server goes on")


def drawing_state(driver):
    return driver.script("return document.getElementById('drawing').dataset.state;")


def run(driver, base):
    # An empty layout from the URL: the error shows under the field, and the page is not blank.
    driver.go(base + "#kind=layout&layout=")
    error = wait_for("the empty-layout error", lambda: driver.script(
        "return document.getElementById('e-layout-layout').textContent;"))
    if "type an Axe layout" not in error:
        raise Failure(f"unexpected error under the layout field: {error!r}")
    log(f"empty input: error under the field: {error[:60]!r}")

    # Type Figure 2's layout: the drawing appears with its labels.
    driver.type_into("#f-layout-layout", FIGURE2)
    wait_for("the drawing", lambda: drawing_state(driver) == "ready" and driver.script(
        "return document.querySelectorAll('#drawing svg text').length;"))
    labels = driver.script(
        "return Array.from(document.querySelectorAll('#drawing svg text'), t => t.textContent);")
    for expected in ("0:5:0", "0:5:1", "3:6:1", "lane:warp:reg"):
        if not any(expected in label for label in labels):
            raise Failure(f"the drawing has no label {expected!r}: {labels[:20]}")
    answer = json.loads(driver.script("return document.getElementById('answer').textContent;"))
    if answer.get("shape") != [8, 16] or answer.get("replica") != "R[2:4@warp]":
        raise Failure(f"unexpected JSON answer: {str(answer)[:200]}")
    log(f"typed Figure 2: {len(labels)} labels drawn, JSON answer shape {answer['shape']}")
    check_screenshot(driver.screenshot(), os.environ.get("AXE_BROWSER_TEST_OUT"))

    # A bad edit: the error under the field; the last drawing stays.
    driver.type_into("#f-layout-layout", "S[(8,2")
    error = wait_for("the parse error", lambda: driver.script(
        "return document.getElementById('e-layout-layout').textContent;"))
    if "position" not in error:
        raise Failure(f"unexpected parse error: {error!r}")
    if not driver.script("return document.querySelectorAll('#drawing svg').length;"):
        raise Failure("a bad input blanked the drawing")
    log(f"bad input: {error[:70]!r}; the drawing stays")

    # The shareable URL carries the inputs: a fresh load restores them and draws.
    driver.type_into("#f-layout-layout", "S[(4,8):(8,1)]")
    wait_for("the 4x8 drawing", lambda: "S[(4,8):(8,1)]" in json.loads(driver.script(
        "return document.getElementById('answer').textContent || '{}';")).get("layout", ""))
    shared = driver.script("return location.href;")
    driver.go("about:blank")
    driver.go(shared)
    restored = wait_for("the restored field", lambda: driver.script(
        "return document.getElementById('f-layout-layout').value;"))
    if restored != "S[(4,8):(8,1)]":
        raise Failure(f"the URL {shared} restored {restored!r}")
    wait_for("the restored drawing", lambda: drawing_state(driver) == "ready")
    log(f"shared URL {shared} restored the input and the drawing")

    # Another kind from a URL: a sharding on a 2x2 mesh, drawn with its devices.
    driver.go(base + "#kind=sharding&shape=8%2C8&mesh=x%3D2%2Cy%3D2&spec=P('x'%2C'y')")
    wait_for("the sharding drawing", lambda: drawing_state(driver) == "ready")
    kind = json.loads(driver.script("return document.getElementById('answer').textContent;"))
    if kind.get("shard_shape") != [4, 4]:
        raise Failure(f"unexpected sharding answer: {str(kind)[:200]}")
    log("sharding from the URL: shard shape [4, 4]")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--axe", required=True, help="the axe binary ('' when built without serve)")
    parser.add_argument("--server-only", action="store_true",
                        help="check the server's HTTP answers only (no browser)")
    args = parser.parse_args()
    if not args.axe:
        print("SKIP: axe was built without cpp-httplib (libcpp-httplib-dev), so it has no "
              "`axe serve`")
        return SKIP
    if args.server_only:
        server = None
        try:
            server, base = start_server(args.axe)
            check_server(base)
            log("PASS")
            return 0
        except Failure as e:
            log(f"FAIL: {e}")
            return 1
        finally:
            stop(server, "axe serve")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        print("SKIP: the browser test needs chromium and chromedriver (apt install chromium "
              "chromium-driver)")
        return SKIP
    server = driver_process = None
    driver = None
    try:
        server, base = start_server(args.axe)
        port = free_port()
        driver_process = subprocess.Popen([chromedriver, f"--port={port}"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True)
        driver = WebDriver(f"http://127.0.0.1:{port}")
        wait_for("chromedriver", lambda: _ready(driver.base))
        driver.start(chromium)
        log("Chromium started")
        run(driver, base)
        log("PASS")
        return 0
    except Failure as e:
        log(f"FAIL: {e}")
        return 1
    finally:
        if driver:
            driver.stop()
        stop(driver_process, "chromedriver", group=True)
        stop(server, "axe serve")


def _ready(base):
    try:
        status, body = http("GET", f"{base}/status", timeout=2.0)
        return status == 200 and json.loads(body)["value"].get("ready")
    except (OSError, ValueError, KeyError):
        return False


if __name__ == "__main__":
    sys.exit(main())
