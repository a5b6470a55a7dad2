"""Compose's nginx (deploy/nginx.conf), run for real in front of a server that holds
requests open: an address's connections beyond the limit are refused before they reach
the server, with a problem on the API and a short text on the pages; other addresses
are served; the server is told the client's address.

The server behind it is a stand-in that holds every ``/hold`` request until it is let go:
what is tested here is the proxy's file (the application's own caps have their tests in
tests/api/). The abuse bench runs the same file in front of the real stack.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bench.faults.stack import ROOT, free_port, nginx_program, proxy_config
from tests.waiting import wait_for

pytestmark = pytest.mark.nginx

_FOUND = re.search(r"limit_conn per_address (\d+);", (ROOT / "deploy" / "nginx.conf").read_text())
assert _FOUND is not None, "deploy/nginx.conf has no per-address connection limit"
LIMIT = int(_FOUND.group(1))


class Upstream(ThreadingHTTPServer):
    daemon_threads = True
    # nginx opens its connections to it all at once (the default backlog is 5).
    request_queue_size = 128

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.release = threading.Event()
        self.holding = 0
        self.lock = threading.Lock()
        self.forwarded: list[str] = []


class Handler(BaseHTTPRequestHandler):
    server: Upstream

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        with self.server.lock:
            self.server.forwarded.append(self.headers.get("X-Forwarded-For", ""))
        if self.path.startswith("/api/v1/hold"):
            with self.server.lock:
                self.server.holding += 1
            self.server.release.wait(30)
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[Upstream, int]]:
    upstream = Upstream()
    serving = threading.Thread(target=upstream.serve_forever, daemon=True)
    serving.start()
    port = free_port()
    config = proxy_config(tmp_path, f"127.0.0.1:{upstream.server_address[1]}", port)
    nginx = subprocess.Popen(
        [nginx_program(), "-c", str(config), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    def answers() -> bool:
        try:
            return get(port, "/healthz", "10.9.0.9")[0] == 200
        except OSError:
            return False

    def running() -> None:
        assert nginx.poll() is None, f"nginx stopped: {nginx.stderr and nginx.stderr.read()!r}"

    try:
        wait_for(answers, timeout=20, what="nginx to answer", check=running)
        yield upstream, port
    finally:
        upstream.release.set()
        nginx.terminate()
        nginx.wait(timeout=20)
        upstream.shutdown()
        upstream.server_close()


def get(port: int, path: str, address: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        # As the TLS terminator in front would pass the client's address on.
        conn.request("GET", path, headers={"X-Forwarded-For": address})
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        conn.close()


def test_an_address_beyond_its_connections_is_refused_by_the_proxy_and_others_are_served(
    proxied: tuple[Upstream, int],
) -> None:
    upstream, port = proxied
    held: list[int] = []
    holders = [
        threading.Thread(target=lambda: held.append(get(port, "/api/v1/hold", "10.9.0.1")[0]))
        for _ in range(LIMIT)
    ]
    for holder in holders:
        holder.start()
    wait_for(lambda: upstream.holding == LIMIT, timeout=20, what=f"{LIMIT} held requests to arrive")

    status, headers, body = get(port, "/api/v1/games/1", "10.9.0.1")
    assert status == 429
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["Retry-After"] == "1"
    problem = json.loads(body)
    assert problem["type"] == "/api/v1/problems/throttled"
    assert problem["status"] == 429 and problem["limit"] == "connections_address"

    status, headers, body = get(port, "/tournaments/", "10.9.0.1")
    assert status == 429 and headers["Content-Type"].startswith("text/plain")
    assert "Слишком много соединений" in body.decode()

    reached = upstream.holding
    assert get(port, "/tournaments/", "10.9.0.2")[0] == 200, "another address is served"
    assert upstream.holding == reached == LIMIT, "the refused ones never reached the server"
    # The server is told the client's address, once: PARLOUR_NUM_PROXIES=1 takes the last.
    assert upstream.forwarded[-1] == "10.9.0.2"

    upstream.release.set()
    for holder in holders:
        holder.join(timeout=30)
    assert held == [200] * LIMIT
    assert get(port, "/api/v1/games/1", "10.9.0.1")[0] == 200, "the limit ends with them"


def test_the_proxys_own_errors_are_problems_on_the_api_and_texts_on_the_pages(
    proxied: tuple[Upstream, int],
) -> None:
    upstream, port = proxied
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        # Announced over the proxy's body limit: refused from the headers, before any body.
        conn.putrequest("POST", "/api/v1/records/verify")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(3_000_000))
        conn.endheaders()
        answer = conn.getresponse()
        assert answer.status == 413
        assert answer.getheader("Content-Type") == "application/problem+json"
        assert json.loads(answer.read())["type"] == "/api/v1/problems/payload-too-large"
    finally:
        conn.close()

    upstream.shutdown()
    upstream.server_close()  # the web processes are down: nothing listens behind the proxy
    status, headers, body = get(port, "/api/v1/games/1", "10.9.0.3")
    assert status == 503 and headers["Content-Type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["type"] == "/api/v1/problems/unavailable" and problem["retry_after"] == 5
    assert headers["Retry-After"] == "5"
    status, headers, body = get(port, "/", "10.9.0.3")
    assert status == 503 and headers["Content-Type"].startswith("text/plain")
    assert "не отвечает" in body.decode()
