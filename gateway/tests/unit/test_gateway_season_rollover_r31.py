"""R31 at the gateway, on fakes: a join stages ``season.joined`` once and drops the player's cached sessions; the
session carries the seasons joined, so a verified player who has not joined the running season is refused
``not_joined`` (claims, checks, card plays) without asking a service; a closed season's reads are its own window of
the feed log and scoring's standings of that season; the gateway's use cases play by the catalog's book."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, Fix
from turf_common.contracts.scoring import Leaderboard, LeaderboardRequest
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules import seasons as rules
from turf_common.rules.gametime import load_season
from turf_common.seasonbook import SeasonBook
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.calendar import config_at
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.claims import Claims
from turf_gateway.handlers.history import History
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.ports import Caller
from turf_gateway.testing import (
    CannedServices,
    MemoryFeedLog,
    MemoryPlayers,
    MemorySeasons,
    MemorySessions,
    MemoryTables,
    NoKeys,
    NoLimits,
)

PRIZES = [Decimal("50.00"), Decimal("25.00"), Decimal("25.00")]
FILE_SEASON = rules.from_config(load_season(), PRIZES, "secret")   # 2026: 5–24 October 2026, New York
FORM = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
        "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00"}
IN_2026 = datetime.fromisoformat("2026-10-06T12:00:00-04:00")
AFTER_2026 = datetime.fromisoformat("2026-12-07T12:00:00-05:00")
IN_2027 = datetime.fromisoformat("2027-10-05T12:00:00-04:00")
OPEN_2027 = datetime.fromisoformat("2027-10-04T06:00:00-04:00")
FIX = Fix(lat=40.7445, lon=-74.0324, accuracy_m=10.0, fix_time=IN_2027)


@dataclass
class Clock:
    at: datetime

    async def now(self) -> datetime:
        return self.at


@dataclass
class Revoked:
    players: list[str] = field(default_factory=list)

    async def revoke(self, *, player_id: str | None = None, token_hash: str | None = None) -> None:
        if player_id is not None:
            self.players.append(player_id)


async def catalog(at: datetime, *, with_2027: bool = True) -> tuple[Seasons, MemorySeasons, Clock, MemoryTables,
                                                                    Revoked]:
    """2026 and (made after its close) 2027, the clock at ``at``; the joins in the tables the sessions read."""
    tables, clock, revoked = MemoryTables(), Clock(IN_2026), Revoked()
    store = MemorySeasons(joins=tables.joins)
    seasons = Seasons(store, MemoryPlayers(tables), clock, "secret", revocations=revoked,
                      book=SeasonBook(FILE_SEASON.config))
    await seasons.ensure(FILE_SEASON)
    if with_2027:
        clock.at = AFTER_2026
        await seasons.create("org", FORM)
    clock.at = at
    return seasons, store, clock, tables, revoked


def caller(pid: str, *joined: str, status: str = "verified") -> Caller:
    return Caller(pid, "player", status, pid, None, frozenset(joined))  # type: ignore[arg-type]


# ---- season.joined ------------------------------------------------------------------------------------------------


async def test_r31_a_join_stages_season_joined_once_and_drops_the_players_cached_sessions() -> None:
    seasons, store, _, tables, revoked = await catalog(AFTER_2026)
    pid = await MemoryPlayers(tables).create(_new("ada"))
    ada = caller(pid, "2026")
    assert await seasons.join(ada, "2027") == {"season_id": "2027", "status": "pending"}
    assert await seasons.join(ada, "2027") == {"season_id": "2027", "status": "pending"}   # a repeat
    joined = [e for s, e in store.events if s == subjects.SEASON_JOINED]
    assert len(joined) == 1 and isinstance(joined[0], SeasonJoined)
    assert (joined[0].event_id, joined[0].season_id, joined[0].player_id) == (f"joined:2027:{pid}", "2027", pid)
    assert revoked.players == [pid]   # once: the repeat changed nothing


async def test_r31_registering_stages_season_joined_for_the_season_it_joins() -> None:
    seasons, store, _, _, _ = await catalog(AFTER_2026)
    await seasons.join_on_registration("bo", "1 Main St")
    await seasons.join_on_registration("bo", "1 Main St")
    assert [(s, e.event_id) for s, e in store.events if s == subjects.SEASON_JOINED] == [
        (subjects.SEASON_JOINED, "joined:2027:bo")]


async def test_r31_the_session_carries_the_seasons_joined_and_me_lists_them_oldest_first() -> None:
    seasons, _, _, tables, _ = await catalog(AFTER_2026)
    pid = await MemoryPlayers(tables).create(_new("cy"))
    sessions = MemorySessions(tables)
    await sessions.create("h", pid, datetime(2030, 1, 1, tzinfo=UTC))
    await seasons.join_on_registration(pid, "1 Main St")   # between seasons: the next one
    tables.joins[("2026", pid)] = "1 Main St"
    found = await sessions.lookup("h")
    assert found is not None and found[0].seasons == {"2026", "2027"}
    assert await seasons.in_order(found[0].seasons) == ["2026", "2027"]


# ---- not_joined at the edge ---------------------------------------------------------------------------------------


def claims_over(seasons: Seasons) -> tuple[Claims, CannedServices]:
    services = CannedServices({
        subjects.CLAIMS_SUBMIT: ClaimAcceptedReply(claim_id="c", territory_id="t", kind="take", owner_id="p",
                                                   progress=1, fortified=False),
        subjects.CLAIMS_CHECK: CheckReply(territory=None, allowed=True, reason=None, message=None)})
    return Claims(services, NoLimits(), NoKeys(), seasons), services   # type: ignore[arg-type]


async def test_r31_a_verified_player_who_has_not_joined_the_running_season_is_refused_not_joined() -> None:
    seasons, _, _, _, _ = await catalog(IN_2027)
    claims, services = claims_over(seasons)
    with pytest.raises(ApiError) as e:
        await claims.submit(caller("old", "2026"), FIX, "1.2.3.4", None, None)
    assert (e.value.reason, e.value.status) == ("not_joined", 409) and "2027" in e.value.message
    check = await claims.check(caller("old", "2026"), FIX, "1.2.3.4")
    assert (check.allowed, check.reason) == (False, "not_joined")
    cards = Cards(CannedServices(), MemoryPlayers(), seasons)   # type: ignore[arg-type]
    with pytest.raises(ApiError) as e:
        await cards.play(caller("old", "2026"), "freeze", territory_id="t")   # type: ignore[arg-type]
    assert e.value.reason == "not_joined"
    assert services.asked == []   # refused at the edge: no service asked


async def test_r31_a_joined_player_a_pending_one_and_the_season_in_force_before_the_next_go_to_the_services() -> None:
    seasons = (await catalog(IN_2027))[0]
    claims, services = claims_over(seasons)
    await claims.submit(caller("new", "2026", "2027"), FIX, "1.2.3.4", None, None)
    await claims.submit(caller("pending", status="pending"), FIX, "1.2.3.4", None, None)   # R27: the services'
    assert services.subjects() == [subjects.CLAIMS_SUBMIT, subjects.CLAIMS_SUBMIT]
    in_2026, _, _, _, _ = await catalog(IN_2026, with_2027=False)
    claims, services = claims_over(in_2026)
    await claims.submit(caller("ada", "2026"), FIX, "1.2.3.4", None, None)
    assert services.subjects() == [subjects.CLAIMS_SUBMIT]


# ---- the archive --------------------------------------------------------------------------------------------------


async def test_r31_a_closed_seasons_reads_are_its_window_and_scorings_answers_of_that_season() -> None:
    seasons, _, clock, _, _ = await catalog(IN_2027)
    past = await seasons.archive("2026")
    assert (past.in_force, past.season_id, past.window) == (False, "2026", (None, OPEN_2027))
    current = await seasons.archive("2027")
    assert (current.in_force, current.season_id, current.window) == (True, None, (OPEN_2027, None))
    assert (await seasons.archive(None)).window == current.window
    with pytest.raises(ApiError) as e:
        await seasons.archive("1999")
    assert e.value.status == 404
    clock.at = AFTER_2026   # 2027 not opened yet: in force is 2026, to the next opening
    assert (await seasons.archive("2026")).window == (None, OPEN_2027)
    with pytest.raises(ApiError) as e:
        await seasons.archive("2027")
    assert (e.value.reason, e.value.status) == ("season_not_started", 409)


async def test_r31_histories_and_replay_read_only_their_seasons_messages() -> None:
    seasons, _, clock, tables, _ = await catalog(IN_2027)
    log = MemoryFeedLog(tables)
    t = next(iter(load_board().territories))

    def row(seq: int, at: datetime) -> dict[str, Any]:
        return {"seq": seq, "type": subjects.TERRITORY_CHANGED, "at": at, "territory_id": t, "players": ["p"],
                "body": {"type": "territory.changed", "seq": seq, "at": at.isoformat(), "territory_id": t,
                         "owner_id": "p", "previous_owner_id": None, "kind": "first", "fortified": False}}
    post_season = datetime.fromisoformat("2026-11-02T10:00:00-05:00")   # a correction after 2026's close (R28)
    await log.store([row(1, IN_2026), row(2, post_season), row(3, IN_2027)])
    history = History(log, MemoryPlayers(tables), load_board(), SeasonBook(FILE_SEASON.config), clock, seasons)
    past = (await seasons.archive("2026")).window
    assert len((await history.territory(t, window=past))["history"]) == 2   # the post-season correction too
    assert len((await history.territory(t))["history"]) == 1   # the season in force's: 2027's alone
    replay = await history.replay(None, None, 0, 10, past)
    assert [e["seq"] for e in replay["events"]] == [1, 2]
    assert (await history.replay(IN_2027, None, 0, 10, past))["events"] == []


async def test_r31_a_past_seasons_leaderboard_is_asked_of_scoring_by_its_id() -> None:
    from turf_gateway.feed.state import FeedState
    from turf_gateway.handlers.public import Public

    asked: list[LeaderboardRequest] = []

    def board(q: LeaderboardRequest) -> Leaderboard:
        asked.append(q)
        return Leaderboard(standings=[], side_quests={})

    public = Public(CannedServices({subjects.SCORING_LEADERBOARD: board}), MemoryPlayers(), load_board(),
                    FILE_SEASON.config, Clock(IN_2027), "manual", "secret", FeedState())
    await public.leaderboard("2026")
    await public.leaderboard()
    assert [q.season_id for q in asked] == ["2026", None]


# ---- the book -----------------------------------------------------------------------------------------------------


async def test_r31_the_gateways_book_follows_the_catalog_and_answers_the_season_in_force() -> None:
    seasons, _, _, _, _ = await catalog(IN_2027)
    assert seasons.book is not None
    assert config_at(seasons.book, IN_2026).season_id == "2026"
    assert config_at(seasons.book, AFTER_2026).season_id == "2026"   # between seasons: the last closed one
    assert config_at(seasons.book, IN_2027).season_id == "2027"
    assert config_at(FILE_SEASON.config, IN_2027).season_id == "2026"   # one configuration: itself


def _new(name: str) -> Any:
    from turf_gateway.ports import NewPlayer

    return NewPlayer(name, f"{name}@example.org", name, "1 Main St", "hash")
