"""Trades (R18): a proposal offers one of the proposer's territories for one of the partner's; the partner's
acceptance is a saga (:mod:`turf_cards.saga`) that reserves one Trade card of each party, asks claims to swap and
consumes both cards on confirmation. A proposal that can no longer succeed (a territory left its party, a party has
no Trade card, the season ended, a party was disqualified) is cancelled and both are told (``trade.cancelled``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

import structlog

from turf_cards.context import Cards, refusal
from turf_cards.ports import CardsTx, ClaimsEffects, Saga, Trade
from turf_cards.saga import Sagas
from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.cards import (
    CardPlayed,
    ProposeTrade,
    TradeAction,
    TradeEvent,
    TradeHoldersReply,
    TradeOut,
    TradeReply,
    TradesReply,
    TradeState,
)
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.effects import EffectApplied, TradeCheck, TradeEffect
from turf_common.rules import cards as rules
from turf_common.rules.refusals import refuse

log = structlog.get_logger(__name__)

Role = Literal["proposer_id", "partner_id"]

_TRADE_SUBJECT = {"open": subjects.TRADE_PROPOSED, "accepted": subjects.TRADE_ACCEPTED,
                  "declined": subjects.TRADE_DECLINED, "cancelled": subjects.TRADE_CANCELLED}


@dataclass
class Trades:
    cx: Cards
    sagas: Sagas
    claims: ClaimsEffects

    async def list(self, player_id: str) -> TradesReply:
        """``trades.list``: the player's open proposals, both directions, oldest first."""
        return TradesReply(trades=[trade_out(r) for r in await self.cx.store.open_trades(player_id)])

    async def holders(self, player_id: str) -> TradeHoldersReply:
        """``cards.trade_holders``: R18's possible partners for ``player_id``: the other verified players holding a
        ready Trade card in the season in force (R31)."""
        sid = self.cx.season_at(await self.cx.clock.now()).season_id
        return TradeHoldersReply(player_ids=[p for p in await self.cx.store.trade_holders(sid) if p != player_id])

    async def propose(self, cmd: ProposeTrade) -> TradeReply | Refusal:
        """``trades.propose``: R18's checks on claims' facts about the two territories and on both parties' Trade
        cards; an open proposal (``trade.proposed``). A refusal of claims' ``trade_check`` is passed on."""
        now, season, r = await self.cx.gate(cmd.player_status)
        if r is not None:
            return r
        sid = season.season_id
        facts = await self.claims.trade_check(TradeCheck(
            offer_territory_id=cmd.offer_territory_id, want_territory_id=cmd.want_territory_id))
        if isinstance(facts, Refusal):
            return facts
        partner = facts.want_owner
        async with self.cx.store.begin() as tx:
            mine = await tx.hands.has_trade_card(sid, cmd.player_id)
            theirs = (partner is not None and await tx.players.is_verified(partner)
                      and await tx.hands.has_trade_card(sid, partner))
            refused = rules.check_trade_proposal(
                cmd.player_id, offer_owner=facts.offer_owner, want_owner=partner, offer_known=facts.offer_known,
                want_known=facts.want_known, proposer_has_trade=mine, partner_has_trade=theirs,
                offer_in_dispute=facts.offer_in_dispute, want_in_dispute=facts.want_in_dispute)
            if refused is not None:
                return refusal(refused)
            assert partner is not None
            # one open proposal per pair of territories (either way round), so nobody floods a partner
            # with copies of one offer; a counter-offer of the same swap is an acceptance
            if await tx.trades.open_trade_on(cmd.offer_territory_id, cmd.want_territory_id) is not None:
                return Refusal(reason="conflict", message="An open trade proposal for these two territories already "
                                                          "exists; accept, decline or withdraw it first.")
            row = await tx.trades.add_trade(uuid.uuid4().hex, cmd.player_id, partner, cmd.offer_territory_id,
                                     cmd.want_territory_id, now)
            await tx.messages.stage(subjects.TRADE_PROPOSED, trade_event(row, "open", None, now, "proposed"))
        await self.cx.relay.flush()
        return TradeReply(trade=trade_out(await self.recheck(row)))

    async def recheck(self, row: Trade) -> Trade:
        """R18: the open proposal ``row`` (committed) against claims' owners now; cancelled (``territory_lost``,
        both told) when a territory left its party. Closes a race with the ``territory.changed`` consumer, which
        cancels only the proposals it can see: a change committed after claims' facts were read for the proposal
        (or for an acceptance that was then refused) but published before the proposal was (again) open and
        idle went by unseen. Asking after the commit closes it: a change committed before this read is seen here,
        one committed after it is published after it and finds the proposal open. The row as it is after."""
        try:
            facts = await self.claims.trade_check(TradeCheck(offer_territory_id=row.offer_territory_id,
                                                             want_territory_id=row.want_territory_id))
        except BusError:
            log.warning("trade_recheck_unanswered", trade_id=row.id)
            return row
        if isinstance(facts, Refusal) or rules.trade_still_possible(
                row.proposer_id, row.partner_id, offer_owner=facts.offer_owner, want_owner=facts.want_owner,
                proposer_has_trade=True, partner_has_trade=True):   # cards are checked where they change
            return row
        now = await self.cx.clock.now()
        async with self.cx.store.begin() as tx:
            locked = await tx.trades.trade_for_update(row.id)
            if locked is None or locked.state != "open" or locked.saga_id is not None:
                return locked or row
            row = await close_trade(tx, locked, "cancelled", "territory_lost", now)
        await self.cx.relay.flush()
        return row

    async def decline(self, cmd: TradeAction) -> TradeReply | Refusal:
        """``trades.decline``: the partner says no (``trade.declined``)."""
        return await self._close_by(cmd, "partner_id", "declined", "declined")

    async def withdraw(self, cmd: TradeAction) -> TradeReply | Refusal:
        """``trades.withdraw``: the proposer takes it back (``trade.cancelled``, reason ``withdrawn``)."""
        return await self._close_by(cmd, "proposer_id", "cancelled", "withdrawn")

    async def _close_by(self, cmd: TradeAction, role: Role, state: TradeState, reason: str) -> TradeReply | Refusal:
        now, _, r = await self.cx.gate(cmd.player_status)
        if r is not None:
            return r
        async with self.cx.store.begin() as tx:
            row = await _trade_for(tx, cmd, role)
            if isinstance(row, Refusal):
                return row
            row = await close_trade(tx, row, state, reason, now)
        await self.cx.relay.flush()
        return TradeReply(trade=trade_out(row))

    async def accept(self, cmd: TradeAction) -> TradeReply | Refusal:
        """``trades.accept`` (R18): reserve one ready Trade card of each (verified) party and drive the swap; a
        party without one cancels the proposal (``trade_no_longer_valid``)."""
        now, season, r = await self.cx.gate(cmd.player_status)
        if r is not None:
            return r
        saga_id = uuid.uuid4().hex
        async with self.cx.store.begin() as tx:
            row = await _trade_for(tx, cmd, "partner_id")
            if isinstance(row, Refusal):
                return row
            for pid in sorted((row.proposer_id, row.partner_id)):
                await tx.hands.lock_hand(pid)
            picked = []
            for pid in (row.proposer_id, row.partner_id):
                cid = await tx.hands.oldest_trade_card_for_update(season.season_id, pid)
                if cid is not None and await tx.players.is_verified(pid):
                    picked.append(cid)
            refused = len(picked) < 2
            if refused:
                await close_trade(tx, row, "cancelled", "no_trade_card", now)
            else:
                effect = TradeEffect(command_id=saga_id, player_id=row.partner_id, trade_id=row.id,
                                     proposer_id=row.proposer_id, offer_territory_id=row.offer_territory_id,
                                     want_territory_id=row.want_territory_id)
                for cid in picked:
                    await tx.hands.set_card(cid, "reserved", now, saga_id=saga_id)
                await tx.trades.set_trade_saga(row.id, saga_id)
                await tx.sagas.add_saga(Saga(id=saga_id, kind="trade", player_id=cmd.player_id, card_type="trade",
                                       card_ids=picked, subject=subjects.CLAIMS_EFFECT_TRADE,
                                       command=effect.model_dump_json(), trade_id=row.id))
        if refused:
            await self.cx.relay.flush()
            return refusal(refuse("trade_no_longer_valid"))
        return cast("TradeReply | Refusal", await self.sagas.drive(saga_id))

    async def after_trade(self, saga: Saga, reply: object) -> None:
        """After an acceptance completed (by the player's request or by recovery): a refusal that left the
        proposal open again is checked against claims' owners now (:meth:`recheck`), since an ownership change
        published while the acceptance was in flight was skipped by the consumer."""
        if not isinstance(reply, Refusal) or saga.trade_id is None:
            return
        for row in await self.cx.store.open_trades(saga.player_id):
            if row.id == saga.trade_id and row.saga_id is None:
                await self.recheck(row)

    async def complete_trade(self, tx: CardsTx, saga: Saga, out: EffectApplied | Refusal,
                             now: datetime) -> TradeReply | Refusal:
        """Refused → both cards back to ready (and the proposal cancelled if claims says it can no longer
        succeed); swapped → both cards consumed (a ``card.played`` each), the proposal accepted, and the parties'
        other proposals that lost their last Trade card cancelled. A proposal closed while its acceptance was in
        flight (a party disqualified, R28; the season ended) is not closed twice: refused, it stays as it is;
        swapped (claims did swap the owners), it is accepted."""
        assert saga.trade_id is not None
        row = await tx.trades.trade_for_update(saga.trade_id)
        assert row is not None
        if isinstance(out, Refusal):
            for cid in saga.card_ids:
                await tx.hands.set_card(cid, "ready", now, saga_id=None)
            if row.state == "open":
                await tx.trades.set_trade_saga(row.id, None)
                if out.reason == "trade_no_longer_valid":
                    await close_trade(tx, row, "cancelled", "trade_no_longer_valid", now)
            return Refusal(reason=out.reason, message=out.message)
        owners = {row.proposer_id: row.want_territory_id, row.partner_id: row.offer_territory_id}
        cards = list(saga.card_ids)
        first = await tx.hands.card_for_update(cards[0])   # R31: the season whose hands held the two cards
        season_id = first.season_id if first is not None else self.cx.season_at(now).season_id
        for cid in cards:
            await tx.hands.set_card(cid, "consumed", now, saga_id=None)
        for cid, pid in zip(cards, (row.proposer_id, row.partner_id), strict=True):
            await tx.messages.stage(subjects.CARD_PLAYED, CardPlayed(
                event_id=f"played:{saga.id}:{cid[:8]}", occurred_at=now, season_id=season_id,
                player_id=pid, card_id=cid, card_type="trade", state="consumed", play_id=saga.id,
                effect={"trade_id": row.id, "territory_id": owners[pid]}, cards=cards))
        row = await close_trade(tx, row, "accepted", None, now)
        await cancel_without_cards(tx, season_id, (row.proposer_id, row.partner_id), now)
        return TradeReply(trade=trade_out(row))

    async def territory_changed(self, ev: TerritoryChanged) -> int:
        """R18: an open proposal whose territory left its party can no longer succeed: cancelled, both told.
        Idempotent by itself (a cancelled proposal is no longer open). Returns how many were cancelled.

        Every ownership change comes here and almost none touches a proposal, so a plain read looks first and
        only a hit opens the locking transaction (this consumer ran a transaction per claim)."""
        if not await self.cx.store.trade_lost(ev.territory_id, ev.owner_id):
            return 0
        async with self.cx.store.begin() as tx:
            rows = await tx.trades.trades_lost_for_update(ev.territory_id, ev.owner_id)
            for row in rows:
                await close_trade(tx, row, "cancelled", "territory_lost", ev.occurred_at)
        return len(rows)


