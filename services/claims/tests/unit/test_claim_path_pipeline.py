"""The claim path is a pipeline (docs/architecture/claim-path.md): geo-verify judges R7 and R7.1 first, against the
trail it keeps, and hands each verified claim on to the claims service, which decides R3, R8-R10 under its locks
with no network round trip in its transaction. When the trail's store or the claims service does not answer, a
claim or check is answered ``unavailable`` and nothing is decided. Over the in-memory fakes of both stages
(claims_world)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from claims_world import World

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply

HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km from Hoboken
UNAVAILABLE = Refusal(reason="unavailable", message="The location service is not answering; try again shortly.")


async def test_r10_ten_claims_arriving_together_are_each_decided_as_if_alone_and_every_fix_joins_a_trail(
        w: World) -> None:
    cmds = [w.cmd(f"p{i}", "hoboken" if i % 2 else "newark") for i in range(10)]
    replies = await asyncio.gather(*(w.submit(c) for c in cmds))
    # one take of each territory, the rest locked (R10)
    accepted = [r for r in replies if isinstance(r, ClaimAcceptedReply)]
    assert sorted(r.territory_id for r in accepted) == ["hoboken", "newark"]
    assert {r.reason for r in replies if isinstance(r, Refusal)} == {"locked_today"}
    assert len(w.fixes()) == 10   # every fix joined its player's trail, kept by geo-verify (R7.1)
    assert [s for s, _ in w.handed_on.asked] == [subjects.CLAIMS_VERIFIED_SUBMIT] * 10


async def test_r7_1_a_players_two_claims_arriving_together_each_see_the_other_so_the_jump_is_flagged(
        w: World) -> None:
    first = w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0)
    then = w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0)
    await asyncio.gather(w.submit(w.cmd("zed", "newark")), w.submit(w.cmd("yan", "jersey")),
                         w.submit(first), w.submit(then))
    # R7.1: the second fix was screened against a trail holding the first
    assert [e.kind for e in w.sent(subjects.FLAG_RAISED)] == ["impossible_travel"]  # type: ignore[attr-defined]


async def test_r7_refusals_are_geo_verifys_with_the_seasons_sentences(w: World) -> None:
    on_border = w.cmd("ann", "hoboken")
    w.geo.place(on_border.fix.lat, on_border.fix.lon, "hoboken", border_distance_m=0.2)
    r = await w.submit(on_border)
    assert isinstance(r, Refusal) and r.reason == "on_border", r
    r = await w.submit(w.cmd("ann", "hoboken", fix_age_s=600))
    assert isinstance(r, Refusal) and r.reason == "stale_fix", r
    r = await w.submit(w.cmd("ann", "hoboken", accuracy_m=500.0))
    assert isinstance(r, Refusal) and r.reason == "inaccurate_fix", r
    outside = w.cmd("ann", "hoboken")
    del w.geo.points[(outside.fix.lat, outside.fix.lon)]
    r = await w.submit(outside)
    assert isinstance(r, Refusal) and r.reason == "outside_board", r
    # a territory geo-verify knows and this service does not is off its board too
    unknown = w.cmd("ann", "atlantis")
    r = await w.submit(unknown)
    assert isinstance(r, Refusal) and r.reason == "outside_board", r


async def test_the_trails_store_down_answers_unavailable_and_nothing_is_decided(w: World) -> None:
    w.trails.down = True
    assert await w.submit(w.cmd("ann", "hoboken")) == UNAVAILABLE
    assert await w.check_cmd(w.cmd("ann", "hoboken")) == UNAVAILABLE
    assert w.handed_on.asked == [] and w.store.state.claims == {} and w.sent(subjects.CLAIM_REJECTED) == []
    w.trails.down = False   # and once it answers again, so does the claim
    w.clock.at += timedelta(seconds=1)
    assert isinstance(await w.submit(w.cmd("ann", "hoboken")), ClaimAcceptedReply)


async def test_the_claims_service_not_answering_is_unavailable_from_geo_verify(w: World) -> None:
    w.handed_on.down = True
    assert await w.submit(w.cmd("ann", "hoboken")) == UNAVAILABLE
    assert w.store.state.claims == {} and w.sent(subjects.CLAIM_REJECTED) == []
    assert len(w.fixes()) == 1   # the fix was seen: it stays in the trail, evidence for the next (R7.1)


async def test_checks_arriving_together_each_get_their_own_answer_and_change_no_game_state(w: World) -> None:
    await w.submit(w.cmd("ann", "hoboken"))
    cmds = [w.cmd(f"p{i}", "hoboken" if i % 2 else "newark") for i in range(10)]
    replies = await asyncio.gather(*(w.check_cmd(c) for c in cmds))
    # Newark is free for every checker, Hoboken is ann's and locked today (R10)
    assert all(isinstance(r, CheckReply) for r in replies)
    assert [(r.territory.id, r.allowed, r.reason) for r in replies] == [   # type: ignore[union-attr]
        ("newark", True, None) if i % 2 == 0 else ("hoboken", False, "locked_today") for i in range(10)]
    assert [s for s, _ in w.handed_on.asked[1:]] == [subjects.CLAIMS_VERIFIED_CHECK] * 10
