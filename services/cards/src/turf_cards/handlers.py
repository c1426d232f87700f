"""Cards use cases (R12–R20): hands and seeded draws, card plays and trades as sagas.

A play is a saga (DESIGN "Sagas for cards"): (1) reserve the card and record the saga, commit; (2) ask the claims
service for the effect with ``command_id`` = saga id; (3) on confirmation consume the card (a Freeze/Blockade stays
reserved until its day start), on refusal release it — each in one transaction with the events it implies. A crash
between the steps leaves the saga ``pending``; :meth:`CardsService.recover` asks claims again with the same command
id, and claims answers the stored first answer, so the effect is never applied twice and the card never lost.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

import nats
import structlog
from sqlalchemy import and_, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_cards import tables as t
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_common.contracts.cards import (
    AdjustHand,
    AdjustReply,
    CancelReply,
    CancelSchedule,
    CardConsumed,
    CardDrawn,
    CardOut,
    CardPlayed,
    CardReturned,
    HandAdjusted,
    HandReply,
    HandsDealt,
    PlayCard,
    PlayReply,
    ProposeTrade,
    SeedCommitted,
    SeedReply,
    SeedRevealed,
    TradeAction,
    TradeEvent,
    TradeOut,
    TradeReply,
    TradesReply,
)
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import DayStarted, SeasonEnded, SeasonStarted
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
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.faults import crash_point
from turf_common.legacy_bus import Bus, Delivery
from turf_common.outbox import OutboxRelay, first_time, stage
from turf_common.rules import cards as rules
from turf_common.rules import gametime
from turf_common.rules.claims import check_open
from turf_common.rules.refusals import Refused, refuse

log = structlog.get_logger(__name__)

SCHEDULED = ("freeze", "blockade")
LIVE = ("ready", "reserved")   # R12: unused cards, counted for the Monday top-up
TRANSIENT = {"unavailable"}     # a refusal that says nothing about the effect: the saga stays pending


class Clock(Protocol):
    async def now(self) -> datetime: ...


def _wall() -> datetime:
    """Wall time, for bookkeeping only (saga age); game decisions use the game clock."""
    return datetime.now(UTC)


def _refusal(r: Refused) -> Refusal:
    return Refusal(reason=r.reason, message=r.message)


@dataclass
class CardsService:
    engine: AsyncEngine
    relay: OutboxRelay
    bus: Bus
    clock: Clock
    season: gametime.SeasonConfig
    seed: str
    effect_timeout: float = 10.0

    @property
    def season_id(self) -> str:
        return self.season.season_id

    # =========================================================================== reads
    async def hand(self, player_id: str) -> HandReply:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.cards).where(
                t.cards.c.player_id == player_id, t.cards.c.state.in_(LIVE))
                .order_by(t.cards.c.drawn_at, t.cards.c.draw_index, t.cards.c.id))).all()
        return HandReply(player_id=player_id, cards=[CardOut(id=r.id, type=r.card_type, state=r.state) for r in rows])

    async def trades(self, player_id: str) -> TradesReply:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.trades).where(
                t.trades.c.state == "open",
                or_(t.trades.c.proposer_id == player_id, t.trades.c.partner_id == player_id))
                .order_by(t.trades.c.created_at, t.trades.c.id))).all()
        return TradesReply(trades=[_trade_out(r) for r in rows])

    async def seed_info(self) -> SeedReply:
        now = await self.clock.now()
        st = gametime.season_state(self.season, now)
        return SeedReply(season_id=self.season_id,
                         commitment=rules.seed_commitment(self.seed) if st != "before" else None,
                         seed=self.seed if st == "closed" else None)

    # =========================================================================== events
    async def on_event(self, d: Delivery) -> None:
        """The one durable consumer of the cards service, in stream order."""
        s = d.subject
        if s == subjects.CLOCK_DAY_STARTED:
            await self.day_started(DayStarted.model_validate_json(d.data))
        elif s == subjects.PLAYER_VERIFIED:
            await self.player_verified(PlayerVerified.model_validate_json(d.data))
        elif s == subjects.PLAYER_DISQUALIFIED:
            await self.player_disqualified(PlayerDisqualified.model_validate_json(d.data))
        elif s in (subjects.PROTECTION_ACTIVATED, subjects.PROTECTION_LAPSED):
            await self.protection_resolved(ProtectionResolved.model_validate_json(d.data))
        elif s == subjects.TERRITORY_CHANGED:
            if not await self.territory_changed(TerritoryChanged.model_validate_json(d.data)):
                return   # nothing staged: no outbox flush
        elif s == subjects.CLOCK_SEASON_STARTED:
            await self.season_started(SeasonStarted.model_validate_json(d.data))
        elif s == subjects.CLOCK_SEASON_ENDED:
            await self.season_ended(SeasonEnded.model_validate_json(d.data))
        await self.relay.flush()

    async def season_started(self, ev: SeasonStarted) -> None:
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.CLOCK_SEASON_STARTED):
                return
            commitment = rules.seed_commitment(self.seed)
            await conn.execute(pg_insert(t.season).values(season_id=self.season_id, commitment=commitment,
                                                          started=True, ended=False).on_conflict_do_nothing())
            await stage(conn, t.outbox, subjects.CARD_SEED_COMMITTED, SeedCommitted(
                event_id=f"seed_committed:{self.season_id}", occurred_at=ev.at, season_id=self.season_id,
                commitment=commitment))

    async def season_ended(self, ev: SeasonEnded) -> None:
        """Reveal the seed; R18: open proposals end with the season."""
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.CLOCK_SEASON_ENDED):
                return
            await stage(conn, t.outbox, subjects.CARD_SEED_REVEALED, SeedRevealed(
                event_id=f"seed_revealed:{self.season_id}", occurred_at=ev.at, season_id=self.season_id,
                commitment=rules.seed_commitment(self.seed), seed=self.seed))
            for row in (await conn.execute(select(t.trades).where(t.trades.c.state == "open")
                                           .with_for_update())).all():
                await self._close_trade(conn, row, "cancelled", "season_ended", ev.at)

    async def day_started(self, ev: DayStarted) -> None:
        """R12 at the day start: Monday tops every hand up to 3 unused cards (scheduled ones count), Tuesday to
        Saturday add one card. Stages ``card.dealt`` and then each ``card.drawn``."""
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.CLOCK_DAY_STARTED):
                return
            week = rules.is_week_start(self.season, ev.game_day)
            pids = (await conn.execute(select(t.players.c.player_id).where(t.players.c.status == "verified")
                                       .order_by(t.players.c.player_id))).scalars().all()
            hands = {p: await self._unused(conn, p) for p in pids}
            draws = {p: rules.day_start_draws(self.season, ev.game_day, n) for p, n in hands.items()}
            reason: Literal["week_start", "day_start"] = "week_start" if week else "day_start"
            await stage(conn, t.outbox, subjects.CARD_DEALT, HandsDealt(
                event_id=f"dealt:{self.season_id}:{ev.game_day.isoformat()}", occurred_at=ev.at,
                season_id=self.season_id, game_day=ev.game_day, reason=reason, hands=hands, draws=draws))
            for p in pids:
                await self._draw(conn, p, draws[p], reason, ev.at)
        log.info("hands_dealt", game_day=ev.game_day.isoformat(), players=len(pids), cards=sum(draws.values()))

    async def player_verified(self, ev: PlayerVerified) -> None:
        """A new player of the season; R12: verified while the season runs → the Monday top-up now."""
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.PLAYER_VERIFIED):
                return
            known = (await conn.execute(select(t.players.c.player_id).where(
                t.players.c.player_id == ev.player_id))).first()
            if known is not None:
                return
            await conn.execute(t.players.insert().values(player_id=ev.player_id, status="verified",
                                                         verified_at=ev.at, draws=0))
            n = rules.verification_draws(self.season, ev.at, await self._unused(conn, ev.player_id))
            await self._draw(conn, ev.player_id, n, "verification", ev.at)

    async def player_disqualified(self, ev: PlayerDisqualified) -> None:
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.PLAYER_DISQUALIFIED):
                return
            await conn.execute(pg_insert(t.players).values(
                player_id=ev.player_id, status="disqualified", verified_at=ev.at, draws=0,
            ).on_conflict_do_update(index_elements=["player_id"], set_={"status": "disqualified"}))
            for row in (await conn.execute(select(t.trades).where(
                    t.trades.c.state == "open",
                    or_(t.trades.c.proposer_id == ev.player_id, t.trades.c.partner_id == ev.player_id))
                    .with_for_update())).all():
                await self._close_trade(conn, row, "cancelled", "disqualified", ev.at)

    async def protection_resolved(self, ev: ProtectionResolved) -> None:
        """R15/R16: at activation the card is consumed; on a lapse it returns to the hand."""
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.PROTECTION_ACTIVATED):
                return
            row = (await conn.execute(select(t.cards).where(t.cards.c.id == ev.card_id).with_for_update())).first()
            if row is None or row.state != "reserved":
                log.warning("protection_for_unknown_card", card_id=ev.card_id, state=getattr(row, "state", None))
                return
            if ev.state == "active":
                await self._set_card(conn, row.id, "consumed", ev.occurred_at, scheduled_for=None)
                await stage(conn, t.outbox, subjects.CARD_CONSUMED, CardConsumed(
                    event_id=f"consumed:{row.id}", occurred_at=ev.occurred_at, season_id=self.season_id,
                    player_id=row.player_id, card_id=row.id, card_type=row.card_type, reason="activated"))
            else:
                await self._set_card(conn, row.id, "ready", ev.occurred_at, scheduled_for=None)
                await stage(conn, t.outbox, subjects.CARD_RETURNED, CardReturned(
                    event_id=f"returned:{row.id}:{ev.day.isoformat()}", occurred_at=ev.occurred_at,
                    season_id=self.season_id, player_id=row.player_id, card_id=row.id, card_type=row.card_type,
                    reason="lapsed"))

    async def territory_changed(self, ev: TerritoryChanged) -> int:
        """R18: an open proposal whose territory left its party can no longer succeed: cancelled, both told.
        Idempotent by itself (a cancelled proposal is no longer open). Returns how many were cancelled.

        Every ownership change comes here and almost none touches a proposal, so a plain read looks first and
        only a hit opens the locking transaction (issue #9: this consumer ran a transaction per claim)."""
        tr = t.trades.c
        hit = select(t.trades).where(
            tr.state == "open", tr.saga_id.is_(None),
            or_(and_(tr.offer_territory_id == ev.territory_id, tr.proposer_id != (ev.owner_id or "")),
                and_(tr.want_territory_id == ev.territory_id, tr.partner_id != (ev.owner_id or ""))))
        async with self.engine.connect() as conn:
            if (await conn.execute(hit.with_only_columns(tr.id).limit(1))).first() is None:
                return 0
        async with self.engine.begin() as conn:
            rows = (await conn.execute(hit.with_for_update())).all()
            for row in rows:
                await self._close_trade(conn, row, "cancelled", "territory_lost", ev.occurred_at)
        return len(rows)

    # =========================================================================== draws (R12)
    async def _unused(self, conn: AsyncConnection, player_id: str) -> int:
        return int((await conn.execute(select(func.count()).where(
            t.cards.c.player_id == player_id, t.cards.c.state.in_(LIVE)))).scalar_one())

    async def _draw(self, conn: AsyncConnection, player_id: str, n: int, reason: str, at: datetime) -> None:
        if n <= 0:
            return
        first = (await conn.execute(select(t.players.c.draws).where(t.players.c.player_id == player_id)
                                    .with_for_update())).scalar_one()
        for i in range(first, first + n):
            kind = rules.draw_card(self.seed, self.season_id, player_id, i)
            cid = uuid.uuid4().hex
            await conn.execute(t.cards.insert().values(
                id=cid, player_id=player_id, card_type=kind, state="ready", draw_index=i, reason=reason,
                drawn_at=at, updated_at=at))
            await stage(conn, t.outbox, subjects.CARD_DRAWN, CardDrawn(
                event_id=f"draw:{self.season_id}:{player_id}:{i}", occurred_at=at, season_id=self.season_id,
                player_id=player_id, card_id=cid, card_type=kind, draw_index=i, reason=reason))  # type: ignore[arg-type]
        await conn.execute(update(t.players).where(t.players.c.player_id == player_id).values(draws=first + n))

    async def _set_card(self, conn: AsyncConnection, card_id: str, state: str, at: datetime, **extra: Any) -> None:
        await conn.execute(update(t.cards).where(t.cards.c.id == card_id).values(state=state, updated_at=at, **extra))

    # =========================================================================== corrections (R28)
    async def adjust(self, cmd: AdjustHand) -> Message:
        """``cards.adjust``: the organizer's ``adjust_hand``; added cards are not draws (no seed), removed ones are
        ready cards only. A repeated ``correction_id`` is refused (``conflict``) and changes nothing."""
        now = await self.clock.now()
        async with self.engine.begin() as conn:
            await _advisory(conn, "cards:" + cmd.player_id)
            if not await first_time(conn, t.inbox, "adjust:" + cmd.correction_id, subjects.CARDS_ADJUST):
                return Refusal(reason="conflict", message="That correction was already applied.")
            added, removed = [], []
            for kind in cmd.add:
                cid = uuid.uuid4().hex
                await conn.execute(t.cards.insert().values(
                    id=cid, player_id=cmd.player_id, card_type=kind, state="ready", draw_index=None,
                    reason="correction", drawn_at=now, updated_at=now))
                added.append(CardOut(id=cid, type=kind, state="ready"))
            for kind in cmd.remove:
                c = (await conn.execute(select(t.cards.c.id).where(
                    t.cards.c.player_id == cmd.player_id, t.cards.c.card_type == kind, t.cards.c.state == "ready")
                    .order_by(t.cards.c.drawn_at.desc(), t.cards.c.id).limit(1).with_for_update())).first()
                if c is not None:
                    await self._set_card(conn, c.id, "removed", now)
                    removed.append(CardOut(id=c.id, type=kind, state="removed"))
            await stage(conn, t.outbox, subjects.CARD_ADJUSTED, HandAdjusted(
                event_id=f"adjusted:{cmd.correction_id}"[:64], occurred_at=now, season_id=self.season_id,
                correction_id=cmd.correction_id, player_id=cmd.player_id, added=added, removed=removed))
            if removed:
                await self._cancel_without_cards(conn, [cmd.player_id], now)
        await self.relay.flush()
        hand = await self.hand(cmd.player_id)
        return AdjustReply(correction_id=cmd.correction_id, player_id=cmd.player_id, added=added, removed=removed,
                           cards=hand.cards)

    # =========================================================================== plays
    async def _gate(self, status: str, now: datetime) -> Refused | None:
        """R3 (a play needs the game open), then the player must be verified."""
        r = check_open(self.season, now)
        if r is not None:
            return r
        if status != "verified":
            return refuse("not_eligible", "Only a verified player may play cards.")
        return None

    async def play(self, cmd: PlayCard) -> Message:
        """``cards.play``: R13 — the card is consumed only when its effect takes place."""
        now = await self.clock.now()
        r = await self._gate(cmd.player_status, now)
        if r is not None:
            return _refusal(r)
        if cmd.type == "trade":
            return Refusal(reason="invalid_input",
                           message="A Trade card is played by proposing a trade (POST /trades).")
        saga_id = uuid.uuid4().hex
        async with self.engine.begin() as conn:
            await _advisory(conn, "cards:" + cmd.player_id)
            card = (await conn.execute(select(t.cards).where(
                t.cards.c.player_id == cmd.player_id, t.cards.c.card_type == cmd.type, t.cards.c.state == "ready")
                .order_by(t.cards.c.drawn_at, t.cards.c.draw_index, t.cards.c.id).limit(1).with_for_update())).first()
            if card is None:
                return _refusal(refuse("card_not_in_hand"))
            subject, effect = await self._effect_command(conn, cmd, saga_id, card.id)
            await self._set_card(conn, card.id, "reserved", now, saga_id=saga_id)
            await conn.execute(t.sagas.insert().values(
                id=saga_id, kind="play", player_id=cmd.player_id, card_type=cmd.type, card_ids=[card.id],
                subject=subject, command=effect.model_dump_json(), state="pending", created_at=_wall(),
                updated_at=_wall()))
        crash_point("cards.after_reserve")
        return await self._drive(saga_id)

    async def _effect_command(self, conn: AsyncConnection, cmd: PlayCard, saga_id: str,
                              card_id: str) -> tuple[str, Message]:
        p = cmd.player_id
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
                entropy=rules.joker_entropy(self.seed, self.season_id, p, saga_id))
        rival_known = False
        if cmd.type == "blockade" and cmd.rival_id:
            rival_known = (await conn.execute(select(t.players.c.player_id).where(
                t.players.c.player_id == cmd.rival_id))).first() is not None
        return subjects.CLAIMS_EFFECT_SCHEDULE, ScheduleEffect(
            command_id=saga_id, player_id=p, card_id=card_id, kind=cmd.type,  # type: ignore[arg-type]
            territory_id=cmd.territory_id, rival_id=cmd.rival_id, rival_known=rival_known)

    async def cancel(self, cmd: CancelSchedule) -> Message:
        """``cards.cancel``: a scheduled Freeze/Blockade back to ``ready`` before it activates (R15, R16)."""
        now = await self.clock.now()
        r = await self._gate(cmd.player_status, now)
        if r is not None:
            return _refusal(r)
        saga_id = uuid.uuid4().hex
        async with self.engine.begin() as conn:
            await _advisory(conn, "cards:" + cmd.player_id)
            card = (await conn.execute(select(t.cards).where(t.cards.c.id == cmd.card_id).with_for_update())).first()
            if card is None or card.player_id != cmd.player_id:
                return Refusal(reason="not_found", message="You have no card with that id.")
            if card.state != "reserved" or card.scheduled_for is None or card.saga_id is not None:
                return Refusal(reason="conflict", message="That card is not a scheduled Freeze or Blockade.")
            effect = UnscheduleEffect(command_id=saga_id, player_id=cmd.player_id, card_id=card.id)
            await self._set_card(conn, card.id, "reserved", now, saga_id=saga_id)
            await conn.execute(t.sagas.insert().values(
                id=saga_id, kind="cancel", player_id=cmd.player_id, card_type=card.card_type, card_ids=[card.id],
                subject=subjects.CLAIMS_EFFECT_UNSCHEDULE, command=effect.model_dump_json(), state="pending",
                created_at=_wall(), updated_at=_wall()))
        return await self._drive(saga_id)

    # =========================================================================== trades (R18)
    async def _has_trade(self, conn: AsyncConnection, player_id: str) -> bool:
        return (await conn.execute(select(t.cards.c.id).where(
            t.cards.c.player_id == player_id, t.cards.c.card_type == "trade", t.cards.c.state == "ready")
            .limit(1))).first() is not None

    async def _verified(self, conn: AsyncConnection, player_id: str) -> bool:
        return (await conn.execute(select(t.players.c.player_id).where(
            t.players.c.player_id == player_id, t.players.c.status == "verified"))).first() is not None

    async def propose(self, cmd: ProposeTrade) -> Message:
        now = await self.clock.now()
        r = await self._gate(cmd.player_status, now)
        if r is not None:
            return _refusal(r)
        facts = await self.bus.request(subjects.CLAIMS_TRADE_CHECK, TradeCheck(
            offer_territory_id=cmd.offer_territory_id, want_territory_id=cmd.want_territory_id), TradeFacts,
            timeout=self.effect_timeout)
        partner = facts.want_owner
        async with self.engine.begin() as conn:
            mine = await self._has_trade(conn, cmd.player_id)
            theirs = partner is not None and await self._verified(conn, partner) \
                and await self._has_trade(conn, partner)
            r = rules.check_trade_proposal(
                cmd.player_id, offer_owner=facts.offer_owner, want_owner=partner, offer_known=facts.offer_known,
                want_known=facts.want_known, proposer_has_trade=mine, partner_has_trade=theirs,
                offer_in_dispute=facts.offer_in_dispute, want_in_dispute=facts.want_in_dispute)
            if r is not None:
                return _refusal(r)
            assert partner is not None
            tid = uuid.uuid4().hex
            await conn.execute(t.trades.insert().values(
                id=tid, proposer_id=cmd.player_id, partner_id=partner, offer_territory_id=cmd.offer_territory_id,
                want_territory_id=cmd.want_territory_id, state="open", created_at=now))
            row = (await conn.execute(select(t.trades).where(t.trades.c.id == tid))).one()
            await stage(conn, t.outbox, subjects.TRADE_PROPOSED, _trade_event(row, "open", None, now, "proposed"))
        await self.relay.flush()
        return TradeReply(trade=_trade_out(row))

    async def _trade_for(self, conn: AsyncConnection, cmd: TradeAction, role: str) -> Any:
        row = (await conn.execute(select(t.trades).where(t.trades.c.id == cmd.trade_id).with_for_update())).first()
        if row is None or cmd.player_id not in (row.proposer_id, row.partner_id):
            return Refusal(reason="not_found", message="No trade with that id is yours.")
        if getattr(row, role) != cmd.player_id:
            who = "the player it was proposed to" if role == "partner_id" else "the player who proposed it"
            return Refusal(reason="forbidden", message=f"Only {who} may do this.")
        if row.state != "open" or row.saga_id is not None:
            return _refusal(refuse("trade_no_longer_valid", f"This trade is {row.state}, no longer open."))
        return row

    async def decline(self, cmd: TradeAction) -> Message:
        return await self._close_by(cmd, "partner_id", "declined", "declined")

    async def withdraw(self, cmd: TradeAction) -> Message:
        return await self._close_by(cmd, "proposer_id", "cancelled", "withdrawn")

    async def _close_by(self, cmd: TradeAction, role: str, state: str, reason: str) -> Message:
        now = await self.clock.now()
        r = await self._gate(cmd.player_status, now)
        if r is not None:
            return _refusal(r)
        async with self.engine.begin() as conn:
            row = await self._trade_for(conn, cmd, role)
            if isinstance(row, Refusal):
                return row
            row = await self._close_trade(conn, row, state, reason, now)
        await self.relay.flush()
        return TradeReply(trade=_trade_out(row))

    async def accept(self, cmd: TradeAction) -> Message:
        """R18: reserve one Trade card of each party, ask claims to swap, consume both on confirmation."""
        now = await self.clock.now()
        r = await self._gate(cmd.player_status, now)
        if r is not None:
            return _refusal(r)
        saga_id = uuid.uuid4().hex
        async with self.engine.begin() as conn:
            row = await self._trade_for(conn, cmd, "partner_id")
            if isinstance(row, Refusal):
                return row
            for pid in sorted((row.proposer_id, row.partner_id)):
                await _advisory(conn, "cards:" + pid)
            picked = []
            for pid in (row.proposer_id, row.partner_id):
                c = (await conn.execute(select(t.cards.c.id).where(
                    t.cards.c.player_id == pid, t.cards.c.card_type == "trade", t.cards.c.state == "ready")
                    .order_by(t.cards.c.drawn_at, t.cards.c.draw_index).limit(1).with_for_update())).first()
                if c is not None and await self._verified(conn, pid):
                    picked.append(c.id)
            if len(picked) < 2:
                await self._close_trade(conn, row, "cancelled", "no_trade_card", now)
                refused = True
            else:
                refused = False
                effect = TradeEffect(command_id=saga_id, player_id=row.partner_id, trade_id=row.id,
                                     proposer_id=row.proposer_id, offer_territory_id=row.offer_territory_id,
                                     want_territory_id=row.want_territory_id)
                for cid in picked:
                    await self._set_card(conn, cid, "reserved", now, saga_id=saga_id)
                await conn.execute(update(t.trades).where(t.trades.c.id == row.id).values(saga_id=saga_id))
                await conn.execute(t.sagas.insert().values(
                    id=saga_id, kind="trade", player_id=cmd.player_id, card_type="trade", card_ids=picked,
                    subject=subjects.CLAIMS_EFFECT_TRADE, command=effect.model_dump_json(), trade_id=row.id,
                    state="pending", created_at=_wall(), updated_at=_wall()))
        if refused:
            await self.relay.flush()
            return _refusal(refuse("trade_no_longer_valid"))
        return await self._drive(saga_id)

    async def _close_trade(self, conn: AsyncConnection, row: Any, state: str, reason: str | None,
                           at: datetime) -> Any:
        await conn.execute(update(t.trades).where(t.trades.c.id == row.id).values(
            state=state, reason=reason, closed_at=at, saga_id=None))
        subject = {"accepted": subjects.TRADE_ACCEPTED, "declined": subjects.TRADE_DECLINED,
                   "cancelled": subjects.TRADE_CANCELLED}[state]
        await stage(conn, t.outbox, subject, _trade_event(row, state, reason, at, state))
        return (await conn.execute(select(t.trades).where(t.trades.c.id == row.id))).one()

    async def _cancel_without_cards(self, conn: AsyncConnection, players: Iterable[str], at: datetime) -> None:
        """R18: a proposal whose party holds no Trade card any more can no longer succeed."""
        ps = list(players)
        rows = (await conn.execute(select(t.trades).where(
            t.trades.c.state == "open", t.trades.c.saga_id.is_(None),
            or_(t.trades.c.proposer_id.in_(ps), t.trades.c.partner_id.in_(ps))).with_for_update())).all()
        for row in rows:
            if not (await self._has_trade(conn, row.proposer_id) and await self._has_trade(conn, row.partner_id)):
                await self._close_trade(conn, row, "cancelled", "no_trade_card", at)

    # =========================================================================== the saga engine
    async def _drive(self, saga_id: str) -> Message:
        """Step 2 and 3: ask claims (again, if recovering) and complete. A transport failure or a transient
        refusal leaves the saga pending for :meth:`recover`; the caller hears ``unavailable``."""
        async with self.engine.connect() as conn:
            saga = (await conn.execute(select(t.sagas).where(t.sagas.c.id == saga_id))).one()
        if saga.state != "pending":
            return _decode(saga.kind, saga.reply)
        try:
            resp = await self.bus.nc.request(saga.subject, saga.command.encode(), timeout=self.effect_timeout)
            out = json.loads(resp.data)
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError, ValueError):
            log.warning("saga_effect_unanswered", saga_id=saga_id, subject=saga.subject)
            return Refusal(reason="unavailable", message="The claims service did not answer; your card is kept "
                                                         "and the play will be completed shortly.")
        if out.get("ok") is False and out.get("reason") in TRANSIENT:
            return Refusal(reason="unavailable", message=out.get("message") or "Try again shortly.")
        crash_point("cards.after_effect")
        reply = await self._complete(saga_id, out)
        await self.relay.flush()
        return reply

    async def _complete(self, saga_id: str, out: dict[str, Any]) -> Message:
        now = await self.clock.now()
        async with self.engine.begin() as conn:
            saga = (await conn.execute(select(t.sagas).where(t.sagas.c.id == saga_id).with_for_update())).one()
            if saga.state != "pending":   # completed meanwhile (a recovery and the original both got the answer)
                return _decode(saga.kind, saga.reply)
            ok = out.get("ok") is True
            if saga.kind == "play":
                reply = await self._complete_play(conn, saga, out, ok, now)
            elif saga.kind == "cancel":
                reply = await self._complete_cancel(conn, saga, out, ok, now)
            else:
                reply = await self._complete_trade(conn, saga, out, ok, now)
            await conn.execute(update(t.sagas).where(t.sagas.c.id == saga_id).values(
                state="done" if ok else "refused", reply=reply.model_dump_json(), updated_at=_wall()))
        log.info("saga_completed", saga_id=saga_id, kind=saga.kind, card_type=saga.card_type, ok=ok,
                 reason=out.get("reason"))
        return reply

    async def _complete_play(self, conn: AsyncConnection, saga: Any, out: dict[str, Any], ok: bool,
                             now: datetime) -> Message:
        card_id = saga.card_ids[0]
        if not ok:
            await self._set_card(conn, card_id, "ready", now, saga_id=None)
            return Refusal(reason=out["reason"], message=out["message"])
        applied = EffectApplied.model_validate(out)
        kind = saga.card_type
        scheduled = kind in SCHEDULED
        effect = _effect_body(kind, applied)
        state = "reserved" if scheduled else "consumed"
        await self._set_card(conn, card_id, state, now, saga_id=None,
                             scheduled_for=applied.active_on if scheduled else None)
        await stage(conn, t.outbox, subjects.CARD_PLAYED, CardPlayed(
            event_id=f"played:{saga.id}", occurred_at=now, season_id=self.season_id, player_id=saga.player_id,
            card_id=card_id, card_type=kind, state=state, play_id=saga.id, effect=effect,  # type: ignore[arg-type]
            joker=applied.joker, cards=[card_id]))
        return PlayReply(card_id=card_id, type=kind, state=state, effect=effect)  # type: ignore[arg-type]

    async def _complete_cancel(self, conn: AsyncConnection, saga: Any, out: dict[str, Any], ok: bool,
                               now: datetime) -> Message:
        card_id = saga.card_ids[0]
        if not ok:
            await conn.execute(update(t.cards).where(t.cards.c.id == card_id).values(saga_id=None))
            return Refusal(reason=out["reason"], message=out["message"])
        await conn.execute(update(t.cards).where(t.cards.c.id == card_id, t.cards.c.state == "reserved").values(
            state="ready", saga_id=None, scheduled_for=None, updated_at=now))
        await stage(conn, t.outbox, subjects.CARD_RETURNED, CardReturned(
            event_id=f"returned:{card_id}:{saga.id[:8]}", occurred_at=now, season_id=self.season_id,
            player_id=saga.player_id, card_id=card_id, card_type=saga.card_type, reason="cancelled"))
        return CancelReply(card_id=card_id, type=saga.card_type, state="ready")

    async def _complete_trade(self, conn: AsyncConnection, saga: Any, out: dict[str, Any], ok: bool,
                              now: datetime) -> Message:
        row = (await conn.execute(select(t.trades).where(t.trades.c.id == saga.trade_id).with_for_update())).one()
        if not ok:
            for cid in saga.card_ids:
                await self._set_card(conn, cid, "ready", now, saga_id=None)
            await conn.execute(update(t.trades).where(t.trades.c.id == row.id).values(saga_id=None))
            if out["reason"] == "trade_no_longer_valid":
                await self._close_trade(conn, row, "cancelled", "trade_no_longer_valid", now)
            return Refusal(reason=out["reason"], message=out["message"])
        owners = {row.proposer_id: row.want_territory_id, row.partner_id: row.offer_territory_id}
        cards = list(saga.card_ids)
        for cid in cards:
            await self._set_card(conn, cid, "consumed", now, saga_id=None)
        for cid, pid in zip(cards, (row.proposer_id, row.partner_id), strict=True):
            await stage(conn, t.outbox, subjects.CARD_PLAYED, CardPlayed(
                event_id=f"played:{saga.id}:{cid[:8]}", occurred_at=now, season_id=self.season_id, player_id=pid,
                card_id=cid, card_type="trade", state="consumed", play_id=saga.id,
                effect={"trade_id": row.id, "territory_id": owners[pid]}, cards=cards))
        row = await self._close_trade(conn, row, "accepted", None, now)
        await self._cancel_without_cards(conn, (row.proposer_id, row.partner_id), now)
        return TradeReply(trade=_trade_out(row))

    async def recover(self, older_than: float = 0.0) -> int:
        """Drive every saga left pending (a crash, a timeout) for more than ``older_than`` seconds."""
        cutoff = _wall() - timedelta(seconds=older_than)
        async with self.engine.connect() as conn:
            ids = (await conn.execute(select(t.sagas.c.id).where(t.sagas.c.state == "pending",
                                                                 t.sagas.c.updated_at <= cutoff)
                                      .order_by(t.sagas.c.created_at))).scalars().all()
        done = 0
        for sid in ids:
            reply = await self._drive(sid)
            if getattr(reply, "reason", None) != "unavailable":
                done += 1
        if ids:
            log.info("sagas_recovered", pending=len(ids), completed=done)
        return done

    async def recover_forever(self, interval: float = 2.0, older_than: float = 15.0) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.recover(older_than)
            except Exception:
                log.warning("saga_recovery_failed", exc_info=True)


