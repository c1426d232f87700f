"""Issue 28: the claims service has geo-verify judge R7 (board, border, accuracy, staleness) and screen R7.1 (the
trail), in one ``geo.verify`` request per batch of claims, not one per claim; when geo-verify does not answer, a
claim or check is answered ``unavailable`` and nothing is recorded. Over the in-memory fakes (claims_world)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from claims_world import World

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import ClaimAcceptedReply

HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km from Hoboken


async def test_ten_claims_arriving_together_are_verified_in_three_geo_requests_not_ten(w: World) -> None:
    w.geo.delay = 0.01   # geo-verify answers in 10 ms: claims that arrive meanwhile wait and form one batch
    cmds = [w.cmd(f"p{i}", "hoboken" if i % 2 else "newark") for i in range(10)]
    replies = await asyncio.gather(*(w.h.claims.submit(c) for c in cmds))
    # the first two run at once, alone (two batches may run at a time); the eight that came meanwhile share one
    assert sorted(w.geo.batches) == [1, 1, 8] and w.h.claims.group.batches == 1
    # each claim decided as if alone, in arrival order: one take of each territory, the rest locked (R10)
    accepted = [r for r in replies if isinstance(r, ClaimAcceptedReply)]
    assert sorted(r.territory_id for r in accepted) == ["hoboken", "newark"]
    assert {r.reason for r in replies if isinstance(r, Refusal)} == {"locked_today"}
    assert len(w.store.state.fixes) == 10   # every fix joined its player's trail (R7.1)


async def test_a_batch_carries_each_players_trail_so_a_jump_within_one_batch_is_flagged(w: World) -> None:
    w.geo.delay = 0.01
    first = w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0)
    then = w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0)
    # two claims elsewhere run first, alone; ann's two, arriving meanwhile, share the next batch
    await asyncio.gather(w.h.claims.submit(w.cmd("zed", "newark")), w.h.claims.submit(w.cmd("yan", "jersey")),
                         w.h.claims.submit(first), w.h.claims.submit(then))
    assert w.geo.batches == [1, 1, 2]
    # R7.1: the second fix was screened against a trail holding the first (same batch, same transaction)
    assert [e.kind for s, e in w.publisher.sent if s == subjects.FLAG_RAISED] == ["impossible_travel"]  # type: ignore[attr-defined]


async def test_r7_refusals_are_geo_verifys_with_the_seasons_sentences(w: World) -> None:
    on_border = w.cmd("ann", "hoboken")
    w.geo.place(on_border.fix.lat, on_border.fix.lon, "hoboken", border_distance_m=0.2)
    r = await w.h.claims.submit(on_border)
    assert isinstance(r, Refusal) and r.reason == "on_border", r
    r = await w.h.claims.submit(w.cmd("ann", "hoboken", fix_age_s=600))
    assert isinstance(r, Refusal) and r.reason == "stale_fix", r
    r = await w.h.claims.submit(w.cmd("ann", "hoboken", accuracy_m=500.0))
    assert isinstance(r, Refusal) and r.reason == "inaccurate_fix", r
    outside = w.cmd("ann", "hoboken")
    del w.geo.points[(outside.fix.lat, outside.fix.lon)]
    r = await w.h.claims.submit(outside)
    assert isinstance(r, Refusal) and r.reason == "outside_board", r
    # a territory geo-verify knows and this service does not is off its board too
    unknown = w.cmd("ann", "atlantis")
    r = await w.h.claims.submit(unknown)
    assert isinstance(r, Refusal) and r.reason == "outside_board", r


async def test_geo_verify_down_answers_unavailable_and_records_nothing(w: World) -> None:
    w.geo.down = True
    r = await w.h.claims.submit(w.cmd("ann", "hoboken"))
    assert r == Refusal(reason="unavailable", message="The location service is not answering; try again shortly.")
    c = await w.h.claims.check(w.cmd("ann", "hoboken"))
    assert isinstance(c, Refusal) and c.reason == "unavailable"
    assert w.store.state.claims == {} and w.store.state.fixes == [] and w.sent(subjects.CLAIM_REJECTED) == []
    w.geo.down = False   # and once it answers again, so does the claim
    w.clock.at += timedelta(seconds=1)
    assert isinstance(await w.h.claims.submit(w.cmd("ann", "hoboken")), ClaimAcceptedReply)


async def test_geo_verify_down_during_a_batch_answers_each_claim_unavailable_without_retrying_one_by_one(
        w: World) -> None:
    w.geo.delay = 0.01
    go_down = asyncio.get_running_loop().call_later(0.005, setattr, w.geo, "down", True)
    replies = await asyncio.gather(*(w.h.claims.submit(w.cmd(f"p{i}", "hoboken")) for i in range(6)))
    go_down.cancel()
    # the first two were asked before it went down; the batch of four after it: unavailable, no fallback
    assert [r.reason for r in replies[2:]] == ["unavailable"] * 4   # type: ignore[union-attr]
    assert w.h.claims.group.fallbacks == 0 and len(w.store.state.fixes) == 2


async def test_checks_arriving_together_share_a_geo_request_and_each_gets_its_own_answer(w: World) -> None:
    w.geo.delay = 0.01
    await w.h.claims.submit(w.cmd("ann", "hoboken"))
    w.geo.batches.clear()
    cmds = [w.cmd(f"p{i}", "hoboken" if i % 2 else "newark") for i in range(10)]
    replies = await asyncio.gather(*(w.h.claims.check(c) for c in cmds))
    assert sorted(w.geo.batches) == [1, 1, 8] and w.h.claims.checks.batches == 1
    # a check changes no game state: Newark is free for every checker, Hoboken is ann's and locked today (R10)
    assert [(r.territory.id, r.allowed, r.reason) for r in replies] == [   # type: ignore[union-attr]
        ("newark", True, None) if i % 2 == 0 else ("hoboken", False, "locked_today") for i in range(10)]
