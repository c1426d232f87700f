"""Sessions end after a time unused (ASVS V7.3.1 in 4.0, V7.3 in 5.0), as well as at their absolute expiry
(``TURF_SESSION_TTL_HOURS``, 14 days). Before, a token forgotten on a shared phone answered for 14 days whether or
not anyone used it. Each use moves the session's idle deadline (stored as ``idle_until``), at most once per
:attr:`IdlePolicy.step`, so an active session costs one write an hour, not one per request. Pure: times in, the
decision out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class IdlePolicy:
    """How long a session may go unused: ``player`` (``TURF_SESSION_IDLE_HOURS``, 7 days: a weekend away from the
    game keeps one signed in) and ``organizer`` (``TURF_ORGANIZER_SESSION_IDLE_HOURS``, 12 hours: its powers are
    the game's)."""

    player: timedelta = timedelta(days=7)
    organizer: timedelta = timedelta(hours=12)
    step: timedelta = timedelta(hours=1)

    def span(self, role: str) -> timedelta:
        return self.organizer if role == "organizer" else self.player

    def first(self, role: str, now: datetime, expires_at: datetime) -> datetime:
        """The idle deadline of a session made at ``now``."""
        return min(now + self.span(role), expires_at)

    @staticmethod
    def ends(expires_at: datetime, idle_until: datetime | None) -> datetime:
        """When the session ends: its absolute expiry or its idle deadline, whichever is first (a session made
        before idle deadlines existed has none until its first use)."""
        return expires_at if idle_until is None else min(expires_at, idle_until)

    def moved(self, role: str, now: datetime, expires_at: datetime, idle_until: datetime | None) -> datetime | None:
        """The idle deadline to store after a use at ``now``; None when it moves by less than :attr:`step`."""
        target = min(now + self.span(role), expires_at)
        if idle_until is not None and target - idle_until < self.step:
            return None
        return target
