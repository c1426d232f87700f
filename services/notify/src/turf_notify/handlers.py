"""Use cases of the notify service over its ports: events → notifications (each event applied once, committed
before its ack), the gateway's commands, and the timers driven by the game clock (reclaim reminders, quiet-hour
pushes, grouped steals) and the Discord queue."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import structlog
from pydantic import Field

from turf_common.contracts import subjects
from turf_common.contracts.cards import HandsDealt, TradeEvent
from turf_common.contracts.claims import ClaimAccepted, TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.effects import ProtectionResolved
from turf_common.contracts.notify import (
    AnnouncementOut,
    AnnouncementPublished,
    AnnouncementReply,
    AnnouncementsReply,
    NotificationsReply,
    PublishAnnouncement,
)
from turf_common.contracts.players import CorrectionApplied, PlayerDisqualified, PlayerRenamed, PlayerVerified
from turf_common.contracts.scoring import ScoreUpdated, SeasonFinalResults
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook
from turf_notify import mailtext, rules
from turf_notify.ports import (
    Clock,
    DiscordSender,
    NotifyStore,
    NotifyTx,
    PendingPush,
    PushSender,
    Reminder,
    Subscription,
)

log = structlog.get_logger(__name__)

#: what the durable consumer decodes, by ``type`` (entrypoints.CONSUMED lists the same subjects)
NotifyEvent = Annotated[
    ClaimAccepted | TerritoryChanged | TradeEvent | ProtectionResolved | HandsDealt | CorrectionApplied
    | PlayerVerified | PlayerDisqualified | PlayerRenamed | ScoreUpdated | DayClosed | SeasonFinalResults,
    Field(discriminator="type")]

#: fields of the events that name players (their display names are looked up for the texts)
PLAYER_FIELDS = ("player_id", "previous_owner_id", "owner_id", "proposer_id", "partner_id", "rival_id")
GONE = (404, 410)   # the push service's answer for a subscription that no longer exists: dropped
PUSH_PARALLEL = 32   # pushes in flight at once (each bounded by its sender's deadline)


@dataclass
class TableNames:
    """:class:`turf_notify.rules.Names` over dictionaries; unknown ids get a neutral word, never an id."""

    players: dict[str, str]
    towns: dict[str, str]

    def player(self, player_id: str | None) -> str:
        return self.players.get(player_id or "", "another player")

    def town(self, territory_id: str | None) -> str:
        return self.towns.get(territory_id or "", "a territory")


@dataclass
class _Batch:
    """What the events of one batch share: the names read for them, the next reminder's due instant."""

    names: TableNames
    next_due: datetime | None
    asked: set[str] = field(default_factory=set)   # ids already looked up, named or not


def _named(events: Sequence[object], standings: dict[str, int] | None = None) -> set[str]:
    """The ids of the players ``events`` (and ``standings``) name, whose display names the texts use."""
    ids = {v for ev in events for k in PLAYER_FIELDS if isinstance(v := getattr(ev, k, None), str)}
    ids |= set(standings or {})
    for ev in events:
        if isinstance(ev, SeasonFinalResults):
            ids |= {s.player_id for s in ev.results.standings}
    return ids


def _wall() -> datetime:
    """Wall time: only for grouping steals within a real minute (the player's phone lives in real time)."""
    return datetime.now(UTC)


