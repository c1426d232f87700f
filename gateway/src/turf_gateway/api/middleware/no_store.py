"""``Cache-Control: no-store`` on every private and organizer answer (ASVS V8.2.1 in 4.0, V14.3 in 5.0): a proxy,
a shared browser or its back button must not keep ``/me``, a hand of cards, ``/admin/players`` or a session token.

Private is what a request with credentials is answered (the gateway has no cookies: ``Authorization`` is the only
credential), what ``compression.PRIVATE`` paths answer whatever the request (a 401 of ``/me`` included), and the
answer to any write. Public reads keep the caching their routes chose (the board's ETag, the pages' no-cache)."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_gateway.api.middleware.compression import PRIVATE


def private(scope: Scope) -> bool:
    return (scope.get("method") not in ("GET", "HEAD") or bool(PRIVATE.match(scope.get("path", "")))
            or any(k == b"authorization" for k, _ in scope.get("headers", ())))


class PrivateNoStore:
    """Sets ``Cache-Control: no-store`` (replacing any other) on the answers :func:`private` names."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not private(scope):
            await self.app(scope, receive, send)
            return

        async def no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, no_store)
