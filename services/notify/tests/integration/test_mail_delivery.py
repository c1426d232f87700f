"""R30: mail really sent, to a real SMTP server (aiosmtpd in this process): rendered in two parts, sent once per
command however often it was asked, deferred on a temporary refusal and sent later, failed on a permanent one, and
the bodies (single-use links) dropped once the relay took them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.smtp import Inbox, smtp_server, text_of
from turf_common.contracts.notify import QueueMail
from turf_notify.adapters.mailers import SmtpMailer, parse_smtp_url
from turf_notify.mailing import Mailing
from turf_notify.testing import MemoryMailQueue

LINK = "http://127.0.0.1:8000/reset.html?token=abc123"


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    with smtp_server() as box:
        yield box


def mailing(inbox: Inbox, clock: list[datetime]) -> tuple[Mailing, MemoryMailQueue]:
    q = MemoryMailQueue()
    return Mailing(q, SmtpMailer(parse_smtp_url(inbox.url), timeout=5), "Turf War <league@example.org>",
                   interval_s=0, wall=lambda: clock[0]), q


def reset(command_id: str = "c1", to: str = "ana@example.org") -> QueueMail:
    return QueueMail(command_id=command_id, to=to, kind="password_reset", name="Ana <b>", link=LINK)


async def test_a_reset_mail_arrives_with_its_link_in_both_parts_once_however_often_it_was_asked(
        inbox: Inbox) -> None:
    m, q = mailing(inbox, [datetime(2026, 10, 5, 12, tzinfo=UTC)])
    await m.queue_mail(reset())
    await m.queue_mail(reset())   # the gateway asked again (a retried request): one message
    assert await m.send_due() == 1
    assert await m.send_due() == 0
    [msg] = inbox.to("ana@example.org")
    assert msg["From"] == "Turf War <league@example.org>"
    assert msg["Subject"] == "Turf War: choose a new password"
    assert LINK in text_of(msg)
    html = msg.get_body(preferencelist=("html",))
    assert html is not None
    body = html.get_content()  # type: ignore[attr-defined]
    assert f'href="{LINK}"' in body
    assert "Ana &lt;b&gt;" in body   # a display name is text in the HTML part, never markup
    [row] = q.rows.values()
    assert (row["status"], row["text"], row["html"]) == ("sent", "", "")   # the single-use link is not kept


async def test_a_temporary_refusal_defers_the_message_and_it_is_sent_when_due_again(inbox: Inbox) -> None:
    clock = [datetime(2026, 10, 5, 12, tzinfo=UTC)]
    m, q = mailing(inbox, clock)
    inbox.refusals.append("451 4.3.0 Try again later")
    await m.queue_mail(reset())
    assert await m.send_due() == 0
    [row] = q.rows.values()
    assert (row["status"], row["attempts"]) == ("queued", 1) and "451" in row["error"]
    assert await m.send_due() == 0            # not due yet: a minute later
    clock[0] += timedelta(minutes=1)
    assert await m.send_due() == 1
    assert len(inbox.messages) == 1 and row["status"] == "sent"


async def test_a_permanent_refusal_fails_the_message_and_never_retries_it(inbox: Inbox) -> None:
    clock = [datetime(2026, 10, 5, 12, tzinfo=UTC)]
    m, _ = mailing(inbox, clock)
    inbox.refusals.append("550 5.1.1 No such mailbox")
    await m.queue_mail(reset())
    await m.send_due()
    clock[0] += timedelta(days=1)
    assert await m.send_due() == 0
    [listed] = await m.listing(10)
    assert (listed.status, listed.links) == ("failed", []) and "550" in (listed.error or "")
    assert inbox.messages == []


async def test_an_unreachable_relay_defers_the_message() -> None:
    with smtp_server() as box:
        url = box.url
    clock = [datetime(2026, 10, 5, 12, tzinfo=UTC)]
    q = MemoryMailQueue()
    m = Mailing(q, SmtpMailer(parse_smtp_url(url), timeout=2), "league@example.org", interval_s=0,
                wall=lambda: clock[0])
    await m.queue_mail(reset())
    assert await m.send_due() == 0
    [row] = q.rows.values()
    assert row["status"] == "queued" and "unreachable" in row["error"]
