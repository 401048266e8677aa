"""A minimal HTTP/1.1 client on asyncio protocols, built for timing streams.

Why not aiohttp's client for the measured requests: it buffers the request headers and
writes the body from a separate task (so bytes leave a loop iteration after the send
timestamp), and a streamed read wakes the reading coroutine one loop iteration after the
bytes arrived. Under hundreds of streams on a small CPU those hops cost milliseconds.
Here the request goes out with one synchronous ``transport.write`` right after the send
timestamp, and every arrival is timestamped inside ``data_received``, the first Python
code that runs for it. Per read the only work is the chunked-transfer framing.

Scope: what OpenAI-compatible servers speak: plain HTTP/1.1 (no TLS), keep-alive,
``Transfer-Encoding: chunked``, ``Content-Length`` or close-delimited bodies.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from time import perf_counter
from urllib.parse import urlsplit

from worker.outbound import check_target

_HEAD_LIMIT = 64 * 1024
_BODY_LIMIT = 4096  # of a non-streaming (error) body: enough for its message


class HttpError(Exception):
    """A transport-level failure, worded for the request's ``error``."""


class ClosedBeforeResponse(HttpError):
    """The server closed the connection without a byte of response: on a reused
    keep-alive connection that means it had timed the connection out, so retry."""


@dataclass(slots=True)
class Response:
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    reads: list[tuple[float, bytes]] = field(default_factory=list)  # decoded body, timestamped
    body: bytes = b""  # non-200 bodies, capped
    keep_alive: bool = True
    last_activity: float = 0.0


