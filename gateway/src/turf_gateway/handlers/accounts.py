"""R30's mailed links as use cases: the email confirmation (at registration and after an email change), the
forgotten password (asked by email, the same answer whether or not it is registered, throttled per address and per
client; a single-use link valid one hour, a newer one voiding the older; its use ends every session), and the
organizer's list of mail. Tokens are random (256 bits) and stored only as their SHA-256; the message carrying a
token's link is stored with the token in one transaction (the outbox) and asked of the notify service after the
commit, which commits it to its queue and sends it later: no request waits for a mail server, and a gateway that
stops between the two leaves the message to the relay's sweep, never loses it."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal
from urllib.parse import urlencode

import structlog

from turf_common.contracts import subjects
from turf_common.contracts.notify import MailListReply, MailListRequest, QueueMail
from turf_common.outbox import OutboxFlush
from turf_common.settings import MAIL_NOT_CONFIGURED
from turf_gateway.adapters.passwords import hash_password
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers import password_policy
from turf_gateway.handlers.clock import game_now_or_none
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import AccountTokens, GameClock, Limiter, PlayerStore, Revocations, Services

log = structlog.get_logger(__name__)

CONFIRM_FOR = timedelta(hours=24)   # R30: an email confirmation link
RESET_FOR = timedelta(hours=1)      # R30: a password reset link
EXPIRED = ("token_expired", "This link was already used, replaced by a newer one, or has expired; ask for a new one.")
RESET_ASKED = ("If this address belongs to a player, a link to choose a new password is on its way; it works once, "
               "for one hour.")


def _wall() -> datetime:
    """Wall time: links expire in real hours, whatever the game clock does."""
    return datetime.now(UTC)


@dataclass
class Accounts:
    players: PlayerStore
    tokens: AccountTokens
    revocations: Revocations
    services: Services
    limiter: Limiter
    base_url: str   # the pages' address, for the links (TURF_PUBLIC_URL)
    wall: Callable[[], datetime] = _wall
    relay: OutboxFlush = field(kw_only=True)   # hands the mail staged with a token to notify after the commit
    clock: GameClock | None = field(default=None, kw_only=True)   # the game clock: a message is dated by it

    def _link(self, action: str, token: str) -> str:
        return f"{self.base_url}/account?{urlencode({'action': action, 'token': token})}"

    async def _issue(self, kind: Literal["email_confirmation", "password_reset"], player_id: str, to: str,
                     name: str, valid: timedelta,
                     words: Literal["email_confirmation", "email_change_confirmation", "password_reset"] | None = None
                     ) -> None:
        """A new token of ``kind`` and the message carrying its link (in the ``words`` of that mail kind, the
        token's own by default), stored in one transaction, then handed to notify (the relay's flush). A bus that
        does not answer now leaves the message in the outbox for the relay's sweep (logged); the request goes on
        either way."""
        token = secrets.token_urlsafe(32)
        link = self._link("confirm" if kind == "email_confirmation" else "reset", token)
        # dated by the game clock; with it unreadable (NATS down) when sent: a registration never waits on the bus
        mail = QueueMail(command_id=uuid.uuid4().hex, to=to, kind=words or kind, name=name, link=link,
                         at=await game_now_or_none(self.clock) if self.clock is not None else None)
        await self.tokens.issue(token_hash(token), player_id, kind, to, self.wall() + valid, mail)
        try:
            await self.relay.flush()
        except Exception as e:   # the token and its message are committed: the sweep hands it on later
            log.warning("mail_not_queued_yet", kind=kind, error=type(e).__name__)

    async def send_confirmation(self, player_id: str, email: str, name: str, change: bool = False) -> None:
        """R30: a confirmation link for ``email`` (registration, or with ``change`` an email change, in its own
        words); an older one is void."""
        await self._issue("email_confirmation", player_id, email, name, CONFIRM_FOR,
                          "email_change_confirmation" if change else "email_confirmation")

    def address_changed(self, old: str, name: str, at: datetime) -> QueueMail:
        """R30 (amended 2026-12-07): the message telling the address an email change replaces (no link that acts
        on the account); staged with the change itself. ``at``: the game instant."""
        return QueueMail(command_id=uuid.uuid4().hex, to=old, kind="email_changed", name=name, at=at)

    async def confirm_email(self, token: str) -> S.EmailConfirmed:
        """410 ``token_expired`` for a used, voided, expired or unknown token (nothing changes)."""
        player_id = await self.tokens.confirm_email(token_hash(token), self.wall())
        if player_id is None:
            raise ApiError(*EXPIRED, 410)
        # GET /me's profile is kept in every gateway's session cache: drop it, or it shows the address unconfirmed
        await self.revocations.revoke(player_id=player_id)
        return S.EmailConfirmed(email_confirmed=True)

    async def request_reset(self, email: str, ip: str) -> S.ResetRequested:
        """Count the request against its limits (per address asked, registered or not, and per client: 429 alike
        for both, so a limit tells nothing either); the caller sends the link after answering
        (:meth:`send_reset`), so the answer takes the same time whoever asks."""
        # the address by its hash: the limiter's keys never hold who was asked about
        await self.limiter.hit("resets_ip", ip, ("resets_email", token_hash(email.strip().lower())))
        return S.ResetRequested(message=RESET_ASKED)

    async def send_reset(self, email: str) -> None:
        """The reset link, to a player who may sign in (not the organizer, whose password is the deployment's;
        not a disqualified, rejected or withdrawn player); nothing for anyone else. It goes to the address asked:
        the account's, or the one an unconfirmed email change replaced, which still signs in (R30, amended)."""
        acc = await self.players.account(email.strip())
        if acc is None or acc.role != "player" or acc.status in ("disqualified", "rejected", "withdrawn"):
            return
        row = await self.players.get(acc.id)
        assert row is not None
        to = row.email if row.email.lower() == email.strip().lower() else email.strip()
        await self._issue("password_reset", acc.id, to, row.name, RESET_FOR)

    async def check_reset(self, token: str) -> None:
        """410 ``token_expired`` unless a reset link's token is still usable; changes nothing."""
        if await self.tokens.holder(token_hash(token), "password_reset", self.wall()) is None:
            raise ApiError(*EXPIRED, 410)

    async def complete_reset(self, token: str, new_password: str) -> None:
        """A new password through a reset link: 410 ``token_expired`` (nothing changed), 422 ``weak_password``
        (the password policy; the link stays usable); every session of the player ends."""
        h = token_hash(token)
        pid = await self.tokens.holder(h, "password_reset", self.wall())
        row = None if pid is None else await self.players.get(pid)
        if row is None:
            raise ApiError(*EXPIRED, 410)
        if refused := password_policy.refusal(new_password, row.email, (row.name, row.discord)):
            raise ApiError(refused.reason, refused.message, 422)
        if await self.tokens.reset_password(h, await hash_password(new_password), self.wall()) is None:
            raise ApiError(*EXPIRED, 410)   # used by a concurrent request meanwhile
        await self.revocations.revoke(player_id=row.id)   # no gateway answers an ended session from its cache

    async def mail(self, limit: int = 200) -> S.MailList:
        """The latest messages for the organizer page (R30), newest first."""
        reply = await self.services.ask(subjects.NOTIFY_MAIL_LIST, MailListRequest(limit=limit), MailListReply)
        return S.MailList(mail=[S.MailItem(id=m.id, at=m.at.isoformat(), to=m.to, kind=m.kind, subject=m.subject,
                                           status=m.status, attempts=m.attempts, error=m.error, links=m.links)
                                for m in reply.mail],
                          warning=None if reply.relay else MAIL_NOT_CONFIGURED)
