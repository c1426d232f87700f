"""R7.1 (amended) in the claims use cases, over the in-memory store: every fix the server sees, checks included, joins
the player's trail timed by the game clock; flags go to the organizer and never change an answer."""

from __future__ import annotations

from datetime import timedelta

from claims_world import SEASON, World

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, FlagRaised, FlagsReply, FlagsRequest

HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km from Hoboken


def flags(w: World) -> list[FlagRaised]:
    return [e for s, e in w.publisher.sent if s == subjects.FLAG_RAISED]  # type: ignore[misc]


async def test_r7_1_a_check_joins_the_trail_so_a_claim_far_from_it_a_minute_later_is_flagged_not_refused(
        w: World) -> None:
    check = await w.h.claims.check(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    assert isinstance(check, CheckReply) and check.allowed
    assert [(f.lat, f.received_at) for _, f in w.store.state.fixes] == [(HOBOKEN[0], w.clock.at)]
    w.clock.at += timedelta(minutes=1)
    reply = await w.h.claims.submit(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(reply, ClaimAcceptedReply) and reply.owner_id == "ann"   # R7.1: a flag never refuses
    (flag,) = flags(w)
    assert (flag.kind, flag.player_id, flag.claim_id) == ("impossible_travel", "ann", reply.claim_id)
    ev = flag.evidence
    assert ev["from"]["lat"] == HOBOKEN[0] and ev["to"]["lat"] == NEWARK[0] and ev["seconds"] == 60
    assert ev["speed_kmh"] > 600 and ev["max_travel_kmh"] == SEASON.limits.max_travel_kmh
    assert [leg["minutes"] for leg in ev["trail"]] == [1.0]
    assert [f.kind for f in (await w.h.claims.flags(FlagsRequest())).flags] == ["impossible_travel"]


async def test_r7_1_a_check_that_jumps_is_flagged_with_no_claim_and_still_answers_the_rule(w: World) -> None:
    await w.h.claims.submit(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    w.clock.at += timedelta(seconds=30)
    check = await w.h.claims.check(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(check, CheckReply) and check.allowed is False and check.reason == "no_claims_left"
    (flag,) = flags(w)
    assert (flag.kind, flag.claim_id) == ("impossible_travel", None)
    assert len(w.store.state.fixes) == 2


async def test_r7_1_an_honest_player_retrying_a_claim_with_the_same_fix_is_not_flagged(w: World) -> None:
    # the code before the amendment flagged the retry repeated_fix
    first = w.cmd("ann", "hoboken", where=HOBOKEN, key="k1", accuracy_m=8.0)
    await w.h.claims.check(first)
    assert isinstance(await w.h.claims.submit(first), ClaimAcceptedReply)
    w.clock.at += timedelta(seconds=20)
    again = await w.h.claims.submit(first.model_copy(update={"idempotency_key": "k2"}))
    assert isinstance(again, Refusal) and again.reason == "no_claims_left"
    assert flags(w) == [] and (await w.h.claims.flags(FlagsRequest())).flags == []


async def test_r7_1_the_same_fix_from_a_player_who_went_far_away_meanwhile_is_a_replay(w: World) -> None:
    hob = w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0)
    await w.h.claims.check(hob)
    w.clock.at += timedelta(minutes=40)   # a drive to Newark (~18 km/h) and back: no impossible travel
    await w.h.claims.check(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    w.clock.at += timedelta(minutes=40)
    await w.h.claims.check(hob)
    assert [f.kind for f in flags(w)] == ["repeated_fix"]
    assert flags(w)[0].evidence["away"]["lat"] == NEWARK[0]


async def test_r7_1_trails_are_per_player(w: World) -> None:
    await w.h.claims.check(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    await w.h.claims.check(w.cmd("bob", "newark", where=NEWARK, accuracy_m=8.0))
    assert flags(w) == []


async def test_issue29_the_flags_cross_the_bus_a_page_at_a_time(w: World) -> None:
    """A flag flood grew the one ``claims.flags`` reply past NATS's 1 MiB limit; now a page is at most 200 flags
    and ``next`` leads through them all, in order, each once."""
    async with w.store.begin() as tx:
        for i in range(450):
            await tx.trail.add_flag(f"f{i:04d}", w.clock.at + timedelta(seconds=i // 2), "ann", None,
                                    "impossible_travel", {"i": i})
    seen, after, pages = [], None, 0
    while True:
        page = await w.h.claims.flags(FlagsRequest(after=after))
        assert isinstance(page, FlagsReply) and len(page.flags) <= 200
        seen += [f.id for f in page.flags]
        pages += 1
        if page.next is None:
            break
        after = page.next
    assert pages == 3 and seen == [f"f{i:04d}" for i in range(450)]
    assert len((await w.h.claims.flags(FlagsRequest(limit=7))).flags) == 7   # type: ignore[union-attr]


async def test_issue29_a_page_cursor_the_service_did_not_make_is_invalid_input(w: World) -> None:
    for bad in ("yesterday|f1", "2026-10-05T12:00:00|f1", "2026-10-05T12:00:00-04:00", "no-bar"):
        reply = await w.h.claims.flags(FlagsRequest(after=bad))
        assert isinstance(reply, Refusal) and reply.reason == "invalid_input", bad


async def test_issue29_r7_1_a_pending_or_disqualified_players_checks_join_no_trail(w: World) -> None:
    """Twelve pending accounts making far-apart checks flooded the flag triage: only a verified player's fixes
    join a trail (R7.1 screens the players of the game); the answer is the rule's as before (R8: not_eligible)."""
    for status in ("pending", "disqualified", "rejected"):
        for where in (HOBOKEN, NEWARK, HOBOKEN):
            cmd = w.cmd("eve", "hoboken", where=where, accuracy_m=8.0).model_copy(update={"player_status": status})
            check = await w.h.claims.check(cmd)
            assert isinstance(check, CheckReply) and check.reason == "not_eligible"
            w.clock.at += timedelta(seconds=30)
    assert w.store.state.fixes == [] and flags(w) == []
