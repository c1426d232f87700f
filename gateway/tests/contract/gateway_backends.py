"""The stores under test in the gateway's contract suite (conftest.py makes one set per implementation)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from turf_gateway.ports import AccountTokens, CorrectionLog, FeedLog, FlagClearances, PlayerStore, SessionStore

#: the season's zone, in which a correction record is answered
TZ = ZoneInfo("America/New_York")

#: an entry of the organizer's action log: (by, action, target, reason, detail)
Entry = tuple[str, str, str | None, str | None, dict[str, Any]]


@dataclass
class Backend:
    """The gateway's five stores on one database (or one :class:`~turf_gateway.testing.MemoryTables`), and what the
    contract reads beside their ports: the organizer's action log in order, and the staged outbox as
    (subject, event as JSON) in commit order."""

    name: str
    players: PlayerStore
    sessions: SessionStore
    clearances: FlagClearances
    feed_log: FeedLog
    corrections: CorrectionLog
    admin_log: Callable[[], Awaitable[list[Entry]]]
    staged: Callable[[], Awaitable[list[tuple[str, dict[str, Any]]]]]
    tokens: AccountTokens   # R30: on the same tables (a reset changes the player and ends sessions)
