"""The gateway reads the leaderboard, the final results and the claim log a page at a time and answers
exactly what it answered when each came in one reply. The services are fakes that page as scoring and claims do
(``page``: how many entries a page holds; a page of 10**9 is the one reply of before)."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import CLAIMS_PAGE, ClaimRecord, ClaimsListReply, ClaimsListRequest
from turf_common.contracts.scoring import (
    LEADERBOARD_PAGE,
    FinalResults,
    FinalStanding,
    Leaderboard,
    LeaderboardRequest,
    QuestStanding,
    ResultsRequest,
    Standing,
)
from turf_common.rules import gametime
from turf_gateway.api.errors import ApiError
from turf_gateway.api.routes import exports
from turf_gateway.feed.state import FeedState
from turf_gateway.handlers.exports import CLAIM_COLUMNS, Exports, csv_text
from turf_gateway.handlers.public import Public

M = TypeVar("M", bound=Message)
BOARD = load_board()
TOWNS = sorted(BOARD.territories)
T0 = datetime(2026, 10, 5, 13, 0, tzinfo=UTC)
SID = "5" * 32


def standings(n: int) -> list[Standing]:
    totals = [(i * 7919) % 113 for i in range(n)]   # totals repeat: ranks shared (R25)
    ranked = sorted(range(n), key=lambda i: (-totals[i], f"p{i:05d}"))
    out, rank = [], 0
    for pos, i in enumerate(ranked):
        if pos == 0 or totals[i] != totals[ranked[pos - 1]]:
            rank = pos + 1
        out.append(Standing(rank=rank, player_id=f"p{i:05d}", base=totals[i], outposts=i % 3, bonuses=0,
                            total=totals[i], territories=totals[i] + i % 3))
    return out


QUESTS = {"lord_of_the_seas": QuestStanding(leaders=["p00001"], value=3),
          "hungry_hungry_hippo": QuestStanding(leaders=[], value=0),
          "social_butterfly": QuestStanding(leaders=["p00002", "p00003"], value=120)}


def claims(n: int) -> list[ClaimRecord]:
    return [ClaimRecord(id=f"c{i:06d}", at=T0 + timedelta(seconds=i), game_day=date(2026, 10, 5),
                        player_id=f"p{i % 37:05d}", territory_id=TOWNS[i % len(TOWNS)],
                        kind="steal" if i % 5 == 0 else "take", normal=i % 11 != 0,
                        previous_owner_id=f"p{(i + 1) % 37:05d}" if i % 5 == 0 else None,
                        undone_by="war" if i % 13 == 0 else None, flags=["impossible_travel"] if i % 17 == 0 else [])
            for i in range(n)]


class Services:
    """Scoring and claims as they page (a page of at most ``page`` entries, never more than the request's limit
    for claims), counting the requests; ``expire`` page cursors are refused ``not_found`` once each, as a
    snapshot evicted between two pages."""

    def __init__(self, board: list[Standing], log: list[ClaimRecord], final: list[FinalStanding] | None = None,
                 page: int = 10 ** 9, expire: int = 0) -> None:
        self.board, self.log, self.final, self.page, self.expire = board, log, final, page, expire
        self.asked: list[tuple[str, str | None, int]] = []

    def _cut(self, rows: list[Any], after: str | None) -> tuple[list[Any], str | None]:
        n = 0 if after is None else int(after.split(":")[1])
        if after is not None and self.expire:
            self.expire -= 1
            raise ApiError("not_found", "That page's ranking has expired; ask for the first page again.")
        part = rows[n * self.page:(n + 1) * self.page]
        return part, f"{SID}:{n + 1}" if (n + 1) * self.page < len(rows) else None

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        await asyncio.sleep(0)
        if isinstance(msg, LeaderboardRequest):
            self.asked.append((subject, msg.after, msg.limit))
            rows, nxt = self._cut(self.board, msg.after)
            return Leaderboard(standings=rows, side_quests=QUESTS, next=nxt)  # type: ignore[return-value]
        if isinstance(msg, ResultsRequest):
            self.asked.append((subject, msg.after, msg.limit))
            if self.final is None:
                raise ApiError("season_not_closed", "The season has not closed yet; no final results.")
            rows, nxt = self._cut(self.final, msg.after)
            return FinalResults(standings=rows, next=nxt)  # type: ignore[return-value]
        assert isinstance(msg, ClaimsListRequest) and msg.game_day is None
        self.asked.append((subject, msg.after, msg.limit))
        mine = [c for c in self.log if msg.player_id in (None, c.player_id)]
        start = 0 if msg.after is None else next(i for i, c in enumerate(mine) if c.id == msg.after) + 1
        part = mine[start:start + min(msg.limit, self.page)]
        more = start + len(part) < len(mine)
        return ClaimsListReply(claims=part, next=part[-1].id if more else None)  # type: ignore[return-value]


class Names:
    async def display_names(self, ids: list[str]) -> dict[str, str]:
        return {i: f"={i.upper()}" for i in ids if not i.endswith("7")}   # some nameless; some formula-like


SEASON = gametime.load_season()


def public(services: Services) -> Public:
    return Public(services, Names(), BOARD, SEASON, None, "manual", "s", FeedState())  # type: ignore[arg-type]


def desk(services: Services) -> Exports:
    """The organizer's exports (no players export here: no accounts)."""
    return Exports(services, Names(), BOARD, SEASON, public(services), None)  # type: ignore[arg-type]


