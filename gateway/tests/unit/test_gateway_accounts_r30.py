"""R30 on fakes: the mailed links' use cases. A confirmation link confirms the address it went to, once; a reset link
works once, for one hour, a newer one voids it, its use ends every session and obeys the password policy; a reset
request answers alike whether or not the address is registered and mails only a player; tokens are kept as hashes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import pytest

from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.notify import Done, QueueMail
from turf_gateway.adapters.passwords import verify_password
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import (
    MemoryAccountTokens,
    MemoryPlayers,
    MemoryRelay,
    MemorySessions,
    MemoryTables,
    NoLimits,
)

M = TypeVar("M", bound=Message)
T0 = datetime(2026, 10, 5, 12, tzinfo=UTC)


@dataclass
class Mailbox:
    """The notify service as the gateway asks it: every queued message."""

    queued: list[QueueMail] = field(default_factory=list)
    down: bool = False   # notify does not answer (a restart, the bus away)

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        assert subject == subjects.NOTIFY_MAIL and isinstance(msg, QueueMail)
        if self.down:
            raise BusError(f"no answer on {subject}")
        self.queued.append(msg)
        return Done()  # type: ignore[return-value]

    def token(self, to: str, kind: str) -> str:
        [*_, last] = [m for m in self.queued if m.to == to and m.kind == kind]
        return parse_qs(urlsplit(last.link).query)["token"][0]


@dataclass
class Revoked:
    players: list[str] = field(default_factory=list)

    async def revoke(self, *, player_id: str | None = None, token_hash: str | None = None) -> None:
        if player_id:
            self.players.append(player_id)


@dataclass
class World:
    accounts: Accounts
    tables: MemoryTables
    mail: Mailbox
    revoked: Revoked
    clock: list[datetime]
    ada: str

    def later(self, **kw: Any) -> None:
        self.clock[0] += timedelta(**kw)


@pytest.fixture
async def w() -> World:
    tables, mail, revoked, clock = MemoryTables(), Mailbox(), Revoked(), [T0]
    players = MemoryPlayers(tables)
    ada = await players.create(NewPlayer("Ada", "ada@example.org", "ada", "1 Main St", "old-hash"))
    accounts = Accounts(players, MemoryAccountTokens(tables), revoked, mail, NoLimits(), "https://turf.example",
                        wall=lambda: clock[0], relay=MemoryRelay(tables, mail))
    return World(accounts, tables, mail, revoked, clock, ada)


async def test_r30_a_confirmation_link_confirms_the_address_it_went_to_once(w: World) -> None:
    await w.accounts.send_confirmation(w.ada, "ada@example.org", "Ada")
    [m] = w.mail.queued
    assert m.link.startswith("https://turf.example/account?action=confirm&token=")
    token = w.mail.token("ada@example.org", "email_confirmation")
    assert token not in str(w.tables.tokens) and token_hash(token) in w.tables.tokens   # only the hash is kept
    assert (await w.accounts.confirm_email(token)).email_confirmed is True
    assert w.tables.players[w.ada].email_confirmed is True
    assert w.revoked.players == [w.ada]   # every gateway drops the profile it kept for GET /me
    with pytest.raises(ApiError) as used:
        await w.accounts.confirm_email(token)
    assert (used.value.reason, used.value.status) == ("token_expired", 410)
    assert w.revoked.players == [w.ada]


async def test_r30_a_confirmation_link_expires_after_24_hours_and_a_forged_one_changes_nothing(w: World) -> None:
    await w.accounts.send_confirmation(w.ada, "ada@example.org", "Ada")
    token = w.mail.token("ada@example.org", "email_confirmation")
    w.later(hours=24)
    for t in (token, "forged-token"):
        with pytest.raises(ApiError) as e:
            await w.accounts.confirm_email(t)
        assert (e.value.reason, e.value.status) == ("token_expired", 410)
    assert w.tables.players[w.ada].email_confirmed is False


async def test_r30_a_reset_sets_the_password_once_ends_every_session_and_a_newer_link_voids_the_older(
        w: World) -> None:
    sessions = MemorySessions(w.tables)
    await sessions.create(token_hash("s1"), w.ada, T0 + timedelta(days=1))
    await w.accounts.send_reset("ADA@example.org ")
    older = w.mail.token("ada@example.org", "password_reset")
    await w.accounts.send_reset("ada@example.org")
    newer = w.mail.token("ada@example.org", "password_reset")
    with pytest.raises(ApiError) as voided:
        await w.accounts.complete_reset(older, "correct horse battery staple")
    assert voided.value.reason == "token_expired"
    assert w.tables.players[w.ada].password_hash == "old-hash"
    await w.accounts.complete_reset(newer, "correct horse battery staple")
    assert await verify_password(w.tables.players[w.ada].password_hash, "correct horse battery staple")
    assert await sessions.lookup(token_hash("s1")) is None and w.revoked.players == [w.ada]
    with pytest.raises(ApiError) as used:
        await w.accounts.complete_reset(newer, "another fine passphrase")
    assert used.value.reason == "token_expired"


async def test_r30_a_reset_link_expires_after_one_hour(w: World) -> None:
    await w.accounts.send_reset("ada@example.org")
    token = w.mail.token("ada@example.org", "password_reset")
    w.later(hours=1)
    with pytest.raises(ApiError) as e:
        await w.accounts.complete_reset(token, "correct horse battery staple")
    assert (e.value.reason, e.value.status) == ("token_expired", 410)
    assert w.tables.players[w.ada].password_hash == "old-hash"


@pytest.mark.parametrize("weak", ["short", "password123", "ada@example.org"])
async def test_r30_a_weak_new_password_is_refused_and_the_link_stays_usable(w: World, weak: str) -> None:
    await w.accounts.send_reset("ada@example.org")
    token = w.mail.token("ada@example.org", "password_reset")
    with pytest.raises(ApiError) as e:
        await w.accounts.complete_reset(token, weak)
    assert (e.value.reason, e.value.status) == ("weak_password", 422)
    assert w.tables.players[w.ada].password_hash == "old-hash"
    await w.accounts.complete_reset(token, "correct horse battery staple")


async def test_r30_a_reset_request_answers_alike_for_an_unknown_address_and_mails_nobody(w: World) -> None:
    known = await w.accounts.request_reset("ada@example.org", "1.2.3.4")
    unknown = await w.accounts.request_reset("nobody@example.org", "1.2.3.4")
    assert known == unknown
    await w.accounts.send_reset("nobody@example.org")
    assert w.mail.queued == [] and w.tables.tokens == {}


async def test_r30_a_disqualified_player_gets_no_reset_link(w: World) -> None:
    w.tables.players[w.ada].status = "disqualified"
    await w.accounts.send_reset("ada@example.org")
    assert w.mail.queued == []


async def test_r30_a_confirmation_asked_while_notify_is_away_is_kept_with_its_token_and_sent_once_later(
        w: World) -> None:
    """The token and its message are stored together (the outbox): the request goes on, and the relay's next
    flush, once notify answers, hands the message on once; the link in it is the stored token's."""
    w.mail.down = True
    await w.accounts.send_confirmation(w.ada, "ada@example.org", "Ada")   # no error for the registration
    assert w.mail.queued == [] and [s for s, _ in w.tables.outbox] == [subjects.NOTIFY_MAIL]
    w.mail.down = False
    assert await w.accounts.relay.flush() == 1
    assert await w.accounts.relay.flush() == 0   # once
    token = w.mail.token("ada@example.org", "email_confirmation")
    assert (await w.accounts.confirm_email(token)).email_confirmed is True