class _Exchange:
    """Parses one response as it arrives; ``done`` resolves when it is complete."""

    __slots__ = (
        "_buf",
        "_chunk_left",
        "_head_done",
        "_length_left",
        "_mode",
        "_stream",
        "done",
        "resp",
        "sent",
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.resp = Response(last_activity=perf_counter())
        self.sent = self.resp.last_activity
        self.done: asyncio.Future[Response] = loop.create_future()
        self._buf = b""
        self._head_done = False
        self._mode = ""  # chunked | length | close
        self._chunk_left = -1  # -1: expecting a chunk-size line; -2: expecting the CRLF after data
        self._length_left = 0
        self._stream = False

    def feed(self, t: float, data: bytes) -> None:
        self.resp.last_activity = t
        if not self._head_done:
            # Empty lines before a status line are ignored (RFC 9112 2.2): the tail of the
            # previous response's chunked framing can arrive after it was complete.
            self._buf = (self._buf + data).lstrip(b"\r\n")
            end = self._buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buf) > _HEAD_LIMIT:
                    self.fail(HttpError("garbage response: no HTTP header end in 64 KiB"))
                return
            head, data = self._buf[:end], self._buf[end + 4 :]
            self._buf = b""
            if not self._parse_head(head):
                return
        if data:
            self._body(t, data)

    def _parse_head(self, head: bytes) -> bool:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            self.fail(HttpError(f"garbage response: bad status line {lines[0][:60]!r}"))
            return False
        self.resp.status = int(parts[1])
        headers = self.resp.headers
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        self._head_done = True
        self.resp.keep_alive = parts[0] == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        self._stream = self.resp.status == 200
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._mode = "chunked"
        elif "content-length" in headers:
            self._mode, self._length_left = "length", int(headers["content-length"] or 0)
            if self._length_left == 0:
                self._finish()
        else:
            self._mode, self.resp.keep_alive = "close", False
        return True

    def _emit(self, t: float, data: bytes) -> None:
        if self._stream:
            self.resp.reads.append((t, data))
        elif len(self.resp.body) < _BODY_LIMIT:
            self.resp.body += data[: _BODY_LIMIT - len(self.resp.body)]

    def _body(self, t: float, data: bytes) -> None:
        if self._mode == "length":
            take = data[: self._length_left]
            self._length_left -= len(take)
            self._emit(t, take)
            if self._length_left <= 0:
                self._finish()
        elif self._mode == "close":
            self._emit(t, data)
        else:
            self._chunked(t, data)

    def _chunked(self, t: float, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        self._buf = b""
        pos, n = 0, len(buf)
        out: list[bytes] = []
        while pos < n:
            if self._chunk_left == -1:  # chunk-size line
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    self._buf = buf[pos:]
                    break
                size_text = buf[pos:eol].split(b";", 1)[0].strip()
                try:
                    size = int(size_text, 16)
                except ValueError:
                    self.fail(HttpError(f"garbage response: bad chunk size {size_text[:20]!r}"))
                    return
                pos = eol + 2
                if size == 0:
                    if out:
                        self._emit(t, b"".join(out))
                    self._finish()  # trailers, if any, are ignored
                    return
                self._chunk_left = size
            elif self._chunk_left == -2:  # the CRLF after a chunk's data
                if n - pos < 2:
                    self._buf = buf[pos:]
                    break
                pos += 2
                self._chunk_left = -1
            else:
                take = min(self._chunk_left, n - pos)
                out.append(buf[pos : pos + take])
                pos += take
                self._chunk_left -= take
                if self._chunk_left == 0:
                    self._chunk_left = -2
        if out:
            self._emit(t, b"".join(out))

    def _finish(self) -> None:
        if not self.done.done():
            self.done.set_result(self.resp)

    def fail(self, exc: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(exc)

    def connection_lost(self) -> None:
        if self._head_done and self._mode == "close":
            self._finish()
        elif not self._head_done and not self._buf.strip():
            self.fail(ClosedBeforeResponse("connection closed before any response"))
        else:
            self.fail(HttpError("stream dropped: connection closed mid-response"))


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.current: _Exchange | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        t = perf_counter()  # the earliest moment Python sees these bytes
        if self.current is not None:
            self.current.feed(t, data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.current is not None:
            self.current.connection_lost()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Http1Pool:
    """Keep-alive connections to one host; ``request`` sends and waits for a response."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"only plain http:// URLs are supported, got {base_url!r}")
        # Resolved and checked once, here, before any connection: every connection then
        # goes to that address, whatever the name resolves to later (worker/outbound.py).
        target = check_target(base_url)
        self.host, self.port = str(target.address), target.port
        self.authority = parts.netloc
        self.idle: list[_Connection] = []
        self.inflight: set[_Exchange] = set()

    def build(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """The complete request bytes, built once, outside the timed path."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.authority}", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, proto = await loop.create_connection(_Connection, self.host, self.port)
        except OSError as exc:
            raise HttpError(f"connection error: {exc}") from None
        return proto

    async def warm(self, n: int) -> None:
        """Open connections ahead of a level, so its first requests don't pay for them."""
        missing = n - len(self.idle)
        if missing > 0:
            opened = await asyncio.gather(*(self._connect() for _ in range(missing)), return_exceptions=True)
            # A failed connect is not fatal here: each request then records its own error.
            self.idle.extend(c for c in opened if isinstance(c, _Connection))

    async def request(self, data: bytes) -> tuple[float, _Exchange, bool]:
        """Sends ``data`` on an idle connection (or a new one) with one synchronous write.
        Returns (send time, exchange, whether the connection had been waiting in the
        pool, where the server may have closed it); await ``exchange.done``."""
        conn = None
        while self.idle and conn is None:
            candidate = self.idle.pop()
            if not candidate.closed:
                conn = candidate
        pooled = conn is not None
        if conn is None:
            conn = await self._connect()
        ex = _Exchange(asyncio.get_running_loop())
        conn.current = ex
        assert conn.transport is not None
        sent = perf_counter()
        conn.transport.write(data)
        ex.sent = ex.resp.last_activity = sent
        self.inflight.add(ex)
        ex.done.add_done_callback(lambda _f: self._release(conn, ex))
        return sent, ex, pooled

    def _release(self, conn: _Connection, ex: _Exchange) -> None:
        self.inflight.discard(ex)
        conn.current = None
        ok = not ex.done.cancelled() and ex.done.exception() is None
        if ok and ex.resp.keep_alive and not conn.closed:
            self.idle.append(conn)
        else:
            conn.close()

    def close(self) -> None:
        for conn in self.idle:
            conn.close()
        self.idle.clear()
