"""NATS subscribers of the cards service: decode, call a use case, reply; and its one durable consumer."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_cards.handlers import CardsEvent, CardsHandlers
from turf_common.bus import Batch, durable, settle
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.cards import (
    AdjustHand,
    AdjustReply,
    CancelReply,
    CancelSchedule,
    CardConsumed,
    CardDrawn,
    CardPlayed,
    CardReturned,
    HandAdjusted,
    HandReply,
    HandRequest,
    HandsDealt,
    PlayCard,
    PlayReply,
    ProposeTrade,
    SeedCommitted,
    SeedReply,
    SeedRequest,
    SeedRevealed,
    TradeAction,
    TradeEvent,
    TradeHoldersReply,
    TradeHoldersRequest,
    TradeReply,
    TradesReply,
    TradesRequest,
)

QUEUE = "cards"
DURABLE = "cards"
#: What the durable consumer takes, in stream order (see :data:`turf_cards.handlers.CardsEvent`).
CONSUMED = [subjects.CLOCK_SEASON_STARTED, subjects.CLOCK_DAY_STARTED, subjects.CLOCK_SEASON_ENDED,
            subjects.PLAYER_VERIFIED, subjects.PLAYER_DISQUALIFIED, subjects.PROTECTION_ACTIVATED,
            subjects.PROTECTION_LAPSED, subjects.TERRITORY_CHANGED, subjects.SEASON_JOINED]
#: Requests that wait on row locks and on the claims service (up to its 10 s timeout) run this many at a time;
#: reads and corrections are short and take one at a time.
PLAY_WORKERS = 8
TRADE_WORKERS = 4
#: The events the service publishes (from its outbox), for the AsyncAPI document.
PUBLISHED: dict[str, type[Event]] = {
    subjects.CARD_DRAWN: CardDrawn, subjects.CARD_DEALT: HandsDealt, subjects.CARD_PLAYED: CardPlayed,
    subjects.CARD_CONSUMED: CardConsumed, subjects.CARD_RETURNED: CardReturned,
    subjects.CARD_ADJUSTED: HandAdjusted, subjects.CARD_SEED_COMMITTED: SeedCommitted,
    subjects.CARD_SEED_REVEALED: SeedRevealed, subjects.TRADE_PROPOSED: TradeEvent,
    subjects.TRADE_ACCEPTED: TradeEvent, subjects.TRADE_DECLINED: TradeEvent, subjects.TRADE_CANCELLED: TradeEvent,
}


def router(h: CardsHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    @r.subscriber(subjects.CARDS_HAND, queue=QUEUE, title=subjects.CARDS_HAND)
    async def hand(q: HandRequest) -> HandReply:
        return await h.hands.hand(q.player_id)

    @r.subscriber(subjects.CARDS_SEED, queue=QUEUE, title=subjects.CARDS_SEED)
    async def seed(_: SeedRequest) -> SeedReply:
        return await h.hands.seed_info()

    @r.subscriber(subjects.CARDS_ADJUST, queue=QUEUE, title=subjects.CARDS_ADJUST)
    async def adjust(cmd: AdjustHand) -> AdjustReply | Refusal:
        return await h.hands.adjust(cmd)

    @r.subscriber(subjects.CARDS_PLAY, queue=QUEUE, max_workers=PLAY_WORKERS, title=subjects.CARDS_PLAY)
    async def play(cmd: PlayCard) -> PlayReply | Refusal:
        return await h.plays.play(cmd)

    @r.subscriber(subjects.CARDS_CANCEL, queue=QUEUE, max_workers=TRADE_WORKERS, title=subjects.CARDS_CANCEL)
    async def cancel(cmd: CancelSchedule) -> CancelReply | Refusal:
        return await h.plays.cancel(cmd)

    @r.subscriber(subjects.TRADES_PROPOSE, queue=QUEUE, max_workers=TRADE_WORKERS, title=subjects.TRADES_PROPOSE)
    async def propose(cmd: ProposeTrade) -> TradeReply | Refusal:
        return await h.trades.propose(cmd)

    @r.subscriber(subjects.TRADES_ACCEPT, queue=QUEUE, max_workers=TRADE_WORKERS, title=subjects.TRADES_ACCEPT)
    async def accept(cmd: TradeAction) -> TradeReply | Refusal:
        return await h.trades.accept(cmd)

    @r.subscriber(subjects.TRADES_DECLINE, queue=QUEUE, max_workers=TRADE_WORKERS, title=subjects.TRADES_DECLINE)
    async def decline(cmd: TradeAction) -> TradeReply | Refusal:
        return await h.trades.decline(cmd)

    @r.subscriber(subjects.TRADES_WITHDRAW, queue=QUEUE, max_workers=TRADE_WORKERS, title=subjects.TRADES_WITHDRAW)
    async def withdraw(cmd: TradeAction) -> TradeReply | Refusal:
        return await h.trades.withdraw(cmd)

    @r.subscriber(subjects.TRADES_LIST, queue=QUEUE, title=subjects.TRADES_LIST)
    async def trades(q: TradesRequest) -> TradesReply:
        return await h.trades.list(q.player_id)

    @r.subscriber(subjects.CARDS_TRADE_HOLDERS, queue=QUEUE, title=subjects.CARDS_TRADE_HOLDERS)
    async def trade_holders(q: TradeHoldersRequest) -> TradeHoldersReply:
        return await h.trades.holders(q.player_id)

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[CardsEvent], batch: Batch) -> None:
        await settle(batch, events, h.batch(events), DURABLE)

    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r
