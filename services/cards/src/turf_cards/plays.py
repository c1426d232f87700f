"""Card plays (R13–R20) and cancels of scheduled Freezes/Blockades (R15, R16), each a saga (:mod:`turf_cards.saga`):
R13, a card is consumed only when its effect takes place; a scheduled Freeze/Blockade stays reserved until its day
start, where claims reports it active (consumed) or lapsed (back to the hand)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

import structlog

from turf_cards.context import Cards, refusal
from turf_cards.ports import Card, CardsTx, Saga
from turf_cards.saga import Sagas
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal
from turf_common.contracts.cards import (
    CancelReply,
    CancelSchedule,
    CardConsumed,
    CardPlayed,
    CardReturned,
    PlayCard,
    PlayReply,
)
from turf_common.contracts.effects import (
    DoubleTroubleEffect,
    EffectApplied,
    JokerEffect,
    MulliganEffect,
    ProtectionResolved,
    ScheduleEffect,
    UnscheduleEffect,
    WarEffect,
)
from turf_common.faults import crash_point
from turf_common.rules import cards as rules
from turf_common.rules.refusals import refuse

log = structlog.get_logger(__name__)

SCHEDULED = ("freeze", "blockade")


@dataclass
class Plays:
    cx: Cards
    sagas: Sagas

    async def play(self, cmd: PlayCard) -> PlayReply | Refusal:
        """``cards.play``: reserve the player's first-drawn ready card of the type, record the saga with the
        claims command of its effect, then drive it (R13). A Trade card is played by proposing a trade (R18)."""
        now, season, r = await self.cx.gate(cmd.player_status)
        if r is not None:
            return r
        if cmd.type == "trade":
            return Refusal(reason="invalid_input",
                           message="A Trade card is played by proposing a trade (POST /trades).")
        saga_id = uuid.uuid4().hex
        async with self.cx.store.begin() as tx:
            await tx.hands.lock_hand(cmd.player_id)
            card = await tx.hands.oldest_ready_for_update(season.season_id, cmd.player_id, cmd.type)
            if card is None:
                return refusal(refuse("card_not_in_hand"))
            subject, effect = await self._effect_command(tx, cmd, saga_id, card)
            await tx.hands.set_card(card.id, "reserved", now, saga_id=saga_id)
            await tx.sagas.add_saga(Saga(id=saga_id, kind="play", player_id=cmd.player_id, card_type=cmd.type,
                                   card_ids=[card.id], subject=subject, command=effect.model_dump_json()))
        crash_point("cards.after_reserve")
        return cast("PlayReply | Refusal", await self.sagas.drive(saga_id))

    async def _effect_command(self, tx: CardsTx, cmd: PlayCard, saga_id: str, card: Card) -> tuple[str, Message]:
        """The claims subject and command of the card's effect; the Joker's entropy comes from the seed of the
        card's season (R20, R12.1)."""
        p, card_id = cmd.player_id, card.id
        if cmd.type == "double_trouble":
            return subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE, DoubleTroubleEffect(command_id=saga_id, player_id=p)
        if cmd.type == "mulligan":
            return subjects.CLAIMS_EFFECT_MULLIGAN, MulliganEffect(command_id=saga_id, player_id=p,
                                                                   claim_id=cmd.claim_id or "")
        if cmd.type == "war":
            return subjects.CLAIMS_EFFECT_WAR, WarEffect(command_id=saga_id, player_id=p,
                                                         territory_id=cmd.territory_id or "")
        if cmd.type == "joker":
            return subjects.CLAIMS_EFFECT_JOKER, JokerEffect(
                command_id=saga_id, player_id=p, mode=cmd.mode or "random",
                entropy=rules.joker_entropy(self.cx.seed_of(card.season_id), card.season_id, p, saga_id))
        rival_known = False
        if cmd.type == "blockade" and cmd.rival_id:
            rival_known = await tx.players.player_known(cmd.rival_id)
        return subjects.CLAIMS_EFFECT_SCHEDULE, ScheduleEffect(
            command_id=saga_id, player_id=p, card_id=card_id, kind=cmd.type,  # type: ignore[arg-type]
            territory_id=cmd.territory_id, rival_id=cmd.rival_id, rival_known=rival_known)

    async def complete_play(self, tx: CardsTx, saga: Saga, out: EffectApplied | Refusal,
                            now: datetime) -> PlayReply | Refusal:
        """R13: refused → the card back to ready; applied → consumed, or (Freeze/Blockade) reserved for the day
        it activates; ``card.played`` either way it took place."""
        card_id = saga.card_ids[0]
        if isinstance(out, Refusal):
            await tx.hands.set_card(card_id, "ready", now, saga_id=None)
            return Refusal(reason=out.reason, message=out.message)
        kind = saga.card_type
        scheduled = kind in SCHEDULED
        effect = _effect_body(kind, out)
        state: Literal["reserved", "consumed"] = "reserved" if scheduled else "consumed"
        season_id = await self._season_of_card(tx, card_id, now)
        await tx.hands.set_card(card_id, state, now, saga_id=None, scheduled_for=out.active_on if scheduled else None)
        await tx.messages.stage(subjects.CARD_PLAYED, CardPlayed(
            event_id=f"played:{saga.id}", occurred_at=now, season_id=season_id, player_id=saga.player_id,
            card_id=card_id, card_type=kind, state=state, play_id=saga.id, effect=effect,
            joker=out.joker, cards=[card_id]))
        return PlayReply(card_id=card_id, type=kind, state=state, effect=effect)

    async def _season_of_card(self, tx: CardsTx, card_id: str, now: datetime) -> str:
        """The season whose hand holds the card (R31), which its events name."""
        card = await tx.hands.card_for_update(card_id)
        return card.season_id if card is not None else self.cx.season_at(now).season_id

    async def cancel(self, cmd: CancelSchedule) -> CancelReply | Refusal:
        """``cards.cancel``: a scheduled Freeze/Blockade back to ``ready`` before it activates (R15, R16), as a saga
        asking claims to unschedule it."""
        now, _, r = await self.cx.gate(cmd.player_status)
        if r is not None:
            return r
        saga_id = uuid.uuid4().hex
        async with self.cx.store.begin() as tx:
            await tx.hands.lock_hand(cmd.player_id)
            card = await tx.hands.card_for_update(cmd.card_id)
            if card is None or card.player_id != cmd.player_id:
                return Refusal(reason="not_found", message="You have no card with that id.")
            if card.state != "reserved" or card.scheduled_for is None or card.saga_id is not None:
                return Refusal(reason="conflict", message="That card is not a scheduled Freeze or Blockade.")
            effect = UnscheduleEffect(command_id=saga_id, player_id=cmd.player_id, card_id=card.id)
            await tx.hands.set_card(card.id, "reserved", now, saga_id=saga_id)
            await tx.sagas.add_saga(Saga(id=saga_id, kind="cancel", player_id=cmd.player_id, card_type=card.card_type,
                                   card_ids=[card.id], subject=subjects.CLAIMS_EFFECT_UNSCHEDULE,
                                   command=effect.model_dump_json()))
        return cast("CancelReply | Refusal", await self.sagas.drive(saga_id))

    async def complete_cancel(self, tx: CardsTx, saga: Saga, out: EffectApplied | Refusal,
                              now: datetime) -> CancelReply | Refusal:
        """Refused → the card stays scheduled; applied → back to ready (``card.returned``)."""
        card_id = saga.card_ids[0]
        if isinstance(out, Refusal):
            await tx.hands.clear_card_saga(card_id)
            return Refusal(reason=out.reason, message=out.message)
        season_id = await self._season_of_card(tx, card_id, now)
        await tx.hands.unschedule(card_id, now)
        await tx.messages.stage(subjects.CARD_RETURNED, CardReturned(
            event_id=f"returned:{card_id}:{saga.id[:8]}", occurred_at=now, season_id=season_id,
            player_id=saga.player_id, card_id=card_id, card_type=saga.card_type, reason="cancelled"))
        return CancelReply(card_id=card_id, type=saga.card_type, state="ready")

    async def protection_resolved(self, ev: ProtectionResolved) -> None:
        """R15/R16 at the day start: an activated Freeze/Blockade's card is consumed; a lapsed one returns to the
        hand. Once per event."""
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.PROTECTION_ACTIVATED):
                return
            card = await tx.hands.card_for_update(ev.card_id)
            if card is None or card.state != "reserved":
                log.warning("protection_for_unknown_card", card_id=ev.card_id, state=getattr(card, "state", None))
                return
            if ev.state == "active":
                await tx.hands.set_card(card.id, "consumed", ev.occurred_at, scheduled_for=None)
                await tx.messages.stage(subjects.CARD_CONSUMED, CardConsumed(
                    event_id=f"consumed:{card.id}", occurred_at=ev.occurred_at, season_id=card.season_id,
                    player_id=card.player_id, card_id=card.id, card_type=card.card_type, reason="activated"))
            else:
                await tx.hands.set_card(card.id, "ready", ev.occurred_at, scheduled_for=None)
                await tx.messages.stage(subjects.CARD_RETURNED, CardReturned(
                    event_id=f"returned:{card.id}:{ev.day.isoformat()}", occurred_at=ev.occurred_at,
                    season_id=card.season_id, player_id=card.player_id, card_id=card.id,
                    card_type=card.card_type, reason="lapsed"))


def _effect_body(kind: str, a: EffectApplied) -> dict[str, Any]:
    """API.md's ``effect`` of each card type."""
    if kind in SCHEDULED:
        return {"active_on": a.active_on.isoformat() if a.active_on else None}
    if kind == "war":
        until = a.reclaim_until.isoformat() if a.reclaim_until else None
        return {"territory_id": a.territory_id, "reclaim_until": until}
    if kind == "double_trouble":
        return {"claims_left_today": a.claims_left_today}
    if kind == "mulligan":
        return {"claims_left_today": a.claims_left_today, "territory_id": a.territory_id, "owner_id": a.owner_id}
    if kind == "joker":
        return {"territory_id": a.territory_id}
    return {}
