"""R28 (amended) ``adjust_hand`` on fakes: a removal takes ready cards first, then reserved ones, whose schedule is
withdrawn (the scheduled Freeze/Blockade no longer activates)."""

from __future__ import annotations

from datetime import date
from typing import Any

from cards_world import FakeClaims, World, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.cards import AdjustHand, AdjustReply, HandAdjusted, PlayCard, PlayReply
from turf_common.contracts.effects import EffectApplied

TUESDAY = date(2026, 10, 6)


def claims_answer(refuse_unschedule: bool = False) -> FakeClaims:
    """Claims as it answers a schedule (active on Tuesday) and an unschedule (withdrawn, or refused ``conflict``:
    the protection already activated)."""
    def answer(subject: str, cmd: dict[str, Any]) -> EffectApplied | Refusal:
        if subject == "claims.effect.unschedule" and refuse_unschedule:
            return Refusal(reason="conflict", message="That card is no longer scheduled (it is active).")
        return EffectApplied(command_id=cmd["command_id"], kind=subject.rsplit(".", 1)[-1], active_on=TUESDAY)
    return FakeClaims(answer=answer)


async def scheduled_freeze(w: World) -> tuple[str, str]:
    """p1 holds two Freezes and schedules one: (the ready one, the reserved one)."""
    await w.give("p1", "freeze", "freeze")
    reply = await w.h.plays.play(PlayCard(player_id="p1", player_status="verified", type="freeze",
                                          territory_id="T001"))
    assert isinstance(reply, PlayReply) and reply.state == "reserved", reply
    (ready,) = [c.id for c in await w.hand("p1") if c.state == "ready"]
    return ready, reply.card_id


async def test_r28_adjust_hand_removes_ready_cards_first_then_a_scheduled_one_withdrawing_its_schedule() -> None:
    w = world(claims=claims_answer())
    ready, reserved = await scheduled_freeze(w)
    out = await w.h.hands.adjust(AdjustHand(correction_id="fix-1", player_id="p1", remove=["freeze"]))
    assert isinstance(out, AdjustReply) and [c.id for c in out.removed] == [ready]   # the ready card first
    assert [(c.id, c.state) for c in out.cards] == [(reserved, "reserved")]
    assert [s for s, _ in w.claims.sent] == ["claims.effect.schedule"]                # nothing withdrawn yet
    out = await w.h.hands.adjust(AdjustHand(correction_id="fix-2", player_id="p1", remove=["freeze"]))
    assert isinstance(out, AdjustReply), out
    assert [(c.id, c.state) for c in out.removed] == [(reserved, "removed")] and out.cards == []
    subject, cmd = w.claims.sent[-1]
    assert (subject, cmd["card_id"], cmd["player_id"]) == ("claims.effect.unschedule", reserved, "p1")
    assert (await w.states("p1"))[reserved] == "removed"
    adjusted = [e for _, e in w.published("card.adjusted") if isinstance(e, HandAdjusted)]
    assert [(e.correction_id, [c.id for c in e.removed]) for e in adjusted][-1] == ("fix-2", [reserved])
    # a retried correction answers what the first did, and withdraws nothing more
    again = await w.h.hands.adjust(AdjustHand(correction_id="fix-2", player_id="p1", remove=["freeze"]))
    assert isinstance(again, AdjustReply) and [c.id for c in again.removed] == [reserved]
    assert len([s for s, _ in w.claims.sent if s == "claims.effect.unschedule"]) == 1


async def test_r28_adjust_hand_leaves_a_scheduled_card_that_claims_no_longer_holds_as_scheduled() -> None:
    # the protection activated before the correction reached claims: the card is not removed (its activation
    # consumes it), and it is free of the correction's saga
    w = world(claims=claims_answer(refuse_unschedule=True))
    ready, reserved = await scheduled_freeze(w)
    out = await w.h.hands.adjust(AdjustHand(correction_id="fix-3", player_id="p1", remove=["freeze", "freeze"]))
    assert isinstance(out, AdjustReply) and [c.id for c in out.removed] == [ready], out
    card = w.store.state.cards[reserved][0]
    assert (card.state, card.saga_id, card.scheduled_for) == ("reserved", None, TUESDAY)
