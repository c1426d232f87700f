"""Notifications, Web Push subscriptions and announcements (API.md "Notifications and announcements").
The notify service keeps and decides; the gateway checks the shape of the input, names the caller, and asks it.
A player sees only their own notifications (the caller's id is the one asked for, never one from the request)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Header, Query
from fastapi.responses import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from turf_common.contracts.notify import NotificationKind, PushKeys
from turf_gateway.api.deps import CurrentPlayer, NotificationsCase, Organizer

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
    # R30: a rule change (rulebook) is mailed to every verified player; an optional one not to those who turned
    # announcements by mail off
    rule_change: bool = True


@router.get("/me/notifications", response_model=Notifications)
async def notifications(caller: CurrentPlayer, notes: NotificationsCase,
                        after: Annotated[int | None, Query(ge=0, le=2**62)] = None) -> Notifications:
    """The caller's own notifications, oldest first, those after id ``after`` when given (at most 200 a page)."""
    out = await notes.inbox(caller.id, after)
    return Notifications(notifications=[Notification(**n.model_dump()) for n in out.notifications],
                         read_up_to=out.read_up_to)


@router.post("/me/notifications/read", status_code=204, response_class=Response)
async def mark_read(body: ReadBody, caller: CurrentPlayer, notes: NotificationsCase) -> Response:
    """Every notification of the caller with id ≤ ``up_to`` is read (a mark never moves back). 204."""
    await notes.mark_read(caller.id, body.up_to)
    return Response(status_code=204)


@router.get("/push/key", response_model=PushKey)
async def push_key(notes: NotificationsCase) -> PushKey:
    """The VAPID public key browsers subscribe with (public: it is in every page that subscribes)."""
    return PushKey(key=await notes.push_key())


@router.put("/me/push", status_code=204, response_class=Response)
async def save_push(body: PushBody, caller: CurrentPlayer, notes: NotificationsCase) -> Response:
    """Store the caller's push subscription ``{endpoint, keys: {p256dh, auth}}``. 204; 422 ``invalid_input`` for an
    endpoint that is not a browser push service's (FCM, Mozilla, Apple, Windows; a loopback receiver in
    a manual-clock rehearsal). 409 ``not_eligible`` for a player not verified (R27, as ``POST /claims``);
    429 ``rate_limited`` over ``push_player``. Notify keeps a handful of subscriptions per player, keyed by
    (player, endpoint): the same endpoint again updates its keys; one more replaces the least recently saved."""
    await notes.save_push(caller, body.endpoint, body.keys)
    return Response(status_code=204)


@router.delete("/me/push", status_code=204, response_class=Response)
async def drop_push(caller: CurrentPlayer, notes: NotificationsCase) -> Response:
    """Remove the caller's push subscriptions (every device of theirs). 204, also when there was none."""
    await notes.drop_push(caller.id)
    return Response(status_code=204)


@router.get("/announcements", response_model=Announcements)
async def announcements(notes: NotificationsCase) -> Announcements:
    """The organizer's announcements, newest first. Public."""
    return Announcements(announcements=[Announcement(**a.model_dump()) for a in await notes.announcements()])


@router.post("/admin/announcements", status_code=201, response_model=Announcement, tags=["organizer"])
async def announce(body: AnnouncementBody, org: Organizer, notes: NotificationsCase,
                   idempotency_key: Annotated[str | None, Header(min_length=1, max_length=64)] = None
                   ) -> Announcement:
    """Rulebook: announce ``{title, body}`` to everyone: 201 ``{id, at, title, body}``; it is on
    ``GET /announcements``, on the spectator feed (``announcement.published``), in every player's notifications
    (and pushes) and on Discord. ``at`` is the game clock's now. A repeated ``Idempotency-Key`` answers the first
    announcement, made once."""
    out = await notes.announce(body.title, body.body, idempotency_key, body.rule_change)
    return Announcement(**out.model_dump())
