"""The claims use cases without servers: the handlers wired by bootstrap over the in-memory store, clock and
publisher (claims_world.py). Each test names the ruling it checks."""

from __future__ import annotations

from claims_world import DAY1, DAY2, World

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import ClaimAcceptedReply, ClaimRejected, TerritoryChanged
from turf_common.contracts.effects import DoubleTroubleEffect, EffectApplied
from turf_common.contracts.players import PlayerDisqualified


async def test_r9_a_claim_on_an_unclaimed_territory_takes_it_and_publishes_accepted_then_changed(w: World) -> None:
    reply = await w.claim("ann", "hoboken")
    assert isinstance(reply, ClaimAcceptedReply)
    assert (reply.kind, reply.owner_id, reply.progress, reply.fortified) == ("take", "ann", 1, False)
    assert [s for s, _ in w.relay.sent] == [subjects.CLAIM_ACCEPTED, subjects.TERRITORY_CHANGED]
    changed = w.sent(subjects.TERRITORY_CHANGED)[0]
    assert isinstance(changed, TerritoryChanged)
    assert (changed.owner_id, changed.previous_owner_id, changed.version, changed.cause, changed.claim_id) == \
        ("ann", None, 1, "claim", reply.claim_id)
    assert w.store.state.territories["hoboken"].owner_id == "ann"


async def test_r10_a_territory_claimed_today_is_locked_for_everyone_else_until_tomorrow(w: World) -> None:
    await w.claim("ann", "hoboken")
    reply = await w.claim("bob", "hoboken")
    assert isinstance(reply, Refusal) and reply.reason == "locked_today"
    rejected = w.sent(subjects.CLAIM_REJECTED)
    assert len(rejected) == 1 and isinstance(rejected[0], ClaimRejected) and rejected[0].reason == "locked_today"
    assert w.store.state.territories["hoboken"].version == 1   # unchanged by the refusal


async def test_r9_r14_the_next_day_another_player_steals_it_and_the_version_grows_by_one(w: World) -> None:
    await w.claim("ann", "hoboken")
    await w.start(DAY2)
    reply = await w.claim("bob", "hoboken")
    assert isinstance(reply, ClaimAcceptedReply) and (reply.kind, reply.owner_id) == ("steal", "bob")
    changed = w.sent(subjects.TERRITORY_CHANGED)[-1]
    assert (changed.owner_id, changed.previous_owner_id, changed.version) == ("bob", "ann", 2)


async def test_an_idempotency_key_repeats_the_first_answer_without_a_second_claim(w: World) -> None:
    first = await w.claim("ann", "hoboken", key="k1")
    again = await w.claim("ann", "hoboken", key="k1")
    assert again == first and len(w.store.state.claims) == 1
    assert len(w.sent(subjects.CLAIM_ACCEPTED)) == 1


async def test_r17_a_repeated_card_effect_command_answers_its_first_reply_and_changes_nothing(w: World) -> None:
    cmd = DoubleTroubleEffect(command_id="saga-1", player_id="ann")
    first = await w.h.effects.double_trouble(cmd)
    assert isinstance(first, EffectApplied) and first.claims_left_today == 2
    await w.claim("ann", "hoboken")               # spends one of the two claims
    again = await w.h.effects.double_trouble(cmd)
    assert again == first                          # the stored reply, not today's figure (1)
    assert w.store.state.player_days[("ann", DAY1)] == (1, 0)
    other = await w.h.effects.double_trouble(DoubleTroubleEffect(command_id="saga-2", player_id="ann"))
    assert isinstance(other, Refusal)              # R17: once a day


async def test_r16_r28_a_disqualified_player_is_excluded_and_loses_every_territory_once(w: World) -> None:
    await w.claim("ann", "hoboken")
    ev = PlayerDisqualified(occurred_at=w.clock.at, player_id="ann", at=w.clock.at)
    await w.h.on_event(ev)
    await w.h.on_event(ev)                         # a redelivery
    assert w.store.state.excluded == {"ann"}
    assert w.store.state.territories["hoboken"].owner_id is None
    freed = [e for e in w.sent(subjects.TERRITORY_CHANGED) if e.cause == "disqualification"]
    assert [(e.territory_id, e.previous_owner_id, e.version) for e in freed] == [("hoboken", "ann", 2)]


