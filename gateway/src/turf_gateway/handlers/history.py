"""Public: a town's history, a player's season journal and the replay of the public feed (API.md "History and
replay"), read from the feed log; the journal's rules are the pure functions of
:mod:`turf_gateway.handlers.history_entries`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from turf_common.board import Board
from turf_common.rules.gametime import SeasonConfig
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers import history_entries
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.ports import HISTORY_PAGE, FeedLog, GameClock, PlayerStore, Window

if TYPE_CHECKING:
    from turf_gateway.handlers.seasons import Seasons


@dataclass
class History:
    """R31: each season has its own history: a read is of one season's instants (``window``, from
    :meth:`Seasons.archive`), by default the season in force's (every instant without ``seasons``)."""

    log: FeedLog
    players: PlayerStore
    board: Board
    season: SeasonSource
    clock: GameClock | None = None
    seasons: Seasons | None = None

    async def _now(self) -> datetime:
        return await self.clock.now() if self.clock is not None else datetime.now(UTC)

    async def _in_force(self, window: Window | None) -> Window:
        if window is not None:
            return window
        return (None, None) if self.seasons is None else (await self.seasons.archive(None)).window

    async def record(self, rows: list[dict[str, Any]]) -> None:
        """Store feed messages (``{seq, type, at, territory_id, players, body}``) in the feed log, once each: a
        sequence stored is kept (a redelivered batch stores nothing twice)."""
        await self.log.store(rows)

    async def territory(self, territory_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                        window: Window | None = None) -> dict[str, Any]:
        """The changes of the town's owner or fortification, oldest first, a page of at most ``limit`` after
        ``after_seq`` (``next_seq`` the next page's, null on the last); 404 ``not_found`` for no such town."""
        if territory_id not in self.board.territories:
            raise ApiError("not_found", "No territory with that id.")
        msgs, next_seq = await self.log.territory_changes(territory_id, after_seq, limit,
                                                          await self._in_force(window))
        entries = [history_entries.territory_entry(m) for m in msgs]
        for e in entries:   # R30: a withdrawal logged before it had a cause of its own is told as what it was
            if e["kind"] == "disqualification" and e.get("previous_owner_id") and await self.players.standing(
                    e["previous_owner_id"]) == ("player", "withdrawn"):
                e["kind"] = "withdrawal"
        return {"history": entries, "next_seq": next_seq}

    async def player(self, player_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                     window: Window | None = None, season: SeasonConfig | None = None) -> dict[str, Any]:
        """The player's public season record with daily totals, a page of at most ``limit`` feed messages after
        ``after_seq`` (``next_seq`` as :meth:`territory`; ``days`` totals this page's entries); 404 ``not_found``
        for no such player."""
        if await self.players.standing(player_id) is None:
            raise ApiError("not_found", "No such player.")
        msgs, next_seq = await self.log.player_messages(player_id, after_seq, limit, await self._in_force(window))
        entries = [e for m in msgs if (e := history_entries.journal_entry(player_id, m)) is not None]
        tz = (season or config_at(self.season, await self._now())).tz   # the days of that season, in its zone
        return {"history": entries, "days": history_entries.daily_totals(entries, tz), "next_seq": next_seq}

    async def replay(self, start: datetime | None, end: datetime | None, after_seq: int,
                     limit: int, window: Window | None = None) -> dict[str, Any]:
        """A page of the public feed of ``start`` <= at < ``end`` (either open) after ``after_seq``, within the
        season's ``window``."""
        if start is not None and end is not None and end < start:
            raise ApiError("invalid_input", "`to` is before `from`.")
        first, last = await self._in_force(window)
        if first is not None:
            start = first if start is None else max(start, first)
        if last is not None:
            end = last if end is None else min(end, last)
        if start is not None and end is not None and end < start:   # asked outside the season: nothing
            end = start
        events, next_seq = await self.log.replay_page(start, end, after_seq, limit)
        return {"events": events, "next_seq": next_seq}
