"""NATS subscribers of the claims service: decode, call a use case, reply; and its one durable consumer."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_claims.handlers import ClaimsEvent, ClaimsHandlers
from turf_common.bus import Batch, durable, settle
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
    EraseTrails,
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


def router(h: ClaimsHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    # the claim path's second stage: only geo-verify may publish these (NATS permissions, turfwar.natsauth)
    @r.subscriber(subjects.CLAIMS_VERIFIED_SUBMIT, queue=QUEUE, max_workers=CLAIM_WORKERS,
                  title=subjects.CLAIMS_VERIFIED_SUBMIT)
    async def submit(v: VerifiedClaim) -> ClaimAcceptedReply | Refusal:
        return await h.claims.submit(v)

    @r.subscriber(subjects.CLAIMS_VERIFIED_CHECK, queue=QUEUE, max_workers=CLAIM_WORKERS,
                  title=subjects.CLAIMS_VERIFIED_CHECK)
    async def check(v: VerifiedClaim) -> CheckReply | Refusal:
        return await h.claims.check(v)

    @r.subscriber(subjects.CLAIMS_STATE, queue=QUEUE, title=subjects.CLAIMS_STATE)
    async def state(q: StateRequest) -> StateReply:
        return await h.claims.state(q.territory_id, q.season_id)

    @r.subscriber(subjects.CLAIMS_PLAYER, queue=QUEUE, title=subjects.CLAIMS_PLAYER)
    async def player(q: PlayerRequest) -> PlayerReply:
        return await h.claims.player(q.player_id)

    @r.subscriber(subjects.CLAIMS_FLAGS, queue=QUEUE, title=subjects.CLAIMS_FLAGS)
    async def flags(q: FlagsRequest) -> FlagsReply | Refusal:
        return await h.claims.flags(q)

    @r.subscriber(subjects.CLAIMS_OUTLOOK, queue=QUEUE, title=subjects.CLAIMS_OUTLOOK)
    async def outlook(q: OutlookRequest) -> OutlookReply:
        return await h.outlook.outlook(q.player_id)

    @r.subscriber(subjects.CLAIMS_LIST, queue=QUEUE, title=subjects.CLAIMS_LIST)
    async def claims_log(q: ClaimsListRequest) -> ClaimsListReply | Refusal:
        return await h.claims.log(q)

    @r.subscriber(subjects.CLAIMS_CORRECT, queue=QUEUE, max_workers=CORRECT_WORKERS, title=subjects.CLAIMS_CORRECT)
    async def correct(cmd: CorrectOwnership) -> OwnershipCorrected | Refusal:
        return await h.corrections.correct(cmd)

    @r.subscriber(subjects.CLAIMS_DISQUALIFY, queue=QUEUE, max_workers=CORRECT_WORKERS,
                  title=subjects.CLAIMS_DISQUALIFY)
    async def disqualify(ev: PlayerDisqualified) -> PlayerApplied:
        # R28: the organizer's answer waits for this; the durable consumer's copy of the event is then a no-op
        return PlayerApplied(player_id=ev.player_id, freed=await h.corrections.player_disqualified(ev))

    @r.subscriber(subjects.CLAIMS_ERASE_TRAILS, queue=QUEUE, title=subjects.CLAIMS_ERASE_TRAILS)
    async def erase_trails(_: EraseTrails) -> TrailsErased:
        return TrailsErased(erased=await h.corrections.erase_trails())

    @r.subscriber(subjects.CLAIMS_PLAYER_FIXES, queue=QUEUE, title=subjects.CLAIMS_PLAYER_FIXES)
    async def player_fixes(q: PlayerFixesRequest) -> PlayerFixes:
        return PlayerFixes(fixes=await h.corrections.player_fixes(q.player_id))   # R30: the player's export

    _effects(r, h)
    _memory(r, h)

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[ClaimsEvent], batch: Batch) -> None:
        await settle(batch, events, h.on_event, DURABLE)

    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r


def _effects(r: NatsRouter, h: ClaimsHandlers) -> None:
    """``claims.effect.*`` (the cards service's sagas) and ``claims.trade_check``."""

    @r.subscriber(subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE)
    async def double_trouble(cmd: DoubleTroubleEffect) -> EffectApplied | Refusal:
        return await h.effects.double_trouble(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_MULLIGAN, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_MULLIGAN)
    async def mulligan(cmd: MulliganEffect) -> EffectApplied | Refusal:
        return await h.effects.mulligan(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_WAR, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_WAR)
    async def war(cmd: WarEffect) -> EffectApplied | Refusal:
        return await h.effects.war(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_JOKER, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_JOKER)
    async def joker(cmd: JokerEffect) -> EffectApplied | Refusal:
        return await h.effects.joker(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_SCHEDULE, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_SCHEDULE)
    async def schedule(cmd: ScheduleEffect) -> EffectApplied | Refusal:
        return await h.effects.schedule(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_UNSCHEDULE, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_UNSCHEDULE)
    async def unschedule(cmd: UnscheduleEffect) -> EffectApplied | Refusal:
        return await h.effects.unschedule(cmd)

    @r.subscriber(subjects.CLAIMS_EFFECT_TRADE, queue=QUEUE, max_workers=EFFECT_WORKERS,
                  title=subjects.CLAIMS_EFFECT_TRADE)
    async def trade(cmd: TradeEffect) -> EffectApplied | Refusal:
        return await h.effects.trade(cmd)

    @r.subscriber(subjects.CLAIMS_TRADE_CHECK, queue=QUEUE, title=subjects.CLAIMS_TRADE_CHECK)
    async def trade_check(q: TradeCheck) -> TradeFacts:
        return await h.effects.trade_check(q)


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
