"""Card plays as sagas on fakes (R13, R15, R16): reserve → ask claims → consume or release, and recovery."""

from __future__ import annotations

from datetime import date

from cards_world import CLOSED, FakeClaims, World, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.cards import CancelReply, CancelSchedule, CardConsumed, CardPlayed, PlayCard, PlayReply
from turf_common.contracts.effects import EffectApplied, ProtectionResolved


def play(pid: str, kind: str, **args: str) -> PlayCard:
    return PlayCard(player_id=pid, player_status="verified", type=kind, **args)  # type: ignore[arg-type]


async def test_r13_a_refused_effect_releases_the_card_and_publishes_no_play() -> None:
    refusal = Refusal(reason="no_eligible_territory", message="No territory is eligible for this Joker; …")
    w = world(claims=FakeClaims(answer=lambda subject, cmd: refusal))
    (joker,) = await w.give("p1", "joker")
    assert await w.h.plays.play(play("p1", "joker", mode="random")) == refusal
    assert (await w.states("p1"))[joker] == "ready"
    assert w.published("card.played") == []
    (saga,) = [s for s, _, _ in w.store.state.sagas.values()]
    assert (saga.state, saga.card_ids) == ("refused", [joker])


async def test_r13_a_confirmed_effect_consumes_the_card_with_its_effect_in_the_reply_and_the_event() -> None:
    w = world(claims=FakeClaims(answer=lambda subject, cmd: EffectApplied(
        command_id=cmd["command_id"], kind="double_trouble", claims_left_today=2)))
    (card,) = await w.give("p1", "double_trouble")
    reply = await w.h.plays.play(play("p1", "double_trouble"))
    assert reply == PlayReply(card_id=card, type="double_trouble", state="consumed",
                              effect={"claims_left_today": 2})
    assert (await w.states("p1"))[card] == "consumed"
    ((_, ev),) = w.published("card.played")
    assert isinstance(ev, CardPlayed) and (ev.card_id, ev.state, ev.effect) == (card, "consumed",
                                                                               {"claims_left_today": 2})
    assert w.claims.sent[0][0] == "claims.effect.double_trouble"


async def test_r13_a_saga_repeated_after_a_crash_applies_its_effect_once() -> None:
    """Claims applied the effect but the answer never came back (the service died, or the request timed out):
    the card stays reserved by a pending saga; recovery asks again with the same command id, claims answers its
    first answer, and the card is consumed once. A second recovery finds nothing to do."""
    answers: list[EffectApplied | None] = [None]
    w = world(claims=FakeClaims(answer=lambda subject, cmd: answers.pop(0) if answers else EffectApplied(
        command_id=cmd["command_id"], kind="joker", territory_id="T001")))
    (joker,) = await w.give("p1", "joker")
    out = await w.h.plays.play(play("p1", "joker", mode="random"))
    assert isinstance(out, Refusal) and out.reason == "unavailable"
    assert (await w.states("p1"))[joker] == "reserved"
    (saga_id,) = w.store.state.sagas
    saga = w.store.state.sagas[saga_id][0]
    await w.claims.apply(saga.subject, saga.command)   # claims applied it meanwhile; the answer was lost
    assert await w.h.sagas.recover() == 1
    assert await w.h.sagas.recover() == 0
    assert (await w.states("p1"))[joker] == "consumed"
    assert w.claims.applied == [saga_id]
    assert [e.card_id for _, e in w.published("card.played")] == [joker]   # type: ignore[attr-defined]
    # the player's retry of the same saga replays the stored reply
    assert await w.h.sagas.drive(saga_id) == PlayReply(card_id=joker, type="joker", state="consumed",
                                                       effect={"territory_id": "T001"})


async def test_r13_an_unavailable_claims_service_leaves_the_saga_pending_and_the_card_reserved() -> None:
    w = world(claims=FakeClaims(answer=lambda subject, cmd: Refusal(reason="unavailable", message="busy")))
    (card,) = await w.give("p1", "war")
    assert await w.h.plays.play(play("p1", "war", territory_id="T001")) == Refusal(reason="unavailable",
                                                                                   message="busy")
    assert (await w.states("p1"))[card] == "reserved"
    assert [s.state for s, _, _ in w.store.state.sagas.values()] == ["pending"]


async def test_r3_r13_r18_plays_refused_before_any_card_is_reserved(w: World) -> None:
    await w.give("p1", "joker")
    assert (await w.h.plays.play(PlayCard(player_id="p1", player_status="pending", type="joker"))).reason == \
        "not_eligible"  # type: ignore[union-attr]
    assert (await w.h.plays.play(play("p1", "mulligan", claim_id="c1"))).reason == \
        "card_not_in_hand"  # type: ignore[union-attr]
    assert (await w.h.plays.play(play("p1", "trade"))).reason == "invalid_input"  # type: ignore[union-attr]
    w.clock.at = CLOSED
    assert (await w.h.plays.play(play("p1", "joker"))).reason == "game_closed"  # type: ignore[union-attr]
    assert w.claims.sent == [] and w.store.state.sagas == {}


async def test_r15_a_freeze_stays_reserved_until_it_activates_and_is_consumed_once() -> None:
    day = date(2026, 10, 6)
    w = world(claims=FakeClaims(answer=lambda subject, cmd: EffectApplied(
        command_id=cmd["command_id"], kind="freeze", active_on=day)))
    (card,) = await w.give("p1", "freeze")
    reply = await w.h.plays.play(play("p1", "freeze", territory_id="T001"))
    assert reply == PlayReply(card_id=card, type="freeze", state="reserved", effect={"active_on": "2026-10-06"})
    stored = w.store.state.cards[card][0]
    assert (stored.state, stored.scheduled_for, stored.saga_id) == ("reserved", day, None)
    activated = ProtectionResolved(type="protection.activated", occurred_at=w.clock.at, card_id=card,
                                   player_id="p1", kind="freeze", day=day, territory_id="T001", state="active")
    await w.h.on_event(activated)
    await w.h.on_event(activated)   # a redelivery
    assert (await w.states("p1"))[card] == "consumed"
    assert [(type(e), e.card_id) for _, e in w.published("card.consumed")] == [  # type: ignore[attr-defined]
        (CardConsumed, card)]


async def test_r16_a_scheduled_blockade_cancelled_returns_to_the_hand() -> None:
    day = date(2026, 10, 6)
    w = world(claims=FakeClaims(answer=lambda subject, cmd: EffectApplied(
        command_id=cmd["command_id"], kind=subject.rsplit(".", 1)[-1], active_on=day)))
    (card,) = await w.give("p1", "blockade")
    await w.h.plays.play(play("p1", "blockade", rival_id="p2"))
    schedule = w.claims.sent[0][1]
    assert schedule["rival_known"] is False   # p2 was never verified here
    cancel = CancelSchedule(player_id="p1", player_status="verified", card_id=card)
    assert await w.h.plays.cancel(cancel) == CancelReply(card_id=card, type="blockade", state="ready")
    assert (await w.states("p1"))[card] == "ready"
    assert [e.reason for _, e in w.published("card.returned")] == ["cancelled"]  # type: ignore[attr-defined]
    assert (await w.h.plays.cancel(cancel)).reason == "conflict"   # type: ignore[union-attr]
    other = CancelSchedule(player_id="p2", player_status="verified", card_id=card)
    assert (await w.h.plays.cancel(other)).reason == "not_found"   # type: ignore[union-attr]
