"""R31 in scoring's use cases, on the memory store and on Redis: each season has its own scores and side quests
(a new season starts with none), a player is in the standings of the seasons they joined, and a closed season's
standings and final results (R25, R26) stay readable and change only by a correction of its own (R28).

The board: a - b adjacent (R22), c alone; a borders water, land and residents grow a < b < c."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

import networkx as nx

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonCalendar, SeasonEnded, SetSeasons
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.contracts.scoring import FinalResults, Leaderboard, LeaderboardRequest, ResultsRequest
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules import gametime
from turf_common.rules.scoring import TerritoryStats
from turf_common.seasonbook import SeasonBook
from turf_common.testing import FakeClock, RecordingPublisher
from turf_scoring import bootstrap
from turf_scoring.adapters.redis_store import RedisScoreStore
from turf_scoring.handlers import ScoringHandlers
from turf_scoring.ports import ScoreStore

S2026 = gametime.load_season()
S2027 = replace(S2026, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23))
IN_2026 = datetime(2026, 10, 6, 14, 0, tzinfo=UTC)             # a game day of 2026
CLOSE_2026 = gametime.season_closes_at(S2026)
BETWEEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)             # 2026 closed, 2027 not yet open: 2026 in force
OPENING_2027 = gametime.season_opens_at(S2027)                 # 2027's first opening


class Seasons:
    """Scoring's handlers over ``store`` with the 2026 and 2027 seasons in the book, the game clock at ``clock.at``."""

    def __init__(self, store: ScoreStore, book: SeasonBook | None = None) -> None:
        graph = nx.Graph([("a", "b")])
        graph.add_node("c")
        stats = {"a": TerritoryStats(True, 10, 100), "b": TerritoryStats(False, 20, 200),
                 "c": TerritoryStats(False, 30, 300)}
        self.store, self.bus, self.clock = store, RecordingPublisher(), FakeClock(IN_2026)
        self.h: ScoringHandlers = bootstrap.handlers(store, self.bus, graph, stats,
                                                     season=book or SeasonBook.of(S2026, S2027), clock=self.clock)
        self.version: dict[tuple[str, str], int] = {}
        self.owner: dict[tuple[str, str], str | None] = {}

    async def change(self, season: str, tid: str, pid: str | None, at: datetime, cause: str = "claim") -> None:
        """``tid`` of ``season``'s board now owned by ``pid`` (each season's board counts its own versions)."""
        key = (season, tid)
        self.version[key] = self.version.get(key, 0) + 1
        await self.h.on_events([TerritoryChanged(
            occurred_at=at, territory_id=tid, owner_id=pid, previous_owner_id=self.owner.get(key), progress=1,
            fortified=False, version=self.version[key], cause=cause)])   # type: ignore[arg-type]
        self.owner[key] = pid

    async def verify(self, pid: str, at: datetime) -> None:
        await self.h.on_event(PlayerVerified(occurred_at=at, player_id=pid, at=at))

    async def join(self, pid: str, season: str, at: datetime) -> None:
        await self.h.on_event(SeasonJoined(event_id=f"joined:{season}:{pid}", occurred_at=at, season_id=season,
                                           player_id=pid))

    async def board(self, season: str | None = None) -> list[tuple[str, int]]:
        lb = await self.h.leaderboard_page(LeaderboardRequest(season_id=season))
        assert isinstance(lb, Leaderboard)
        return [(s.player_id, s.total) for s in lb.standings]

    async def results(self, season: str | None = None) -> FinalResults | Refusal:
        return await self.h.results_page(ResultsRequest(season_id=season))

    async def play_2026(self) -> FinalResults:
        """ann and ben verified (joined 2026 by registering before seasons); ann claims a, ben steals it and
        claims c; 2026 closes: ben 1 + 3 + 3 + 3 = 10 (R23, R24), ann 0 (R25: at 0, no prize)."""
        for pid in ("ann", "ben"):
            await self.verify(pid, IN_2026)
        await self.change("2026", "a", "ann", IN_2026)
        await self.change("2026", "a", "ben", IN_2026)
        await self.change("2026", "c", "ben", IN_2026)
        self.clock.at = CLOSE_2026
        await self.h.on_event(SeasonEnded(event_id="2026:season_ended:2026-10-24", occurred_at=CLOSE_2026,
                                          at=CLOSE_2026, game_day=S2026.last_day, game_day_number=18, week=3,
                                          season_id="2026"))
        final = await self.results("2026")
        assert isinstance(final, FinalResults)
        return final


