"""The mail queue's contract (R30), on the memory fake and on PostgreSQL: once per key, taken under a lease (a
second sender gets nothing until it ends), the bodies dropped once sent unless kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied
from turf_notify.adapters import tables as t
from turf_notify.adapters.mailqueue import SqlMailQueue
from turf_notify.ports import MailQueue
from turf_notify.testing import MemoryMailQueue

NOW = datetime(2026, 10, 5, 12, tzinfo=UTC)


@pytest.fixture(params=["memory", "postgres"])
async def queue(request: pytest.FixtureRequest, notify_engine: AsyncEngine) -> MailQueue:
    if request.param == "memory":
        return MemoryMailQueue()
    return SqlMailQueue(await emptied(notify_engine, t.metadata))


async def test_a_key_queues_once_and_a_leased_message_is_not_taken_again_before_its_lease_ends(
        queue: MailQueue) -> None:
    await queue.queue_mail("k1", "a@example.org", "password_reset", "S", "text", "<p>html</p>", NOW)
    await queue.queue_mail("k1", "a@example.org", "password_reset", "S", "text", "<p>html</p>", NOW)
    [m] = await queue.take_mails(NOW, NOW + timedelta(minutes=5), 10)
    assert (m.key, m.to, m.text, m.html, m.attempts) == ("k1", "a@example.org", "text", "<p>html</p>", 1)
    assert await queue.take_mails(NOW + timedelta(minutes=4), NOW + timedelta(minutes=9), 10) == []
    [again] = await queue.take_mails(NOW + timedelta(minutes=5), NOW + timedelta(minutes=10), 10)
    assert again.attempts == 2   # the sender died mid-send: another takes it after the lease


async def test_a_sent_message_loses_its_bodies_unless_kept_and_leaves_the_queue(queue: MailQueue) -> None:
    await queue.queue_mail("k1", "a@example.org", "password_reset", "S", "link", "h", NOW)
    await queue.queue_mail("k2", "b@example.org", "email_confirmation", "S", "link", "h", NOW)
    a, b = await queue.take_mails(NOW, NOW + timedelta(minutes=5), 10)
    await queue.mail_sent(a.id, NOW, keep_text=False)
    await queue.mail_retry(b.id, NOW + timedelta(minutes=1), "451 later")
    listed = {r.to: r for r in await queue.mail_list(10)}
    assert [r.to for r in await queue.mail_list(10)] == ["b@example.org", "a@example.org"]   # newest first
    assert (listed["a@example.org"].status, listed["a@example.org"].text) == ("sent", "")
    assert (listed["b@example.org"].status, listed["b@example.org"].error) == ("queued", "451 later")
    [retried] = await queue.take_mails(NOW + timedelta(hours=1), NOW + timedelta(hours=2), 10)
    assert retried.key == "k2"   # the sent one is never taken again


async def test_r30_forgetting_an_address_deletes_every_message_to_it(queue: MailQueue) -> None:
    for key, to in (("k1", "a@example.org"), ("k2", "b@example.org"), ("k3", "a@example.org")):
        await queue.queue_mail(key, to, "announcement", "S", "t", "h", NOW)
    assert await queue.forget("a@example.org") == 2
    assert [r.to for r in await queue.mail_list(10)] == ["b@example.org"]
