"""The public reads (:class:`~turf_gateway.handlers.public.Public`), the organizer's claim log and exports
(:class:`~turf_gateway.handlers.exports.Exports`) and the turn-based modes' reads and moves
(:class:`~turf_gateway.handlers.modes.Modes`) as use cases on fakes: the services canned per subject (every request
recorded), the players in memory. Each test checks the exact requests asked and the exact answer."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import ClaimRecord, ClaimsListReply, ClaimsListRequest, StateReply, StateRequest
from turf_common.contracts.claims import TerritoryStateOut as Own
from turf_common.contracts.modes import (
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameLog,
    GameRequest,
    GamesReply,
    GamesRequest,
    GameView,
    GiveOrder,
    HillView,
    JoinGame,
    LeaveGame,
    LogRequest,
    OpenHill,
    OrderReply,
    PlaceTroops,
    ResolveReply,
    ResolveTurn,
    RoundOut,
    StartRoom,
    WithdrawOrder,
)
from turf_common.contracts.scoring import (
    FinalResults,
    FinalStanding,
    Leaderboard,
    LeaderboardRequest,
    QuestStanding,
    ResultsRequest,
    Standing,
)
from turf_common.rules import gametime
from turf_common.testing import FakeClock
from turf_gateway.api.errors import ApiError
from turf_gateway.feed.state import FeedState
from turf_gateway.handlers.exports import Exports
from turf_gateway.handlers.modes import Modes, NamedGameView
from turf_gateway.handlers.players import Players
from turf_gateway.handlers.public import UNOWNED, Public
from turf_gateway.ports import NewPlayer, StatusChange
from turf_gateway.testing import CannedServices, MemoryIdempotencyKeys, MemoryPlayers, MemoryTables, NoLimits

M = TypeVar("M", bound=Message)
BOARD = load_board()
SEASON = gametime.load_season()
TOWNS = sorted(BOARD.territories)
A, B = TOWNS[0], TOWNS[1]   # Allendale, and the next town by id
MONDAY_7AM = datetime.fromisoformat("2026-10-05T07:00:00-04:00")   # the first game day, open (R2, R3)


class Gated(CannedServices):
    """Canned services whose answers wait for :attr:`gate` (the request is recorded at once): requests in flight."""

    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__(answers)
        self.gate = asyncio.Event()

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        out = await super().ask(subject, msg, reply, timeout)
        await self.gate.wait()
        return out


async def players(*names: str) -> tuple[MemoryPlayers, dict[str, str]]:
    """Verified players whose display name is their name; their ids by name."""
    store = MemoryPlayers(MemoryTables())
    ids = {n: await store.create(NewPlayer(n.title(), f"{n.strip('=')}@example.com", n, "1 Main St", "h"))
           for n in names}
    for pid in ids.values():
        await store.change_status(StatusChange(pid, "verified", "org", "", None, MONDAY_7AM, False))
    return store, ids


def public(services: CannedServices, store: MemoryPlayers | None = None, feed: FeedState | None = None) -> Public:
    return Public(services, store or MemoryPlayers(), BOARD, SEASON, FakeClock(MONDAY_7AM), "accelerated:60",
                  "a secret seed", feed or FeedState())


def standing(rank: int, pid: str, total: int, outposts: int = 0) -> Standing:
    return Standing(rank=rank, player_id=pid, base=total - outposts, outposts=outposts, bonuses=0, total=total,
                    territories=total)


QUESTS = {"lord_of_the_seas": QuestStanding(leaders=["x"], value=2.0)}


# ---- the board ----------------------------------------------------------------------------------------------------


async def test_the_board_is_every_display_feature_with_the_ownership_claims_has_now() -> None:
    services = CannedServices({subjects.CLAIMS_STATE: StateReply(territories=[
        Own(id=A, owner_id="ada", progress=2, fortified=True)])})
    pub = public(services)
    board = json.loads(await pub.board_json())
    assert services.asked == [(subjects.CLAIMS_STATE, StateRequest(territory_id=None))]
    assert board["type"] == "FeatureCollection" and len(board["features"]) == len(TOWNS) == 448
    by_id = {f["id"]: f for f in board["features"]}
    assert by_id[A]["properties"] == BOARD.feature_properties(A) | {"owner_id": "ada", "progress": 2,
                                                                      "fortified": True}
    assert by_id[B]["properties"] == BOARD.feature_properties(B) | {"owner_id": None, "progress": 0,
                                                                      "fortified": False}
    assert by_id[A]["geometry"] == pub.display_features()[0]["geometry"] and by_id[A]["type"] == "Feature"


async def test_the_board_body_is_built_once_per_ownership_version_and_again_when_it_moves_on() -> None:
    owner = ["ada"]
    services = CannedServices({subjects.CLAIMS_STATE: lambda _: StateReply(territories=[
        Own(id=A, owner_id=owner[0], progress=1, fortified=False)])})
    feed = FeedState()
    pub = public(services, feed=feed)
    first, *others = await asyncio.gather(*(pub.board_body() for _ in range(5)))   # concurrent: one build
    again = await pub.board_body()
    assert len(services.asked) == 1 and all(o is first for o in others) and again is first
    assert first.version == 0 and first.etag == '"' + hashlib.sha256(first.raw).hexdigest()[:32] + '"'
    owner[0] = "bob"
    feed.board_version += 1   # the relay saw a territory.changed
    newer = await pub.board_body()
    assert len(services.asked) == 2 and newer.version == 1 and newer.etag != first.etag
    assert b'"owner_id":"bob"' in newer.raw and b'"owner_id":"ada"' not in newer.raw


async def test_the_board_as_topojson_has_every_town_with_its_ownership_and_a_topology_made_once() -> None:
    owner = ["ada"]
    services = CannedServices({subjects.CLAIMS_STATE: lambda _: StateReply(territories=[
        Own(id=A, owner_id=owner[0], progress=2, fortified=True)])})
    feed = FeedState()
    pub = public(services, feed=feed)
    topo = json.loads((await pub.board_topo_body()).raw)
    assert topo["type"] == "Topology" and topo["transform"]["scale"] == [1e-5, 1e-5]
    geoms = topo["objects"]["board"]["geometries"]
    assert len(geoms) == 448 and all(g["type"] in ("Polygon", "MultiPolygon") for g in geoms)
    by_id = {g["id"]: g for g in geoms}
    assert by_id[A]["properties"] == BOARD.feature_properties(A) | {"owner_id": "ada", "progress": 2,
                                                                     "fortified": True}
    assert by_id[B]["properties"] == BOARD.feature_properties(B) | UNOWNED
    made = pub._topo
    owner[0] = "bob"
    feed.board_version += 1
    newer = json.loads((await pub.board_topo_body()).raw)
    assert {g["id"]: g for g in newer["objects"]["board"]["geometries"]}[A]["properties"]["owner_id"] == "bob"
    assert pub._topo is made and newer["arcs"] == topo["arcs"]   # the arcs made once, only the owners anew


def test_the_display_features_are_parsed_once() -> None:
    pub = public(CannedServices())
    assert pub.display_features() is pub.display_features() and len(pub.display_features()) == 448


async def test_a_territory_has_its_ownership_neighbours_and_full_geometry() -> None:
    services = CannedServices({subjects.CLAIMS_STATE: StateReply(territories=[
        Own(id=A, owner_id="ada", progress=3, fortified=True)])})
    detail = await public(services).territory(A)
    assert services.asked == [(subjects.CLAIMS_STATE, StateRequest(territory_id=A))]
    assert {k: v for k, v in detail.items() if k != "geometry"} == BOARD.feature_properties(A) | {
        "owner_id": "ada", "progress": 3, "fortified": True, "neighbours": sorted(BOARD.neighbours(A))}
    assert detail["geometry"]["type"] in ("Polygon", "MultiPolygon")


async def test_a_territory_nobody_owns_is_unowned_and_an_unknown_one_is_404_without_asking() -> None:
    services = CannedServices({subjects.CLAIMS_STATE: StateReply(territories=[])})
    pub = public(services)
    detail = await pub.territory(B)
    assert {k: detail[k] for k in ("owner_id", "progress", "fortified")} == {
        "owner_id": None, "progress": 0, "fortified": False}
    with pytest.raises(ApiError) as e:
        await pub.territory("nowhere")
    assert (e.value.reason, e.value.status) == ("not_found", 404) and len(services.asked) == 1


# ---- scores -------------------------------------------------------------------------------------------------------


async def test_the_leaderboard_is_named_with_its_side_quests() -> None:
    store, ids = await players("ada", "bob")
    services = CannedServices({subjects.SCORING_LEADERBOARD: Leaderboard(standings=[
        standing(1, ids["bob"], 7, outposts=2), standing(2, ids["ada"], 3), standing(2, "gone", 3)],
        side_quests=QUESTS)})
    assert await public(services, store).leaderboard() == {
        "standings": [
            {"rank": 1, "player_id": ids["bob"], "display_name": "bob", "base": 5, "outposts": 2, "bonuses": 0,
             "total": 7},
            {"rank": 2, "player_id": ids["ada"], "display_name": "ada", "base": 3, "outposts": 0, "bonuses": 0,
             "total": 3},
            {"rank": 2, "player_id": "gone", "display_name": "", "base": 3, "outposts": 0, "bonuses": 0,
             "total": 3}],
        "side_quests": {"lord_of_the_seas": {"leaders": ["x"], "value": 2.0}}}
    assert services.asked == [(subjects.SCORING_LEADERBOARD, LeaderboardRequest(after=None))]


def _counting_leaderboard() -> Gated:
    """Scoring, answering the n-th request with one player whose total is n."""
    n = [0]

    def answer(_: LeaderboardRequest) -> Leaderboard:
        n[0] += 1
        return Leaderboard(standings=[standing(1, "p", n[0])], side_quests={})

    return Gated({subjects.SCORING_LEADERBOARD: answer})


async def _until(cond: Any) -> None:
    for _ in range(100):
        if cond():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_concurrent_leaderboard_callers_share_one_request_and_a_later_one_asks_again() -> None:
    services = _counting_leaderboard()
    pub = public(services)
    calls = [asyncio.ensure_future(pub.leaderboard()) for _ in range(4)]
    await _until(lambda: len(services.asked) == 1)
    services.gate.set()
    bodies = await asyncio.gather(*calls)
    assert len(services.asked) == 1 and [b["standings"][0]["total"] for b in bodies] == [1, 1, 1, 1]
    assert (await pub.leaderboard())["standings"][0]["total"] == 2   # the first came back: not shared any more


async def test_a_leaderboard_request_sent_before_a_score_update_is_not_shared_after_it() -> None:
    services = _counting_leaderboard()
    feed = FeedState()
    pub = public(services, feed=feed)
    before = asyncio.ensure_future(pub.leaderboard())
    await _until(lambda: len(services.asked) == 1)
    feed.score_updates += 1   # the relay saw a score.updated: the request in flight may not reflect it
    after = asyncio.ensure_future(pub.leaderboard())
    also_after = asyncio.ensure_future(pub.leaderboard())
    await _until(lambda: len(services.asked) == 2)
    services.gate.set()
    got = [(await t)["standings"][0]["total"] for t in (before, after, also_after)]
    assert got == [1, 2, 2] and len(services.asked) == 2


async def test_a_score_updates_changes_are_named_without_ranks() -> None:
    store, ids = await players("ada")
    changes = [{"player_id": ids["ada"], "base": 2, "outposts": 1, "bonuses": 5, "total": 8, "territories": 3},
               {"player_id": "gone", "base": 0, "outposts": 0, "bonuses": 0, "total": 0, "territories": 0}]
    assert await public(CannedServices(), store).named_changes(changes) == [
        {"player_id": ids["ada"], "display_name": "ada", "base": 2, "outposts": 1, "bonuses": 5, "total": 8},
        {"player_id": "gone", "display_name": "", "base": 0, "outposts": 0, "bonuses": 0, "total": 0}]


def _final(n: int) -> list[FinalStanding]:
    return [FinalStanding(place=i + 1, player_id=f"p{i}", base=10 - i, bonuses=i, total=10, prize="0.00")
            for i in range(n)]


async def test_the_final_results_are_read_a_page_at_a_time_and_named() -> None:
    store, ids = await players("ada")
    rows = [FinalStanding(place=1, player_id=ids["ada"], base=9, bonuses=1, total=10, prize="50.00"), *_final(2)]
    pages = {None: FinalResults(standings=rows[:2], next="r:1"), "r:1": FinalResults(standings=rows[2:])}
    services = CannedServices({subjects.SCORING_RESULTS: lambda req: pages[req.after]})
    res = await public(services, store).results()
    assert services.asked == [(subjects.SCORING_RESULTS, ResultsRequest(after=None)),
                              (subjects.SCORING_RESULTS, ResultsRequest(after="r:1"))]
    assert res.model_dump() == {"final": True, "standings": [
        {"place": 1, "player_id": ids["ada"], "display_name": "ada", "base": 9, "bonuses": 1, "total": 10,
         "prize": "50.00"},
        {"place": 1, "player_id": "p0", "display_name": "", "base": 10, "bonuses": 0, "total": 10, "prize": "0.00"},
        {"place": 2, "player_id": "p1", "display_name": "", "base": 9, "bonuses": 1, "total": 10, "prize": "0.00"}]}


# ---- time ---------------------------------------------------------------------------------------------------------


async def test_the_clock_is_the_game_clocks_instant_in_the_seasons_zone_with_the_seed_commitment() -> None:
    assert await public(CannedServices()).clock_now() == {
        "now": "2026-10-05T07:00:00-04:00", "open": True, "mode": "accelerated", "game_day": 1,
        "season_state": "running", "next_change": "2026-10-05T22:00:00-04:00",
        "seed_commitment": hashlib.sha256(b"a secret seed").hexdigest()}


def test_the_season_is_its_calendar_and_limits() -> None:
    s = public(CannedServices()).season_body()
    assert (s.season_id, s.zone, s.first_day, s.last_day, s.opens, s.closes, s.open_weekdays) == (
        "2026", "America/New_York", date(2026, 10, 5), date(2026, 10, 24), "06:00", "22:00",
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])
    assert len(s.game_days) == 18 and s.game_days[0].model_dump() == {
        "number": 1, "date": date(2026, 10, 5), "opens": "2026-10-05T06:00:00-04:00",
        "closes": "2026-10-05T22:00:00-04:00"}
    assert s.game_days[-1].number == 18 and s.game_days[-1].date == date(2026, 10, 24)
    assert s.limits.model_dump() == {"max_accuracy_m": 100.0, "max_fix_age_s": 120.0, "max_travel_kmh": 200.0}


# ---- the organizer's exports --------------------------------------------------------------------------------------


def claim(i: int, pid: str, town: str = A) -> ClaimRecord:
    return ClaimRecord(id=f"c{i}", at=datetime(2026, 10, 5, 11, 0, i, tzinfo=UTC), game_day=date(2026, 10, 5),
                       player_id=pid, territory_id=town, kind="take", normal=True, previous_owner_id=None,
                       undone_by=None, flags=[])


def claims_service(log: list[ClaimRecord], page: int) -> CannedServices:
    """Claims paging its log by claim id, at most ``page`` (and the request's limit) a page; the day and player are
    not filtered here (the requests show them)."""
    def answer(req: ClaimsListRequest) -> ClaimsListReply:
        start = 0 if req.after is None else next(i for i, c in enumerate(log) if c.id == req.after) + 1
        part = log[start:start + min(page, req.limit)]
        return ClaimsListReply(claims=part, next=part[-1].id if start + len(part) < len(log) else None)
    return CannedServices({subjects.CLAIMS_LIST: answer})


def desk(services: CannedServices, store: MemoryPlayers | None = None) -> Exports:
    store = store or MemoryPlayers()
    accounts = Players(store, None, None, services, None, None, BOARD, None, SEASON, None,  # type: ignore[arg-type]
                       timedelta(hours=1))
    return Exports(services, store, BOARD, SEASON, public(services, store), accounts)


async def test_the_claim_log_reads_pages_until_its_limit_and_names_players_and_towns() -> None:
    store, ids = await players("ada")
    log = [claim(i, ids["ada"] if i % 2 == 0 else "gone", A if i < 4 else "not-a-town") for i in range(5)]
    services = claims_service(log, page=2)
    got = await desk(services, store).claim_log(date(2026, 10, 5), ids["ada"], 3)
    assert [(m.game_day, m.player_id, m.after, m.limit) for _, m in services.asked] == [
        (date(2026, 10, 5), ids["ada"], None, 4), (date(2026, 10, 5), ids["ada"], "c1", 2)]   # limit + 1 in all
    assert got.truncated is True and [c.id for c in got.claims] == ["c0", "c1", "c2"]
    assert got.claims[0].model_dump() == {
        "id": "c0", "at": "2026-10-05T07:00:00-04:00", "game_day": date(2026, 10, 5), "player_id": ids["ada"],
        "display_name": "ada", "territory_id": A, "territory_name": "Allendale", "kind": "take", "normal": True,
        "previous_owner_id": None, "undone_by": None, "flags": []}
    assert got.claims[1].display_name == ""
    whole = await desk(claims_service(log, page=2), store).claim_log(None, None, 5)
    assert whole.truncated is False and whole.claims[4].territory_name == "not-a-town"


async def test_claims_csv_reads_its_first_page_before_answering_then_streams_the_rest() -> None:
    store, ids = await players("=cmd")
    log = [claim(i, ids["=cmd"]) for i in range(3)]
    services = claims_service(log, page=2)
    text = await desk(services, store).claims_csv()
    assert len(services.asked) == 1   # the first page: read before the answer starts
    body = "".join([part async for part in text])
    assert [m.after for _, m in services.asked] == [None, "c1"]
    assert body.split("\r\n") == [
        "id,at,game_day,player_id,display_name,territory_id,territory_name,kind,normal,previous_owner_id,"
        "undone_by,flags",
        *(f"c{i},2026-10-05T07:00:0{i}-04:00,2026-10-05,{ids['=cmd']},'=cmd,{A},Allendale,take,True,,,"
          for i in range(3)), ""]


async def test_claims_csv_raises_before_answering_when_claims_does_not_answer() -> None:
    def down(_: ClaimsListRequest) -> ClaimsListReply:
        raise ApiError("unavailable", "claims did not answer")

    with pytest.raises(ApiError) as e:
        await desk(CannedServices({subjects.CLAIMS_LIST: down})).claims_csv()
    assert e.value.status == 503


async def test_results_csv_is_the_final_results_with_outposts_after_the_close() -> None:
    services = CannedServices({
        subjects.SCORING_RESULTS: FinalResults(standings=_final(2)),
        subjects.SCORING_LEADERBOARD: Leaderboard(standings=[standing(1, "p0", 10, outposts=3)], side_quests={})})
    text = await desk(services).results_csv()
    assert text.split("\r\n") == ["place,player_id,display_name,base,outposts,bonuses,total,prize,final",
                                  "1,p0,,10,3,0,10,0.00,True", "2,p1,,9,,1,10,0.00,True", ""]
    assert services.subjects() == [subjects.SCORING_RESULTS, subjects.SCORING_LEADERBOARD]


async def test_results_csv_before_the_close_is_the_current_standings_without_prizes() -> None:
    def not_closed(_: ResultsRequest) -> FinalResults:
        raise ApiError("season_not_closed", "The season has not closed yet; no final results.")

    services = CannedServices({subjects.SCORING_RESULTS: not_closed, subjects.SCORING_LEADERBOARD: Leaderboard(
        standings=[standing(1, "p0", 4, outposts=1), standing(2, "p1", 2)], side_quests={})})
    assert (await desk(services).results_csv()).split("\r\n") == [
        "place,player_id,display_name,base,outposts,bonuses,total,prize,final",
        "1,p0,,3,1,0,4,,False", "2,p1,,2,0,0,2,,False", ""]


async def test_players_csv_has_the_private_fields_and_no_formula_cells() -> None:
    store, ids = await players("=sum")
    row = await store.get(ids["=sum"])
    assert row is not None
    assert (await desk(CannedServices(), store).players_csv()).split("\r\n") == [
        "id,name,display_name,email,discord,home_address,status,status_reason,created_at,same_address_as",
        f"{ids['=sum']},'=Sum,'=sum,sum@example.com,'=sum,1 Main St,verified,,{row.created_at.isoformat()},", ""]


# ---- the turn-based modes -----------------------------------------------------------------------------------------


def view(mode: str = "team_turf") -> GameView:
    return GameView(game_id="g1", mode=mode, status="running", created_by="org",  # type: ignore[arg-type]
                    created_at=MONDAY_7AM, seed_commitment="c")


def named(mode: str = "team_turf", names: dict[str, str] | None = None) -> NamedGameView:
    """:func:`view` as the gateway answers it, with its players' names."""
    return NamedGameView(**dict(view(mode)), names=names or {})


def modes_service(mode: str = "team_turf") -> CannedServices:
    answers: dict[str, Any] = {s: view(mode) for s in (
        subjects.MODES_GAME, subjects.MODES_JOIN, subjects.MODES_PLACE, subjects.MODES_WITHDRAW, subjects.MODES_LEAVE,
        subjects.MODES_START, subjects.MODES_CHOOSE, subjects.MODES_END, subjects.MODES_CREATE_TEAM_TURF,
        subjects.MODES_OPEN_HILL)}
    return CannedServices(answers | {
        subjects.MODES_GAMES: GamesReply(games=[]), subjects.MODES_ORDER: OrderReply(order_id="o1", turn=2),
        subjects.MODES_RESOLVE: ResolveReply(game_id="g1", turn=2, first=True)})


async def test_the_games_of_a_mode_one_game_as_its_viewer_sees_it_and_a_finished_games_log() -> None:
    services = modes_service("hill")
    log = GameLog(game_id="g1", mode="hill", config={}, seed_commitment="c", seed="s", actions=[])
    services.answers[subjects.MODES_LOG] = log
    modes = Modes(services, MemoryIdempotencyKeys(), NoLimits())
    assert await modes.games("hill") == GamesReply(games=[])
    assert await modes.game("g1", "hill", "ada") == named("hill")
    assert await modes.log("g1") == log
    assert services.asked == [(subjects.MODES_GAMES, GamesRequest(mode="hill")),
                              (subjects.MODES_GAME, GameRequest(game_id="g1", player_id="ada")),
                              (subjects.MODES_LOG, LogRequest(game_id="g1"))]


@pytest.mark.parametrize(("mode", "cmd", "subject"), [
    ("team_turf", JoinGame(game_id="g1", player_id="ada", team="red"), subjects.MODES_JOIN),
    ("team_turf", PlaceTroops(game_id="g1", player_id="ada", town=A, n=2), subjects.MODES_PLACE),
    ("team_turf", WithdrawOrder(game_id="g1", player_id="ada", order_id="o1"), subjects.MODES_WITHDRAW),
    ("team_turf", LeaveGame(game_id="g1", player_id="ada"), subjects.MODES_LEAVE),
    ("team_turf", EndGame(game_id="g1"), subjects.MODES_END),
    ("hill", StartRoom(game_id="g1", player_id="ada"), subjects.MODES_START),
    ("hill", ChooseAction(game_id="g1", player_id="ada", round=1, choice="attack"), subjects.MODES_CHOOSE),
])
async def test_a_move_reads_the_game_then_sends_the_command_to_its_subject(mode: Any, cmd: Any, subject: str) -> None:
    services = modes_service(mode)
    assert await Modes(services, MemoryIdempotencyKeys(), NoLimits()).move(mode, cmd, "ada") == named(mode)
    assert services.asked == [(subjects.MODES_GAME, GameRequest(game_id="g1", player_id="ada")), (subject, cmd)]


async def test_a_move_on_a_game_of_the_other_mode_is_404_and_sends_nothing() -> None:
    services = modes_service("team_turf")
    modes = Modes(services, MemoryIdempotencyKeys(), NoLimits())
    for call in (modes.move("hill", LeaveGame(game_id="g1", player_id="ada"), "ada"), modes.game("g1", "hill", None)):
        with pytest.raises(ApiError) as e:
            await call
        assert (e.value.reason, e.value.status) == ("not_found", 404)
    assert services.subjects() == [subjects.MODES_GAME, subjects.MODES_GAME]


async def test_an_order_and_a_resolution_read_the_team_turf_game_first() -> None:
    services = modes_service()
    modes = Modes(services, MemoryIdempotencyKeys(), NoLimits())
    order = GiveOrder(game_id="g1", player_id="ada", turn=2, kind="move", src=A, dst=B, n=1)
    assert await modes.order(order) == OrderReply(order_id="o1", turn=2)
    assert (await modes.resolve(ResolveTurn(game_id="g1", turn=2))).first is True
    assert services.asked == [(subjects.MODES_GAME, GameRequest(game_id="g1", player_id="ada")),
                              (subjects.MODES_ORDER, order),
                              (subjects.MODES_GAME, GameRequest(game_id="g1", player_id=None)),
                              (subjects.MODES_RESOLVE, ResolveTurn(game_id="g1", turn=2))]


async def test_opening_asks_the_subject_of_its_command_and_a_key_reused_with_another_body_is_422() -> None:
    services = modes_service()
    modes = Modes(services, MemoryIdempotencyKeys(), NoLimits())
    create = CreateTeamTurf(command_id="k", organizer_id="org", teams=["red", "blue"])
    hill = OpenHill(command_id="h", player_id="ada", hill=A)
    await modes.open(create, "org", "key-1", {"teams": ["red", "blue"]})
    await modes.open(hill, "ada", "key-1", {"hill": A})   # another route: the same key is another key
    with pytest.raises(ApiError) as e:
        await modes.open(create, "org", "key-1", {"teams": ["red", "green"]})
    assert (e.value.reason, e.value.status) == ("invalid_input", 422)
    assert services.asked == [(subjects.MODES_CREATE_TEAM_TURF, create), (subjects.MODES_OPEN_HILL, hill)]


class _Names:
    """Display names of a roster far longer than a page of ``GET /players``; the organizer has none."""

    async def display_names(self, ids: list[str]) -> dict[str, str]:
        return {i: "" if i == "org" else f"{i.title()} of the hill" for i in ids}


async def test_a_game_answers_with_the_names_of_every_player_it_names() -> None:
    """A page names each player from the game's own answer (never "player 9ac9a7" for one past the roster's first
    page): the seated players, the holder, the last round's choosers; the organizer who made it is not named."""
    services = modes_service("hill")
    rnd = RoundOut(round=1, choices={"ada": "attack", "bo": "recruit", "cy": "recruit"}, rolls={"ada": [4]},
                   defence=None, defence_power=None, tiebreaks=[], holder_before=None, holder_after="ada",
                   discards=[], dice_after={"ada": 1})
    hill = HillView(hill=A, opener="ada", players=["ada", "bo", "cy"], dice={"ada": 1, "bo": 2, "cy": 2},
                    holder="ada", round=2, rounds=10, round_deadline=None, chosen=[], winner=None, last_round=rnd)
    services.answers[subjects.MODES_GAME] = services.answers[subjects.MODES_LEAVE] = view("hill").model_copy(
        update={"hill": hill})
    modes = Modes(services, MemoryIdempotencyKeys(), NoLimits(), _Names())
    got = await modes.game("g1", "hill", None)
    assert got.names == {"ada": "Ada of the hill", "bo": "Bo of the hill", "cy": "Cy of the hill"}
    assert got.hill == hill
    assert (await modes.move("hill", LeaveGame(game_id="g1", player_id="bo"), "bo")).names == got.names
