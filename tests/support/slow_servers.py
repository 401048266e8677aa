"""Misbehaving servers on loopback, for the probe's deadline and what it keeps:

- `stalling()`: accepts connections and never answers a byte;
- `trickling()`: answers a 200 with headers, then one body byte every 0.1 s, for ever;
- `internal_service(marker)`: an internal service that is not an engine, answering every
  path with a page that carries `marker` (in Prometheus text and in JSON).

Each is a context manager giving its base URL; the server stops with it."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def stalling() -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)  # kept open, never answered

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        listener.close()


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the probe hung up at its deadline
            super().handle()


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[tuple[str, ThreadingHTTPServer]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def trickling() -> Iterator[str]:
    class Trickle(_Quiet):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            for _ in range(100_000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)

    with _serving(Trickle) as (url, _):
        yield url


@contextmanager
def internal_service(marker: str) -> Iterator[tuple[str, list[str]]]:
    """Its URL and the paths it was asked for."""
    asked: list[str] = []

    class Internal(_Quiet):
        def do_GET(self) -> None:
            asked.append(self.path)
            if "metrics" in self.path:
                body = (
                    f"# HELP internal_secret {marker}\n"
                    f'internal_secret{{value="{marker}"}} 1\n'
                    f'vllm:spec_decode_num_draft_tokens_total{{note="{marker}"}} 7\n'
                    f"vllm:generation_tokens_total 3\n"
                ).encode()
                kind = "text/plain; version=0.0.4"
            else:
                body = ('{"object": "list", "data": [], "secret": "' + marker + '"}').encode()
                kind = "application/json"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with _serving(Internal) as (url, _):
        yield url, asked
