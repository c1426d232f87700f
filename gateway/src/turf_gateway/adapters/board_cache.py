"""Cheap reads: ``GET /board`` served from one body (and its gzip) per ownership version, so a reconnect
storm of spectators neither asks the claims service for every territory nor re-serialises the board each time,
and a 304 costs a comparison.

The version (``FeedState.board_version``) moves on with every ``territory.changed`` this gateway's feed sees and
with every request this gateway answered that may have changed ownership (:class:`WritesMoveTheBoard`): a player
who claimed through this gateway reads the board with the claim, even before the claim's event has come back over
the feed. Another replica's writes reach this one's board with their events, a few milliseconds later."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send


@dataclass(frozen=True)
class Body:
    version: int
    etag: str          # quoted, over the uncompressed body
    raw: bytes
    gz: bytes


class BoardCache:
    """The body of the last version built; concurrent requests for a version not built yet share one build."""

    def __init__(self) -> None:
        self.current: Body | None = None
        self._inflight: tuple[int, asyncio.Future[Body]] | None = None

    def fresh(self, version: int) -> Body | None:
        """The cached body when it is of ``version``."""
        return self.current if self.current is not None and self.current.version == version else None

    async def get(self, version: int, build: Callable[[], Awaitable[bytes]]) -> Body:
        """The body of ``version``: cached, or built once by ``build`` (the JSON bytes) for every caller."""
        if (body := self.fresh(version)) is not None:
            return body
        inflight = self._inflight
        if inflight is None or inflight[0] != version or (inflight[1].done() and inflight[1].exception()):
            inflight = self._inflight = (version, asyncio.ensure_future(self._build(version, build)))
        return await asyncio.shield(inflight[1])

    async def _build(self, version: int, build: Callable[[], Awaitable[bytes]]) -> Body:
        raw = await build()
        gz = await asyncio.to_thread(gzip.compress, raw, 6)   # zlib lets go of the GIL: requests go on meanwhile
        body = Body(version, '"' + hashlib.sha256(raw).hexdigest()[:32] + '"', raw, gz)
        if self.current is None or self.current.version <= version:
            self.current = body
        return body


#: the requests that may change ownership: a claim, a card, an accepted trade, a correction, a disqualification, a
#: clock move (day-start effects). Not the others (a claim check, a sign-in), which would only empty the cache.
OWNERSHIP_WRITES = re.compile(r"^/api/v1/(claims|cards/play|trades/[^/]+/accept|admin/corrections|"
                              r"admin/players/[^/]+/disqualify|admin/clock)$")


class WritesMoveTheBoard:
    """Moves ``app.state.turf.feed.board_version`` on for every :data:`OWNERSHIP_WRITES` request (POST) answered below
    400, as its answer starts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not OWNERSHIP_WRITES.match(scope["path"]):
            await self.app(scope, receive, send)
            return
        state = getattr(scope["app"].state, "turf", None)

        async def sent(message: Message) -> None:
            # before the answer leaves: once a client has it, its next read must see the new version (the
            # answer is made after the change was committed)
            if message["type"] == "http.response.start" and message["status"] < 400 and state is not None:
                state.feed.board_version += 1
            await send(message)

        await self.app(scope, receive, sent)
