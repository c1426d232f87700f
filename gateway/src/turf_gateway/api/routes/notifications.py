"""Notifications, Web Push subscriptions and announcements (issue 18; API.md "Notifications and announcements").
The notify service keeps and decides; the gateway checks the shape of the input, names the caller, and asks it.
A player sees only their own notifications (the caller's id is the one asked for, never one from the request)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Header, Query
from fastapi.responses import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from turf_common.contracts import subjects
from turf_common.contracts.notify import (
    AnnouncementReply,
    AnnouncementsReply,
    AnnouncementsRequest,
    Done,
    DropPush,
    MarkRead,
    NotificationKind,
    NotificationsReply,
    NotificationsRequest,
    PublishAnnouncement,
    PushKeyReply,
    PushKeyRequest,
    PushKeys,
    SavePush,
)
from turf_common.pushpolicy import allowed_push_endpoint
from turf_gateway.api.deps import CurrentPlayer, Organizer, State
from turf_gateway.errors import ApiError

router = APIRouter(tags=["notifications"])

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class Notification(BaseModel):
    id: int = Field(description="increasing; page with ?after=<id>, mark read with {up_to: <id>}")
    at: AwareDatetime = Field(description="the game instant of what it tells")
    kind: NotificationKind
    message: str = Field(description="a sentence naming towns and players (display names)")
    data: dict[str, Any] = Field(description="the kind's fields, e.g. territory_stolen {territory_id, by, war_until}")


class Notifications(BaseModel):
    notifications: list[Notification]
    read_up_to: int | None = Field(None, description="the caller's read mark (POST /me/notifications/read); "
                                                     "null before the first")


class ReadBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    up_to: int = Field(ge=0, le=2**62)


class PushKey(BaseModel):
    key: str = Field(description="the VAPID public key: the Push API's applicationServerKey (base64url)")


class PushBody(BaseModel):
    """The browser's ``PushSubscription.toJSON()`` (``expirationTime`` and other fields it may add are ignored)."""
    model_config = ConfigDict(extra="ignore")
    endpoint: Annotated[str, StringConstraints(min_length=8, max_length=2048)]
    keys: PushKeys

    @field_validator("endpoint")
    @classmethod
    def _url(cls, v: str) -> str:
        u = urlsplit(v)
        if u.scheme not in ("https", "http") or not u.hostname:
            raise ValueError("must be the push service's https URL")
        return v


class Announcement(BaseModel):
    id: str
    at: AwareDatetime
    title: str
    body: str


class Announcements(BaseModel):
    announcements: list[Announcement]


class AnnouncementBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Annotated[Text, StringConstraints(max_length=200)]
    body: Annotated[Text, StringConstraints(max_length=4000)]


@router.get("/me/notifications", response_model=Notifications)
async def notifications(caller: CurrentPlayer, state: State,
                        after: Annotated[int | None, Query(ge=0, le=2**62)] = None) -> Notifications:
    """The caller's own notifications, oldest first, those after id ``after`` when given (at most 200 a page)."""
    out = await state.services.ask(subjects.NOTIFY_LIST, NotificationsRequest(player_id=caller.id, after=after),
                          NotificationsReply)
    return Notifications(notifications=[Notification(**n.model_dump()) for n in out.notifications],
                         read_up_to=out.read_up_to)


@router.post("/me/notifications/read", status_code=204, response_class=Response)
async def mark_read(body: ReadBody, caller: CurrentPlayer, state: State) -> Response:
    """Every notification of the caller with id ≤ ``up_to`` is read (a mark never moves back). 204."""
    await state.services.ask(subjects.NOTIFY_READ, MarkRead(player_id=caller.id, up_to=body.up_to), Done)
    return Response(status_code=204)


@router.get("/push/key", response_model=PushKey)
async def push_key(state: State) -> PushKey:
    """The VAPID public key browsers subscribe with (public: it is in every page that subscribes)."""
    out = await state.services.ask(subjects.NOTIFY_PUSH_KEY, PushKeyRequest(), PushKeyReply)
    return PushKey(key=out.key)


@router.put("/me/push", status_code=204, response_class=Response)
async def save_push(body: PushBody, caller: CurrentPlayer, state: State) -> Response:
    """Store the caller's push subscription ``{endpoint, keys: {p256dh, auth}}``. 204; 422 ``invalid_input`` for an
    endpoint that is not a browser push service's (issue 29: FCM, Mozilla, Apple, Windows; a loopback receiver in
    a manual-clock rehearsal). Issue 29: 409 ``not_eligible`` for a player not verified (R27, as ``POST /claims``);
    429 ``rate_limited`` over ``push_player``. Notify keeps a handful of subscriptions per player, keyed by
    (player, endpoint): the same endpoint again updates its keys; one more replaces the least recently saved."""
    if caller.status != "verified":
        raise ApiError("not_eligible", "Only a verified player may subscribe to pushes (R27).")
    await state.limiter.hit("push_player", caller.id)
    if not allowed_push_endpoint(body.endpoint, rehearsal=state.settings.clock == "manual"):
        raise ApiError("invalid_input", "The endpoint must be a browser push service's https URL.")
    await state.services.ask(subjects.NOTIFY_PUSH_SAVE,
                    SavePush(player_id=caller.id, endpoint=body.endpoint, keys=body.keys), Done)
    return Response(status_code=204)


@router.delete("/me/push", status_code=204, response_class=Response)
async def drop_push(caller: CurrentPlayer, state: State) -> Response:
    """Remove the caller's push subscriptions (every device of theirs). 204, also when there was none."""
    await state.services.ask(subjects.NOTIFY_PUSH_DROP, DropPush(player_id=caller.id), Done)
    return Response(status_code=204)


@router.get("/announcements", response_model=Announcements)
async def announcements(state: State) -> Announcements:
    """The organizer's announcements (rule 11), newest first. Public."""
    out = await state.services.ask(subjects.NOTIFY_ANNOUNCEMENTS, AnnouncementsRequest(), AnnouncementsReply)
    return Announcements(announcements=[Announcement(**a.model_dump()) for a in out.announcements])


@router.post("/admin/announcements", status_code=201, response_model=Announcement, tags=["organizer"])
async def announce(body: AnnouncementBody, org: Organizer, state: State,
                   idempotency_key: Annotated[str | None, Header(min_length=1, max_length=64)] = None
                   ) -> Announcement:
    """Rule 11: announce ``{title, body}`` to everyone: 201 ``{id, at, title, body}``; it is on
    ``GET /announcements``, on the spectator feed (``announcement.published``), in every player's notifications
    (and pushes) and on Discord. ``at`` is the game clock's now. A repeated ``Idempotency-Key`` answers the first
    announcement, made once."""
    now = await state.clock.now()
    cmd = PublishAnnouncement(command_id=idempotency_key or uuid.uuid4().hex, at=now, title=body.title,
                              body=body.body)
    out = await state.services.ask(subjects.NOTIFY_ANNOUNCE, cmd, AnnouncementReply, timeout=15.0)
    return Announcement(**out.announcement.model_dump())