async def _trade_for(tx: CardsTx, cmd: TradeAction, role: Role) -> Trade | Refusal:
    """The open proposal ``cmd`` acts on, locked, if the player holds ``role`` in it; else the refusal."""
    row = await tx.trades.trade_for_update(cmd.trade_id)
    if row is None or cmd.player_id not in (row.proposer_id, row.partner_id):
        return Refusal(reason="not_found", message="No trade with that id is yours.")
    if getattr(row, role) != cmd.player_id:
        who = "the player it was proposed to" if role == "partner_id" else "the player who proposed it"
        return Refusal(reason="forbidden", message=f"Only {who} may do this.")
    if row.state != "open" or row.saga_id is not None:
        return refusal(refuse("trade_no_longer_valid", f"This trade is {row.state}, no longer open."))
    return row


async def close_trade(tx: CardsTx, row: Trade, state: TradeState, reason: str | None, at: datetime) -> Trade:
    """Close the proposal (accepted | declined | cancelled) and stage its event; the row as stored after."""
    closed = await tx.trades.close_trade(row.id, state, reason, at)
    await tx.messages.stage(_TRADE_SUBJECT[state], trade_event(row, state, reason, at, state))
    return closed


async def close_open_trades(tx: CardsTx, reason: str, at: datetime, player_id: str | None = None) -> None:
    """R18: every open proposal (of ``player_id``, either side) cancelled: the season ended, a party was
    disqualified."""
    for row in await tx.trades.open_trades_for_update(player_id):
        await close_trade(tx, row, "cancelled", reason, at)


