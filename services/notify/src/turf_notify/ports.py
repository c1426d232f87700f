"""Ports of the notify service: its store (a unit of work over notifications, players' names, reminders, the push
and Discord queues), the game clock, the senders (Web Push, Discord); the outbox relay's port is
:class:`turf_common.outbox.OutboxFlush`.

Every ``take_*`` read inside a transaction locks what it returns until the transaction ends, skipping rows another
replica holds, so two replicas never send one push or post twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from turf_common.contracts.base import Event
from turf_common.contracts.notify import AnnouncementOut, NotificationOut
from turf_common.rules.medals import Award, Change
from turf_notify.rules import Draft


@dataclass(frozen=True)
class Reminder:
    """A ``reclaim_ending`` due at game instant ``due`` for ``player_id``'s window on ``territory_id``."""

    id: str
    player_id: str
    territory_id: str
    due: datetime
    until: datetime


@dataclass(frozen=True)
class PendingPush:
    """A notification waiting to be pushed: from game instant ``not_before`` (quiet hours) and wall instant
    ``hold_until`` (steals of one minute group)."""

    id: int
    player_id: str
    kind: str
    message: str
    not_before: datetime
    hold_until: datetime


#: push subscriptions kept per player: a phone, a laptop and some spares
MAX_SUBSCRIPTIONS = 5


@dataclass(frozen=True)
class Subscription:
    """A browser's Push API subscription: its endpoint and keys (base64url)."""

    player_id: str
    endpoint: str
    p256dh: str
    auth: str


@dataclass(frozen=True)
class Post:
    """A Discord message waiting to be sent."""

    id: int
    content: str


class Messages(Protocol):
    """The inbox (each event handled once, a batch in one round trip) and the outbox."""

    async def first_times(self, events: Sequence[tuple[str, str]]) -> set[str]:
        """Record each ``(event_id, subject)`` as handled, in one round trip; the ids recorded now (an id handled
        before, a redelivery, is not among them: apply nothing for it)."""

    async def stage(self, subject: str, event: Event) -> None:
        """Queue ``event`` for the stream (outbox), published after commit."""


class Roster(Protocol):
    """The players notify knows, with their display names."""

    async def save_player(self, player_id: str, display_name: str | None, status: str) -> None: ...

    async def rename_player(self, player_id: str, display_name: str) -> None:
        """R30: a known player's new public name; nothing for a player not known here or erased (withdrawn: disqualified
        without a name)."""

    async def player_names(self, player_ids: set[str]) -> dict[str, str]: ...

    async def players(self) -> list[str]:
        """Every verified (not disqualified) player."""

    async def erase_player(self, player_id: str) -> None:
        """R30: the player withdrew: their name, notifications, read mark, push subscriptions, pending pushes and
        reminders are deleted (the roster keeps the id, disqualified)."""


class Notifications(Protocol):
    """The players' notifications, in id order."""

    async def add(self, draft: Draft) -> NotificationOut:
        """Store one notification; its id is greater than every earlier one's."""


class Deliveries(Protocol):
    """What waits to be sent: Web Push per player (grouped) and Discord posts."""

    async def queue_push(self, n: NotificationOut, player_id: str, not_before: datetime,
                         hold_until: datetime) -> None: ...

    async def take_pushes(self, game_now: datetime, wall_now: datetime) -> list[PendingPush]:
        """Pending pushes due now, each player's together when any of theirs is due, removed."""

    async def queue_post(self, content: str) -> None: ...

    async def take_posts(self, limit: int) -> list[Post]:
        """The oldest unsent Discord posts (locked, not removed: :meth:`post_sent` after delivery)."""

    async def post_sent(self, post_id: int) -> None: ...


class Reminders(Protocol):
    """Reminders due at a game instant (the War deadline, the reclaim window)."""

    async def add_reminder(self, r: Reminder) -> None: ...

    async def drop_reminders(self, player_id: str, territory_id: str) -> None: ...

    async def take_due_reminders(self, now: datetime) -> list[Reminder]:
        """Reminders due at game instant ``now``, removed (the caller notifies in the same transaction)."""

    async def next_reminder_due(self) -> datetime | None:
        """The earliest game instant a stored reminder is due at; None when there is none."""


class Totals(Protocol):
    """The players' score totals as last published, per season (R31)."""

    async def set_scores(self, season_id: str, totals: dict[str, int], removed: list[str]) -> None:
        """Upsert the players' totals of ``season_id`` and drop ``removed`` (one statement each at most)."""

    async def scores(self, season_id: str) -> dict[str, int]: ...


class Announcements(Protocol):
    """The organizer's announcements, each applied once by its command id."""

    async def announcement_by_command(self, command_id: str) -> AnnouncementOut | None: ...

    async def add_announcement(self, command_id: str, a: AnnouncementOut) -> None: ...


class MailBox(Protocol):
    """R30: the mail queue within the store's transaction (an announcement's messages commit with it)."""

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        """Queue a message once per ``key``, due at ``now`` (wall time); ``at`` the game instant it was asked,
        which dates it in the organizer's list (``now`` without it)."""
        ...


