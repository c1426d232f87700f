"""HTTP side of tracing: each request continues the caller's ``traceparent`` (or starts a trace) and answers
with the ``traceparent`` of its span, so a player's report can be matched to the logs of every service."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_common import tracing


class TraceRequests:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])
                   if k in (b"traceparent", b"tracestate")}
        with tracing.span(f"HTTP {scope['method']} {scope['path']}", headers):
            tp = tracing.current_traceparent()

            async def send_with_trace(msg: Message) -> None:
                if msg["type"] == "http.response.start" and tp:
                    msg = {**msg, "headers": [*msg.get("headers", []), (b"traceparent", tp.encode())]}
                await send(msg)

            return await self.app(scope, receive, send_with_trace)
