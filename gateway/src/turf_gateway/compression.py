"""Gzip for the large public reads only (issue 19: replay pages, town histories, journals; the board serves its own
cached gzip body, built by handlers/public.py). Not for every route: compressing answers that carry a secret (a
session token, a player's own address) beside text an attacker can reflect is what BREACH reads secrets with."""

from __future__ import annotations

import re

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

#: the paths answered gzip when the client accepts it
PUBLIC_READS = re.compile(r"^/api/v1/(replay|territories/[^/]+/history|players/[^/]+/history)$")


class PublicGzip:
    """Starlette's GZipMiddleware (answers of 1 KiB and more), on the :data:`PUBLIC_READS` paths only."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and PUBLIC_READS.match(scope.get("path", "")):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
