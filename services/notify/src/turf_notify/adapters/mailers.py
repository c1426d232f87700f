"""Where mail goes (R30): an SMTP relay through aiosmtplib (``TURF_SMTP_URL``), or, unset, a directory of ``.eml``
files under the data directory (the embedded default of ``turfwar up``: a rehearsal opens them, or follows the links
the organizer page lists)."""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

import aiosmtplib

from turf_common.settings import is_loopback
from turf_notify.ports import MailError

Security = Literal["none", "starttls", "tls"]
SCHEMES: dict[str, tuple[Security, int]] = {"smtp": ("none", 25), "smtp+starttls": ("starttls", 587),
                                            "smtps": ("tls", 465)}


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    security: Security
    username: str | None = None
    password: str | None = None


def parse_smtp_url(url: str) -> SmtpTarget:
    """``smtp://host:port`` (plain: a loopback relay only), ``smtp+starttls://user:pw@host:587``,
    ``smtps://user:pw@host:465``. Raises ValueError for anything else, and for plain SMTP to another machine
    (credentials and reset links would cross the network in the clear)."""
    u = urlsplit(url)
    if u.scheme not in SCHEMES or not u.hostname:
        raise ValueError("TURF_SMTP_URL must be smtp://host:port, smtp+starttls://user:password@host:port or "
                         "smtps://user:password@host:port")
    security, default_port = SCHEMES[u.scheme]
    if security == "none" and not is_loopback(u.hostname):
        raise ValueError("TURF_SMTP_URL: plain smtp:// is allowed to a loopback relay only; use smtp+starttls:// "
                         "or smtps:// for a relay on another machine")
    return SmtpTarget(u.hostname, u.port or default_port, security,
                      unquote(u.username) if u.username else None, unquote(u.password) if u.password else None)


class SmtpMailer:
    """Sends each message in a connection of its own (a relay that dropped an idle connection never matters)."""

    keeps_copies = False

    def __init__(self, target: SmtpTarget, timeout: float = 30.0) -> None:
        self.target, self.timeout = target, timeout

    async def send(self, msg: EmailMessage) -> None:
        t = self.target
        try:
            await aiosmtplib.send(msg, hostname=t.host, port=t.port, username=t.username, password=t.password,
                                  use_tls=t.security == "tls", start_tls=t.security == "starttls",
                                  timeout=self.timeout)
        except aiosmtplib.SMTPRecipientsRefused as e:
            codes = [r.code for r in e.recipients]
            raise MailError(f"recipient refused: {codes}", temporary=all(400 <= c < 500 for c in codes)) from e
        except aiosmtplib.SMTPAuthenticationError as e:
            # the deployment's credentials, not the message: keep it queued until someone fixes them
            raise MailError(f"relay refused the credentials: {e.code}", temporary=True) from e
        except aiosmtplib.SMTPResponseException as e:
            raise MailError(f"relay answered {e.code}: {e.message}", temporary=400 <= e.code < 500) from e
        except (aiosmtplib.SMTPException, OSError) as e:   # connection refused, lost, timed out
            raise MailError(f"relay unreachable: {type(e).__name__}", temporary=True) from e


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class EmlDirectory:
    """Writes each message to ``<dir>/<Message-ID>.eml`` (mode 0600 in a 0700 directory: the links are secrets),
    atomically; the same message twice is one file."""

    keeps_copies = True

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def send(self, msg: EmailMessage) -> None:
        await asyncio.to_thread(self._write, msg)

    def _write(self, msg: EmailMessage) -> None:
        name = _UNSAFE.sub("_", str(msg["Message-ID"]).strip("<>").split("@")[0]) + ".eml"
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp = self.directory / f".{name}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(msg.as_bytes())
            tmp.replace(self.directory / name)
        except OSError as e:
            raise MailError(f"could not write {name}: {e.strerror}", temporary=True) from e


def mailer(smtp_url: str | None, data_dir: Path) -> SmtpMailer | EmlDirectory:
    """The sender the settings name: SMTP when ``TURF_SMTP_URL`` is set, else ``<data dir>/mail/``."""
    if smtp_url:
        return SmtpMailer(parse_smtp_url(smtp_url))
    return EmlDirectory(data_dir / "mail")