@dataclass
class NotifyHandlers:
    store: NotifyStore
    clock: Clock
    relay: OutboxFlush
    #: R31: the seasons played (a book, or one season: a book of it); the calendar of an instant is the season's
    #: in force then (:attr:`book`)
    season: gametime.SeasonConfig | SeasonBook
    towns: dict[str, str]
    push: PushSender | None = None
    discord: DiscordSender | None = None
    group_seconds: float = 60.0   # steals of one player within this many real seconds make one push
    wall: Callable[[], datetime] = _wall
    push_payload_url: str = "/"   # the play page
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    book: SeasonBook = field(init=False)

    def __post_init__(self) -> None:
        self.book = self.season if isinstance(self.season, SeasonBook) else SeasonBook.of(self.season)

    def config_at(self, at: datetime) -> gametime.SeasonConfig:
        """R31: the calendar in force at ``at`` (its zone, its hours, its close)."""
        return self.book.config_at(at)

    def season_of(self, ev: ScoreUpdated | DayClosed) -> str:
        """The season an event names, else the one in force at its instant (an event from before seasons)."""
        return ev.season_id or self.config_at(ev.occurred_at).season_id

    # ---- events ---------------------------------------------------------------------------------------------------
    async def on_event(self, ev: NotifyEvent) -> None:
        """Apply one event of the stream once (inbox record in the same transaction), then publish what it staged."""
        await self.on_events([ev])

    async def on_events(self, events: Sequence[NotifyEvent]) -> None:
        """Apply a batch of the stream's events in order, each once, in one transaction (one commit and
        one outbox flush per batch), then publish what they staged. All or nothing: should one fail, none counts
        (turf_common.bus.settle_batch then applies them one at a time)."""
        todo = [ev for ev in events if rules.matters(ev)]
        if not todo:
            return   # plain takes and reinforcements: nothing to tell, store or publish
        async with self.store.tx() as tx:
            fresh = await tx.messages.first_times([(ev.event_id, ev.type) for ev in todo])
            # what every event of the batch needs is read once: the names it mentions, the next reminder
            named = _named(todo)
            names = TableNames(await tx.roster.player_names(named), self.towns)
            b = _Batch(names, await tx.reminders.next_reminder_due(), named)
            for ev in todo:
                if ev.event_id in fresh:
                    fresh.discard(ev.event_id)   # a batch may hold one event twice (a redelivery)
                    await self._apply(tx, ev, b)
        await self.relay.flush()

    async def _apply(self, tx: NotifyTx, ev: NotifyEvent, b: _Batch) -> None:
        """One new event in the caller's transaction. Reminders due by the event's game instant are made first, so
        they keep their order with the stream."""
        if b.next_due is not None and b.next_due <= ev.occurred_at:
            await self._remind(tx, ev.occurred_at)
            b.next_due = await tx.reminders.next_reminder_due()
        if isinstance(ev, PlayerVerified):
            await tx.roster.save_player(ev.player_id, ev.display_name, "verified")
            if ev.display_name:
                b.names.players[ev.player_id] = ev.display_name
        elif isinstance(ev, PlayerRenamed):   # R30: texts and Discord lines use the new name from now on
            await tx.roster.rename_player(ev.player_id, ev.display_name)
            b.names.players[ev.player_id] = ev.display_name
        elif isinstance(ev, PlayerDisqualified):
            await tx.roster.save_player(ev.player_id, None, "disqualified")
            if ev.withdrawn:   # R30: what notify holds of them goes; texts name them "another player" from now on
                await tx.roster.erase_player(ev.player_id)
                b.names.players.pop(ev.player_id, None)
        elif isinstance(ev, ScoreUpdated):
            # R31: each season's own totals (a correction after a close moves the closed season's, not the next's)
            await tx.standings.set_scores(self.season_of(ev), {c.player_id: c.total for c in ev.changes},
                                          list(ev.removed))
        standings = await tx.standings.scores(self.season_of(ev)) if isinstance(ev, DayClosed) else None
        if missing := _named([ev], standings) - b.asked:
            b.names.players.update(await tx.roster.player_names(missing))   # the day's standings
            b.asked |= missing
        cfg = self.config_at(ev.occurred_at)
        for draft in rules.notifications(ev, b.names, cfg):
            await self._notify(tx, draft)
        if isinstance(ev, TerritoryChanged) and ev.cause == "war" and ev.previous_owner_id:
            until = rules.reclaim_until(cfg, ev.occurred_at)
            due = rules.reminder_due(cfg, ev.occurred_at)
            await tx.reminders.add_reminder(Reminder(ev.event_id, ev.previous_owner_id, ev.territory_id, due, until))
            b.next_due = due if b.next_due is None else min(b.next_due, due)
        elif isinstance(ev, ClaimAccepted) and ev.kind == "war_reclaim":
            await tx.reminders.drop_reminders(ev.player_id, ev.territory_id)   # R14: the window ends when A reclaims
        if self.discord is not None and (line := rules.commentary(ev, b.names, standings)):
            await tx.deliveries.queue_post(line)

    async def deliver(self, tx: NotifyTx, draft: rules.Draft) -> None:
        """Store one notification and queue its push, in the caller's transaction (the medals' consumer)."""
        await self._notify(tx, draft)

    async def _notify(self, tx: NotifyTx, draft: rules.Draft) -> None:
        n = await tx.notifications.add(draft)
        hold = self.wall() + timedelta(seconds=self.group_seconds if draft.kind == "territory_stolen" else 0)
        not_before = rules.push_not_before(self.config_at(draft.at), draft.kind, draft.at)
        await tx.deliveries.queue_push(n, draft.player_id, not_before, hold)

    async def _remind(self, tx: NotifyTx, now: datetime) -> int:
        """Notify the reminders due at game instant ``now``; how many there were."""
        due = await tx.reminders.take_due_reminders(now)
        for r in due:
            names = TableNames({}, self.towns)
            tz = self.config_at(r.due).tz   # the store answers UTC; texts and data speak the season's zone
            await self._notify(tx, rules.reminder(r.player_id, r.territory_id, r.until.astimezone(tz), names,
                                                  r.due.astimezone(tz)))
        return len(due)

    # ---- commands -------------------------------------------------------------------------------------------------
    async def notifications(self, player_id: str, after: int | None, limit: int) -> NotificationsReply:
        """The player's notifications, ``at`` in the time zone of the season of each (the database answers
        UTC)."""
        return NotificationsReply(
            notifications=[n.model_copy(update={"at": n.at.astimezone(self.config_at(n.at).tz)})
                           for n in await self.store.notifications(player_id, after, limit)],
            read_up_to=await self.store.read_mark(player_id))

    async def announce(self, cmd: PublishAnnouncement) -> AnnouncementReply:
        """Rulebook: store the announcement, put it on the stream (``announcement.published``: the spectator feed),
        in every verified player's notifications (and so their pushes) and on Discord; once per ``command_id``."""
        async with self.store.tx() as tx:
            if (done := await tx.announcements.announcement_by_command(cmd.command_id)) is not None:
                return AnnouncementReply(announcement=done)
            a = AnnouncementOut(id=uuid.uuid4().hex, at=cmd.at, title=cmd.title, body=cmd.body)
            await tx.announcements.add_announcement(cmd.command_id, a)
            ev = AnnouncementPublished(occurred_at=cmd.at, announcement_id=a.id, at=a.at, title=a.title,
                                       body=a.body)
            await tx.messages.stage(subjects.ANNOUNCEMENT_PUBLISHED, ev)
            for pid in await tx.roster.players():
                await self._notify(tx, rules.announcement(pid, ev))
            await self._mail_announcement(tx, cmd)
            if self.discord is not None and (line := rules.commentary(ev, TableNames({}, self.towns))):
                await tx.deliveries.queue_post(line)
        await self.relay.flush()
        return AnnouncementReply(announcement=a)

    async def _mail_announcement(self, tx: NotifyTx, cmd: PublishAnnouncement) -> None:
        """R30: the announcement by mail to each recipient, queued in the announcement's transaction, once each."""
        if not cmd.recipients:
            return
        m = mailtext.render("announcement", subject=cmd.title, title=cmd.title, body=cmd.body,
                            optional=not cmd.rule_change)
        for r in cmd.recipients:
            key = hashlib.sha256(f"{cmd.command_id}|{r.player_id}".encode()).hexdigest()
            await tx.mail.queue_mail(key, r.to, "announcement", m.subject, m.text, m.html, self.wall(), cmd.at)

    async def announcements(self, limit: int) -> AnnouncementsReply:
        return AnnouncementsReply(announcements=[a.model_copy(update={"at": a.at.astimezone(self.config_at(a.at).tz)})
                                                 for a in await self.store.announcements(limit)])

    # ---- timers (the game clock drives them) -----------------------------------------------------------------------
    async def tick(self) -> None:
        """One round of the timers: reminders due at the game clock's now, pushes due, Discord posts queued."""
        async with self._lock:
            now = await self.clock.now()
            async with self.store.tx() as tx:
                reminded = await self._remind(tx, now)
            if reminded:   # nothing staged otherwise: the relay's own sweep is the safety net
                await self.relay.flush()
            await self.send_pushes(now)
            await self.send_posts()

    async def send_pushes(self, game_now: datetime) -> int:
        """Push what is due (quiet hours over, a steal's grouping minute past), one push per player with every
        notification pending for them; a subscription the push service calls gone (404/410) is dropped. Pushes
        of players without a subscription are discarded. Returns how many pushes were delivered.

        The due pushes are taken in one transaction and sent after its commit, all at once (at most
        :data:`PUSH_PARALLEL` in flight): a slow push service holds neither a database transaction nor the pushes
        of other players behind it. A crash after the commit loses those pushes; the notifications
        stay in each player's list."""
        async with self.store.tx() as tx:
            pending = await tx.deliveries.take_pushes(game_now, self.wall())
        if self.push is None or not pending:
            return 0
        by_player: dict[str, list[PendingPush]] = defaultdict(list)
        for p in pending:
            by_player[p.player_id].append(p)
        sends = []
        for pid, items in by_player.items():
            title, body = rules.push_text((p.kind, p.message) for p in items)
            payload = {"title": title, "body": body, "kinds": [p.kind for p in items],
                       "ids": [p.id for p in items], "url": self.push_payload_url}
            sends += [(sub, payload) for sub in await self.store.subscriptions(pid)]
        gate = asyncio.Semaphore(PUSH_PARALLEL)

        async def one(sub: Subscription, payload: dict[str, Any]) -> int:
            async with gate:
                return await self._push_one(sub, payload)

        statuses = await asyncio.gather(*(one(sub, payload) for sub, payload in sends))
        for (sub, _), status in zip(sends, statuses, strict=True):
            if status in GONE:
                await self.store.drop_subscription(sub.player_id, sub.endpoint)
                log.info("push_subscription_dropped")
        return sum(200 <= s < 300 for s in statuses)

    async def _push_one(self, sub: Subscription, payload: dict[str, Any]) -> int:
        """The push service's status, 0 when it could not be reached (one bad endpoint never blocks the others;
        that push is lost, the list keeps the notification)."""
        assert self.push is not None
        try:
            return await self.push.send(sub, payload)
        except Exception as e:
            log.warning("push_failed", error=f"{type(e).__name__}: {e}")
            return 0

    async def send_posts(self) -> int:
        """Send the queued Discord posts in order, each marked sent in its own transaction once Discord took it;
        a failure leaves it (and those after it) for the next tick. Returns how many were sent."""
        if self.discord is None:
            return 0
        sent = 0
        while True:
            async with self.store.tx() as tx:
                posts = await tx.deliveries.take_posts(1)
                if not posts:
                    return sent
                try:
                    await self.discord.send(posts[0].content)
                except Exception as e:
                    log.warning("discord_failed", error=f"{type(e).__name__}: {e}")
                    return sent
                await tx.deliveries.post_sent(posts[0].id)
                sent += 1

    async def run_timers(self, interval: float = 1.0) -> None:
        """:meth:`tick` forever, every ``interval`` seconds (a failed round is retried at the next)."""
        while True:
            try:
                await self.tick()
            except Exception as e:
                log.warning("notify_tick_failed", error=f"{type(e).__name__}: {e}")
            await asyncio.sleep(interval)
