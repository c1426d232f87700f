"""The gateway's HTTP server: uvicorn with timeouts and a connection cap (slowloris), and no ``server`` banner.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) and answers 503 past ``limit_concurrency``,
but it has no timeout for a request's headers or body: a socket that sent half its headers, or 14 of 400 body
bytes, stayed open for good, and a few hundred such sockets hold a gateway's connections. :class:`TimedHttp` is
uvicorn's own httptools protocol (its ``http=`` extension point) with two deadlines more: a request's headers
must be complete within ``header_timeout_s`` of the connection (or of the previous answer), its body within
``body_timeout_s`` of its headers; past either, 408 and the connection is closed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from turf_common.settings import Settings


class TimedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with header and body deadlines (class attributes, set by :func:`uvicorn_options`).
    A websocket upgrade leaves the deadlines behind (the socket's own pings and limits take over)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        # the body (if any) is due next; a request without one completes in the same parse, which disarms this
        self._arm(self.body_timeout_s)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)   # a next request already read whole starts now: no deadline for it
        super().on_response_complete()
        if not pipelined and not self.transport.is_closing():   # the next request's headers, if any come
            self._arm(self.header_timeout_s)

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """408 (unless an answer has begun) and close: the client took too long to send its request."""
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            body = json.dumps({"reason": "request_timeout",
                               "message": "The request took too long to arrive; send it again."}).encode()
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                                 b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
                                 + body)
        self.transport.close()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The server's limits, from the settings: header and body deadlines (:class:`TimedHttp`), the keep-alive
    idle time, the connection cap (uvicorn's ``limit_concurrency``: past it, 503), and no ``server`` header
    (it told every client which server and so which known flaws to try)."""
    TimedHttp.header_timeout_s = settings.http_header_timeout_s
    TimedHttp.body_timeout_s = settings.http_body_timeout_s
    return {"http": TimedHttp, "timeout_keep_alive": settings.http_keep_alive_s,
            "limit_concurrency": settings.http_max_connections, "server_header": False}