async def test_r6_an_accepted_claim_answers_the_claims_left_today_after_it(w: World) -> None:
    """R6, R17: the answer carries the allowance after the claim, so a page need not ask GET /me again."""
    first = await w.claim("ann", "hoboken")
    assert isinstance(first, ClaimAcceptedReply) and first.claims_left_today == 0
    await w.h.effects.double_trouble(DoubleTroubleEffect(command_id="saga-1", player_id="bob"))
    second = await w.claim("bob", "newark")        # one of Double Trouble's two
    assert isinstance(second, ClaimAcceptedReply) and second.claims_left_today == 1
    third = await w.claim("bob", "jersey")
    assert isinstance(third, ClaimAcceptedReply) and third.claims_left_today == 0
    assert (await w.h.claims.player("bob")).claims_left_today == 0   # the same figure GET /me shows


EVIDENCE = {"from": {"lat": 40.74, "lon": -74.03, "accuracy_m": 8.0, "fix_time": "2026-10-05T10:00:00-04:00"},
            "to": {"lat": 34.05, "lon": -118.24, "accuracy_m": 9.0, "fix_time": "2026-10-05T10:05:00-04:00"},
            "speed_kmh": 47000.0, "trail": [{"from": {"lat": 40.74, "lon": -74.03}, "kmh": 47000.0}]}
ERASED = {"from": {"accuracy_m": 8.0, "fix_time": "2026-10-05T10:00:00-04:00"},
          "to": {"accuracy_m": 9.0, "fix_time": "2026-10-05T10:05:00-04:00"},
          "speed_kmh": 47000.0, "trail": [{"from": {}, "kmh": 47000.0}]}


async def _flag(w: World, fid: str, player_id: str) -> None:
    async with w.store.begin("2026") as tx:
        await tx.trail.add_flag(fid, w.clock.at, player_id, "claim-1", "impossible_travel", EVIDENCE)


async def test_r30_a_withdrawal_erases_the_coordinates_on_the_players_flags_and_keeps_the_flags(w: World) -> None:
    await _flag(w, "f-ann", "ann")
    await _flag(w, "f-bob", "bob")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="ann", at=w.clock.at, withdrawn=True))
    flags = {f.id: f for f in w.store.state.flags}
    assert (flags["f-ann"].claim_id, flags["f-ann"].kind, flags["f-ann"].evidence) == (
        "claim-1", "impossible_travel", ERASED)
    assert flags["f-bob"].evidence == EVIDENCE   # another player's evidence is kept


async def test_r28_a_disqualification_keeps_the_flags_evidence(w: World) -> None:
    await _flag(w, "f-ann", "ann")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="ann", at=w.clock.at))
    assert [f.evidence for f in w.store.state.flags] == [EVIDENCE]   # R28 alone erases nothing personal


async def test_r30_the_retention_job_erases_the_coordinates_on_every_flag(w: World) -> None:
    await _flag(w, "f-ann", "ann")
    await _flag(w, "f-bob", "bob")
    await w.h.corrections.erase_trails()
    assert [(f.id, f.evidence) for f in w.store.state.flags] == [("f-ann", ERASED), ("f-bob", ERASED)]


async def test_r30_a_withdrawal_erases_the_position_of_each_of_the_players_claims_and_keeps_the_claims(
        w: World) -> None:
    await w.claim("ann", "hoboken")
    await w.claim("bob", "newark")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="ann", at=w.clock.at, withdrawn=True))
    places = {c.player_id: (c.territory_id, c.lat, c.lon, c.accuracy_m) for c in w.store.state.claims.values()}
    assert places["ann"] == ("hoboken", None, None, None)   # the claim log keeps the move, not where it was made
    assert places["bob"][0] == "newark" and None not in places["bob"]   # another player's claim is kept whole


async def test_r28_a_disqualification_keeps_the_position_of_the_players_claims(w: World) -> None:
    await w.claim("ann", "hoboken")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="ann", at=w.clock.at))
    [kept] = w.store.state.claims.values()
    assert None not in (kept.lat, kept.lon, kept.accuracy_m)   # R28 alone erases nothing personal


async def test_r30_the_retention_job_erases_the_position_of_every_claim(w: World) -> None:
    await w.claim("ann", "hoboken")
    await w.claim("bob", "newark")
    assert await w.h.corrections.erase_trails() == 2   # both positions (the memory store keeps no fixes)
    assert await w.h.corrections.erase_trails() == 0   # nothing left: the organizer's log records no second one
    assert sorted((c.territory_id, c.lat, c.lon, c.accuracy_m) for c in w.store.state.claims.values()) == [
        ("hoboken", None, None, None), ("newark", None, None, None)]
