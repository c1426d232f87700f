"""NATS subscribers of the claims service: decode, call a use case, reply; and its one durable consumer."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_claims.handlers import ClaimsEvent, ClaimsHandlers
from turf_common.bus import Batch, Command, durable, serve, settle
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.claims import (
    CheckReply,
    ClaimAccepted,
    ClaimAcceptedReply,
    ClaimRejected,
    ClaimsListReply,
    ClaimsListRequest,
    CorrectOwnership,
    FlagRaised,
    FlagsReply,
    FlagsRequest,
    OwnershipCorrected,
    PlayerReply,
    PlayerRequest,
    StateReply,
    StateRequest,
    TerritoryChanged,
)
from turf_common.contracts.effects import (
    DoubleTroubleEffect,
    EffectApplied,
    JokerEffect,
    MulliganEffect,
    ProtectionResolved,
    ScheduleEffect,
    TradeCheck,
    TradeEffect,
    TradeFacts,
    UnscheduleEffect,
    WarEffect,
)
from turf_common.contracts.geo import VerifiedClaim
from turf_common.contracts.outlook import OutlookReply, OutlookRequest
from turf_common.contracts.players import (
    PlayerApplied,
    PlayerDisqualified,
    PlayerFixes,
    PlayerFixesRequest,
    TrailsErased,
)

QUEUE = "claims"
DURABLE = "claims"
#: What the durable consumer takes, in stream order (see :data:`turf_claims.handlers.ClaimsEvent`).
CONSUMED = [subjects.CLOCK_DAY_STARTED, subjects.PLAYER_DISQUALIFIED]
#: Durable consumers of earlier versions, whose work the one above now does (deleted at start).
OBSOLETE = ["claims-players", "claims-exclusions"]
#: Requests that wait on the database run this many at a time: claims as many as the engine's pool (30) holds
#: connections, plus a couple waiting for one; card effects (a saga at a time per player) and corrections fewer.
#: Reads of a row or two take one at a time.
CLAIM_WORKERS = 32
EFFECT_WORKERS = 8
CORRECT_WORKERS = 4
#: The events the service publishes (from its outbox), for the AsyncAPI document.
PUBLISHED: dict[str, type[Event]] = {
    subjects.CLAIM_ACCEPTED: ClaimAccepted, subjects.CLAIM_REJECTED: ClaimRejected,
    subjects.TERRITORY_CHANGED: TerritoryChanged, subjects.FLAG_RAISED: FlagRaised,
    subjects.PROTECTION_ACTIVATED: ProtectionResolved, subjects.PROTECTION_LAPSED: ProtectionResolved,
}


async def _disqualify(h: ClaimsHandlers, ev: PlayerDisqualified) -> PlayerApplied:
    # R28: the organizer's answer waits for this; the durable consumer's copy of the event is then a no-op
    return PlayerApplied(player_id=ev.player_id, freed=await h.corrections.player_disqualified(ev))


async def _erase_trails(h: ClaimsHandlers, _: None) -> TrailsErased:
    return TrailsErased(erased=await h.corrections.erase_trails())


async def _player_fixes(h: ClaimsHandlers, q: PlayerFixesRequest) -> PlayerFixes:
    return PlayerFixes(fixes=await h.corrections.player_fixes(q.player_id))   # R30: the player's export


#: Every command the service answers, in its queue group (titled by subject in the AsyncAPI document).
COMMANDS: list[Command[ClaimsHandlers]] = [
    # the claim path's second stage: only geo-verify may publish these (NATS permissions, turfwar.natsauth)
    Command(subjects.CLAIMS_VERIFIED_SUBMIT, VerifiedClaim, ClaimAcceptedReply | Refusal,
            lambda h, v: h.claims.submit(v), CLAIM_WORKERS),
    Command(subjects.CLAIMS_VERIFIED_CHECK, VerifiedClaim, CheckReply | Refusal,
            lambda h, v: h.claims.check(v), CLAIM_WORKERS),
    Command(subjects.CLAIMS_STATE, StateRequest, StateReply, lambda h, q: h.claims.state(q.territory_id, q.season_id)),
    Command(subjects.CLAIMS_PLAYER, PlayerRequest, PlayerReply, lambda h, q: h.claims.player(q.player_id)),
    Command(subjects.CLAIMS_FLAGS, FlagsRequest, FlagsReply | Refusal, lambda h, q: h.claims.flags(q)),
    Command(subjects.CLAIMS_OUTLOOK, OutlookRequest, OutlookReply, lambda h, q: h.outlook.outlook(q.player_id)),
    Command(subjects.CLAIMS_LIST, ClaimsListRequest, ClaimsListReply | Refusal, lambda h, q: h.claims.log(q)),
    Command(subjects.CLAIMS_CORRECT, CorrectOwnership, OwnershipCorrected | Refusal,
            lambda h, cmd: h.corrections.correct(cmd), CORRECT_WORKERS),
    Command(subjects.CLAIMS_DISQUALIFY, PlayerDisqualified, PlayerApplied, _disqualify, CORRECT_WORKERS),
    # every trail this service keeps goes (fixes kept before geo-verify kept them), whatever the EraseTrails says
    Command(subjects.CLAIMS_ERASE_TRAILS, None, TrailsErased, _erase_trails),
    Command(subjects.CLAIMS_PLAYER_FIXES, PlayerFixesRequest, PlayerFixes, _player_fixes),
    # the cards service's sagas
    Command(subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE, DoubleTroubleEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.double_trouble(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_MULLIGAN, MulliganEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.mulligan(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_WAR, WarEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.war(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_JOKER, JokerEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.joker(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_SCHEDULE, ScheduleEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.schedule(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_UNSCHEDULE, UnscheduleEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.unschedule(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_EFFECT_TRADE, TradeEffect, EffectApplied | Refusal,
            lambda h, cmd: h.effects.trade(cmd), EFFECT_WORKERS),
    Command(subjects.CLAIMS_TRADE_CHECK, TradeCheck, TradeFacts, lambda h, q: h.effects.trade_check(q)),
]


def router(h: ClaimsHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()
    serve(r, h, QUEUE, COMMANDS)
    _memory(r, h)

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[ClaimsEvent], batch: Batch) -> None:
        await settle(batch, events, h.on_event, DURABLE)

    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r


def _memory(r: NatsRouter, h: ClaimsHandlers) -> None:
    """Refusals from memory (:mod:`turf_claims.daymemory`): every replica hears every claim and territory change
    (no queue group), and what taints a day's facts wherever it happened (card plays, corrections,
    disqualifications). A plain subscription: a claim missed while reconnecting only means a refusal decided under
    the lock instead (memory holds lower bounds); a tainting event missed so leaves that replica's memory of the
    day refusing as before the change (the known limit of this design: a reconnect could reload the day).
    ``no_reply``: these events are published to JetStream, whose ack comes back on the message's reply inbox; a
    core subscriber that answered it (FastStream's default, an empty body) raced the stream's ack, and a publisher
    that got the empty answer first failed on it (the outbox relay's flush, a correction's 500)."""
    @r.subscriber(subjects.CLAIM_ACCEPTED, no_reply=True, title="claims-memory-claims")
    async def claimed(ev: ClaimAccepted) -> None:
        h.claims.memory.claimed(ev.game_day, ev.claim_id, ev.player_id, ev.territory_id, ev.kind != "war_reclaim")

    @r.subscriber(subjects.TERRITORY_CHANGED, no_reply=True, title="claims-memory-owners")
    async def changed(ev: TerritoryChanged) -> None:
        if ev.cause not in ("claim", "war_reclaim"):   # an undo, a correction, a Joker, a trade…
            await h.changing()
        h.claims.memory.territory_changed(ev.territory_id, ev.owner_id, ev.version)

    for subject in (subjects.CARD_PLAYED, subjects.CORRECTION_APPLIED, subjects.PLAYER_DISQUALIFIED):
        @r.subscriber(subject, no_reply=True, title=f"claims-memory-{subject.replace('.', '-')}")
        async def tainting(ev: Event) -> None:
            await h.changing()
