"""Notifications, Web Push subscriptions and announcements as use cases: the notify service keeps and
decides; these name the caller (a player sees only their own notifications: the id asked for is always the
caller's) and check what the gateway must before asking. A refusal of notify comes back as its ApiError."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from turf_common.contracts import subjects
from turf_common.contracts.notify import (
    AnnouncementOut,
    AnnouncementReply,
    AnnouncementsReply,
    AnnouncementsRequest,
    Done,
    DropPush,
    MailRecipient,
    MarkRead,
    NotificationsReply,
    NotificationsRequest,
    PublishAnnouncement,
    PushKeyReply,
    PushKeyRequest,
    PushKeys,
    SavePush,
)
from turf_common.pushpolicy import allowed_push_endpoint
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import Caller, GameClock, Limiter, PlayerStore, Services

#: seconds to wait for an announcement: notify fans it out to every player's notifications before it answers
ANNOUNCE_TIMEOUT = 15.0


@dataclass
class Notifications:
    services: Services
    limiter: Limiter
    clock: GameClock
    rehearsal: bool   # a manual-clock rehearsal: a loopback push receiver is allowed too
    players: PlayerStore | None = None   # R30: whom announcements are mailed to

    async def inbox(self, player_id: str, after: int | None) -> NotificationsReply:
        """The player's notifications, oldest first, those after id ``after`` when given (notify pages them), and
        their read mark."""
        return await self.services.ask(subjects.NOTIFY_LIST, NotificationsRequest(player_id=player_id, after=after),
                                       NotificationsReply)

    async def mark_read(self, player_id: str, up_to: int) -> None:
        """Every notification of the player with id ≤ ``up_to`` is read (notify never moves a mark back)."""
        await self.services.ask(subjects.NOTIFY_READ, MarkRead(player_id=player_id, up_to=up_to), Done)

    async def push_key(self) -> str:
        """The VAPID public key browsers subscribe with (base64url)."""
        return (await self.services.ask(subjects.NOTIFY_PUSH_KEY, PushKeyRequest(), PushKeyReply)).key

    async def save_push(self, caller: Caller, endpoint: str, keys: PushKeys) -> None:
        """Keep the caller's push subscription. Raises ApiError, before notify is asked: 409 ``not_eligible`` for
        a player not verified (R27), 429 ``rate_limited`` over ``push_player``, 422 ``invalid_input`` for an
        endpoint that is not a browser push service's."""
        if caller.status != "verified":
            raise ApiError("not_eligible", "Only a verified player may subscribe to pushes (R27).")
        await self.limiter.hit("push_player", caller.id)
        if not allowed_push_endpoint(endpoint, rehearsal=self.rehearsal):
            raise ApiError("invalid_input", "The endpoint must be a browser push service's https URL.")
        await self.services.ask(subjects.NOTIFY_PUSH_SAVE, SavePush(player_id=caller.id, endpoint=endpoint,
                                                                    keys=keys), Done)

    async def drop_push(self, player_id: str) -> None:
        """Forget every push subscription of the player (also when there was none)."""
        await self.services.ask(subjects.NOTIFY_PUSH_DROP, DropPush(player_id=player_id), Done)

    async def announcements(self) -> list[AnnouncementOut]:
        """The organizer's announcements, newest first."""
        out = await self.services.ask(subjects.NOTIFY_ANNOUNCEMENTS, AnnouncementsRequest(), AnnouncementsReply)
        return out.announcements

    async def announce(self, title: str, body: str, key: str | None, rule_change: bool = True) -> AnnouncementOut:
        """Rulebook: announce to everyone at the game clock's now. The ``Idempotency-Key`` ``key`` is the command's
        id, so notify answers a repeat with the first announcement; without one, each is new. R30: mailed to every
        verified player, less those who turned optional announcements off when it is not a ``rule_change``."""
        rows = await self.players.players() if self.players is not None else []
        to = [MailRecipient(player_id=r.id, to=r.email) for r in rows
              if r.status == "verified" and (rule_change or r.announcements_by_mail)]
        cmd = PublishAnnouncement(command_id=key or uuid.uuid4().hex, at=await self.clock.now(), title=title,
                                  body=body, rule_change=rule_change, recipients=to)
        out = await self.services.ask(subjects.NOTIFY_ANNOUNCE, cmd, AnnouncementReply, timeout=ANNOUNCE_TIMEOUT)
        return out.announcement
