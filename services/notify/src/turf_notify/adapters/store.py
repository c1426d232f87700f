"""The notify store on PostgreSQL (schema ``notify``): :class:`turf_notify.ports.NotifyStore` over SQLAlchemy
Core, one statement per method where it can."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, delete, exists, func, insert, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common.contracts.base import Event
from turf_common.contracts.notify import AnnouncementOut, NotificationOut
from turf_common.outbox import first_times, stage
from turf_common.rules.medals import Award, Change
from turf_notify.adapters import mailqueue
from turf_notify.adapters import tables as t
from turf_notify.ports import MAX_SUBSCRIPTIONS, PendingPush, Post, Reminder, Subscription
from turf_notify.rules import Draft


def _wall() -> datetime:
    """Wall time, for bookkeeping only (when a row was made); game decisions use the game clock."""
    return datetime.now(UTC)


def _out(r: Any) -> NotificationOut:
    return NotificationOut(id=r.id, at=r.at, kind=r.kind, message=r.message, data=r.data)


def _ann(r: Any) -> AnnouncementOut:
    return AnnouncementOut(id=r.id, at=r.at, title=r.title, body=r.body)


class SqlTx:
    """:class:`turf_notify.ports.NotifyTx` on one connection in a transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        # every role of the unit of work (ports.NotifyTx) is served by this one object
        self.messages = self.roster = self.notifications = self.deliveries = self.reminders = self
        self.standings = self.announcements = self.mail = self.medals = self

    async def first_times(self, events: Sequence[tuple[str, str]]) -> set[str]:
        return await first_times(self.conn, t.inbox, events)

    async def save_player(self, player_id: str, display_name: str | None, status: str) -> None:
        values: dict[str, Any] = {"status": status}
        if display_name is not None:
            values["display_name"] = display_name
        await self.conn.execute(pg_insert(t.players).values(player_id=player_id, display_name=display_name,
                                                             status=status)
                                .on_conflict_do_update(index_elements=["player_id"], set_=values))

    async def rename_player(self, player_id: str, display_name: str) -> None:
        pl = t.players.c
        erased = and_(pl.status == "disqualified", pl.display_name.is_(None))   # a withdrawn player's name stays gone
        await self.conn.execute(update(t.players).where(pl.player_id == player_id, ~erased)
                                .values(display_name=display_name))

    async def erase_player(self, player_id: str) -> None:
        for table in (t.notifications, t.reads, t.subscriptions, t.pushes, t.reminders):
            await self.conn.execute(delete(table).where(table.c.player_id == player_id))
        await self.conn.execute(update(t.players).where(t.players.c.player_id == player_id)
                                .values(display_name=None))

    async def player_names(self, player_ids: set[str]) -> dict[str, str]:
        if not player_ids:
            return {}
        rows = await self.conn.execute(select(t.players.c.player_id, t.players.c.display_name)
                                       .where(t.players.c.player_id.in_(player_ids)))
        return {r.player_id: r.display_name for r in rows if r.display_name}

    async def players(self) -> list[str]:
        rows = await self.conn.execute(select(t.players.c.player_id).where(t.players.c.status == "verified")
                                       .order_by(t.players.c.player_id))
        return [r.player_id for r in rows]

    async def add(self, draft: Draft) -> NotificationOut:
        row = (await self.conn.execute(insert(t.notifications).values(
            player_id=draft.player_id, at=draft.at, kind=draft.kind, message=draft.message, data=draft.data)
            .returning(*t.notifications.c))).one()
        return _out(row)

    async def stage(self, subject: str, event: Event) -> None:
        await stage(self.conn, t.outbox, subject, event)

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        await mailqueue.queue_mail(self.conn, key, to, kind, subject, text, html, now, at)

    async def queue_push(self, n: NotificationOut, player_id: str, not_before: datetime,
                         hold_until: datetime) -> None:
        p, s = t.pushes.c, t.subscriptions.c
        row = select(*(literal(v, c.type) for v, c in ((n.id, p.id), (player_id, p.player_id), (n.kind, p.kind),
                                                        (n.message, p.message), (not_before, p.not_before),
                                                        (hold_until, p.hold_until))))
        await self.conn.execute(insert(t.pushes).from_select(
            ["id", "player_id", "kind", "message", "not_before", "hold_until"],
            row.where(exists().where(s.player_id == player_id))))

    async def queue_post(self, content: str) -> None:
        await self.conn.execute(insert(t.posts).values(content=content, created_at=_wall()))

    async def add_reminder(self, r: Reminder) -> None:
        await self.conn.execute(pg_insert(t.reminders).values(
            id=r.id, player_id=r.player_id, territory_id=r.territory_id, due=r.due, until=r.until)
            .on_conflict_do_nothing())

    async def drop_reminders(self, player_id: str, territory_id: str) -> None:
        await self.conn.execute(delete(t.reminders).where(t.reminders.c.player_id == player_id,
                                                          t.reminders.c.territory_id == territory_id))

    async def take_due_reminders(self, now: datetime) -> list[Reminder]:
        due = select(t.reminders.c.id).where(t.reminders.c.due <= now).with_for_update(skip_locked=True)
        rows = await self.conn.execute(delete(t.reminders).where(t.reminders.c.id.in_(due.scalar_subquery()))
                                       .returning(*t.reminders.c))
        return sorted((Reminder(r.id, r.player_id, r.territory_id, r.due, r.until) for r in rows),
                      key=lambda r: (r.due, r.id))

    async def next_reminder_due(self) -> datetime | None:
        return (await self.conn.execute(select(func.min(t.reminders.c.due)))).scalar_one()  # type: ignore[no-any-return]

    async def set_scores(self, season_id: str, totals: dict[str, int], removed: list[str]) -> None:
        if totals:
            ins = pg_insert(t.scores)   # executemany: one cached statement, sent as one multi-row INSERT
            await self.conn.execute(ins.on_conflict_do_update(index_elements=["season_id", "player_id"],
                                                              set_={"total": ins.excluded.total}),
                                    [{"season_id": season_id, "player_id": p, "total": v}
                                     for p, v in totals.items()])
        if removed:
            await self.conn.execute(delete(t.scores).where(t.scores.c.season_id == season_id,
                                                           t.scores.c.player_id.in_(removed)))

    async def scores(self, season_id: str) -> dict[str, int]:
        rows = await self.conn.execute(select(t.scores).where(t.scores.c.season_id == season_id))
        return {r.player_id: int(r.total) for r in rows}

    async def announcement_by_command(self, command_id: str) -> AnnouncementOut | None:
        row = (await self.conn.execute(select(t.announcements)
                                       .where(t.announcements.c.command_id == command_id))).first()
        return _ann(row) if row else None

    async def add_announcement(self, command_id: str, a: AnnouncementOut) -> None:
        await self.conn.execute(insert(t.announcements).values(id=a.id, command_id=command_id, at=a.at,
                                                               title=a.title, body=a.body, created_at=_wall()))

    async def take_pushes(self, game_now: datetime, wall_now: datetime) -> list[PendingPush]:
        p = t.pushes.c
        ready = (select(p.player_id).where(p.not_before <= game_now, p.hold_until <= wall_now).distinct())
        rows = await self.conn.execute(delete(t.pushes).where(
            p.id.in_(select(p.id).where(p.player_id.in_(ready), p.not_before <= game_now)
                     .with_for_update(skip_locked=True).scalar_subquery())).returning(*t.pushes.c))
        return sorted((PendingPush(r.id, r.player_id, r.kind, r.message, r.not_before, r.hold_until) for r in rows),
                      key=lambda x: x.id)

    async def take_posts(self, limit: int) -> list[Post]:
        rows = await self.conn.execute(select(t.posts.c.id, t.posts.c.content).where(t.posts.c.sent_at.is_(None))
                                       .order_by(t.posts.c.id).limit(limit).with_for_update(skip_locked=True))
        return [Post(r.id, r.content) for r in rows]

    async def post_sent(self, post_id: int) -> None:
        await self.conn.execute(update(t.posts).where(t.posts.c.id == post_id).values(sent_at=_wall()))

    async def record_changes(self, season_id: str, changes: Sequence[tuple[str, Change]]) -> set[str]:
        if not changes:
            return set()
        rows = [{"season_id": season_id, "event_id": eid, "at": c.at, "territory_id": c.territory_id,
                 "owner_id": c.owner_id, "previous_owner_id": c.previous_owner_id, "fortified": c.fortified,
                 "cause": c.cause}
                for eid, c in changes]
        kept = set()
        for row in rows:   # one at a time: the identity numbers them in stream order
            r = await self.conn.execute(pg_insert(t.medal_changes).values(row).on_conflict_do_nothing()
                                        .returning(t.medal_changes.c.event_id))
            kept |= set(r.scalars())
        return kept

    async def changes_naming(self, season_id: str, player_ids: set[str]) -> list[Change]:
        if not player_ids:
            return []
        c = t.medal_changes.c
        rows = await self.conn.execute(select(t.medal_changes).where(
            c.season_id == season_id,
            or_(c.owner_id.in_(player_ids), c.previous_owner_id.in_(player_ids))).order_by(c.seq))
        return [Change(r.at, r.territory_id, r.owner_id, r.previous_owner_id, r.fortified, r.cause) for r in rows]

    async def medal_players(self, season_id: str) -> set[str]:
        c = t.medal_changes.c
        rows = await self.conn.execute(select(c.owner_id).where(c.season_id == season_id)
                                       .union(select(c.previous_owner_id).where(c.season_id == season_id)))
        return {r[0] for r in rows if r[0] is not None}

    async def awarded(self, season_id: str, player_ids: set[str]) -> set[str]:
        if not player_ids:
            return set()
        a = t.medal_awards.c
        rows = await self.conn.execute(select(a.player_id, a.medal, a.tier).where(
            a.season_id == season_id, a.player_id.in_(player_ids)))
        return {f"{r.player_id}:{r.medal}:{r.tier}" for r in rows}

    async def add_awards(self, season_id: str, awards: Sequence[Award]) -> None:
        if awards:
            await self.conn.execute(pg_insert(t.medal_awards).values([
                {"season_id": season_id, "player_id": a.player_id, "medal": a.medal, "tier": a.tier,
                 "value": a.value, "at": a.at}
                for a in awards]).on_conflict_do_nothing())