async def test_r31_the_next_seasons_leaderboard_starts_empty_and_the_last_ones_final_results_stay(
        store: ScoreStore) -> None:
    w = Seasons(store)
    final_2026 = await w.play_2026()
    assert [(s.place, s.player_id, s.prize) for s in final_2026.standings] == [(1, "ben", "50.00"),
                                                                               (2, "ann", "0.00")]
    board_2026 = await w.board("2026")
    # the next season: ann joins and claims b at its first opening; ben (who did not join) plays no part
    await w.join("ann", "2027", BETWEEN)
    w.clock.at = OPENING_2027
    await w.change("2027", "b", "ann", OPENING_2027)
    # 2027's board holds the 2027 claim's points only (1 + 3 + 3: b leads land and residents; no water, R24)
    assert await w.board() == [("ann", 7)] == await w.board("2027")
    assert await w.results() == Refusal(reason="season_not_closed",
                                        message="The season has not closed yet; no final results.")
    # 2026 stays as it ended: its standings, its final results and prizes
    assert await w.board("2026") == board_2026 == [("ben", 10), ("ann", 0)]
    assert await w.results("2026") == final_2026
    # the 2027 delta names its season, and its message id too (a source may score in two seasons)
    upd, msg_id = w.bus.of(subjects.SCORE_UPDATED)[-1]
    assert upd["season_id"] == "2027" and msg_id.startswith("score:2027:")
    assert [c["player_id"] for c in upd["changes"]] == ["ann"]


async def test_r31_r28_a_correction_between_seasons_recomputes_the_closed_season_not_the_next(
        store: ScoreStore) -> None:
    w = Seasons(store)
    await w.play_2026()
    await w.join("ann", "2027", BETWEEN)
    # R28: the organizer gives c back to ann after 2026's close, before 2027 opens: 2026's results are recomputed
    w.clock.at = BETWEEN
    await w.change("2026", "c", "ann", BETWEEN, cause="correction")
    again = await w.results("2026")
    assert isinstance(again, FinalResults)
    assert [(s.player_id, s.total) for s in again.standings] == [("ann", 7), ("ben", 4)]
    event, msg_id = w.bus.of(subjects.SEASON_FINAL_RESULTS)[-1]
    assert event["season_id"] == "2026" and msg_id.startswith("final:") and not msg_id.startswith("final:2027")
    # 2027 has not opened: nothing of 2026's is in its standings; ann stands at 0 (joined, verified)
    assert await w.board("2027") == [("ann", 0)]


async def test_r31_r25_only_a_seasons_joined_and_verified_players_are_in_its_standings(store: ScoreStore) -> None:
    w = Seasons(store)
    await w.play_2026()
    # cy registers between seasons: she joins 2027 (pending) and is verified later; she never joined 2026
    await w.join("cy", "2027", BETWEEN)
    assert await w.board("2027") == []   # not yet verified (R25: the standings list verified players)
    await w.verify("cy", BETWEEN)
    assert await w.board("2027") == [("cy", 0)]
    assert ("cy", 0) not in await w.board("2026")
    assert [s.player_id for s in (await w.h.final_results("2026")).standings] == ["ben", "ann"]
    # ben (verified in 2026) joins 2027 and enters its standings at 0 at once
    await w.join("ben", "2027", BETWEEN)
    assert await w.board("2027") == [("ben", 0), ("cy", 0)]


async def test_r31_r28_a_disqualification_in_the_new_season_leaves_the_last_ones_results(store: ScoreStore) -> None:
    w = Seasons(store)
    final_2026 = await w.play_2026()
    await w.join("ben", "2027", BETWEEN)
    w.clock.at = OPENING_2027
    await w.change("2027", "a", "ben", OPENING_2027)
    await w.h.on_event(PlayerDisqualified(occurred_at=OPENING_2027, player_id="ben", at=OPENING_2027))
    assert await w.board("2027") == []
    assert await w.results("2026") == final_2026


