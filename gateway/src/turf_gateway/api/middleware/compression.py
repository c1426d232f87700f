"""Gzip for pages and public data only (replay pages, town histories, journals, the pages' scripts; the
board serves its own cached gzip body, built by handlers/public.py). Never for an answer that may carry a secret:
compressing a session token or a player's own address beside text an attacker can reflect is what BREACH reads
secrets with. The gateway has no cookies, so only a request that carries ``Authorization`` (or posts a password)
can be answered with a secret: those, and the private paths whatever the request, are sent uncompressed."""

from __future__ import annotations

import re

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

#: answers of these paths are private (the caller's own, the organizer's, a session's token) whatever the request
PRIVATE = re.compile(r"^/api/v1/(me|admin|sessions|password-resets)(/|$)")


def compressible(scope: Scope) -> bool:
    """A public read: GET or HEAD, without credentials, not on a :data:`PRIVATE` path."""
    return (scope["type"] == "http" and scope.get("method") in ("GET", "HEAD")
            and not PRIVATE.match(scope.get("path", ""))
            and not any(k == b"authorization" for k, _ in scope.get("headers", ())))


class PublicGzip:
    """Starlette's GZipMiddleware (answers of 1 KiB and more) on public reads only (:func:`compressible`)."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if compressible(scope):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
