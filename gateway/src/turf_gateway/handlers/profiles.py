"""A player's public season: medals, footprint, statistics and recap, recomputed from the feed log (the public
``territory.changed`` messages that name the player) by the pure rules :mod:`turf_common.rules.medals` and
:mod:`turf_common.rules.footprint`. Public facts only: display name, towns, times, medals, place; never an email,
address or fix (R27, R30)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from turf_common.board import Board
from turf_common.rules import gametime
from turf_common.rules.footprint import Season, season_of
from turf_common.rules.medals import TIERS, BoardFacts, Change, MedalSet, changes_of, compute
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.ports import EVER, HISTORY_PAGE, FeedLog, GameClock, PlayerStore

if TYPE_CHECKING:
    from turf_gateway.handlers.seasons import Seasons

#: the players fought most, shown in the statistics
RIVALS_SHOWN = 5


class Places(Protocol):
    """Where the place comes from (:class:`turf_gateway.handlers.public.Public`)."""

    async def results(self) -> S.Results:
        """The final standings (R25); ApiError ``season_not_closed`` before the close."""
        ...

    async def leaderboard(self) -> dict[str, Any]:
        """The live standings, ``{standings: [{rank, player_id, …}]}``."""
        ...


@dataclass
class Profiles:
    log: FeedLog
    players: PlayerStore
    board: Board
    season: SeasonSource   # R31: the season in force at the instant read up to
    clock: GameClock
    medal_set: MedalSet
    places: Places   # the final results once closed (R25), the live leaderboard's rank before
    #: R31: a profile is of the season in force: its window of the feed log (every instant without)
    seasons: Seasons | None = None

    @cached_property
    def facts(self) -> BoardFacts:
        return BoardFacts.of(self.board)

    async def _changes(self, player_id: str) -> tuple[str, list[Change], datetime]:
        """The player's display name, the public changes that name them, and the instant they are read up to
        (now, or the season's close); 404 ``not_found`` for no such player (or the organizer, R27)."""
        row = await self.players.get(player_id)
        if row is None or row.role != "player":
            raise ApiError("not_found", "No such player.")
        msgs: list[dict[str, Any]] = []
        after: int | None = 0
        # R31: the medals, footprint and recap of the season in force, not of every season's changes together
        window = EVER if self.seasons is None else (await self.seasons.archive(None)).window
        while after is not None:
            page, after = await self.log.player_messages(player_id, after, HISTORY_PAGE, window)
            msgs.extend(page)
        now = await self.clock.now()
        until = min(now, gametime.season_closes_at(config_at(self.season, now)))
        return row.discord, changes_of(msgs), until

    def _medals(self, player_id: str, changes: list[Change], until: datetime) -> list[dict[str, Any]]:
        result = compute(changes, self.medal_set, self.facts, config_at(self.season, until), until)
        values = result.player(player_id)
        earned: dict[str, list[dict[str, Any]]] = {}
        for a in result.awards:
            if a.player_id == player_id:
                earned.setdefault(a.medal, []).append({"tier": a.tier, "at": a.at.isoformat()})
        return [{"id": m.id, "name": m.name, "counts": m.counts, "value": values[m.id], "tier": m.tier(values[m.id]),
                 "thresholds": dict(zip(TIERS, m.thresholds, strict=True)),
                 "next_threshold": m.next_threshold(values[m.id]), "earned": earned.get(m.id, [])}
                for m in self.medal_set.medals]

    async def medals(self, player_id: str) -> dict[str, Any]:
        name, changes, until = await self._changes(player_id)
        return {"player_id": player_id, "display_name": name, "version": self.medal_set.version,
                "as_of": until.isoformat(), "medals": self._medals(player_id, changes, until)}

    def _footprint(self, s: Season) -> list[dict[str, Any]]:
        return [{"territory_id": t.territory_id, "name": self.board.territories[t.territory_id].name,
                 "status": t.status, "claims": t.claims, "lost": t.lost,
                 "first_at": t.first_at.isoformat() if t.first_at else None,
                 "last_at": t.last_at.isoformat() if t.last_at else None}
                for t in s.towns.values() if t.territory_id in self.board.territories]

    async def footprint(self, player_id: str) -> dict[str, Any]:
        name, changes, until = await self._changes(player_id)
        s = season_of(player_id, changes, config_at(self.season, until), until)
        return {"player_id": player_id, "display_name": name, "as_of": until.isoformat(),
                "towns": self._footprint(s)}

    async def recap(self, player_id: str) -> dict[str, Any]:
        """Place, towns held, longest hold, best steal, medals, footprint and statistics."""
        name, changes, until = await self._changes(player_id)
        s = season_of(player_id, changes, config_at(self.season, until), until)
        place, final = await self._place(player_id)
        longest, best = s.longest_hold, s.best_steal
        return {
            "player_id": player_id, "display_name": name, "as_of": until.isoformat(), "final": final,
            "place": place, "towns_held": s.held_now, "towns_ever": len(s.towns),
            "longest_hold": None if longest is None else {
                "territory_id": longest.territory_id, "name": self._name(longest.territory_id),
                "days": longest.days, "since": longest.start.isoformat()},
            "best_steal": None if best is None else {
                "territory_id": best.territory_id, "name": self._name(best.territory_id), "at": best.at.isoformat(),
                "from_id": best.victim_id, "held_days": best.held_days},
            "medals": [m for m in self._medals(player_id, changes, until) if m["tier"] is not None],
            "footprint": self._footprint(s),
            "stats": await self._stats(s),
        }

    async def _stats(self, s: Season) -> dict[str, Any]:
        """Claims by hour, steals given and taken (in all and with the five players fought most), the rival."""
        fought = s.steals_given + s.steals_taken
        top = sorted(fought, key=lambda p: (-fought[p], p))[:RIVALS_SHOWN]
        names = await self.players.display_names(top)
        return {"claims_by_hour": {str(h): n for h, n in sorted(s.claims_by_hour.items())},
                "steals_given": sum(s.steals_given.values()), "steals_taken": sum(s.steals_taken.values()),
                "rival_id": s.rival, "rival_name": names.get(s.rival or "", "") or None,
                "rival_steals": fought[s.rival] if s.rival else 0,
                "rivals": [{"player_id": p, "display_name": names.get(p, ""), "given": s.steals_given[p],
                            "taken": s.steals_taken[p]} for p in top]}

    async def stats_png(self, player_id: str) -> bytes:
        """The statistics as a plot (:func:`turf_gateway.adapters.recap_image.stats`), drawn in a worker thread."""
        from turf_gateway.adapters import recap_image  # matplotlib, loaded when a picture is first asked for

        recap = await self.recap(player_id)
        return await asyncio.to_thread(recap_image.stats, recap)

    async def recap_png(self, player_id: str) -> bytes:
        """The recap as a PNG (:mod:`turf_gateway.adapters.recap_image`), drawn in a worker thread."""
        from turf_gateway.adapters import recap_image  # matplotlib, loaded when a picture is first asked for

        recap = await self.recap(player_id)
        as_of = datetime.fromisoformat(recap["as_of"])
        return await asyncio.to_thread(recap_image.render, recap, self.board,
                                       f"Turf War {config_at(self.season, as_of).season_id}")

    def _name(self, territory_id: str) -> str:
        t = self.board.territories.get(territory_id)
        return t.name if t else territory_id

    async def _place(self, player_id: str) -> tuple[int | None, bool]:
        """The final place once the season has closed (R25), else the live rank; None when not in the standings."""
        try:
            results = await self.places.results()
            return next((s.place for s in results.standings if s.player_id == player_id), None), True
        except ApiError as e:
            if e.reason != "season_not_closed":
                raise
        board = await self.places.leaderboard()
        return next((s["rank"] for s in board["standings"] if s["player_id"] == player_id), None), False
