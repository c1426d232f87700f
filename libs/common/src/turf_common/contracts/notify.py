"""The notify service's wire: per-player notifications, Web Push subscriptions, announcements (rule changes, news).

Commands come from the gateway (request/reply, ``notify.*``); events go to the stream (``announcement.published``; a
notification is no event: nothing consumed one). Notification ids are integers, increasing in the order
notifications were made, so a client pages with ``after=<id>`` and marks read ``up_to=<id>``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message

#: API.md "Notifications and announcements": the kinds a notification may have
NotificationKind = Literal[
    "territory_stolen", "war_declared", "reclaim_ending", "trade_proposed", "trade_accepted", "trade_declined",
    "trade_cancelled", "protection_active", "protection_lapsed", "fortified", "cards_dealt", "correction",
    "announcement", "medal_earned", "verified",
]


class NotificationOut(Message):
    """One notification as ``GET /me/notifications`` shows it: ``at`` the game instant of what it tells,
    ``message`` a sentence naming towns and players (display names), ``data`` the kind's fields (API.md)."""

    id: int
    at: AwareDatetime
    kind: NotificationKind
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


class NotificationsRequest(Message):
    """``notify.list``: the player's notifications after id ``after`` (all when None), oldest first."""

    player_id: str
    after: int | None = None
    limit: int = Field(default=200, ge=1, le=1000)


class NotificationsReply(Message):
    ok: Literal[True] = True
    notifications: list[NotificationOut]
    read_up_to: int | None = None   # the player's read mark (POST /me/notifications/read), None before any


class MarkRead(Message):
    """``notify.read``: every notification of the player with id <= ``up_to`` is read (a lower mark is kept)."""

    player_id: str
    up_to: int = Field(ge=0)


class Done(Message):
    """The reply of a command that answers nothing but success."""

    ok: Literal[True] = True


class PushKeyRequest(Message):
    """``notify.push_key``: the VAPID public key (URL-safe base64, uncompressed P-256 point)."""


class PushKeyReply(Message):
    ok: Literal[True] = True
    key: str


class PushKeys(Message):
    p256dh: str = Field(min_length=1, max_length=256)
    auth: str = Field(min_length=1, max_length=64)


class SavePush(Message):
    """``notify.push_save``: store the browser's Push API subscription for the player (one per endpoint; an
    endpoint saved again moves to the new player and keys)."""

    player_id: str
    endpoint: str = Field(min_length=1, max_length=2048)
    keys: PushKeys


class DropPush(Message):
    """``notify.push_drop``: remove the player's subscription at ``endpoint``, or every one of theirs when None."""

    player_id: str
    endpoint: str | None = None


class PushListRequest(Message):
    """``notify.push_list`` (R30, ``GET /me/export``): the endpoints of the player's push subscriptions, never their
    keys."""

    player_id: str


class PushListReply(Message):
    ok: Literal[True] = True
    endpoints: list[str]


class AnnouncementOut(Message):
    id: str
    at: AwareDatetime
    title: str
    body: str


class AnnouncementsRequest(Message):
    """``notify.announcements``: every announcement, newest first."""

    limit: int = Field(default=100, ge=1, le=1000)


class AnnouncementsReply(Message):
    ok: Literal[True] = True
    announcements: list[AnnouncementOut]


class MailRecipient(Message):
    """R30: a verified player an announcement is mailed to (the gateway owns the addresses)."""

    player_id: str
    to: str = Field(min_length=3, max_length=320)


class PublishAnnouncement(Message):
    """``notify.announce`` (the rulebook: rule changes are told to all players): idempotent by ``command_id``;
    ``at`` the game instant the organizer made it. R30: also mailed to ``recipients`` (every verified player, less
    those who turned optional announcements off unless ``rule_change``), queued with the announcement."""

    command_id: str = Field(min_length=1, max_length=64)
    at: AwareDatetime
    title: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1, max_length=4000)
    rule_change: bool = True
    recipients: list[MailRecipient] = Field(default_factory=list)


class AnnouncementReply(Message):
    ok: Literal[True] = True
    announcement: AnnouncementOut


