"""R30's profile changes on the memory fake and PostgreSQL alike: taken names refused with nothing changed, a new
email unconfirmed, a new home address making a verified player pending (logged), a password change ending every
session but the one kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

import pytest
from gateway_backends import Backend

from turf_common.contracts.notify import QueueMail
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import NewPlayer, Point, ProfileChange, StatusChange

NOW = datetime(2026, 10, 6, 13, tzinfo=UTC)


def mail(to: str, kind: Literal["email_confirmation", "password_reset"] = "password_reset") -> QueueMail:
    return QueueMail(command_id="m-" + to, to=to, kind=kind, name="A", link="https://t.example/account?token=x")


async def two(b: Backend) -> tuple[str, str]:
    ada = await b.players.create(NewPlayer("Ada", "ada@example.org", "ada", "1 Main St", "h"))
    bo = await b.players.create(NewPlayer("Bo", "bo@example.org", "bo", "2 Main St", "h"))
    await b.players.change_status(StatusChange(ada, "verified", "org", "", None, NOW, False))
    return ada, bo


async def test_r30_a_new_player_gets_no_optional_mail_until_they_turn_it_on(backend: Backend) -> None:
    ada, _ = await two(backend)
    row = await backend.players.get(ada)
    assert row is not None and row.announcements_by_mail is False
    await backend.players.update_profile(ada, ProfileChange(announcements_by_mail=True))
    row = await backend.players.get(ada)
    assert row is not None and row.announcements_by_mail is True


async def test_r30_a_taken_email_or_discord_changes_nothing(backend: Backend) -> None:
    ada, _ = await two(backend)
    for change, reason in ((ProfileChange(name="X", email="BO@example.org"), "email_taken"),
                           (ProfileChange(name="X", discord="BO"), "discord_taken")):
        with pytest.raises(ApiError) as e:
            await backend.players.update_profile(ada, change)
        assert e.value.reason == reason
    row = await backend.players.get(ada)
    assert row is not None and (row.name, row.email, row.discord) == ("Ada", "ada@example.org", "ada")


async def test_r30_a_change_of_nothing_is_accepted_and_changes_nothing(backend: Backend) -> None:
    # PATCH /me with an empty body (or the email already held) made an UPDATE without SET: a 500
    ada, _ = await two(backend)
    before = await backend.players.get(ada)
    await backend.players.update_profile(ada, ProfileChange())
    assert before is not None and await backend.players.get(ada) == before


async def test_r30_a_new_email_is_unconfirmed_and_a_new_home_makes_a_verified_player_pending(
        backend: Backend) -> None:
    ada, _ = await two(backend)
    await backend.players.update_profile(ada, ProfileChange(name="Ada L.", discord="ada.l", email="a@new.example"))
    await backend.players.update_profile(ada, ProfileChange(home_address="9 Elm St", address_norm="9 elm st",
                                                            home=Point(40.744, -74.0324)))
    row = await backend.players.get(ada)
    assert row is not None
    assert (row.name, row.discord, row.email, row.email_confirmed) == ("Ada L.", "ada.l", "a@new.example", False)
    assert (row.status, row.home_address, row.address_norm, row.home) == (
        "pending", "9 Elm St", "9 elm st", Point(40.744, -74.0324))
    assert (await backend.admin_log())[-1][1:] == ("player_pending", ada, "new home address",
                                                   {"before": "verified", "after": "pending"})
    assert await backend.players.display_names([ada]) == {ada: "ada.l"}


async def test_r30_a_password_change_keeps_only_the_session_named(backend: Backend) -> None:
    ada, bo = await two(backend)
    until = NOW + timedelta(days=1)
    for h, pid in (("mine", ada), ("phone", ada), ("bos", bo)):
        await backend.sessions.create(h, pid, until)
    await backend.players.set_password(ada, "new-hash", keep_session="mine")
    assert (await backend.players.account("ada@example.org")).password_hash == "new-hash"  # type: ignore[union-attr]
    assert [await backend.sessions.lookup(h) is not None for h in ("mine", "phone", "bos")] == [True, False, True]


async def test_r30_a_withdrawal_erases_the_personal_data_ends_sessions_and_stages_the_disqualification(
        backend: Backend) -> None:
    ada, bo = await two(backend)
    await backend.sessions.create("mine", ada, NOW + timedelta(days=1))
    await backend.tokens.issue("t1", ada, "password_reset", "ada@example.org", NOW + timedelta(hours=1),
                               mail("ada@example.org"))
    await backend.tokens.issue("t2", bo, "password_reset", "bo@example.org", NOW + timedelta(hours=1),
                               mail("bo@example.org"))
    await backend.players.withdraw(ada, NOW, post_season=False)
    row = await backend.players.get(ada)
    assert row is not None
    assert (row.status, row.name, row.discord, row.home_address, row.home, row.email_confirmed) == (
        "withdrawn", "a withdrawn player", "a withdrawn player", "", None, False)
    assert "example.org" not in row.email and await backend.players.account("ada@example.org") is None
    assert await backend.sessions.lookup("mine") is None
    assert await backend.tokens.holder("t1", "password_reset", NOW) is None
    assert await backend.players.display_names([ada]) == {ada: "a withdrawn player"}
    [event] = [e for s, e in await backend.staged() if s == "player.disqualified"]
    assert (event["player_id"], event["withdrawn"]) == (ada, True)
    # a mail request still in the outbox goes with the address; another player's stays
    assert [e["to"] for s, e in await backend.staged() if s == "notify.mail"] == ["bo@example.org"]
    with pytest.raises(ApiError) as again:
        await backend.players.withdraw(ada, NOW, post_season=False)
    assert again.value.reason == "conflict"
    # the address is free for a new registration (the erased row holds none of it)
    assert await backend.players.create(NewPlayer("Ada", "ada@example.org", "ada", "-", "h")) != ada


async def test_r30_a_token_and_the_message_carrying_its_link_are_stored_in_one_step(backend: Backend) -> None:
    """R30: the mail request is an outbox row of the token's own transaction (sent after the commit by the relay),
    so no stop between the two loses it; keyed by its command id, which notify queues once."""
    ada, _ = await two(backend)
    sent = mail("ada@example.org", "email_confirmation")
    await backend.tokens.issue("t1", ada, "email_confirmation", "ada@example.org", NOW + timedelta(hours=24), sent)
    assert await backend.tokens.holder("t1", "email_confirmation", NOW) == ada
    assert [(s, e) for s, e in await backend.staged() if s != "player.verified"] == [
        ("notify.mail", sent.model_dump(mode="json"))]


async def test_r30_a_new_discord_name_is_staged_as_player_renamed_with_the_change(backend: Backend) -> None:
    ada, _ = await two(backend)
    await backend.players.update_profile(ada, ProfileChange(name="Ada L.", discord="ada", at=NOW))   # the same
    await backend.players.update_profile(ada, ProfileChange(discord="ada.l", at=NOW))
    renamed = [e for s, e in await backend.staged() if s == "player.renamed"]
    assert [(e["player_id"], e["display_name"], e["at"]) for e in renamed] == [(ada, "ada.l", "2026-10-06T13:00:00Z")]


async def test_r30_the_replaced_address_signs_in_until_the_new_one_is_confirmed_and_is_told_of_the_change(
        backend: Backend) -> None:
    """R30 (amended 2026-12-07): after an email change both addresses find the account (sign-in, reset), the
    replaced one is taken for others, its notice is staged with the change; the confirmation of the new address
    makes it the only one. A second change before that keeps the first address; a change back to it drops it."""
    ada, bo = await two(backend)
    notice = QueueMail(command_id="n-1", to="ada@example.org", kind="email_changed", name="Ada")
    await backend.players.update_profile(ada, ProfileChange(email="ada@new.example", notice=notice))
    for address in ("ada@new.example", "ADA@example.org"):
        assert (await backend.players.account(address)).id == ada  # type: ignore[union-attr]
    assert [e for s, e in await backend.staged() if s == "notify.mail"] == [notice.model_dump(mode="json")]
    with pytest.raises(ApiError) as taken:   # nobody else takes the address that still signs in
        await backend.players.create(NewPlayer("Eve", "ada@example.org", "eve", "-", "h"))
    assert taken.value.reason == "email_taken"
    with pytest.raises(ApiError) as taken:
        await backend.players.update_profile(bo, ProfileChange(email="ada@example.org"))
    assert taken.value.reason == "email_taken"

    await backend.players.update_profile(ada, ProfileChange(email="ada@newer.example"))   # a typo put right
    assert [(await backend.players.account(a)) is not None
            for a in ("ada@example.org", "ada@new.example", "ada@newer.example")] == [True, False, True]
    await backend.tokens.issue("c1", ada, "email_confirmation", "ada@newer.example", NOW + timedelta(hours=24))
    assert await backend.tokens.confirm_email("c1", NOW) == ada
    assert await backend.players.account("ada@example.org") is None
    assert (await backend.players.account("ada@newer.example")).id == ada  # type: ignore[union-attr]
    assert await backend.players.create(NewPlayer("Eve", "ada@example.org", "eve", "-", "h")) not in (ada, bo)

    # a change, then back to the address it replaced: only that one signs in, nothing is kept
    await backend.players.update_profile(bo, ProfileChange(email="bo@new.example"))
    await backend.players.update_profile(bo, ProfileChange(email="bo@example.org"))
    assert [(await backend.players.account(a)) is not None for a in ("bo@example.org", "bo@new.example")] == [
        True, False]