async def test_r31_an_unknown_season_is_not_found(store: ScoreStore) -> None:
    w = Seasons(store)
    assert await w.h.leaderboard_page(LeaderboardRequest(season_id="1999")) == Refusal(
        reason="not_found", message="There is no season '1999'.")


async def test_r31_the_configuration_files_season_keeps_its_keys_and_the_next_has_its_own(store: ScoreStore) -> None:
    w = Seasons(store)
    await w.play_2026()
    await w.join("ann", "2027", BETWEEN)
    await w.change("2027", "b", "ann", OPENING_2027)
    if isinstance(store, RedisScoreStore):
        # 2026's data stays where it was before seasons (no migration); 2027's under <prefix>2027:
        assert await store.redis.hexists(store.k("score"), "ben")
        assert await store.redis.hgetall(store.k("2027:own")) == {b"b": b"ann"}
        assert not await store.redis.hexists(store.k("2027:score"), "ben")


class _Entry:
    def __init__(self, value: bytes) -> None:
        self.value = value


class _Bucket:
    """The clock's KV bucket holding a catalog the book's watch has not brought yet."""

    def __init__(self, *configs: gametime.SeasonConfig) -> None:
        self.catalog = SetSeasons(seasons=[SeasonCalendar(config=c.to_dict(), seed_commitment="0" * 64)
                                           for c in configs]).model_dump_json().encode()

    async def get(self, key: str) -> _Entry:
        assert key == "seasons"
        return _Entry(self.catalog)


async def test_r31_a_new_seasons_first_claim_is_scored_on_its_board_though_the_watch_lags(
        store: ScoreStore) -> None:
    """The book still holds 2026 alone when 2027's first claim comes: scoring reads the catalog afresh (an event
    past the close of the season in force), so the claim scores on 2027's empty board, not on 2026's."""
    async def bucket() -> _Bucket:
        return _Bucket(S2026, S2027)

    w = Seasons(store)
    await w.play_2026()
    w.h.book = SeasonBook(S2026, bucket)   # the catalog of 2026 and 2027, not yet read
    assert w.h.book.get("2027") is None
    await w.change("2027", "b", "ann", OPENING_2027)
    assert await w.board("2027") == [("ann", 7)]
    assert [(s.player_id, s.total) for s in (await w.h.final_results("2026")).standings] == [("ben", 10),
                                                                                             ("ann", 0)]


async def test_r31_r26_a_season_made_with_its_own_prize_table_pays_its_places_from_it(store: ScoreStore) -> None:
    book = SeasonBook(S2026)
    book.apply(SetSeasons(seasons=[SeasonCalendar(config=S2026.to_dict(), seed_commitment="a"),
                                   SeasonCalendar(config=S2027.to_dict(), seed_commitment="b",
                                                  prizes=["100.00", "40.00"])]).model_dump_json())
    w = Seasons(store, book)
    final_2026 = await w.play_2026()
    assert [s.prize for s in final_2026.standings] == ["50.00", "0.00"]   # 2026: the deployment's prize file
    for pid in ("ann", "ben"):
        await w.join(pid, "2027", BETWEEN)
    w.clock.at = OPENING_2027
    await w.change("2027", "a", "ann", OPENING_2027)
    await w.change("2027", "c", "ben", OPENING_2027)
    close = gametime.season_closes_at(S2027)
    w.clock.at = close
    await w.h.on_event(SeasonEnded(event_id="2027:season_ended:2027-10-23", occurred_at=close, at=close,
                                   game_day=S2027.last_day, game_day_number=18, week=3, season_id="2027"))
    final = await w.results("2027")
    assert isinstance(final, FinalResults)
    assert [(s.place, s.prize) for s in final.standings] == [(1, "100.00"), (2, "40.00")]


async def test_r31_joining_the_next_season_is_no_score_news_before_it_opens_and_its_standing_is_read(
        store: ScoreStore) -> None:
    w = Seasons(store)
    await w.play_2026()
    before = len(w.bus.of(subjects.SCORE_UPDATED))
    w.clock.at = BETWEEN
    await w.join("ann", "2027", BETWEEN)
    assert len(w.bus.of(subjects.SCORE_UPDATED)) == before   # 2026's feed and replay get no 2027 delta
    assert await w.board("2027") == [("ann", 0)]
