"""R7.1 (amended) in the claims use cases, over the in-memory store: every fix the server sees, checks included, joins
the player's trail timed by the game clock; flags go to the organizer and never change an answer."""

from __future__ import annotations

from datetime import timedelta

from claims_world import DAY2, SEASON, World

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import (
    CheckReply,
    ClaimAcceptedReply,
    FlagRaised,
    FlagsReply,
    FlagsRequest,
    Home,
)

HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km from Hoboken
POUGHKEEPSIE = (41.7004, -73.9210)   # ~107 km north of Hoboken


def flags(w: World) -> list[FlagRaised]:
    return [e for s, e in w.relay.sent if s == subjects.FLAG_RAISED]  # type: ignore[misc]


async def test_r7_1_a_check_joins_the_trail_so_a_claim_far_from_it_a_minute_later_is_flagged_not_refused(
        w: World) -> None:
    check = await w.check_cmd(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    assert isinstance(check, CheckReply) and check.allowed
    assert [(f.lat, f.received_at) for _, f in w.fixes()] == [(HOBOKEN[0], w.clock.at)]
    w.clock.at += timedelta(minutes=1)
    reply = await w.submit(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(reply, ClaimAcceptedReply) and reply.owner_id == "ann"   # R7.1: a flag never refuses
    (flag,) = flags(w)
    assert (flag.kind, flag.player_id, flag.claim_id) == ("impossible_travel", "ann", reply.claim_id)
    ev = flag.evidence
    assert ev["from"]["lat"] == HOBOKEN[0] and ev["to"]["lat"] == NEWARK[0] and ev["seconds"] == 60
    assert ev["speed_kmh"] > 600 and ev["max_travel_kmh"] == SEASON.limits.max_travel_kmh
    assert [leg["minutes"] for leg in ev["trail"]] == [1.0]
    assert [f.kind for f in (await w.h.claims.flags(FlagsRequest())).flags] == ["impossible_travel"]


async def test_r7_1_a_check_that_jumps_is_flagged_with_no_claim_and_still_answers_the_rule(w: World) -> None:
    await w.submit(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    w.clock.at += timedelta(seconds=30)
    check = await w.check_cmd(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(check, CheckReply) and check.allowed is False and check.reason == "no_claims_left"
    (flag,) = flags(w)
    assert (flag.kind, flag.claim_id) == ("impossible_travel", None)
    assert len(w.fixes()) == 2


async def test_r7_1_an_honest_player_retrying_a_claim_with_the_same_fix_is_not_flagged(w: World) -> None:
    # the code before the amendment flagged the retry repeated_fix
    first = w.cmd("ann", "hoboken", where=HOBOKEN, key="k1", accuracy_m=8.0)
    await w.check_cmd(first)
    assert isinstance(await w.submit(first), ClaimAcceptedReply)
    w.clock.at += timedelta(seconds=20)
    again = await w.submit(first.model_copy(update={"idempotency_key": "k2"}))
    assert isinstance(again, Refusal) and again.reason == "no_claims_left"
    assert flags(w) == [] and (await w.h.claims.flags(FlagsRequest())).flags == []


async def test_r7_1_the_same_fix_from_a_player_who_went_far_away_meanwhile_is_a_replay(w: World) -> None:
    hob = w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0)
    await w.check_cmd(hob)
    w.clock.at += timedelta(minutes=40)   # a drive to Newark (~18 km/h) and back: no impossible travel
    await w.check_cmd(w.cmd("ann", "newark", where=NEWARK, accuracy_m=8.0))
    w.clock.at += timedelta(minutes=40)
    await w.check_cmd(hob)
    assert [f.kind for f in flags(w)] == ["repeated_fix"]
    assert flags(w)[0].evidence["away"]["lat"] == NEWARK[0]


async def test_r7_1_trails_are_per_player(w: World) -> None:
    await w.check_cmd(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    await w.check_cmd(w.cmd("bob", "newark", where=NEWARK, accuracy_m=8.0))
    assert flags(w) == []


async def test_the_flags_cross_the_bus_a_page_at_a_time(w: World) -> None:
    """A flag flood grew the one ``claims.flags`` reply past NATS's 1 MiB limit; now a page is at most 200 flags
    and ``next`` leads through them all, in order, each once."""
    async with w.store.begin("2026") as tx:
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


async def test_a_page_cursor_the_service_did_not_make_is_invalid_input(w: World) -> None:
    for bad in ("yesterday|f1", "2026-10-05T12:00:00|f1", "2026-10-05T12:00:00-04:00", "no-bar"):
        reply = await w.h.claims.flags(FlagsRequest(after=bad))
        assert isinstance(reply, Refusal) and reply.reason == "invalid_input", bad


async def test_r7_1_a_pending_or_disqualified_players_checks_join_no_trail(w: World) -> None:
    """Twelve pending accounts making far-apart checks flooded the flag triage: only a verified player's fixes
    join a trail (R7.1 screens the players of the game); the answer is the rule's as before (R8: not_eligible)."""
    for status in ("pending", "disqualified", "rejected"):
        for where in (HOBOKEN, NEWARK, HOBOKEN):
            cmd = w.cmd("eve", "hoboken", where=where, accuracy_m=8.0).model_copy(update={"player_status": status})
            check = await w.check_cmd(cmd)
            assert isinstance(check, CheckReply) and check.reason == "not_eligible"
            w.clock.at += timedelta(seconds=30)
    assert w.fixes() == [] and flags(w) == []


async def test_r7_1_a_flood_of_checks_between_two_towns_is_one_flag_with_a_count(w: World) -> None:
    """25 checks back and forth between Hoboken and Newark, 10 s apart, raised 47 flags of ~1 kB each (24 jumps, 23
    replays): now one flag per kind and leg (Hoboken → Newark and back), counted, first and last seen; flag.raised
    is published once per flag."""
    for i in range(25):
        await w.check_cmd(w.cmd("ann", "hoboken", where=(HOBOKEN, NEWARK)[i % 2], accuracy_m=8.0))
        w.clock.at += timedelta(seconds=10)
    page = await w.h.claims.flags(FlagsRequest())
    assert isinstance(page, FlagsReply)
    got = sorted((f.kind, f.evidence.get("from", f.evidence)["lat"], f.count, f.last_at - f.at)
                 for f in page.flags if f.last_at is not None)
    assert got == [("impossible_travel", NEWARK[0], 12, timedelta(seconds=220)),
                   ("impossible_travel", HOBOKEN[0], 12, timedelta(seconds=220)),
                   ("repeated_fix", NEWARK[0], 11, timedelta(seconds=200)),
                   ("repeated_fix", HOBOKEN[0], 12, timedelta(seconds=220))]
    assert len(page.flags) == 4 and len(flags(w)) == 4


async def test_r7_1_a_repeat_after_an_hour_or_on_a_claim_is_a_flag_of_its_own(w: World) -> None:
    for where in (HOBOKEN, NEWARK):
        await w.check_cmd(w.cmd("ann", "hoboken", where=where, accuracy_m=8.0))
        w.clock.at += timedelta(seconds=10)
    w.clock.at += timedelta(hours=1, minutes=1)                    # a quiet spell: MERGE_WINDOW
    for where in (HOBOKEN, NEWARK, HOBOKEN):
        await w.check_cmd(w.cmd("ann", "hoboken", where=where, accuracy_m=9.0))
        w.clock.at += timedelta(seconds=10)
    # Hoboken → Newark again at once, on a claim: its own flag, the one the organizer may reverse (R28)
    reply = await w.submit(w.cmd("ann", "newark", where=NEWARK, accuracy_m=7.0))
    assert isinstance(reply, ClaimAcceptedReply)                   # a flag never refuses (R7.1)
    page = await w.h.claims.flags(FlagsRequest())
    assert isinstance(page, FlagsReply)
    jumps = [(f.evidence["from"]["lat"], f.claim_id, f.count) for f in page.flags if f.kind == "impossible_travel"]
    assert jumps == [(HOBOKEN[0], None, 1), (HOBOKEN[0], None, 1), (NEWARK[0], None, 1),
                     (HOBOKEN[0], reply.claim_id, 1)]


async def test_r7_1_a_flood_that_goes_on_makes_one_flag_an_hour(w: World) -> None:
    """A flag takes the repeats of the hour after it was first raised, then a new one is raised: a flood the organizer
    cleared comes back to the queue within the hour."""
    for i in range(26):                                            # 2 h 10 min, a jump every 5 minutes
        await w.check_cmd(w.cmd("ann", "hoboken", where=(HOBOKEN, NEWARK)[i % 2], accuracy_m=8.0 + i / 10))
        w.clock.at += timedelta(seconds=10) if i % 2 == 0 else timedelta(minutes=9, seconds=50)
    page = await w.h.claims.flags(FlagsRequest())
    assert isinstance(page, FlagsReply)
    jumps = [(f.at - page.flags[0].at, f.count) for f in page.flags if f.kind == "impossible_travel"]
    assert jumps == [(timedelta(0), 7), (timedelta(hours=1, minutes=10), 6)]


async def test_r7_1_the_days_first_fix_far_from_yesterday_and_home_is_flagged(w: World) -> None:
    """A patient spoofer: one check a day, far from where the player was last seen and from home. R7.1's speed
    cannot see it (the trail reaches back 2.5 h); the first fix of the day is evidence, the answer the rule's."""
    home = Home(lat=HOBOKEN[0], lon=HOBOKEN[1])
    cmd = w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0).model_copy(update={"home": home})
    await w.check_cmd(cmd)
    assert flags(w) == []                                          # at home
    await w.start(DAY2)
    far = w.cmd("ann", "newark", where=POUGHKEEPSIE, accuracy_m=10.0).model_copy(update={"home": home})
    reply = await w.submit(far)
    assert isinstance(reply, ClaimAcceptedReply)                   # never a refusal (R7.1)
    (flag,) = flags(w)
    assert (flag.kind, flag.claim_id) == ("day_start_jump", reply.claim_id)
    assert flag.evidence["last"]["lat"] == HOBOKEN[0] and flag.evidence["home"] == {"lat": HOBOKEN[0],
                                                                                     "lon": HOBOKEN[1]}
    assert flag.evidence["last_km"] > 100 and flag.evidence["home_km"] > 100
    w.clock.at += timedelta(hours=3)                               # the day's second fix: R7.1's trail's business
    await w.check_cmd(far.model_copy(update={"fix": far.fix.model_copy(update={
        "fix_time": w.clock.at - timedelta(seconds=3)})}))
    assert len(flags(w)) == 1
