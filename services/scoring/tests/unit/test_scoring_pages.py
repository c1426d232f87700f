"""The leaderboard and the final results cross the bus a page at a time (one reply of every standing
passed NATS's 1 MiB payload limit at about 7,400 players). The pages of one reading are cut from one ranking, kept
for a short time: a score change between two pages moves nobody across a page boundary."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import networkx as nx
import pytest
from faststream.nats import TestNatsBroker
from pydantic import ValidationError

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.scoring import (
    LEADERBOARD_PAGE,
    RESULTS_PAGE,
    FinalResults,
    FinalStanding,
    Leaderboard,
    LeaderboardRequest,
    QuestStanding,
    ResultsRequest,
    SeasonFinalResults,
    Standing,
)
from turf_common.rules.scoring import TerritoryStats
from turf_common.testing import RecordingPublisher
from turf_scoring import bootstrap, entrypoints
from turf_scoring.handlers import ScoringHandlers
from turf_scoring.testing import MemoryScoreStore

GRAPH = nx.Graph([("a", "b")])
STATS = {"a": TerritoryStats(True, 10, 100), "b": TerritoryStats(False, 20, 50)}
BIG = 2 * LEADERBOARD_PAGE + 500
AT = datetime(2026, 10, 24, 22, 0, tzinfo=UTC)


def league(players: int, **store: Any) -> tuple[ScoringHandlers, MemoryScoreStore]:
    """``players`` standings put straight into the memory store: player ``p0042`` has base 42 % 97, so totals repeat
    (R25: equal totals share a rank, ties listed by player id)."""
    s = MemoryScoreStore(**store)
    for i in range(players):
        s.score[f"p{i:04d}"] = {"base": i % 97, "outposts": i % 3, "territories": i % 97 + i % 3}
    return bootstrap.handlers(s, RecordingPublisher(), GRAPH, STATS), s


async def read_all(h: ScoringHandlers) -> list[Leaderboard]:
    pages = [await h.leaderboard_page(LeaderboardRequest())]
    while True:
        last = pages[-1]
        assert isinstance(last, Leaderboard)
        if last.next is None:
            return pages   # type: ignore[return-value]
        pages.append(await h.leaderboard_page(LeaderboardRequest(after=last.next)))


async def test_a_league_that_fits_in_a_page_gets_its_leaderboard_in_one_reply_and_nothing_is_kept() -> None:
    h, s = league(LEADERBOARD_PAGE)
    page = await h.leaderboard_page(LeaderboardRequest())
    assert page == await h.leaderboard() and isinstance(page, Leaderboard) and page.next is None
    assert len(page.standings) == LEADERBOARD_PAGE and s.kept == {}


async def test_a_longer_leaderboard_comes_in_pages_of_one_ranking_each_player_once_in_rank_order() -> None:
    h, s = league(BIG)
    whole = await h.leaderboard()
    pages = await read_all(h)
    assert [len(p.standings) for p in pages] == [LEADERBOARD_PAGE, LEADERBOARD_PAGE, 500]
    assert [x for p in pages for x in p.standings] == whole.standings
    assert all(p.side_quests == whole.side_quests for p in pages)
    sid = pages[0].next.split(":")[0]   # type: ignore[union-attr]
    assert [p.next for p in pages] == [f"{sid}:1", f"{sid}:2", None] and list(s.kept) == [sid]
    # asked again while nothing changed: the same ranking, the same kept snapshot
    again = await h.leaderboard_page(LeaderboardRequest())
    assert isinstance(again, Leaderboard) and again.next == f"{sid}:1" and list(s.kept) == [sid]
    # a page of 7
    small = await h.leaderboard_page(LeaderboardRequest(limit=7))
    assert isinstance(small, Leaderboard) and small.standings == whole.standings[:7] and small.next is not None
    with pytest.raises(ValidationError):
        LeaderboardRequest(limit=LEADERBOARD_PAGE + 1)


async def test_a_score_change_between_two_pages_moves_nobody_across_the_page_boundary() -> None:
    h, s = league(BIG)
    before = await h.leaderboard()
    first = await h.leaderboard_page(LeaderboardRequest())
    assert isinstance(first, Leaderboard) and first.next is not None
    # the last player of the first page falls to the bottom and the bottom one rises to the top meanwhile
    fallen, risen = before.standings[LEADERBOARD_PAGE - 1].player_id, before.standings[-1].player_id
    s.score[fallen] = {"base": 0, "outposts": 0, "territories": 0}
    s.score[risen] = {"base": 1000, "outposts": 0, "territories": 1000}
    second = await h.leaderboard_page(LeaderboardRequest(after=first.next))
    assert isinstance(second, Leaderboard)
    assert second.standings == before.standings[LEADERBOARD_PAGE:2 * LEADERBOARD_PAGE]
    now = await h.leaderboard_page(LeaderboardRequest())   # a new reading sees the change
    assert isinstance(now, Leaderboard) and now.standings[0].player_id == risen and now.next != first.next


async def test_a_cursor_this_service_did_not_make_is_invalid_input_and_an_expired_one_not_found() -> None:
    h, _ = league(BIG)
    first = await h.leaderboard_page(LeaderboardRequest())
    assert isinstance(first, Leaderboard) and first.next is not None
    sid = first.next.split(":")[0]
    for bad in ("yesterday", f"{sid}:0", f"{sid}:-1", f"{sid.upper()}:1", f"{sid}:1:2", f"{sid[:-1]}:1"):
        reply = await h.leaderboard_page(LeaderboardRequest(after=bad))
        assert isinstance(reply, Refusal) and reply.reason == "invalid_input", bad
    for gone in (f"{sid}:3", f"{'0' * 32}:1"):   # past the last page; never kept
        reply = await h.leaderboard_page(LeaderboardRequest(after=gone))
        assert reply == Refusal(reason="not_found",
                                message="That page's ranking has expired; ask for the first page again."), gone
    # a leaderboard cursor given to the results is no cursor of that list
    reply = await h.results_page(ResultsRequest(after=first.next))
    assert isinstance(reply, Refusal) and reply.reason == "invalid_input"
    expired, _ = league(BIG, ttl_s=0)
    first = await expired.leaderboard_page(LeaderboardRequest())
    assert isinstance(first, Leaderboard) and first.next is not None
    reply = await expired.leaderboard_page(LeaderboardRequest(after=first.next))
    assert isinstance(reply, Refusal) and reply.reason == "not_found"


async def test_the_final_results_come_in_pages_too() -> None:
    h, s = league(0)
    assert await h.results_page(ResultsRequest()) == Refusal(
        reason="season_not_closed", message="The season has not closed yet; no final results.")
    final = FinalResults(standings=[FinalStanding(place=i + 1, player_id=f"p{i:04d}", base=3, bonuses=0, total=3,
                                                  prize="0.00") for i in range(RESULTS_PAGE + 1)])
    s.final_results = final
    first = await h.results_page(ResultsRequest())
    assert isinstance(first, FinalResults) and first.standings == final.standings[:RESULTS_PAGE]
    last = await h.results_page(ResultsRequest(after=first.next))
    assert isinstance(last, FinalResults) and (last.standings, last.next) == (final.standings[RESULTS_PAGE:], None)
    s.final_results = final.model_copy(update={"standings": final.standings[:RESULTS_PAGE]})
    assert await h.results_page(ResultsRequest()) == s.final_results   # one page: itself


def test_a_full_page_stays_far_below_the_payload_limit() -> None:
    """The worst case of a page: standings with a 64-character player id (the gateway's longest id) and every
    integer of 20 characters (-2**63), and side quests each led by a tie of as many players as the board has
    territories (448). A full leaderboard page stays under 400 kB and a full results page under 300 kB, well under
    NATS's 1 MiB payload limit."""
    big = -2 ** 63
    worst = Standing(player_id="p" * 64, base=big, outposts=big, bonuses=big, total=big, territories=big, rank=big)
    assert len(worst.model_dump_json()) <= 300
    quests = {q: QuestStanding(leaders=[f"{i:064d}" for i in range(448)], value=1e300)
              for q in ("lord_of_the_seas", "hungry_hungry_hippo", "social_butterfly")}
    page = Leaderboard(standings=[worst] * LEADERBOARD_PAGE, side_quests=quests, next=f"{'f' * 32}:99999")
    assert len(page.model_dump_json()) < 400_000
    worst_final = FinalStanding(place=big, player_id="p" * 64, base=big, bonuses=big, total=big,
                                prize=f"{big}.00")
    results = FinalResults(standings=[worst_final] * RESULTS_PAGE, next=f"{'f' * 32}:99999")
    assert len(results.model_dump_json()) < 300_000


async def test_the_subscriber_answers_a_page_by_its_cursor() -> None:
    h, _ = league(BIG)
    broker = make_broker("nats://test", "scoring")
    broker.include_router(entrypoints.router(h, "TEST"))
    async with TestNatsBroker(broker) as br:
        first = decode_reply((await br.request(LeaderboardRequest(), subjects.SCORING_LEADERBOARD)).body,
                             Leaderboard)
        assert isinstance(first, Leaderboard) and first.next is not None
        second = decode_reply((await br.request(LeaderboardRequest(after=first.next),
                                                subjects.SCORING_LEADERBOARD)).body, Leaderboard)
    assert isinstance(second, Leaderboard)
    assert second.standings == (await h.leaderboard()).standings[LEADERBOARD_PAGE:2 * LEADERBOARD_PAGE]


async def test_the_season_final_results_event_carries_the_first_page_of_places_and_their_count() -> None:
    """Every place of a large league in ``season.final_results`` would pass the payload limit and fail the
    consumer's batch again and again; the event carries the first RESULTS_PAGE and the count, the store keeps all
    (``scoring.results`` answers them a page at a time)."""
    h, s = league(RESULTS_PAGE + 5)
    await h.on_event(SeasonEnded(occurred_at=AT, at=AT, game_day=date(2026, 10, 24), game_day_number=20, week=3,
                                 season_id="2026"))
    publisher: Any = h.publisher
    [(_, body, _)] = [m for m in publisher.raw if m[0] == subjects.SEASON_FINAL_RESULTS]
    ev = SeasonFinalResults.model_validate(body)
    assert s.final_results is not None and len(s.final_results.standings) == RESULTS_PAGE + 5
    assert ev.standings == RESULTS_PAGE + 5 and ev.results.standings == s.final_results.standings[:RESULTS_PAGE]
    small, _ = league(3)
    await small.on_event(SeasonEnded(occurred_at=AT, at=AT, game_day=date(2026, 10, 24), game_day_number=20, week=3,
                                     season_id="2026"))
    out: Any = small.publisher
    [(_, body, _)] = [m for m in out.raw if m[0] == subjects.SEASON_FINAL_RESULTS]
    assert SeasonFinalResults.model_validate(body).standings == 3