async def cancel_without_cards(tx: CardsTx, season_id: str, players: Iterable[str], at: datetime) -> None:
    """R18: a proposal whose party holds no Trade card any more (in the season's hands: proposals are open in
    the running season only, they end with it) can no longer succeed."""
    for row in await tx.trades.idle_open_trades_for_update(players):
        if not (await tx.hands.has_trade_card(season_id, row.proposer_id)
                and await tx.hands.has_trade_card(season_id, row.partner_id)):
            await close_trade(tx, row, "cancelled", "no_trade_card", at)


def trade_out(r: Trade) -> TradeOut:
    return TradeOut(id=r.id, state=r.state, proposer_id=r.proposer_id, partner_id=r.partner_id,
                    offer_territory_id=r.offer_territory_id, want_territory_id=r.want_territory_id)


def trade_event(r: Trade, state: TradeState, reason: str | None, at: datetime, tag: str) -> TradeEvent:
    return TradeEvent(type=_TRADE_SUBJECT[state], event_id=f"trade:{r.id}:{tag}", occurred_at=at,  # type: ignore[arg-type]
                      trade_id=r.id, proposer_id=r.proposer_id,
                      partner_id=r.partner_id, offer_territory_id=r.offer_territory_id,
                      want_territory_id=r.want_territory_id, state=state, reason=reason, at=at)