async def test_a_leaderboard_of_several_pages_is_answered_whole_and_as_before() -> None:
    n = 2 * LEADERBOARD_PAGE + 345
    before = await public(Services(standings(n), [])).leaderboard()
    paged = Services(standings(n), [], page=LEADERBOARD_PAGE)
    now = await public(paged).leaderboard()
    assert now == before and len(now["standings"]) == n
    lb = subjects.SCORING_LEADERBOARD
    assert paged.asked == [(lb, None, LEADERBOARD_PAGE), (lb, f"{SID}:1", LEADERBOARD_PAGE),
                           (lb, f"{SID}:2", LEADERBOARD_PAGE)]


async def test_a_small_league_costs_one_request_and_concurrent_callers_share_one_reading() -> None:
    small = Services(standings(40), [], page=LEADERBOARD_PAGE)
    await public(small).leaderboard()
    assert small.asked == [(subjects.SCORING_LEADERBOARD, None, LEADERBOARD_PAGE)]
    big = Services(standings(LEADERBOARD_PAGE + 1), [], page=LEADERBOARD_PAGE)
    pub = public(big)
    a, b, c = await asyncio.gather(*(pub.leaderboard() for _ in range(3)))
    assert a == b == c and len(a["standings"]) == LEADERBOARD_PAGE + 1 and len(big.asked) == 2


async def test_a_ranking_that_expired_between_two_pages_is_read_again_from_the_first_page() -> None:
    n = LEADERBOARD_PAGE + 10
    before = await public(Services(standings(n), [])).leaderboard()
    once = Services(standings(n), [], page=LEADERBOARD_PAGE, expire=1)
    assert await public(once).leaderboard() == before
    assert [after for _, after, _ in once.asked] == [None, f"{SID}:1", None, f"{SID}:1"]
    always = Services(standings(n), [], page=LEADERBOARD_PAGE, expire=99)
    with pytest.raises(ApiError) as e:
        await public(always).leaderboard()
    assert e.value.reason == "unavailable" and e.value.status == 503 and len(always.asked) == 6


async def test_the_admin_claim_log_reads_pages_up_to_its_limit_and_says_truncated_as_before() -> None:
    log = claims(2 * CLAIMS_PAGE + 300)
    for limit, truncated in ((2000, True), (2300, False), (2299, True), (10, True)):
        before = await desk(Services([], log)).claim_log(None, None, limit)
        paged = Services([], log, page=CLAIMS_PAGE)
        now = await desk(paged).claim_log(None, None, limit)
        assert now == before and now.truncated is truncated and len(now.claims) == min(limit, len(log)), limit
    assert [lim for _, _, lim in paged.asked] == [11]
    paged = Services([], log, page=CLAIMS_PAGE)
    await desk(paged).claim_log(None, None, 2000)
    assert paged.asked == [(subjects.CLAIMS_LIST, None, CLAIMS_PAGE), (subjects.CLAIMS_LIST, log[999].id, CLAIMS_PAGE),
                           (subjects.CLAIMS_LIST, log[1999].id, 1)]


async def body_of(resp: Any) -> bytes:
    if hasattr(resp, "body_iterator"):
        return b"".join([c.encode() if isinstance(c, str) else c async for c in resp.body_iterator])
    return bytes(resp.body)


async def test_claims_csv_is_the_whole_log_streamed_a_page_at_a_time_with_the_same_bytes() -> None:
    log = claims(2 * CLAIMS_PAGE + 300)
    rows = [c.model_dump(mode="json") for c in await desk(Services([], log)).named_claims(log)]
    before = csv_text(rows, CLAIM_COLUMNS, header=True).encode()   # the one-piece body of before
    paged = Services([], log, page=CLAIMS_PAGE)
    resp = await exports.export("claims", None, desk(paged))   # type: ignore[arg-type]
    assert await body_of(resp) == before
    assert len(before.decode().splitlines()) == 1 + len(log) and b"'=P00001" in before
    assert (resp.media_type, resp.headers["content-disposition"], resp.headers["cache-control"]) == (
        "text/csv; charset=utf-8", 'attachment; filename="claims.csv"', "no-store")
    assert [after for _, after, _ in paged.asked] == [None, log[999].id, log[1999].id]


async def test_results_csv_and_get_results_are_whole_after_the_close_and_as_before() -> None:
    n = 2 * LEADERBOARD_PAGE + 5
    board = standings(n)
    final = [FinalStanding(place=s.rank, player_id=s.player_id, base=s.base, bonuses=s.bonuses, total=s.total,
                           prize="25.00" if s.rank <= 3 else "0.00") for s in board]
    one, paged = Services(board, [], final), Services(board, [], final, page=LEADERBOARD_PAGE)
    assert await public(paged).results() == await public(one).results()
    before = await body_of(await exports.export("results", None, desk(one)))   # type: ignore[arg-type]
    assert await body_of(await exports.export("results", None, desk(paged))) == before   # type: ignore[arg-type]
    assert len(before.decode().splitlines()) == 1 + n
    # before the close: the current standings, paged as the leaderboard
    open_one, open_paged = Services(board, []), Services(board, [], page=LEADERBOARD_PAGE)
    assert await body_of(await exports.export("results", None, desk(open_paged))) == await body_of(  # type: ignore[arg-type]
        await exports.export("results", None, desk(open_one)))   # type: ignore[arg-type]