class SqlNotifyStore:
    """:class:`turf_notify.ports.NotifyStore` on ``engine``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[SqlTx]:
        async with self.engine.begin() as conn:
            yield SqlTx(conn)

    async def notifications(self, player_id: str, after: int | None, limit: int) -> list[NotificationOut]:
        n = t.notifications.c
        q = select(t.notifications).where(n.player_id == player_id)
        if after is not None:
            q = q.where(n.id > after)
        async with self.engine.connect() as conn:
            return [_out(r) for r in await conn.execute(q.order_by(n.id).limit(limit))]

    async def read_mark(self, player_id: str) -> int | None:
        async with self.engine.connect() as conn:
            v = (await conn.execute(select(t.reads.c.up_to).where(t.reads.c.player_id == player_id))).scalar()
        return int(v) if v is not None else None

    async def mark_read(self, player_id: str, up_to: int) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(pg_insert(t.reads).values(player_id=player_id, up_to=up_to).on_conflict_do_update(
                index_elements=["player_id"], set_={"up_to": func.greatest(t.reads.c.up_to, up_to)}))

    async def announcements(self, limit: int) -> list[AnnouncementOut]:
        a = t.announcements.c
        async with self.engine.connect() as conn:
            return [_ann(r) for r in await conn.execute(select(t.announcements)
                                                        .order_by(a.at.desc(), a.created_at.desc()).limit(limit))]

    async def save_subscription(self, s: Subscription) -> None:
        c, now = t.subscriptions.c, _wall()
        async with self.engine.begin() as conn:
            # one player's saves one at a time, so two at once never leave more than the cap
            await conn.execute(select(func.pg_advisory_xact_lock(func.hashtext("notify.push:" + s.player_id))))
            await conn.execute(pg_insert(t.subscriptions).values(
                endpoint=s.endpoint, player_id=s.player_id, p256dh=s.p256dh, auth=s.auth, created_at=now,
                saved_at=now).on_conflict_do_update(index_elements=["player_id", "endpoint"],
                                                    set_={"p256dh": s.p256dh, "auth": s.auth, "saved_at": now}))
            kept = (select(c.endpoint).where(c.player_id == s.player_id)
                    .order_by(c.saved_at.desc(), c.endpoint).limit(MAX_SUBSCRIPTIONS))
            await conn.execute(delete(t.subscriptions).where(c.player_id == s.player_id, c.endpoint.not_in(kept)))

    async def drop_subscription(self, player_id: str | None, endpoint: str | None) -> None:
        q = delete(t.subscriptions)
        if player_id is not None:
            q = q.where(t.subscriptions.c.player_id == player_id)
        if endpoint is not None:
            q = q.where(t.subscriptions.c.endpoint == endpoint)
        async with self.engine.begin() as conn:
            await conn.execute(q)

    async def subscriptions(self, player_id: str) -> list[Subscription]:
        s = t.subscriptions.c
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(t.subscriptions).where(s.player_id == player_id).order_by(s.endpoint))
        return [Subscription(r.player_id, r.endpoint, r.p256dh, r.auth) for r in rows]

    async def vapid_key(self, make: Callable[[], str]) -> str:
        async with self.engine.begin() as conn:
            await conn.execute(pg_insert(t.keys).values(name="vapid", value=make()).on_conflict_do_nothing())
            return str((await conn.execute(select(t.keys.c.value).where(t.keys.c.name == "vapid"))).scalar_one())
