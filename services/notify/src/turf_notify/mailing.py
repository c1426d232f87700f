"""The mail channel's use cases (R30): queue a message (rendered now, committed before the asker is answered), send
what is due (paced, retried with a growing delay on temporary errors, never inside a request or a transaction),
and list the latest for the organizer."""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime

import structlog

from turf_common.contracts.notify import MailOut, MailResults, QueueMail
from turf_notify import mailtext
from turf_notify.ports import MailError, MailQueue, MailSender, QueuedMail

log = structlog.get_logger(__name__)

LEASE = timedelta(minutes=5)   # a sender that died mid-send leaves its messages to another after this
MAX_ATTEMPTS = 8               # 1, 2, 4 … 64 minutes apart: about two hours of a relay's trouble, then failed
BATCH = 20
LINK = re.compile(r"https?://\S+")
DOMAIN = "turfwar.invalid"     # the Message-ID's right part: ours, resolvable by nobody


def _wall() -> datetime:
    """Wall time: mail is paced and retried in real time, whatever the game clock does."""
    return datetime.now(UTC)


def retry_delay(attempts: int) -> timedelta:
    return timedelta(minutes=min(2 ** (attempts - 1), 64))


def _one_line(s: str) -> str:
    return " ".join(s.split())   # a header never carries a line break (no header injection from a title)


@dataclass
class Mailing:
    queue: MailQueue
    sender: MailSender
    from_address: str
    interval_s: float = 0.2
    wall: Callable[[], datetime] = _wall
    _last: float = float("-inf")

    async def queue_mail(self, cmd: QueueMail) -> None:
        m = mailtext.render(cmd.kind, name=cmd.name, link=cmd.link)
        await self.queue.queue_mail(cmd.command_id, cmd.to, cmd.kind, m.subject, m.text, m.html, self.wall(), cmd.at)

    async def queue_results(self, cmd: MailResults) -> int:
        """R30: the final results to each recipient, queued once per player and season (the key), so the event
        delivered twice, or the results republished after a correction, mails nobody twice. How many were asked."""
        podium = [p.model_dump() for p in cmd.podium]
        for r in cmd.recipients:
            m = mailtext.render("final_results", name=r.name, place_text=mailtext.ordinal(r.place), total=r.total,
                                prize=r.prize, podium=podium)
            key = hashlib.sha256(f"final_results|{cmd.season}|{r.player_id}".encode()).hexdigest()
            await self.queue.queue_mail(key, r.to, "final_results", m.subject, m.text, m.html, self.wall())
        return len(cmd.recipients)

    def message(self, q: QueuedMail) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = self.from_address
        msg["To"] = q.to
        msg["Subject"] = _one_line(q.subject)
        msg["Date"] = format_datetime(self.wall())   # sent now (q.at is the game instant it was asked)
        msg["Message-ID"] = f"<{q.key}@{DOMAIN}>"   # the same each attempt: a receiver can drop a duplicate
        msg.set_content(q.text)
        msg.add_alternative(q.html, subtype="html")
        return msg

    async def send_due(self, limit: int = BATCH) -> int:
        """Send what is due; how many the relay took."""
        now = self.wall()
        sent = 0
        for q in await self.queue.take_mails(now, now + LEASE, limit):
            await self._pace()
            try:
                await self.sender.send(self.message(q))
            except MailError as e:
                await self._refused(q, e)
                continue
            await self.queue.mail_sent(q.id, self.wall(), keep_text=self.sender.keeps_copies)
            log.info("mail_sent", mail_id=q.id, kind=q.kind, attempts=q.attempts)
            sent += 1
        return sent

    async def _pace(self) -> None:
        wait = self._last + self.interval_s - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last = time.monotonic()

    async def _refused(self, q: QueuedMail, e: MailError) -> None:
        if e.temporary and q.attempts < MAX_ATTEMPTS:
            await self.queue.mail_retry(q.id, self.wall() + retry_delay(q.attempts), str(e))
            log.warning("mail_deferred", mail_id=q.id, attempts=q.attempts, error=str(e))
        else:
            await self.queue.mail_failed(q.id, str(e))
            log.warning("mail_failed", mail_id=q.id, attempts=q.attempts, error=str(e))

    @property
    def relay(self) -> bool:
        """Mail leaves for the players (an SMTP relay), rather than landing as files beside the service (R30)."""
        return not self.sender.keeps_copies

    async def listing(self, limit: int) -> list[MailOut]:
        """The latest messages for the organizer page; their links only where copies are kept (.eml rehearsals)."""
        return [MailOut(id=r.id, at=r.at, to=r.to, kind=r.kind, subject=r.subject,  # type: ignore[arg-type]
                        status=r.status, attempts=r.attempts, error=r.error,  # type: ignore[arg-type]
                        links=LINK.findall(r.text) if self.sender.keeps_copies else [])
                for r in await self.queue.mail_list(limit)]

    async def run(self, interval: float = 1.0) -> None:
        """:meth:`send_due` forever (a failed round is retried at the next)."""
        while True:
            try:
                while await self.send_due():
                    pass
            except Exception as e:
                log.warning("mail_round_failed", error=f"{type(e).__name__}: {e}")
            await asyncio.sleep(interval)
