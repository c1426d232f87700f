"""Public reads as use cases (API.md "Public"): the board with its ownership, a territory, the leaderboard and the
final results (R25, R26), the game clock (R1–R3, R12.1) and the season's calendar. Ownership and scores are asked
of the claims and scoring services; display names are the gateway's own (R27: never email or address)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shapely.geometry import mapping

from turf_common.board import Board, read_features
from turf_common.board.topology import topology
from turf_common.contracts import subjects
from turf_common.contracts.claims import StateReply, StateRequest
from turf_common.contracts.scoring import FinalResults, Leaderboard, LeaderboardRequest, ResultsRequest
from turf_common.rules import gametime
from turf_common.rules.cards import seed_commitment
from turf_common.settings import parse_clock_mode
from turf_gateway.adapters.board_cache import Body
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.feed.state import FeedState
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.handlers.paging import read_pages
from turf_gateway.ports import GameClock, PlayerStore, Services

if TYPE_CHECKING:
    from turf_gateway.handlers.seasons import Seasons

#: a territory nobody has claimed (R6)
UNOWNED: dict[str, Any] = {"owner_id": None, "progress": 0, "fortified": False}
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def topology_parts(display: Path) -> tuple[bytes, list[dict[str, Any]], bytes]:
    """The board's TopoJSON made from its display file (about a second of CPU), once a process and file: its head
    (type and transform, unclosed), its geometries without properties, its arcs serialised. The warm process
    (``turfwar.warm``) makes the committed board's for every gateway forked from it."""
    return _topology_cached(str(Path(display).resolve()))


@lru_cache(maxsize=2)
def _topology_cached(display: str) -> tuple[bytes, list[dict[str, Any]], bytes]:
    topo = topology(read_features(Path(display)), "board", lambda f: {})
    head = json.dumps({"type": "Topology", "transform": topo["transform"]}, separators=(",", ":"))[:-1]
    arcs = json.dumps(topo["arcs"], separators=(",", ":")).encode()
    return head.encode(), topo["objects"]["board"]["geometries"], arcs


