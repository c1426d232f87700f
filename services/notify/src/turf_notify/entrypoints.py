"""NATS subscribers of the notify service: the gateway's commands (decode, call, reply) and its one durable
consumer of the event stream."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_common.bus import Batch, durable, settle_batch
from turf_common.contracts import subjects
from turf_common.contracts.base import Event
from turf_common.contracts.notify import (
    AnnouncementPublished,
    AnnouncementReply,
    AnnouncementsReply,
    AnnouncementsRequest,
    Done,
    DropPush,
    ForgetMail,
    MailListReply,
    MailListRequest,
    MailResults,
    MarkRead,
    MedalEarned,
    NotificationsReply,
    NotificationsRequest,
    PublishAnnouncement,
    PushKeyReply,
    PushKeyRequest,
    PushListReply,
    PushListRequest,
    QueueMail,
    SavePush,
)
from turf_notify.handlers import NotifyEvent, NotifyHandlers
from turf_notify.mailing import Mailing
from turf_notify.medals import MedalEvent, MedalHandlers
from turf_notify.ports import Subscription

QUEUE = "notify"
DURABLE = "notify"
#: what the durable consumer takes, in stream order (see :data:`turf_notify.handlers.NotifyEvent`)
CONSUMED = [subjects.CLAIM_ACCEPTED, subjects.TERRITORY_CHANGED, subjects.TRADE_PROPOSED, subjects.TRADE_ACCEPTED,
            subjects.TRADE_DECLINED, subjects.TRADE_CANCELLED, subjects.PROTECTION_ACTIVATED,
            subjects.PROTECTION_LAPSED, subjects.CARD_DEALT, subjects.CORRECTION_APPLIED, subjects.PLAYER_VERIFIED,
            subjects.PLAYER_DISQUALIFIED, subjects.PLAYER_RENAMED, subjects.SCORE_UPDATED, subjects.CLOCK_DAY_CLOSED,
            subjects.SEASON_FINAL_RESULTS]
#: the events the service publishes (from its outbox), for the AsyncAPI document
#: (a notification is no event of its own: nothing consumed ``notification.created``, and its outbox row
#: was a third write per steal)
PUBLISHED: dict[str, type[Event]] = {subjects.ANNOUNCEMENT_PUBLISHED: AnnouncementPublished,
                                     subjects.MEDAL_EARNED: MedalEarned}
#: the medals' own durable consumer (turf_notify.medals), so the main one keeps passing plain takes over
MEDALS_DURABLE = "notify-medals"
MEDALS_CONSUMED = [subjects.TERRITORY_CHANGED, subjects.CLOCK_DAY_CLOSED]


def router(h: NotifyHandlers, stream: str, public_key: str, mailing: Mailing,
           medals: MedalHandlers | None = None) -> NatsRouter:
    """``public_key``: the VAPID public key browsers subscribe with (``GET /push/key``); ``mailing``: the mail
    channel (R30); ``medals``: the medals' consumer (None: no medals awarded live)."""
    r = NatsRouter()
    _mail(r, mailing)

    @r.subscriber(subjects.NOTIFY_LIST, queue=QUEUE, title=subjects.NOTIFY_LIST)
    async def notifications(q: NotificationsRequest) -> NotificationsReply:
        return await h.notifications(q.player_id, q.after, q.limit)

    @r.subscriber(subjects.NOTIFY_READ, queue=QUEUE, title=subjects.NOTIFY_READ)
    async def read(cmd: MarkRead) -> Done:
        await h.store.mark_read(cmd.player_id, cmd.up_to)
        return Done()

    @r.subscriber(subjects.NOTIFY_PUSH_KEY, queue=QUEUE, title=subjects.NOTIFY_PUSH_KEY)
    async def push_key(_: PushKeyRequest) -> PushKeyReply:
        return PushKeyReply(key=public_key)

    @r.subscriber(subjects.NOTIFY_PUSH_SAVE, queue=QUEUE, title=subjects.NOTIFY_PUSH_SAVE)
    async def push_save(cmd: SavePush) -> Done:
        await h.store.save_subscription(Subscription(cmd.player_id, cmd.endpoint, cmd.keys.p256dh, cmd.keys.auth))
        return Done()

    @r.subscriber(subjects.NOTIFY_PUSH_DROP, queue=QUEUE, title=subjects.NOTIFY_PUSH_DROP)
    async def push_drop(cmd: DropPush) -> Done:
        await h.store.drop_subscription(cmd.player_id, cmd.endpoint)
        return Done()

    @r.subscriber(subjects.NOTIFY_PUSH_LIST, queue=QUEUE, title=subjects.NOTIFY_PUSH_LIST)
    async def push_list(q: PushListRequest) -> PushListReply:
        # R30: the player's export names where their pushes go, never the keys that encrypt them
        return PushListReply(endpoints=[s.endpoint for s in await h.store.subscriptions(q.player_id)])

    @r.subscriber(subjects.NOTIFY_ANNOUNCEMENTS, queue=QUEUE, title=subjects.NOTIFY_ANNOUNCEMENTS)
    async def announcements(q: AnnouncementsRequest) -> AnnouncementsReply:
        return await h.announcements(q.limit)

    @r.subscriber(subjects.NOTIFY_ANNOUNCE, queue=QUEUE, title=subjects.NOTIFY_ANNOUNCE)
    async def announce(cmd: PublishAnnouncement) -> AnnouncementReply:
        return await h.announce(cmd)

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[NotifyEvent], batch: Batch) -> None:
        await settle_batch(batch, events, h.on_events, h.on_event, DURABLE)   # a transaction a batch

    if medals is not None:
        @r.subscriber(**durable(stream, MEDALS_DURABLE, MEDALS_CONSUMED), title=MEDALS_DURABLE)
        async def on_medal_events(events: list[MedalEvent], batch: Batch) -> None:
            await settle_batch(batch, events, medals.on_events, medals.on_event, MEDALS_DURABLE)

    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r


def _mail(r: NatsRouter, mailing: Mailing) -> None:
    @r.subscriber(subjects.NOTIFY_MAIL, queue=QUEUE, title=subjects.NOTIFY_MAIL)
    async def mail(cmd: QueueMail) -> Done:
        await mailing.queue_mail(cmd)   # committed to the queue; sent by the mail loop, never in this request
        return Done()

    @r.subscriber(subjects.NOTIFY_MAIL_RESULTS, queue=QUEUE, title=subjects.NOTIFY_MAIL_RESULTS)
    async def mail_results(cmd: MailResults) -> Done:
        await mailing.queue_results(cmd)   # R30: committed to the queue, once per player and season
        return Done()

    @r.subscriber(subjects.NOTIFY_MAIL_FORGET, queue=QUEUE, title=subjects.NOTIFY_MAIL_FORGET)
    async def mail_forget(cmd: ForgetMail) -> Done:
        await mailing.queue.forget(cmd.to)   # R30: a withdrawn player's address leaves the queue
        return Done()

    @r.subscriber(subjects.NOTIFY_MAIL_LIST, queue=QUEUE, title=subjects.NOTIFY_MAIL_LIST)
    async def mail_list(q: MailListRequest) -> MailListReply:
        return MailListReply(mail=await mailing.listing(q.limit), relay=mailing.relay)
