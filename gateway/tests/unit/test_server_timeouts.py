"""The gateway's HTTP server (uvicorn with ``turf_gateway.server``'s options) against slowloris: a socket that
sends half its headers, or part of its body, is answered 408 and closed within the deadline; no ``server`` banner;
an ordinary request, a kept-alive second one and a websocket that outlives the deadlines are untouched.

Threat: one socket with unfinished headers and one with 14 of 400 body bytes were both still open after 36 s (no
header or body timeout), so a few hundred such sockets hold every connection of a gateway."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect

from turf_common.settings import Settings
from turf_gateway.server import uvicorn_options

DEADLINE_S = 0.5


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Echoes the body's length over HTTP; a websocket gets "late" after twice the deadlines."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.sleep(DEADLINE_S * 3)
        await send({"type": "websocket.send", "text": "late"})
        await send({"type": "websocket.close"})
        return
    body = b""
    while True:
        msg = await receive()
        body += msg.get("body", b"")
        if not msg.get("more_body"):
            break
    out = str(len(body)).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(out)).encode())]})
    await send({"type": "http.response.body", "body": out})


@pytest.fixture
async def port() -> AsyncIterator[int]:
    settings = Settings(http_header_timeout_s=DEADLINE_S, http_body_timeout_s=DEADLINE_S, http_keep_alive_s=5)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, **uvicorn_options(settings)))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):   # uvicorn says it has started by a flag only
        if server.started:
            break
        await asyncio.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    await task


async def _answer_after(port: int, sent: bytes) -> tuple[bytes, float]:
    """What the server answers a client that sends ``sent`` and then nothing, until it closes; and when."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    t0 = time.monotonic()
    writer.write(sent)
    answer = await asyncio.wait_for(reader.read(), timeout=10)   # to EOF: the server closed the connection
    writer.close()
    return answer, time.monotonic() - t0


async def test_slowloris_unfinished_headers_get_408_and_are_closed_in_bounded_time(port: int) -> None:
    answer, took = await _answer_after(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
    assert answer.startswith(b"HTTP/1.1 408 ") and b'"reason": "request_timeout"' in answer
    assert DEADLINE_S * 0.8 <= took < DEADLINE_S + 3


async def test_slowloris_an_unfinished_body_gets_408_and_is_closed_in_bounded_time(port: int) -> None:
    answer, took = await _answer_after(
        port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 400\r\n\r\n" + b"x" * 14)
    assert answer.startswith(b"HTTP/1.1 408 ") and took < DEADLINE_S + 3


async def test_a_silent_connection_is_closed_in_bounded_time(port: int) -> None:
    answer, took = await _answer_after(port, b"")
    assert answer.startswith(b"HTTP/1.1 408 ") and took < DEADLINE_S + 3


async def test_ordinary_requests_and_keep_alive_pass_without_a_server_banner(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(2):   # the second on the same connection, after the first answer
        writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 ") and b"\r\nserver:" not in head.lower()
        assert await reader.readexactly(1) == b"3"
    writer.close()


async def test_a_websocket_outlives_the_request_deadlines(port: int) -> None:
    async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        assert await asyncio.wait_for(ws.recv(), 10) == "late"
