"""The cards store on PostgreSQL (schema ``cards``): :class:`turf_cards.ports.CardsStore` over SQLAlchemy Core.

Each method is one statement (``add_trade`` and ``close_trade`` read the row back: two), the ones the service ran
before it had ports."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_cards.adapters import tables as t
from turf_cards.ports import Card, CardState, Saga, Trade
from turf_common.contracts.base import Event
from turf_common.contracts.cards import TradeState
from turf_common.outbox import first_time, stage
from turf_common.rules.cards import CardType

LIVE = ("ready", "reserved")   # R12: unused cards, counted for the Monday top-up


def _wall() -> datetime:
    """Wall time, for bookkeeping only (saga age); game decisions use the game clock."""
    return datetime.now(UTC)


def _card(r: Any) -> Card:
    return Card(id=r.id, player_id=r.player_id, card_type=r.card_type, state=r.state, draw_index=r.draw_index,
                saga_id=r.saga_id, scheduled_for=r.scheduled_for, season_id=r.season_id)


def _trade(r: Any) -> Trade:
    return Trade(id=r.id, proposer_id=r.proposer_id, partner_id=r.partner_id,
                 offer_territory_id=r.offer_territory_id, want_territory_id=r.want_territory_id, state=r.state,
                 reason=r.reason, saga_id=r.saga_id)


def _saga(r: Any) -> Saga:
    return Saga(id=r.id, kind=r.kind, player_id=r.player_id, card_type=r.card_type, card_ids=list(r.card_ids),
                subject=r.subject, command=r.command, trade_id=r.trade_id, state=r.state, reply=r.reply)


def _lost(territory_id: str, owner_id: str | None) -> Any:
    """R18: open proposals (no acceptance in flight) of which ``territory_id`` left the party that holds it."""
    tr = t.trades.c
    return select(t.trades).where(
        tr.state == "open", tr.saga_id.is_(None),
        or_(and_(tr.offer_territory_id == territory_id, tr.proposer_id != (owner_id or "")),
            and_(tr.want_territory_id == territory_id, tr.partner_id != (owner_id or ""))))


class SqlCardsStore:
    """:class:`turf_cards.ports.CardsStore` on ``engine``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[SqlCardsTx]:
        async with self.engine.begin() as conn:
            yield SqlCardsTx(conn)

    async def hand(self, season_id: str, player_id: str) -> list[Card]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.cards).where(
                t.cards.c.season_id == season_id, t.cards.c.player_id == player_id, t.cards.c.state.in_(LIVE))
                .order_by(t.cards.c.drawn_at, t.cards.c.draw_index, t.cards.c.id))).all()
        return [_card(r) for r in rows]

    async def open_trades(self, player_id: str) -> list[Trade]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.trades).where(
                t.trades.c.state == "open",
                or_(t.trades.c.proposer_id == player_id, t.trades.c.partner_id == player_id))
                .order_by(t.trades.c.created_at, t.trades.c.id))).all()
        return [_trade(r) for r in rows]

    async def trade_holders(self, season_id: str) -> list[str]:
        c, a = t.cards.c, t.accounts.c
        q = (select(c.player_id).distinct().join(t.accounts, a.player_id == c.player_id)
             .where(c.season_id == season_id, c.card_type == "trade", c.state == "ready", a.status == "verified")
             .order_by(c.player_id))
        async with self.engine.connect() as conn:
            return list((await conn.execute(q)).scalars().all())

    async def trade_lost(self, territory_id: str, owner_id: str | None) -> bool:
        async with self.engine.connect() as conn:
            hit = _lost(territory_id, owner_id).with_only_columns(t.trades.c.id).limit(1)
            return (await conn.execute(hit)).first() is not None

    async def traded_territories(self, territory_ids: Iterable[str]) -> set[str]:
        ids = sorted(set(territory_ids))
        tr = t.trades.c
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(tr.offer_territory_id, tr.want_territory_id).where(
                tr.state == "open", or_(tr.offer_territory_id.in_(ids), tr.want_territory_id.in_(ids))))).all()
        return {tid for r in rows for tid in r} & set(ids)

    async def saga(self, saga_id: str) -> Saga:
        async with self.engine.connect() as conn:
            return _saga((await conn.execute(select(t.sagas).where(t.sagas.c.id == saga_id))).one())

    async def has_staged(self, event_id: str) -> bool:
        async with self.engine.connect() as conn:
            return (await conn.execute(select(t.outbox.c.event_id).where(
                t.outbox.c.event_id == event_id))).first() is not None

    async def pending_sagas(self, older_than: float) -> list[str]:
        cutoff = _wall() - timedelta(seconds=older_than)
        async with self.engine.connect() as conn:
            return list((await conn.execute(select(t.sagas.c.id).where(
                t.sagas.c.state == "pending", t.sagas.c.updated_at <= cutoff)
                .order_by(t.sagas.c.created_at))).scalars().all())


