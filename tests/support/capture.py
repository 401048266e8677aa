"""An attacker's server on loopback: it answers every request 404 and records the
`Authorization` header each one carried, so a test can say what was sent to it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Captured:
    base_url: str
    authorizations: list[str | None] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


@contextmanager
def capture_server() -> Iterator[Captured]:
    seen: Captured

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            seen.paths.append(self.path)
            seen.authorizations.append(self.headers.get("Authorization"))
            body = b'{"error": "not found"}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen = Captured(base_url=f"http://127.0.0.1:{httpd.server_address[1]}")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        httpd.shutdown()
        httpd.server_close()
