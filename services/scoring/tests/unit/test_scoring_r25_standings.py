"""R25/R28 (amended) in scoring's use cases, on the in-memory store: the standings, live and final, list every
verified player who is not disqualified (those who own nothing at 0), a total of 0 wins no prize, and a correction
after the close (a disqualification included) recomputes and republishes the final results.

The board: conftest.py's ``two_and_one`` (a - b adjacent, R22; c alone)."""

from __future__ import annotations

from typing import Any

from scoring_world import Game

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import AdjustScore


def zero(pid: str) -> dict[str, Any]:
    return {"schema_version": 1, "player_id": pid, "base": 0, "outposts": 0, "bonuses": 0, "total": 0,
            "territories": 0}


async def test_r25_a_verified_player_who_owns_nothing_is_in_the_live_standings_at_zero(two_and_one: Game) -> None:
    g = two_and_one
    ev = await g.verify("zoe")
    lb = await g.h.leaderboard()
    assert [(s.rank, s.player_id, s.base, s.total) for s in lb.standings] == [(1, "zoe", 0, 0)]
    # the live feed learns of her too: a delta with her standing at 0 (message id from the event)
    upd, msg_id = g.bus.of(subjects.SCORE_UPDATED)[-1]
    assert upd["changes"] == [zero("zoe")] and upd["removed"] == [] and msg_id == "score:" + ev.event_id
    await g.own("a", "ann")
    lb = await g.h.leaderboard()
    assert [(s.rank, s.player_id, s.total) for s in lb.standings] == [(1, "ann", 10), (2, "zoe", 0)]


async def test_r25_a_repeated_verification_changes_nothing_and_keeps_what_the_player_owns(two_and_one: Game) -> None:
    g = two_and_one
    await g.verify("ann")
    await g.own("a", "ann")
    before = dict(g.store.score)
    await g.verify("ann")   # a redelivery, or verified again after a rejection
    assert g.store.score == before and before["ann"]["base"] == 1
    assert [(s.player_id, s.total) for s in (await g.h.leaderboard()).standings] == [("ann", 10)]


async def test_r25_r28_a_disqualified_player_is_not_brought_back_by_a_late_verification(two_and_one: Game) -> None:
    g = two_and_one
    await g.verify("ann")
    await g.h.on_event(PlayerDisqualified(occurred_at=g.at, player_id="ann", at=g.at))
    await g.verify("ann")
    assert (await g.h.leaderboard()).standings == []


async def test_r25_final_results_place_verified_players_at_zero_who_win_no_prize(two_and_one: Game) -> None:
    g = two_and_one
    for pid in ("ann", "ben", "zoe"):
        await g.verify(pid)
    await g.own("a", "ann")   # 1 + 3 (seas) + 3 (hippo) + 3 (butterfly) = 10
    await g.own("c", "ben")   # ben: more land and residents: ann 1 + 3 = 4, ben 1 + 6 = 7
    await g.close()
    # zoe is third, a paid place (R26: $25), but a total of 0 wins no prize (R25 amended)
    assert await g.final() == [(1, "ben", 7, "50.00"), (2, "ann", 4, "25.00"), (3, "zoe", 0, "0.00")]


async def test_r25_r28_a_disqualification_after_the_close_recomputes_and_republishes_the_final_results(
        two_and_one: Game) -> None:
    g = two_and_one
    for pid in ("ann", "ben", "cat"):
        await g.verify(pid)
    await g.own("a", "ann")
    await g.own("c", "ben")
    await g.own("b", "cat")   # cat: 1 + 0; ann 1 + 3 (seas) = 4; ben 1 + 6 = 7
    await g.close()
    assert await g.final() == [(1, "ben", 7, "50.00"), (2, "ann", 4, "25.00"), (3, "cat", 1, "25.00")]
    published = len(g.bus.of(subjects.SEASON_FINAL_RESULTS))

    dq = PlayerDisqualified(occurred_at=g.at, player_id="ben", at=g.at)
    await g.h.on_event(dq)
    # the winner is gone and the prizes moved up, without waiting for claims to free ben's territory (R28, R25)
    want = [(1, "ann", 4, "50.00"), (2, "cat", 1, "25.00")]
    assert await g.final() == want
    out = g.bus.of(subjects.SEASON_FINAL_RESULTS)
    assert len(out) == published + 1
    final, msg_id = out[-1]
    assert msg_id == "final:" + dq.event_id
    assert [(s["place"], s["player_id"], s["total"], s["prize"]) for s in final["results"]["standings"]] == want

    # claims then frees ben's territory: the side quests move (cat now has the most land and residents) and the
    # results are recomputed and published again
    await g.own("c", None)
    assert await g.final() == [(1, "cat", 7, "50.00"), (2, "ann", 4, "25.00")]
    assert len(g.bus.of(subjects.SEASON_FINAL_RESULTS)) == published + 2


async def test_r25_r28_a_player_verified_after_the_close_joins_the_final_results_at_zero(two_and_one: Game) -> None:
    g = two_and_one
    await g.verify("ann")
    await g.own("a", "ann")
    await g.close()
    assert await g.final() == [(1, "ann", 10, "50.00")]
    ev = await g.verify("zoe")
    assert await g.final() == [(1, "ann", 10, "50.00"), (2, "zoe", 0, "0.00")]
    assert g.bus.of(subjects.SEASON_FINAL_RESULTS)[-1][1] == "final:" + ev.event_id


async def test_r25_r28_an_adjustment_to_zero_after_the_close_takes_the_prize_away(two_and_one: Game) -> None:
    g = two_and_one
    for pid in ("ann", "ben"):
        await g.verify(pid)
    await g.own("a", "ann")   # ann 1 + 3 (seas) = 4
    await g.own("b", "ben")   # ben 1 + 6 (more land and residents) = 7
    await g.close()
    assert await g.final() == [(1, "ben", 7, "50.00"), (2, "ann", 4, "25.00")]
    await g.h.adjust(AdjustScore(command_id="late", player_id="ben", points=-7))
    assert await g.final() == [(1, "ann", 4, "50.00"), (2, "ben", 0, "0.00")]


async def test_r25_results_are_refused_before_the_close_whatever_the_verifications(two_and_one: Game) -> None:
    g = two_and_one
    await g.verify("ann")
    assert await g.h.results() == Refusal(reason="season_not_closed",
                                          message="The season has not closed yet; no final results.")
    assert g.bus.of(subjects.SEASON_FINAL_RESULTS) == []