# =========================================================================== helpers


async def _advisory(conn: AsyncConnection, key: str) -> None:
    await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})


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


def _decode(kind: str, raw: str | None) -> Message:
    if raw is None:
        return Refusal(reason="unavailable", message="Try again shortly.")
    models: dict[str, type[Message]] = {"play": PlayReply, "cancel": CancelReply, "trade": TradeReply}
    return decode_reply(raw, models[kind])


def _trade_out(r: Any) -> TradeOut:
    return TradeOut(id=r.id, state=r.state, proposer_id=r.proposer_id, partner_id=r.partner_id,
                    offer_territory_id=r.offer_territory_id, want_territory_id=r.want_territory_id)


_TRADE_SUBJECT = {"open": subjects.TRADE_PROPOSED, "accepted": subjects.TRADE_ACCEPTED,
                  "declined": subjects.TRADE_DECLINED, "cancelled": subjects.TRADE_CANCELLED}


def _trade_event(r: Any, state: str, reason: str | None, at: datetime, tag: str) -> TradeEvent:
    return TradeEvent(type=_TRADE_SUBJECT[state], event_id=f"trade:{r.id}:{tag}", occurred_at=at,  # type: ignore[arg-type]
                      trade_id=r.id, proposer_id=r.proposer_id,
                      partner_id=r.partner_id, offer_territory_id=r.offer_territory_id,
                      want_territory_id=r.want_territory_id, state=state, reason=reason, at=at)  # type: ignore[arg-type]

