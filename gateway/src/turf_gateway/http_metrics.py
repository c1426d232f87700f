"""Prometheus metrics of the gateway's HTTP requests: a count by method, route template and status, and the time
to answer, recorded for every answer (refusals, 503s while a server is down, and errors included) so the graphs
stay true when something is wrong, which is when they are read."""

from __future__ import annotations

import time

from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_common import metrics


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


class HttpMetrics:
    """ASGI middleware recording :data:`turf_common.metrics.HTTP_REQUESTS` and ``HTTP_SECONDS``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start, status = time.perf_counter(), [500]

        async def recording(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                status[0] = msg["status"]
            await send(msg)

        try:
            await self.app(scope, receive, recording)
        finally:
            route = template(scope)
            method = scope["method"]
            metrics.HTTP_REQUESTS.labels(method, route, str(status[0])).inc()
            metrics.HTTP_SECONDS.labels(method, route).observe(time.perf_counter() - start)
