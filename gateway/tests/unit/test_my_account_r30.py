"""R30 "my account" on fakes: a player changes name, Discord name, email (unconfirmed, a link mailed to the new
address) and home address (pending again until verified, R27; outside the board refused, nothing changed), and the
password (the current one required, the policy obeyed, the other sessions ended)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.claims import PlayerReply
from turf_common.contracts.notify import Done, QueueMail
from turf_common.contracts.players import PlayerRenamed
from turf_common.rules import gametime
from turf_common.testing import FakeClock
from turf_gateway.adapters.geocoding import GeoPoint
from turf_gateway.adapters.passwords import hash_password, verify_password
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.myaccount import MyAccount, PasswordChange, ProfilePatch
from turf_gateway.handlers.players import Players
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import Caller, NewPlayer, StatusChange
from turf_gateway.testing import (
    CannedServices,
    MemoryAccountTokens,
    MemoryPlayers,
    MemoryRelay,
    MemorySessions,
    MemoryTables,
    NoLimits,
)

NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")
HOBOKEN = GeoPoint(40.7440, -74.0324)
PHILADELPHIA = GeoPoint(39.9526, -75.1652)
BOARD = load_board()


class Atlas:
    """A geocoder of two addresses."""

    async def geocode(self, address: str) -> GeoPoint | None:
        return {"1 hoboken st": HOBOKEN, "1 philly st": PHILADELPHIA}.get(address.lower())


class Nothing:
    async def revoke(self, **_: object) -> None:
        return None

    async def flush(self) -> int:
        return 0


@dataclass
class World:
    mine: MyAccount
    tables: MemoryTables
    services: CannedServices
    sessions: MemorySessions
    ada: Caller

    def mails(self) -> list[QueueMail]:
        return [m for s, m in self.services.asked if s == subjects.NOTIFY_MAIL]  # type: ignore[misc]


@pytest.fixture
async def w() -> World:
    tables = MemoryTables()
    store, sessions = MemoryPlayers(tables), MemorySessions(tables)
    pid = await store.create(NewPlayer("Ada", "ada@example.org", "ada", "1 Hoboken St",
                                       await hash_password("old but long enough")))
    await store.change_status(StatusChange(pid, "verified", "org", "", None, NOW, False))
    services = CannedServices({subjects.NOTIFY_MAIL: Done(),
                               subjects.CLAIMS_PLAYER: PlayerReply(player_id=pid, claims_left_today=1)})
    accounts = Accounts(store, MemoryAccountTokens(tables), Nothing(), services, NoLimits(), "https://t.example",
                        relay=MemoryRelay(tables, services))
    players = Players(store, sessions, Nothing(), services, NoLimits(), Atlas(), BOARD, FakeClock(NOW),
                      gametime.load_season(), Nothing(), timedelta(days=1), accounts)
    return World(MyAccount(players, accounts), tables, services, sessions,
                 Caller(pid, "player", "verified", "ada"))


async def test_r30_name_and_discord_change_and_a_new_email_is_unconfirmed_with_a_link_mailed_to_it(
        w: World) -> None:
    w.tables.players[w.ada.id].email_confirmed = True
    me = await w.mine.update(w.ada, ProfilePatch(name="Ada L.", discord="ada.l", email="ada@new.example"))
    assert (me.name, me.discord, me.display_name, me.email, me.email_confirmed) == (
        "Ada L.", "ada.l", "ada.l", "ada@new.example", False)
    [told, mail] = w.mails()
    assert (mail.to, mail.kind) == ("ada@new.example", "email_change_confirmation")
    # R30 (amended 2026-12-07): the address it replaces is told, with no link that acts on the account
    assert (told.to, told.kind, told.link) == ("ada@example.org", "email_changed", "")


async def test_r30_both_addresses_sign_in_and_ask_for_a_reset_until_the_new_one_is_confirmed(w: World) -> None:
    """R30 (amended 2026-12-07): a changed address is not yet the account's only one: the old and the new both
    sign in, a reset asked with the old one goes to the old one, and once the new one is confirmed the old one no
    longer signs in."""
    await w.mine.update(w.ada, ProfilePatch(email="ada@new.example"))
    players = w.mine.players
    for address in ("ada@example.org", "ada@new.example"):
        assert (await players.sign_in(address, "old but long enough", "10.0.0.1")).player_id == w.ada.id
    await w.mine.accounts.send_reset("ada@example.org")
    assert [(m.to, m.kind) for m in w.mails()][-1] == ("ada@example.org", "password_reset")
    [confirm] = [h for h, v in w.tables.tokens.items() if v[1] == "email_confirmation"]
    assert await w.mine.accounts.tokens.confirm_email(confirm, datetime.now(UTC)) == w.ada.id
    with pytest.raises(ApiError) as old:
        await players.sign_in("ada@example.org", "old but long enough", "10.0.0.1")
    assert old.value.reason == "unauthenticated"
    assert (await players.sign_in("ada@new.example", "old but long enough", "10.0.0.1")).player_id == w.ada.id


async def test_r30_a_taken_email_or_discord_is_refused_and_nothing_changes(w: World) -> None:
    await MemoryPlayers(w.tables).create(NewPlayer("Bo", "bo@example.org", "bo", "-", "h"))
    for patch, reason in ((ProfilePatch(name="X", email="BO@example.org"), "email_taken"),
                          (ProfilePatch(name="X", discord="Bo"), "discord_taken")):
        with pytest.raises(ApiError) as e:
            await w.mine.update(w.ada, patch)
        assert (e.value.reason, e.value.status) == (reason, 409)
    p = w.tables.players[w.ada.id]
    assert (p.name, p.email, p.discord) == ("Ada", "ada@example.org", "ada") and w.mails() == []


async def test_r30_r27_a_new_home_address_makes_the_player_pending_until_verified_again(w: World) -> None:
    w.mine.players.geocoder = Atlas()
    me = await w.mine.update(w.ada, ProfilePatch(home_address="2 Nowhere Rd"))   # not found: the organizer decides
    assert (me.status, me.status_reason, me.home_address) == ("pending", "address_not_found", "2 Nowhere Rd")
    me = await w.mine.update(w.ada, ProfilePatch(home_address="1 Hoboken St"))   # inside the board: verified again
    assert (me.status, me.status_reason) == ("verified", None)
    assert [e.action for e in w.tables.admin_log] == ["player_verified", "player_pending", "player_verified"]


async def test_r30_a_new_home_outside_the_board_is_refused_and_changes_nothing(w: World) -> None:
    with pytest.raises(ApiError) as e:
        await w.mine.update(w.ada, ProfilePatch(home_address="1 Philly St"))
    assert (e.value.reason, e.value.status) == ("not_in_board", 409)
    p = w.tables.players[w.ada.id]
    assert (p.status, p.home_address) == ("verified", "1 Hoboken St")


def test_r30_an_empty_patch_or_a_bad_email_is_invalid_input() -> None:
    for body in ({}, {"email": "not-an-email"}, {"discord": "no spaces"}, {"role": "organizer"}):
        with pytest.raises(ValidationError):
            ProfilePatch.model_validate(body)


async def test_r30_a_password_change_needs_the_current_one_obeys_the_policy_and_ends_the_other_sessions(
        w: World) -> None:
    until = datetime.now(UTC) + timedelta(hours=1)
    await w.sessions.create(token_hash("here"), w.ada.id, until)
    await w.sessions.create(token_hash("phone"), w.ada.id, until)
    for current, new, reason in (("wrong password!", "correct horse battery", "unauthenticated"),
                                 ("old but long enough", "password1", "weak_password")):
        with pytest.raises(ApiError) as e:
            await w.mine.change_password(w.ada, PasswordChange(current_password=current, new_password=new), "here")
        assert e.value.reason == reason
    assert await w.sessions.lookup(token_hash("phone")) is not None   # nothing changed by a refusal
    await w.mine.change_password(w.ada, PasswordChange(current_password="old but long enough",
                                                       new_password="correct horse battery"), "here")
    assert await verify_password(w.tables.players[w.ada.id].password_hash, "correct horse battery")
    assert await w.sessions.lookup(token_hash("here")) is not None
    assert await w.sessions.lookup(token_hash("phone")) is None


async def test_r30_the_same_home_address_again_is_no_change(w: World) -> None:
    me = await w.mine.update(w.ada, ProfilePatch(name="Ada", home_address="1 Hoboken St"))
    assert (me.status, me.home_address) == ("verified", "1 Hoboken St")


async def test_r30_a_new_discord_name_stages_player_renamed_and_other_changes_stage_nothing(w: World) -> None:
    await w.mine.update(w.ada, ProfilePatch(name="Ada L.", discord="ada"))   # the same Discord name: no rename
    assert [s for s, _ in w.tables.outbox if s == subjects.PLAYER_RENAMED] == []
    await w.mine.update(w.ada, ProfilePatch(discord="ada.l"))
    [(_, ev)] = [(s, e) for s, e in w.tables.outbox if s == subjects.PLAYER_RENAMED]
    assert isinstance(ev, PlayerRenamed)
    assert (ev.player_id, ev.display_name, ev.at) == (w.ada.id, "ada.l", NOW)
