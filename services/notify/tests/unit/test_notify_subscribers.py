"""The notify subscribers on FastStream's TestNatsBroker (no server): typed decoding, the replies, a body that does
not fit its contract, and the consumer's subjects against its event union."""

from __future__ import annotations

from typing import get_args

from faststream.nats import TestNatsBroker
from notify_world import World

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.notify import Done, MailListReply, NotificationsReply, PushKeyReply
from turf_notify import entrypoints
from turf_notify.handlers import NotifyEvent


async def test_push_subscription_and_list_round_trip(w: World) -> None:
    broker = make_broker("nats://test", "notify")
    broker.include_router(entrypoints.router(w.h, "TEST", "PUBKEY", w.mailing))
    async with TestNatsBroker(broker) as br:
        r = await br.request({}, subjects.NOTIFY_PUSH_KEY)
        assert decode_reply(r.body, PushKeyReply) == PushKeyReply(key="PUBKEY")
        r = await br.request({"player_id": "v", "endpoint": "https://push.example/1",
                              "keys": {"p256dh": "k", "auth": "s"}}, subjects.NOTIFY_PUSH_SAVE)
        assert decode_reply(r.body, Done) == Done()
        assert [s.endpoint for s in await w.store.subscriptions("v")] == ["https://push.example/1"]
        r = await br.request({"player_id": "v", "up_to": 7}, subjects.NOTIFY_READ)
        assert decode_reply(r.body, Done) == Done()
        r = await br.request({"player_id": "v"}, subjects.NOTIFY_LIST)
        assert decode_reply(r.body, NotificationsReply) == NotificationsReply(notifications=[], read_up_to=7)
        r = await br.request({"player_id": "x", "endpoint": "https://push.example/1"}, subjects.NOTIFY_PUSH_DROP)
        assert len(await w.store.subscriptions("v")) == 1   # not x's subscription: kept
        r = await br.request({"player_id": "v", "endpoint": None}, subjects.NOTIFY_PUSH_DROP)
        assert await w.store.subscriptions("v") == []


async def test_a_command_that_does_not_fit_its_contract_is_answered_invalid_input(w: World) -> None:
    broker = make_broker("nats://test", "notify")
    broker.include_router(entrypoints.router(w.h, "TEST", "PUBKEY", w.mailing))
    async with TestNatsBroker(broker) as br:
        r = await br.request({"player_id": "v", "up_to": -1}, subjects.NOTIFY_READ)
        assert decode_reply(r.body, Done) == Refusal(reason="invalid_input",
                                                     message="The command does not fit its contract.")
    assert w.store.state.reads == {}


def test_the_consumer_takes_exactly_the_subjects_its_event_union_decodes() -> None:
    union = get_args(get_args(NotifyEvent)[0])
    types = {t for model in union for t in get_args(model.model_fields["type"].annotation)}
    assert types == set(entrypoints.CONSUMED)


async def test_r30_a_mail_asked_over_the_bus_is_queued_then_sent_and_listed(w: World) -> None:
    broker = make_broker("nats://test", "notify")
    broker.include_router(entrypoints.router(w.h, "TEST", "PUBKEY", w.mailing))
    async with TestNatsBroker(broker) as br:
        ask = {"command_id": "c1", "to": "ana@example.org", "kind": "email_confirmation", "name": "Ana",
               "link": "http://127.0.0.1:8000/?confirm=1&token=t1"}
        assert decode_reply((await br.request(ask, subjects.NOTIFY_MAIL)).body, Done) == Done()
        assert w.mailer.sent == []   # answered once queued: the request never waits for the relay
        assert await w.mailing.send_due() == 1
        [msg] = w.mailer.sent
        assert msg["To"] == "ana@example.org" and "token=t1" in msg.get_body(("plain",)).get_content()
        listed = decode_reply((await br.request({"limit": 5}, subjects.NOTIFY_MAIL_LIST)).body, MailListReply)
        assert isinstance(listed, MailListReply)
        assert [(m.to, m.kind, m.status) for m in listed.mail] == [("ana@example.org", "email_confirmation", "sent")]