class MedalEarned(Event):
    """``medal.earned``: ``player_id`` reached ``tier`` of ``medal`` (its threshold ``value``) at ``at``, as the
    pure rule recomputes it from the public history (turf_common.rules.medals); public (spectator feed). The
    event id is fixed per season, player, medal and tier, so the stream takes each award once. Never changes a score."""

    type: Literal["medal.earned"] = "medal.earned"
    player_id: str
    medal: str
    name: str
    tier: Literal["bronze", "silver", "gold", "platinum"]
    value: int
    at: AwareDatetime
    # R31: the season it was earned in (each season's medals are its own); None in an event from before seasons
    season_id: str | None = None


class AnnouncementPublished(Event):
    """``announcement.published``: the organizer's announcement, public (spectator feed, Discord)."""

    type: Literal["announcement.published"] = "announcement.published"
    announcement_id: str
    at: AwareDatetime
    title: str
    body: str


#: R30: what the product mails (the gateway asks for the first two; announcements and results are notify's own)
MailKind = Literal["email_confirmation", "email_change_confirmation", "email_changed", "password_reset",
                   "announcement", "final_results", "verified"]


class QueueMail(Message):
    """``notify.mail``: queue one message for ``to``, rendered from the ``kind``'s template with ``name`` and
    ``link`` (the link carries its token as ``token=``). Idempotent by ``command_id``: asked twice, it is queued and
    sent once. Answered once the message is committed to the mail queue; it is sent after, never in the request."""

    command_id: str = Field(min_length=1, max_length=64)
    to: str = Field(min_length=3, max_length=320)
    # ``email_change_confirmation``: the link to a new address after a change (R30); ``email_changed``: the address
    # it replaces is told, with no link that acts on the account (R30, amended 2026-12-07); ``verified``: the
    # player may play (R27), with a link to the play page
    kind: Literal["email_confirmation", "email_change_confirmation", "email_changed", "password_reset", "verified"]
    name: str = Field(max_length=200)
    link: str = Field(default="", max_length=2000)
    at: AwareDatetime | None = None   # the game instant it was asked: the organizer's mail list dates it so


class PodiumPlace(Message):
    """A place of the final results as a mail shows it: the player's public name, points, prize (dollars, two
    decimals)."""

    place: int = Field(ge=1)
    name: str = Field(max_length=200)
    total: int
    prize: str


class ResultsRecipient(Message):
    """A verified player the final results are mailed to, with their own place (R25, R26)."""

    player_id: str
    to: str = Field(min_length=3, max_length=320)
    name: str = Field(max_length=200)
    place: int = Field(ge=1)
    total: int
    prize: str


class MailResults(Message):
    """``notify.mail_results`` (R30): the final results, one message to each of ``recipients`` (every verified
    player but those who turned optional mail off; the gateway owns the addresses) with their place and points and
    the ``podium``. Queued once per player and season: asked again (the event delivered twice, the results
    corrected after the close) it queues nothing more."""

    season: str = Field(min_length=1, max_length=64)   # the season's id: one message per player and season
    podium: list[PodiumPlace]
    recipients: list[ResultsRecipient]


class MailOut(Message):
    """One queued message as the organizer page lists it: ``status`` ``queued``, ``sent`` or ``failed``; ``links``
    only when mail is written as .eml files (a rehearsal follows them), never for mail that left by SMTP."""

    id: int
    at: AwareDatetime
    to: str
    kind: MailKind
    subject: str
    status: Literal["queued", "sent", "failed"]
    attempts: int
    error: str | None = None
    links: list[str] = Field(default_factory=list)


class MailListRequest(Message):
    """``notify.mail_list``: the latest messages, newest first."""

    limit: int = Field(default=200, ge=1, le=1000)


class MailListReply(Message):
    ok: Literal[True] = True
    mail: list[MailOut]
    #: False when no relay is set (R30): every message is only written as a file, no player gets it
    relay: bool = True


class ForgetMail(Message):
    """``notify.mail_forget`` (R30): a player withdrew; every message to their address leaves the mail queue."""

    to: str = Field(min_length=3, max_length=320)
