"""Ports of geo-verify: the board it answers from, and the claim path's stage (the players' trails, the game clock,
the claims service it hands verified claims to)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from turf_common.board.loader import Location
from turf_common.contracts.geo import VerifiedClaim
from turf_common.rules.antispoof import FixRecord


class BoardIndex(Protocol):
    """Point lookup over the board's territories (WGS84 degrees in, metres out)."""

    def locate(self, lat: float, lon: float) -> Location: ...

    def name_of(self, territory_id: str) -> str: ...


class Unavailable(Exception):
    """A store or service the claim path needs did not answer: nothing was decided."""


class NotHandedOn(Unavailable):
    """No claims process took the claim within its window to be handed on: nothing was decided, and its
    requester may give up before an answer could reach it."""


@dataclass(frozen=True)
class TrailBefore:
    """A player's trail as it was before a fix joined it (R7.1): ``fixes``, those received at or after the asked
    instant (at most the asked number, the most recent), oldest first; ``last``, the player's latest fix of any
    time (the day's first fix is compared with it), or None."""

    fixes: list[FixRecord]
    last: FixRecord | None


class Trails(Protocol):
    """R7.1: every player's trail of the fixes the server saw (claims and checks), kept across restarts."""

    async def join(self, player_id: str, fix: FixRecord, since: datetime, limit: int) -> TrailBefore:
        """Add ``fix`` to the player's trail and return the trail as it was before it, atomically: two fixes of
        one player, however concurrent, each see the other or are seen by it. Raises :class:`Unavailable`."""
        ...

    async def fixes(self, player_id: str) -> list[FixRecord]:
        """R30: the player's trail as kept, oldest first (their export). Raises :class:`Unavailable`."""
        ...

    async def erase(self, player_id: str | None) -> int:
        """R30: the trail of ``player_id`` (they withdrew), or every trail (None: the season is long closed),
        deleted; how many fixes went. Raises :class:`Unavailable`."""
        ...


class Clock(Protocol):
    """The game clock: :meth:`now` as watched in memory, :meth:`fresh_now` read from its store at this moment."""

    async def now(self) -> datetime: ...

    async def fresh_now(self) -> datetime: ...


class ClaimsHandOn(Protocol):
    """Port: hands a verified claim on to the claims service (the claim path's second stage) and brings back its
    reply."""

    async def ask(self, subject: str, claim: VerifiedClaim, within: float | None = None) -> bytes:
        """The claims service's reply to ``claim`` on ``subject``, undecoded (geo-verify relays it as it is),
        handed on within ``within`` seconds or not at all (None: the adapter's own window). Raises
        :class:`NotHandedOn` when nobody took it in that time, :class:`Unavailable` when it does not answer."""
        ...