class SqlCardsTx:
    """:class:`turf_cards.ports.CardsTx` on one open transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        # every role of the unit of work (ports.CardsTx) is served by this one object
        self.messages = self.season = self.players = self.hands = self.sagas = self.trades = self

    async def first_time(self, event_id: str, subject: str) -> bool:
        return await first_time(self.conn, t.inbox, event_id, subject)

    async def stage(self, subject: str, event: Event) -> None:
        await stage(self.conn, t.outbox, subject, event)

    async def staged(self, event_id: str) -> str | None:
        return (await self.conn.execute(select(t.outbox.c.payload)  # type: ignore[no-any-return]
                                        .where(t.outbox.c.event_id == event_id))).scalar_one_or_none()

    async def lock_hand(self, player_id: str) -> None:
        await self.conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": "cards:" + player_id})

    async def record_season(self, season_id: str, commitment: str) -> str:
        await self.conn.execute(pg_insert(t.season).values(season_id=season_id, commitment=commitment,
                                                           started=True, ended=False).on_conflict_do_nothing())
        return (await self.conn.execute(select(t.season.c.commitment)  # type: ignore[no-any-return]
                                        .where(t.season.c.season_id == season_id))).scalar_one()

    # ---- players
    async def verified_players(self, season_id: str) -> list[str]:
        p, a = t.players.c, t.accounts.c
        return list((await self.conn.execute(
            select(p.player_id).join(t.accounts, a.player_id == p.player_id)
            .where(p.season_id == season_id, a.status == "verified").order_by(p.player_id))).scalars().all())

    async def player_known(self, player_id: str) -> bool:
        return (await self.conn.execute(select(t.accounts.c.player_id).where(
            t.accounts.c.player_id == player_id))).first() is not None

    async def is_verified(self, player_id: str) -> bool:
        return (await self.conn.execute(select(t.accounts.c.player_id).where(
            t.accounts.c.player_id == player_id, t.accounts.c.status == "verified"))).first() is not None

    async def add_player(self, player_id: str, verified_at: datetime) -> None:
        await self.conn.execute(t.accounts.insert().values(player_id=player_id, status="verified",
                                                           verified_at=verified_at))

    async def disqualify(self, player_id: str, at: datetime) -> None:
        await self.conn.execute(pg_insert(t.accounts).values(
            player_id=player_id, status="disqualified", verified_at=at,
        ).on_conflict_do_update(index_elements=["player_id"], set_={"status": "disqualified"}))

    async def join(self, season_id: str, player_id: str, at: datetime) -> bool:
        done = await self.conn.execute(pg_insert(t.players).values(
            season_id=season_id, player_id=player_id, joined_at=at, draws=0).on_conflict_do_nothing()
            .returning(t.players.c.player_id))
        return done.first() is not None

    async def joined(self, season_id: str, player_id: str) -> bool:
        return (await self.conn.execute(select(t.players.c.player_id).where(
            t.players.c.season_id == season_id, t.players.c.player_id == player_id))).first() is not None

    async def draws_for_update(self, season_id: str, player_id: str) -> int:
        p = t.players.c
        return int((await self.conn.execute(select(p.draws).where(p.season_id == season_id, p.player_id == player_id)
                                            .with_for_update())).scalar_one())

    async def set_draws(self, season_id: str, player_id: str, draws: int) -> None:
        p = t.players.c
        await self.conn.execute(update(t.players).where(p.season_id == season_id, p.player_id == player_id)
                                .values(draws=draws))

    # ---- cards
    async def unused(self, season_id: str, player_id: str) -> int:
        c = t.cards.c
        return int((await self.conn.execute(select(func.count()).where(
            c.season_id == season_id, c.player_id == player_id, c.state.in_(LIVE)))).scalar_one())

    async def add_card(self, season_id: str, card_id: str, player_id: str, card_type: CardType,
                       draw_index: int | None, reason: str, at: datetime) -> None:
        await self.conn.execute(t.cards.insert().values(
            id=card_id, season_id=season_id, player_id=player_id, card_type=card_type, state="ready",
            draw_index=draw_index, reason=reason, drawn_at=at, updated_at=at))

    async def card_for_update(self, card_id: str) -> Card | None:
        row = (await self.conn.execute(select(t.cards).where(t.cards.c.id == card_id).with_for_update())).first()
        return None if row is None else _card(row)

    async def oldest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> Card | None:
        c = t.cards.c
        row = (await self.conn.execute(select(t.cards).where(
            c.season_id == season_id, c.player_id == player_id, c.card_type == card_type, c.state == "ready")
            .order_by(c.drawn_at, c.draw_index, c.id).limit(1).with_for_update())).first()
        return None if row is None else _card(row)

    async def oldest_trade_card_for_update(self, season_id: str, player_id: str) -> str | None:
        c = t.cards.c
        row = (await self.conn.execute(select(c.id).where(
            c.season_id == season_id, c.player_id == player_id, c.card_type == "trade", c.state == "ready")
            .order_by(c.drawn_at, c.draw_index).limit(1).with_for_update())).first()
        return None if row is None else str(row.id)

    async def newest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        c = t.cards.c
        row = (await self.conn.execute(select(c.id).where(
            c.season_id == season_id, c.player_id == player_id, c.card_type == card_type, c.state == "ready")
            .order_by(c.drawn_at.desc(), c.id).limit(1).with_for_update())).first()
        return None if row is None else str(row.id)

    async def newest_scheduled_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        c = t.cards.c
        row = (await self.conn.execute(select(c.id).where(
            c.season_id == season_id, c.player_id == player_id, c.card_type == card_type, c.state == "reserved",
            c.scheduled_for.is_not(None),
            c.saga_id.is_(None)).order_by(c.drawn_at.desc(), c.id).limit(1).with_for_update())).first()
        return None if row is None else str(row.id)

    async def has_trade_card(self, season_id: str, player_id: str) -> bool:
        c = t.cards.c
        return (await self.conn.execute(select(c.id).where(
            c.season_id == season_id, c.player_id == player_id, c.card_type == "trade", c.state == "ready")
            .limit(1))).first() is not None

    async def set_card(self, card_id: str, state: CardState, at: datetime, **columns: str | date | None) -> None:
        await self.conn.execute(update(t.cards).where(t.cards.c.id == card_id).values(
            state=state, updated_at=at, **columns))

    async def clear_card_saga(self, card_id: str) -> None:
        await self.conn.execute(update(t.cards).where(t.cards.c.id == card_id).values(saga_id=None))

    async def unschedule(self, card_id: str, at: datetime) -> None:
        await self.conn.execute(update(t.cards).where(t.cards.c.id == card_id, t.cards.c.state == "reserved")
                                .values(state="ready", saga_id=None, scheduled_for=None, updated_at=at))

    # ---- sagas
    async def add_saga(self, saga: Saga) -> None:
        await self.conn.execute(t.sagas.insert().values(
            id=saga.id, kind=saga.kind, player_id=saga.player_id, card_type=saga.card_type, card_ids=saga.card_ids,
            subject=saga.subject, command=saga.command, trade_id=saga.trade_id, state=saga.state,
            created_at=_wall(), updated_at=_wall()))

    async def saga_for_update(self, saga_id: str) -> Saga:
        return _saga((await self.conn.execute(select(t.sagas).where(t.sagas.c.id == saga_id)
                                              .with_for_update())).one())

    async def finish_saga(self, saga_id: str, state: str, reply: str) -> None:
        await self.conn.execute(update(t.sagas).where(t.sagas.c.id == saga_id).values(
            state=state, reply=reply, updated_at=_wall()))

    # ---- trades
    async def add_trade(self, trade_id: str, proposer_id: str, partner_id: str, offer_territory_id: str,
                        want_territory_id: str, at: datetime) -> Trade:
        await self.conn.execute(t.trades.insert().values(
            id=trade_id, proposer_id=proposer_id, partner_id=partner_id, offer_territory_id=offer_territory_id,
            want_territory_id=want_territory_id, state="open", created_at=at))
        return _trade((await self.conn.execute(select(t.trades).where(t.trades.c.id == trade_id))).one())

    async def trade_for_update(self, trade_id: str) -> Trade | None:
        row = (await self.conn.execute(select(t.trades).where(t.trades.c.id == trade_id).with_for_update())).first()
        return None if row is None else _trade(row)

    async def open_trade_on(self, territory_a: str, territory_b: str) -> Trade | None:
        a, b = sorted((territory_a, territory_b))
        await self.conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": f"trade-pair:{a}:{b}"})
        tr = t.trades.c
        row = (await self.conn.execute(select(t.trades).where(tr.state == "open", or_(
            and_(tr.offer_territory_id == a, tr.want_territory_id == b),
            and_(tr.offer_territory_id == b, tr.want_territory_id == a))).limit(1))).first()
        return None if row is None else _trade(row)

    async def set_trade_saga(self, trade_id: str, saga_id: str | None) -> None:
        await self.conn.execute(update(t.trades).where(t.trades.c.id == trade_id).values(saga_id=saga_id))

    async def close_trade(self, trade_id: str, state: TradeState, reason: str | None, at: datetime) -> Trade:
        await self.conn.execute(update(t.trades).where(t.trades.c.id == trade_id).values(
            state=state, reason=reason, closed_at=at, saga_id=None))
        return _trade((await self.conn.execute(select(t.trades).where(t.trades.c.id == trade_id))).one())

    async def open_trades_for_update(self, player_id: str | None = None) -> list[Trade]:
        tr = t.trades.c
        q = select(t.trades).where(tr.state == "open")
        if player_id is not None:
            q = q.where(or_(tr.proposer_id == player_id, tr.partner_id == player_id))
        return [_trade(r) for r in (await self.conn.execute(q.with_for_update())).all()]

    async def idle_open_trades_for_update(self, players: Iterable[str]) -> list[Trade]:
        ps = list(players)
        tr = t.trades.c
        rows = (await self.conn.execute(select(t.trades).where(
            tr.state == "open", tr.saga_id.is_(None),
            or_(tr.proposer_id.in_(ps), tr.partner_id.in_(ps))).with_for_update())).all()
        return [_trade(r) for r in rows]

    async def trades_lost_for_update(self, territory_id: str, owner_id: str | None) -> list[Trade]:
        return [_trade(r) for r in (await self.conn.execute(_lost(territory_id, owner_id).with_for_update())).all()]
