"""R30: what ``TURF_SMTP_URL`` may say, and the .eml directory a rehearsal reads."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from turf_common.contracts.notify import QueueMail
from turf_notify.adapters.mailers import EmlDirectory, SmtpTarget, mailer, parse_smtp_url
from turf_notify.mailing import Mailing
from turf_notify.testing import MemoryMailQueue


@pytest.mark.parametrize(("url", "target"), [
    ("smtp://127.0.0.1:2525", SmtpTarget("127.0.0.1", 2525, "none")),
    ("smtp+starttls://league%40example.org:p%3Ass@mail.example.org",
     SmtpTarget("mail.example.org", 587, "starttls", "league@example.org", "p:ss")),
    ("smtps://u:p@mail.example.org:2465", SmtpTarget("mail.example.org", 2465, "tls", "u", "p")),
])
def test_an_smtp_url_names_host_port_security_and_credentials(url: str, target: SmtpTarget) -> None:
    assert parse_smtp_url(url) == target


@pytest.mark.parametrize("url", ["smtp://mail.example.org:25", "http://127.0.0.1:25", "smtp://"])
def test_plain_smtp_to_another_machine_and_other_schemes_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="TURF_SMTP_URL"):
        parse_smtp_url(url)


async def test_unset_smtp_writes_each_message_as_an_eml_file_and_the_listing_shows_its_link(tmp_path: Path) -> None:
    sender = mailer(None, tmp_path)
    assert isinstance(sender, EmlDirectory)
    m = Mailing(MemoryMailQueue(), sender, "league@example.org", interval_s=0,
                wall=lambda: datetime(2026, 10, 5, 12, tzinfo=UTC))
    link = "http://127.0.0.1:8000/play.html?token=t0k"
    await m.queue_mail(QueueMail(command_id="k1", to="bo@example.org", kind="email_confirmation", name="Bo",
                                 link=link))
    await m.send_due()
    [path] = (tmp_path / "mail").glob("*.eml")
    assert path.stat().st_mode & 0o077 == 0   # only the owner reads the links
    msg = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert msg["To"] == "bo@example.org" and msg["Subject"] == "Turf War: confirm your email address"
    [listed] = await m.listing(10)
    assert (listed.status, listed.links) == ("sent", [link])
