"""R30's single-use tokens, on the memory fake and PostgreSQL alike: usable until used, voided by a newer one of the
same purpose, or expired; a confirmation confirms only the address it was sent to; a reset changes the password and
ends every session of the player, in one step."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from turf_gateway.ports import AccountTokens, NewPlayer, PlayerStore, SessionStore

T0 = datetime(2026, 10, 5, 12, tzinfo=UTC)
HOUR = timedelta(hours=1)


async def ada(players: PlayerStore) -> str:
    return await players.create(NewPlayer("Ada", "Ada@Example.org", "ada", "1 Main St", "old-hash"))


async def test_r30_a_token_is_usable_once_until_it_expires(players: PlayerStore, tokens: AccountTokens) -> None:
    pid = await ada(players)
    await tokens.issue("h1", pid, "email_confirmation", "Ada@Example.org", T0 + HOUR)
    assert await tokens.holder("h1", "email_confirmation", T0) == pid
    assert await tokens.holder("h1", "password_reset", T0) is None      # another purpose: not this token
    assert await tokens.holder("h1", "email_confirmation", T0 + HOUR) is None   # expired
    assert await tokens.confirm_email("h1", T0 + HOUR) is None
    assert (await players.get(pid)).email_confirmed is False  # type: ignore[union-attr]
    assert await tokens.confirm_email("h1", T0) == pid
    assert (await players.get(pid)).email_confirmed is True  # type: ignore[union-attr]
    assert await tokens.confirm_email("h1", T0) is None                 # used
    assert await tokens.holder("h1", "email_confirmation", T0) is None


async def test_r30_a_newer_token_voids_the_older_of_its_purpose_only(players: PlayerStore,
                                                                    tokens: AccountTokens) -> None:
    pid = await ada(players)
    await tokens.issue("c1", pid, "email_confirmation", "Ada@Example.org", T0 + HOUR)
    await tokens.issue("r1", pid, "password_reset", "Ada@Example.org", T0 + HOUR)
    await tokens.issue("r2", pid, "password_reset", "Ada@Example.org", T0 + HOUR)
    assert await tokens.holder("r1", "password_reset", T0) is None
    assert await tokens.holder("r2", "password_reset", T0) == pid
    assert await tokens.holder("c1", "email_confirmation", T0) == pid


async def test_r30_a_confirmation_of_an_address_no_longer_the_players_confirms_nothing(
        players: PlayerStore, tokens: AccountTokens) -> None:
    pid = await ada(players)
    await tokens.issue("c1", pid, "email_confirmation", "old@example.org", T0 + HOUR)
    assert await tokens.confirm_email("c1", T0) == pid
    assert (await players.get(pid)).email_confirmed is False  # type: ignore[union-attr]


async def test_r30_a_reset_sets_the_password_and_ends_every_session(players: PlayerStore, sessions: SessionStore,
                                                                   tokens: AccountTokens) -> None:
    pid = await ada(players)
    await sessions.create("s1", pid, T0 + HOUR)
    await sessions.create("s2", pid, T0 + HOUR)
    await tokens.issue("r1", pid, "password_reset", "Ada@Example.org", T0 + HOUR)
    assert await tokens.reset_password("r1", "new-hash", T0) == pid
    assert (await players.account("ada@example.org")).password_hash == "new-hash"  # type: ignore[union-attr]
    assert await sessions.lookup("s1") is None and await sessions.lookup("s2") is None
    assert await tokens.reset_password("r1", "newer-hash", T0) is None
    assert (await players.account("ada@example.org")).password_hash == "new-hash"  # type: ignore[union-attr]