@dataclass
class Public:
    """``feed`` is the spectator feed's state this process shares with the relay, which moves ``board_version`` on
    (a territory changed) and counts ``score_updates``; this use case keeps the board's body and the leaderboard
    request in flight there. ``clock_setting`` is ``TURF_CLOCK`` (``real``, ``accelerated:<x>``, ``manual``);
    ``seed`` is ``TURF_SEED``, private: only its commitment leaves (R12.1)."""

    services: Services
    players: PlayerStore
    board: Board
    season: SeasonSource   # R31: the book of the catalog's seasons (one configuration in tests)
    clock: GameClock
    clock_setting: str
    seed: str
    feed: FeedState
    seasons: Seasons | None = None   # R31: GET /clock's season in force and next season
    _display: list[dict[str, Any]] | None = field(default=None, init=False, repr=False)
    _adjacency: tuple[bytes, str] | None = field(default=None, init=False, repr=False)
    _topo: tuple[bytes, list[dict[str, Any]], bytes] | None = field(default=None, init=False, repr=False)

    # ---- the board ----------------------------------------------------------------------------------------------

    def adjacency(self) -> tuple[bytes, str]:
        """R22: ``{neighbours: {territory id: [neighbour ids, sorted]}}`` as compact JSON, and its ETag; built once
        (the board does not change while a gateway runs)."""
        if self._adjacency is None:
            graph = {tid: sorted(self.board.neighbours(tid)) for tid in sorted(self.board.territories)}
            body = json.dumps({"neighbours": graph}, separators=(",", ":")).encode()
            self._adjacency = (body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
        return self._adjacency

    async def ownership(self, territory_id: str | None = None) -> dict[str, dict[str, Any]]:
        """Territory id → ``{owner_id, progress, fortified}`` as the claims service has it now (one territory's
        with ``territory_id``, else every owned or progressed one's)."""
        rep = await self.services.ask(subjects.CLAIMS_STATE, StateRequest(territory_id=territory_id), StateReply)
        return {x.id: {"owner_id": x.owner_id, "progress": x.progress, "fortified": x.fortified}
                for x in rep.territories}

    def display_features(self) -> list[dict[str, Any]]:
        """The board's display-simplified GeoJSON features, parsed once a process (read_features; the gateway asks
        at start, and a gateway forked warm finds them parsed)."""
        if self._display is None:
            self._display = read_features(self.board.display_geojson_path())
        return self._display

    async def board_json(self) -> bytes:
        """The board's FeatureCollection as compact JSON bytes: every display feature with its properties and the
        ownership the claims service has now (unowned: no owner, progress 0, not fortified)."""
        own = await self.ownership()
        feats = []
        for f in self.display_features():
            tid = f["properties"]["id"]
            props = self.board.feature_properties(tid) | own.get(tid, UNOWNED)
            feats.append({"type": "Feature", "id": tid, "properties": props, "geometry": f["geometry"]})
        return json.dumps({"type": "FeatureCollection", "features": feats}, separators=(",", ":")).encode()

    async def board_topojson(self) -> bytes:
        """The same board as a TopoJSON topology (turf_common.board.topology: each shared border once, integer
        coordinates; half the gzipped bytes): one GeometryCollection ``board`` whose geometries carry the features'
        ids and properties. The arcs do not change while a gateway runs: made once (in a thread: about a second of
        CPU), serialised once; only the properties are written for each ownership version."""
        if self._topo is None:
            self._topo = await asyncio.to_thread(topology_parts, self.board.display_geojson_path())
        head, geometries, arcs = self._topo
        own = await self.ownership()
        geoms = [g | {"properties": self.board.feature_properties(g["id"]) | own.get(g["id"], UNOWNED)}
                 for g in geometries]
        return (head + b',"objects":{"board":{"type":"GeometryCollection","geometries":'
                + json.dumps(geoms, separators=(",", ":")).encode() + b'}},"arcs":' + arcs + b"}")

    async def board_topo_body(self) -> Body:
        """:meth:`board_topojson`'s body of the current ownership version, cached as :meth:`board_body`'s."""
        version = self.feed.board_version
        return self.feed.topo_cache.fresh(version) or await self.feed.topo_cache.get(version, self.board_topojson)

    async def board_body(self) -> Body:
        """The board's body (JSON, its gzip, its ETag) of the current ownership version, built once per
        version (:class:`turf_gateway.adapters.board_cache.BoardCache`: callers during a build share it)."""
        version = self.feed.board_version
        return self.feed.board_cache.fresh(version) or await self.feed.board_cache.get(version, self.board_json)

    async def territory(self, territory_id: str) -> dict[str, Any]:
        """One territory: its properties and ownership, its neighbours (sorted ids) and its full-detail GeoJSON
        geometry. 404 ``not_found`` for no such territory (the claims service is then not asked)."""
        ter = self.board.territories.get(territory_id)
        if ter is None:
            raise ApiError("not_found", "No territory with that id.")
        own = (await self.ownership(territory_id)).get(territory_id, UNOWNED)
        return self.board.feature_properties(territory_id) | own | {
            "neighbours": sorted(self.board.neighbours(territory_id)), "geometry": mapping(ter.geometry)}

    # ---- scores -------------------------------------------------------------------------------------------------

    async def leaderboard(self, season_id: str | None = None) -> dict[str, Any]:
        """The named leaderboard from scoring (``{standings: [{rank, player_id, display_name, base, outposts,
        bonuses, total}], side_quests: {quest: {leaders, value}}}``, R25). Concurrent callers (a burst of
        spectators connecting, each wanting a snapshot) share one request in flight instead of each asking scoring
        for a full ranking. ``season_id``: a past season's standings as it ended (R31; not shared: no delta
        changes them)."""
        if season_id is not None:
            return await self._fetch_leaderboard(season_id)
        # Shared only while no score.updated has come since it was sent: a caller must never get a leaderboard older
        # than a delta it has missed (a spectator joins the hub before asking, so later deltas reach it anyway).
        inflight = self.feed.leaderboard_inflight
        if inflight is None or inflight[0] != self.feed.score_updates or inflight[1].done():
            fut = asyncio.ensure_future(self._fetch_leaderboard())
            self.feed.leaderboard_inflight = inflight = (self.feed.score_updates, fut)
        return await asyncio.shield(inflight[1])

    async def _fetch_leaderboard(self, season_id: str | None = None) -> dict[str, Any]:
        """Read a page at a time (one page, one request, up to 1,000 players), every page cut from the
        one ranking scoring made for the first (turf_gateway.handlers.paging)."""
        pages = await read_pages(self.services, subjects.SCORING_LEADERBOARD, lambda after: LeaderboardRequest(
            after=after, season_id=season_id), Leaderboard)
        lb = pages[0] if len(pages) == 1 else pages[0].model_copy(update={
            "standings": [s for p in pages for s in p.standings], "next": None})
        names = await self.players.display_names([s.player_id for s in lb.standings])
        return {
            "standings": [{"rank": s.rank, "player_id": s.player_id, "display_name": names.get(s.player_id, ""),
                           "base": s.base, "outposts": s.outposts, "bonuses": s.bonuses, "total": s.total}
                          for s in lb.standings],
            "side_quests": {q: {"leaders": r.leaders, "value": r.value} for q, r in lb.side_quests.items()},
        }

    async def named_changes(self, changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The standings of a ``score.updated`` delta as spectators see them: with display names ("" for an
        unknown player), without ranks (clients re-rank: R25 competition ranking by total, ties by player id)."""
        names = await self.players.display_names([c["player_id"] for c in changes])
        return [{"player_id": c["player_id"], "display_name": names.get(c["player_id"], ""), "base": c["base"],
                 "outposts": c["outposts"], "bonuses": c["bonuses"], "total": c["total"]} for c in changes]

    async def results(self, season_id: str | None = None) -> S.Results:
        """R25/R26 final standings with prizes, read a page at a time as the leaderboard (``season_id``: a past
        season's, R31). Raises ApiError 409 ``season_not_closed`` (scoring's refusal) before the season has
        closed."""
        pages = await read_pages(self.services, subjects.SCORING_RESULTS, lambda after: ResultsRequest(
            after=after, season_id=season_id), FinalResults, 10)
        standings = [s for p in pages for s in p.standings]
        names = await self.players.display_names([s.player_id for s in standings])
        return S.Results(final=True, standings=[S.FinalStanding(
            place=s.place, player_id=s.player_id, display_name=names.get(s.player_id, ""), base=s.base,
            bonuses=s.bonuses, total=s.total, prize=s.prize) for s in standings])

    # ---- time ---------------------------------------------------------------------------------------------------

    async def clock_now(self) -> dict[str, Any]:
        """:meth:`clock_body` at the game clock's current instant, with the season in force and the next one
        (R31)."""
        now = await self.clock.now()
        body = self.clock_body(now)
        if self.seasons is not None:
            body |= await self.seasons.clock_fields(now)
        return body

    def clock_body(self, now: datetime) -> dict[str, Any]:
        """The game clock at ``now`` (R1–R3): ``now`` in the season's zone, whether claims are open, the clock's
        mode, the game day's number (null off a game day), the season's state, the next open/close instant (null
        after the season) and the seed's SHA-256 commitment (R12.1): the season in force's (R31)."""
        cfg = config_at(self.season, now)
        seed = self.seed if isinstance(self.season, gametime.SeasonConfig) else self.season.seed(cfg.season_id,
                                                                                                 self.seed)
        day = gametime.game_day_at(cfg, now)
        nc = gametime.next_change(cfg, now)
        return {"now": now.astimezone(cfg.tz).isoformat(), "open": gametime.is_open(cfg, now),
                # beyond API.md's fields: real, accelerated or manual (only a manual clock can be moved)
                "mode": parse_clock_mode(self.clock_setting)[0],
                "game_day": gametime.game_day_number(cfg, day) if day else None,
                "season_state": gametime.season_state(cfg, now),
                "next_change": nc.isoformat() if nc else None,
                # R12.1: the SHA-256 commitment of TURF_SEED, public from the first start on, before registration
                # and the first draw (the seed itself is revealed at season end)
                "seed_commitment": seed_commitment(seed)}

    async def season_now(self) -> S.Season:
        """:meth:`season_body` of the season in force (R31)."""
        return self.season_body(await self.clock.now())

    def season_body(self, at: datetime | None = None) -> S.Season:
        """The calendar of the season in force at ``at`` as configured: its game days (R2) with their opening and
        closing instants in the season's zone (R3), and the fix limits (R7, R7.1). ``at`` None: the wall clock's
        instant (a test's one season)."""
        cfg = config_at(self.season, at or datetime.now(UTC))
        days = []
        for d in gametime.game_days(cfg):
            opens, closes = gametime.open_interval(cfg, d)
            days.append(S.GameDay(number=gametime.game_day_number(cfg, d) or 0, date=d,
                                  opens=opens.astimezone(cfg.tz).isoformat(),
                                  closes=closes.astimezone(cfg.tz).isoformat()))
        return S.Season(season_id=cfg.season_id, zone=cfg.zone, first_day=cfg.first_day, last_day=cfg.last_day,
                        open_weekdays=[WEEKDAYS[i] for i in sorted(cfg.open_weekdays)],
                        opens=cfg.open_time.strftime("%H:%M"), closes=cfg.close_time.strftime("%H:%M"),
                        game_days=days, limits=S.Limits(max_accuracy_m=cfg.limits.max_accuracy_m,
                                                        max_fix_age_s=cfg.limits.max_fix_age_s,
                                                        max_travel_kmh=cfg.limits.max_travel_kmh))