class MedalBook(Protocol):
    """The public changes the medals are counted from (docs/medals.md), and the tiers awarded, each once; per
    season (R31: a season's medals count its own changes, and a player's medals of every season stay)."""

    async def record_changes(self, season_id: str, changes: Sequence[tuple[str, Change]]) -> set[str]:
        """Keep each ``(event_id, change)`` of ``season_id`` in stream order; the ids kept now (one kept before, a
        redelivery, is not among them)."""
        ...

    async def changes_naming(self, season_id: str, player_ids: set[str]) -> list[Change]:
        """The kept changes of ``season_id`` whose new or previous owner is one of ``player_ids``, in stream
        order."""
        ...

    async def medal_players(self, season_id: str) -> set[str]:
        """Every player a kept change of ``season_id`` names."""
        ...

    async def awarded(self, season_id: str, player_ids: set[str]) -> set[str]:
        """The keys (:attr:`Award.key`) of the tiers of ``season_id`` awarded to ``player_ids``."""
        ...

    async def add_awards(self, season_id: str, awards: Sequence[Award]) -> None: ...


class NotifyTx(Protocol):
    """One transaction of the store. It exposes the store's roles (each use case names the ones it
    needs), all over the one transaction."""

    @property
    def messages(self) -> Messages: ...

    @property
    def roster(self) -> Roster: ...

    @property
    def notifications(self) -> Notifications: ...

    @property
    def deliveries(self) -> Deliveries: ...

    @property
    def reminders(self) -> Reminders: ...

    @property
    def standings(self) -> Totals: ...

    @property
    def announcements(self) -> Announcements: ...

    @property
    def mail(self) -> MailBox: ...

    @property
    def medals(self) -> MedalBook: ...


class NotifyStore(Protocol):
    def tx(self) -> AbstractAsyncContextManager[NotifyTx]: ...

    async def notifications(self, player_id: str, after: int | None, limit: int) -> list[NotificationOut]: ...

    async def read_mark(self, player_id: str) -> int | None: ...

    async def mark_read(self, player_id: str, up_to: int) -> None: ...

    async def announcements(self, limit: int) -> list[AnnouncementOut]: ...

    async def save_subscription(self, s: Subscription) -> None:
        """Save ``s``, keyed by (player, endpoint): the same endpoint again updates its keys and makes it the most
        recently saved. A player keeps at most :data:`MAX_SUBSCRIPTIONS`; one more replaces the least
        recently saved (a phone that re-subscribes on every visit stays, a browser long gone makes room)."""

    async def drop_subscription(self, player_id: str | None, endpoint: str | None) -> None:
        """Remove the subscription at ``endpoint`` (of ``player_id`` when given), or all of ``player_id``'s."""

    async def subscriptions(self, player_id: str) -> list[Subscription]: ...

    async def vapid_key(self, make: Any) -> str:
        """The service's VAPID private key: the one stored, else ``make()`` stored once (replicas agree)."""


class Clock(Protocol):
    async def now(self) -> datetime: ...



class PushSender(Protocol):
    async def send(self, sub: Subscription, payload: dict[str, Any]) -> int:
        """Deliver ``payload`` (JSON) to ``sub``; the push service's HTTP status (201 delivered; 404/410: the
        subscription is gone)."""


class DiscordSender(Protocol):
    async def send(self, content: str) -> None:
        """Post ``content`` to the league's channel, waiting out rate limits; raises when it cannot."""


@dataclass(frozen=True)
class QueuedMail:
    """A message of the mail queue (R30), as rendered when it was queued; ``attempts`` counts this one."""

    id: int
    key: str          # idempotency key of what queued it; also the Message-ID's left part
    to: str
    kind: str
    subject: str
    text: str
    html: str
    attempts: int
    at: datetime      # when it was queued (wall time)


@dataclass(frozen=True)
class MailRecord:
    """A message as the organizer's list shows it (its text only while it is kept)."""

    id: int
    at: datetime
    to: str
    kind: str
    subject: str
    status: str       # queued | sent | failed
    attempts: int
    error: str | None
    text: str


class MailQueue(Protocol):
    """The mail queue (the mail channel's outbox): a message is committed here before anyone is told it was asked,
    taken under a lease by one sender at a time, and marked sent once the relay took it."""

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        """Queue a message once per ``key`` (the same key again changes nothing), due at ``now`` (wall time);
        ``at`` the game instant it was asked, which dates it in the organizer's list (``now`` without it)."""

    async def take_mails(self, now: datetime, lease_until: datetime, limit: int) -> list[QueuedMail]:
        """Up to ``limit`` messages due at ``now``, oldest first, leased until ``lease_until`` (another sender, or
        this one after a crash, takes them again only then) with their attempt counted."""

    async def mail_sent(self, mail_id: int, now: datetime, keep_text: bool) -> None:
        """The relay took it; its bodies are dropped unless ``keep_text`` (their links are single-use secrets)."""

    async def mail_retry(self, mail_id: int, at: datetime, error: str) -> None: ...

    async def mail_failed(self, mail_id: int, error: str) -> None: ...

    async def mail_list(self, limit: int) -> list[MailRecord]:
        """The latest messages, newest first."""

    async def forget(self, to: str) -> int:
        """R30: every message to ``to`` deleted (a withdrawn player's address); how many."""


class MailError(Exception):
    """The relay did not take a message; ``temporary`` (a 4xx, a connection lost) means try again later."""

    def __init__(self, message: str, temporary: bool) -> None:
        super().__init__(message)
        self.temporary = temporary


class MailSender(Protocol):
    #: True when every message stays readable where it was delivered (the .eml directory of a rehearsal)
    keeps_copies: bool

    async def send(self, msg: Any) -> None:
        """Deliver ``msg`` (an :class:`email.message.EmailMessage`); raises :class:`MailError`."""
