"""The stream client's HTTP/1.1 parsing, fed byte by byte where it matters."""

from __future__ import annotations

import asyncio

from worker.harness.http1 import _Exchange


def _feed(pieces: list[bytes]) -> _Exchange:
    loop = asyncio.new_event_loop()
    try:
        ex = _Exchange(loop)
        for i, piece in enumerate(pieces):
            ex.feed(float(i), piece)
        return ex
    finally:
        loop.close()


HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def test_chunked_body_split_anywhere_is_reassembled_with_arrival_times() -> None:
    body = b"7\r\ndata: 1\r\n7\r\ndata: 2\r\n0\r\n\r\n"
    ex = _feed([HEAD + body[:5], body[5:13], body[13:]])
    assert ex.done.done() and ex.resp.status == 200
    assert b"".join(d for _, d in ex.resp.reads) == b"data: 1data: 2"
    assert [t for t, _ in ex.resp.reads] == [0.0, 1.0, 2.0]


def test_a_stray_crlf_from_the_previous_response_is_ignored() -> None:
    ex = _feed([b"\r\n", HEAD, b"0\r\n\r\n"])
    assert ex.done.done() and ex.resp.status == 200


def test_a_non_http_reply_is_garbage() -> None:
    ex = _feed([b"SSH-2.0-OpenSSH_9.2\r\n\r\n"])
    assert ex.done.done() and "bad status line" in str(ex.done.exception())


def test_an_error_body_with_content_length_is_kept() -> None:
    ex = _feed([b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\nbo", b"om"])
    assert not ex.done.done()
    ex.feed(3.0, b"!")
    assert ex.done.done() and ex.resp.status == 500 and ex.resp.body == b"boom!"
