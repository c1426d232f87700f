"""The gateway's edge: one pure ASGI middleware for what every HTTP request gets, in one pass over it.

- **Request id**: the W3C trace context. The caller's ``traceparent`` is continued (its trace id kept, a span id of
  our own), or a trace started; the answer carries ours (``traceparent``), every NATS request and event made for
  the request carries it on, and its ``trace_id`` is bound into the JSON log lines written meanwhile, so a player's
  report is matched to the logs of every service. A span is recorded (and exported) only when an OpenTelemetry
  exporter is configured (``OTEL_EXPORTER_OTLP_ENDPOINT``, :func:`turf_common.tracing.exporting`); otherwise the
  context is a non-recording span made from the ids alone, which costs no span object, no processor, no export.
- **Metrics**: :data:`turf_common.metrics.HTTP_REQUESTS` by method, route template and status, and
  ``HTTP_SECONDS``, recorded for every answer (refusals, 503s while a server is down, and errors included) so the
  graphs stay true when something is wrong, which is when they are read.
- **Access log**: one JSON line (uvicorn's format, on its ``uvicorn.access`` logger, which it replaces) for every
  answer 500 or over, every request slower than ``slow_s``, every request whose caller asked for its trace to be
  sampled (the ``traceparent`` flag), and a ``sample`` share of the rest (``TURF_ACCESS_LOG_SAMPLE``): at the
  opening bell a line per request was a tenth of the gateway's work for lines nobody reads.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any

import structlog
from opentelemetry import context as otel_context
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_common import metrics, tracing

ACCESS = logging.getLogger("uvicorn.access")
HEX = frozenset("0123456789abcdef")


def template(scope: Scope) -> str:
    """The matched route's whole template (``/api/v1/territories/{territory_id}``): FastAPI leaves the innermost
    route in the scope, whose path lacks its routers' prefixes, so those are taken from the request's own path
    (as many leading segments as the template does not cover). Files under a mount: ``/static/*``; no route: one
    ``unmatched`` series, never one per path."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return "unmatched"
    if isinstance(route, Mount):
        return path + "/*"
    segments = scope["path"].split("/")
    prefix = "/".join(segments[: max(len(segments) - path.count("/"), 0)])
    return prefix + path


def parse_traceparent(value: str | None) -> tuple[str, bool] | None:
    """The trace id and sampled flag of a valid version-00 ``traceparent`` (``00-<32 hex>-<16 hex>-<2 hex>``, ids
    not all zeros), else None (a trace of our own is started)."""
    if not value or len(value) != 55:
        return None
    version, trace_id, parent, flags = value.lower().split("-") if value.count("-") == 3 else ("", "", "", "")
    if version != "00" or len(trace_id) != 32 or len(parent) != 16 or len(flags) != 2:
        return None
    if not HEX.issuperset(trace_id + parent + flags) or trace_id == "0" * 32 or parent == "0" * 16:
        return None
    return trace_id, bool(int(flags, 16) & 1)


def _headers(scope: Scope) -> dict[bytes, str]:
    return {k: v.decode("latin-1") for k, v in scope.get("headers", []) if k in (b"traceparent", b"tracestate")}


class Edge:
    """The middleware (outermost: every answer counted and logged, the Host refusals too)."""

    def __init__(self, app: ASGIApp, access_log: bool = True, sample: float = 0.01, slow_s: float = 1.0,
                 draw: Callable[[], float] = random.random) -> None:
        self.app, self.access_log, self.sample, self.slow_s, self.draw = app, access_log, sample, slow_s, draw
        self._counts: dict[tuple[str, str, str], Any] = {}     # the metrics' children, looked up once each
        self._seconds: dict[tuple[str, str], Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        got = _headers(scope)
        parsed = parse_traceparent(got.get(b"traceparent"))
        status = [500]
        try:
            if tracing.exporting():
                carrier = {k.decode(): v for k, v in got.items()} if parsed else None
                with tracing.span(f"HTTP {scope['method']} {scope['path']}", carrier):
                    try:
                        await self._serve(scope, receive, send, tracing.current_traceparent() or "", status)
                    finally:
                        self._log(scope, status[0], start, parsed)
                return
            trace_id = parsed[0] if parsed else f"{random.getrandbits(128):032x}"
            span_id = random.getrandbits(64) or 1
            flags = TraceFlags(TraceFlags.SAMPLED if parsed and parsed[1] else TraceFlags.DEFAULT)
            ctx = set_span_in_context(NonRecordingSpan(SpanContext(int(trace_id, 16), span_id, False, flags)))
            token = otel_context.attach(ctx)
            bound = structlog.contextvars.bind_contextvars(trace_id=trace_id)
            try:
                await self._serve(scope, receive, send, f"00-{trace_id}-{span_id:016x}-{int(flags):02x}", status)
            finally:
                self._log(scope, status[0], start, parsed)
                structlog.contextvars.reset_contextvars(**bound)
                otel_context.detach(token)
        finally:
            self._count(scope, status[0], time.perf_counter() - start)

    async def _serve(self, scope: Scope, receive: Receive, send: Send, traceparent: str, status: list[int]) -> None:
        tp = traceparent.encode()

        async def sending(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                status[0] = msg["status"]
                if tp:
                    msg = {**msg, "headers": [*msg.get("headers", []), (b"traceparent", tp)]}
            await send(msg)

        await self.app(scope, receive, sending)

    def _count(self, scope: Scope, status: int, seconds: float) -> None:
        route, method = template(scope), scope["method"]
        key = (method, route, str(status))
        child = self._counts.get(key)
        if child is None:
            child = self._counts[key] = metrics.HTTP_REQUESTS.labels(*key)
        child.inc()
        timer = self._seconds.get(key[:2])
        if timer is None:
            timer = self._seconds[key[:2]] = metrics.HTTP_SECONDS.labels(method, route)
        timer.observe(seconds)

    def logged(self, status: int, seconds: float, sampled_by_caller: bool) -> bool:
        """Whether a request's access line is written (see the module's docstring)."""
        return self.access_log and (status >= 500 or seconds >= self.slow_s or sampled_by_caller
                                    or (self.sample > 0 and self.draw() < self.sample))

    def _log(self, scope: Scope, status: int, start: float, parsed: tuple[str, bool] | None) -> None:
        seconds = time.perf_counter() - start
        if not self.logged(status, seconds, bool(parsed and parsed[1])):
            return
        client = scope.get("client")
        query = scope.get("query_string", b"")
        path = scope["path"] + ("?" + query.decode("latin-1") if query else "")
        ACCESS.info('%s - "%s %s HTTP/%s" %d %.1fms', f"{client[0]}:{client[1]}" if client else "-",
                    scope["method"], path, scope.get("http_version", "1.1"), status, seconds * 1000)
