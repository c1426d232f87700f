"""The saga engine (DESIGN "Sagas for cards"): reserve → ask claims → consume or release.

A play, a cancel, a trade acceptance and a correction's withdrawal of a scheduled card each (1) reserve their
card(s) and record a pending saga in one transaction (:mod:`turf_cards.plays`, :mod:`turf_cards.trades`,
:mod:`turf_cards.hands`); then :meth:`Sagas.drive` (2) asks the claims
service for the effect with ``command_id`` = saga id and (3) completes the saga with the completion of its kind —
consume on confirmation, release on refusal (R13) — in one transaction with the events it implies. A crash between
the steps leaves the saga ``pending``; :meth:`Sagas.recover` asks claims again with the same command id, and
claims answers with its stored first answer, so the effect is never applied twice and the card never lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

import structlog

from turf_cards.context import Cards
from turf_cards.ports import CardsTx, ClaimsEffects, Saga, SagaKind
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_common.contracts.cards import CancelReply, CardOut, PlayReply, TradeReply
from turf_common.contracts.effects import EffectApplied
from turf_common.faults import crash_point

log = structlog.get_logger(__name__)

TRANSIENT = {"unavailable"}     # a refusal that says nothing about the effect: the saga stays pending

#: Step 3 of one kind of saga, inside its transaction: apply claims' answer (confirmation or refusal) at game time
#: ``now`` to the cards and trades, stage the events, and return the reply the player gets (kept with the saga).
Completion = Callable[[CardsTx, Saga, EffectApplied | Refusal, datetime], Awaitable[Message]]
#: What runs after a saga of one kind completed and its events were published (outside any transaction): the
#: saga and the reply it gave.
Followup = Callable[[Saga, Message], Awaitable[None]]

_REPLIES: dict[str, type[Message]] = {"play": PlayReply, "cancel": CancelReply, "trade": TradeReply,
                                      "withdraw": CardOut}


def replay(saga: Saga) -> Message:
    """The reply a completed saga gave (a repeat, or a recovery that lost the race, answers the same)."""
    if saga.reply is None:
        return Refusal(reason="unavailable", message="Try again shortly.")
    return decode_reply(saga.reply, _REPLIES[saga.kind])


@dataclass
class Sagas:
    cx: Cards
    claims: ClaimsEffects
    #: the completion of each kind, given by the use cases that start them (see :mod:`turf_cards.handlers`)
    completions: dict[SagaKind, Completion] = field(default_factory=dict)
    #: optional follow-ups by kind (a trade acceptance refused: :meth:`turf_cards.trades.Trades.after_trade`)
    followups: dict[SagaKind, Followup] = field(default_factory=dict)

    async def drive(self, saga_id: str) -> Message:
        """Steps 2 and 3: ask claims (again, if recovering) and complete. When claims does not answer, or answers
        ``unavailable``, the saga stays pending for :meth:`recover` and the caller hears ``unavailable``."""
        saga = await self.cx.store.saga(saga_id)
        if saga.state != "pending":
            return replay(saga)
        out = await self.claims.apply(saga.subject, saga.command)
        if out is None:
            log.warning("saga_effect_unanswered", saga_id=saga_id, subject=saga.subject)
            return Refusal(reason="unavailable", message="The claims service did not answer; your card is kept "
                                                         "and the play will be completed shortly.")
        if isinstance(out, Refusal) and out.reason in TRANSIENT:
            return Refusal(reason="unavailable", message=out.message or "Try again shortly.")
        crash_point("cards.after_effect")
        reply = await self.complete(saga_id, out)
        await self.cx.relay.flush()
        followup = self.followups.get(saga.kind)
        if followup is not None:
            await followup(saga, reply)
        return reply

    async def complete(self, saga_id: str, out: EffectApplied | Refusal) -> Message:
        """Step 3, once: a saga completed meanwhile (a recovery and the original both got the answer) replays
        its reply."""
        now = await self.cx.clock.now()
        async with self.cx.store.begin() as tx:
            saga = await tx.sagas.saga_for_update(saga_id)
            if saga.state != "pending":
                return replay(saga)
            ok = isinstance(out, EffectApplied)
            reply = await self.completions[saga.kind](tx, saga, out, now)
            await tx.sagas.finish_saga(saga_id, "done" if ok else "refused", reply.model_dump_json())
        log.info("saga_completed", saga_id=saga_id, kind=saga.kind, card_type=saga.card_type, ok=ok,
                 reason=None if ok else getattr(out, "reason", None))
        return reply

    async def recover(self, older_than: float = 0.0) -> int:
        """Drive every saga left pending (a crash, a timeout) for more than ``older_than`` seconds; how many
        completed."""
        ids = await self.cx.store.pending_sagas(older_than)
        done = 0
        for sid in ids:
            reply = await self.drive(sid)
            if getattr(reply, "reason", None) != "unavailable":
                done += 1
        if ids:
            log.info("sagas_recovered", pending=len(ids), completed=done)
        return done

    async def recover_forever(self, interval: float = 2.0, older_than: float = 15.0) -> None:
        """Every ``interval`` seconds, :meth:`recover` the sagas pending for more than ``older_than`` seconds."""
        while True:
            await asyncio.sleep(interval)
            try:
                await self.recover(older_than)
            except Exception:
                log.warning("saga_recovery_failed", exc_info=True)
