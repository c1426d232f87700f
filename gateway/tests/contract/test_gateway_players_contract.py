"""The gateway's players (R27, R28) and the organizer's action log, one contract for the memory fake and PostgreSQL
(see conftest.py): exact answers, errors with their reason codes, orders and pages. Where the two
disagreed, the SQL was taken as the truth and the fake fixed (with one SQL fix: a registration whose email is one
player's and Discord name another's is named ``email_taken``, no longer either by chance)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from gateway_backends import Backend
from sqlalchemy.exc import IntegrityError

from turf_common.contracts import subjects
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.events import disqualification, verification
from turf_gateway.ports import Account, NewPlayer, PlayerRow, PlayerStore, Point, Record, RosterRow, StatusChange
from turf_gateway.testing import DuplicateKey

AT = datetime(2026, 10, 6, 13, 0, tzinfo=UTC)     # game time of a status change
HOME = Point(40.744, -74.032)


def new(name: str, email: str | None = None, discord: str | None = None) -> NewPlayer:
    return NewPlayer(name.title(), email or f"{name}@example.com", discord or f"{name}_d", f"{name} street 1",
                     f"hash-{name}")


def change(pid: str, status: str, by: str = "org", reason: str = "why", note: str | None = None) -> StatusChange:
    return StatusChange(pid, status, by, reason, note, AT, False)


async def refused(reason: str, call: object) -> str:
    """The ApiError ``reason`` of awaiting ``call``; its message."""
    with pytest.raises(ApiError) as e:
        await call  # type: ignore[misc]
    assert e.value.reason == reason
    return e.value.message


async def registered(players: PlayerStore, *names: str) -> list[str]:
    return [await players.create(new(n)) for n in names]


# ---- create, get, account ------------------------------------------------------------------------------------------

async def test_r27_a_registration_is_a_pending_player_read_back_whole(backend: Backend) -> None:
    players = backend.players
    before = datetime.now(UTC)
    pid = await players.create(new("ann", email="Ann@Example.COM"))
    assert len(pid) == 32 and int(pid, 16) >= 0
    row = await players.get(pid)
    assert row is not None and before <= row.created_at <= datetime.now(UTC)
    assert row == PlayerRow(id=pid, name="Ann", email="Ann@Example.COM", discord="ann_d",
                            home_address="ann street 1", role="player", status="pending", status_reason=None,
                            created_at=row.created_at, address_norm=None, home=None,
                            announcements_by_mail=False)   # R30: optional mail is off until turned on
    assert row.created_at.utcoffset() == timedelta(0)
    assert await players.standing(pid) == ("player", "pending")
    assert await players.account("ann@example.com") == Account(pid, "player", "hash-ann", "pending")   # R27
    assert await players.account("ANN@EXAMPLE.com") == Account(pid, "player", "hash-ann", "pending")
    assert await players.get("nobody") is None
    assert await players.standing("nobody") is None
    assert await players.account("bob@example.com") is None
    assert await backend.admin_log() == [] and await backend.staged() == []


async def test_r27_a_taken_email_or_discord_name_is_refused_whatever_its_case(players: PlayerStore) -> None:
    ann, bob = await registered(players, "ann", "bob")
    assert await refused("email_taken", players.create(new("cy", email="ANN@example.com"))) == \
        "An account with this email already exists."
    assert await refused("discord_taken", players.create(new("cy", discord="BOB_D"))) == \
        "An account with this Discord username already exists."
    # ann's email and bob's Discord name: the email is named (the SQL named either, by chance)
    assert await refused("email_taken", players.create(new("cy", email="ann@example.com", discord="bob_d")))
    assert [p.id for p in await players.players()] == [ann, bob]


async def test_r27_players_in_registration_order_without_the_organizer(players: PlayerStore) -> None:
    assert await players.players() == []
    ann, = await registered(players, "ann")
    assert await players.ensure_organizer("org@example.com", "hash-org", _never) == []
    bob, cy = await registered(players, "bob", "cy")
    assert [p.id for p in await players.players()] == [ann, bob, cy]
    org = await players.account("ORG@example.com")
    assert org is not None and (org.role, org.status, org.password_hash) == ("organizer", "verified", "hash-org")
    assert await players.standing(org.id) == ("organizer", "verified")


async def test_the_roster_pages_verified_players_by_join_index_skipping_the_organizer(
        players: PlayerStore) -> None:
    a, b = await registered(players, "a", "b")
    await players.ensure_organizer("org@example.com", "hash-org", _never)   # joins nothing: no index
    c, d, e, f = await registered(players, "c", "d", "e", "f")
    for pid in (a, c, d, f):
        await players.change_status(change(pid, "verified"))
    await players.change_status(change(e, "rejected"))        # b stays pending: indexes 1 and 4 are not listed
    everyone = [RosterRow(0, a, "a_d"), RosterRow(2, c, "c_d"), RosterRow(3, d, "d_d"), RosterRow(5, f, "f_d")]
    assert await players.roster(-1, 1000) == everyone
    assert await players.roster(-1, 2) == everyone[:2]
    assert await players.roster(2, 2) == everyone[2:]          # the next page: after the last index shown
    assert await players.roster(0, 1) == [RosterRow(2, c, "c_d")]
    assert await players.roster(5, 10) == []
    assert await players.roster(-1, 0) == []
    assert b in [p.id for p in await players.players()]


async def test_display_names_are_public_names_and_empty_for_an_unknown_id(players: PlayerStore) -> None:
    ann, bob = await registered(players, "ann", "bob")
    assert await players.display_names([bob, "nobody", ann]) == {bob: "bob_d", "nobody": "", ann: "ann_d"}
    assert await players.display_names([]) == {}
    assert await players.display_names(["nobody"]) == {"nobody": ""}


# ---- place (the geocoded home) ---------------------------------------------------------------------------------------

async def test_r27_place_without_verify_at_stores_the_home_and_reason_only(backend: Backend) -> None:
    players = backend.players
    ann, = await registered(players, "ann")
    await players.place(ann, "ann street 1", HOME, "not_in_board", None)
    row = await players.get(ann)
    assert row is not None and (row.status, row.status_reason, row.address_norm, row.home) == \
        ("pending", "not_in_board", "ann street 1", HOME)
    await players.place(ann, "ann st 1", None, "address_not_found", None)   # no point: the stored one stays
    row = await players.get(ann)
    assert row is not None and (row.status_reason, row.address_norm, row.home) == \
        ("address_not_found", "ann st 1", HOME)
    await players.place("nobody", "x", HOME, None, None)      # an unknown id: nothing, no error
    assert await backend.admin_log() == [] and await backend.staged() == []


async def test_r27_place_with_verify_at_verifies_in_the_same_transaction(backend: Backend) -> None:
    players = backend.players
    ann, = await registered(players, "ann")
    await players.place(ann, "ann street 1", HOME, None, AT)
    row = await players.get(ann)
    assert row is not None and (row.status, row.status_reason, row.address_norm, row.home) == \
        ("verified", None, "ann street 1", HOME)
    assert await backend.admin_log() == [
        ("geocoder", "player_verified", ann, "home address inside the board", {"before": "pending",
                                                                               "after": "verified"})]
    assert await backend.staged() == [(subjects.PLAYER_VERIFIED,
                                       verification(ann, AT, "ann_d").model_dump(mode="json"))]
    assert await refused("not_found", players.place("nobody", "x", HOME, None, AT)) == "No such player."


async def test_r27_place_with_a_refused_verification_stores_nothing(backend: Backend) -> None:
    players = backend.players
    ann, = await registered(players, "ann")
    await players.change_status(change(ann, "disqualified"))
    await refused("conflict", players.place(ann, "ann street 1", HOME, None, AT))
    row = await players.get(ann)
    assert row is not None and (row.status, row.address_norm, row.home) == ("disqualified", None, None)


# ---- status changes (R27, R28) -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "refused_at"), [
    (["verified"], None),
    (["rejected", "verified"], None),
    (["rejected", "disqualified"], None),
    (["verified", "disqualified"], None),
    (["disqualified", "verified"], 1),      # a disqualification is final
    (["disqualified", "rejected"], 1),
    (["verified", "rejected"], 1),          # R27 (amended): a verified player is disqualified, never rejected
])
async def test_r27_which_status_may_become_which(players: PlayerStore, path: list[str],
                                                 refused_at: int | None) -> None:
    ann, = await registered(players, "ann")
    before = "pending"
    for i, status in enumerate(path):
        if i == refused_at:
            message = await refused("conflict", players.change_status(change(ann, status)))
            hint = " Disqualify a verified player instead (R27)." if (before, status) == ("verified",
                                                                                         "rejected") else ""
            assert message == f"A {before} player cannot become {status}.{hint}"
            assert await players.standing(ann) == ("player", before)
            return
        assert await players.change_status(change(ann, status)) == before
        before = status
        assert await players.standing(ann) == ("player", status)
    assert refused_at is None


async def test_r27_a_status_change_logs_its_entry_and_event_and_a_repeat_does_nothing(backend: Backend) -> None:
    players = backend.players
    ann, bob = await registered(players, "ann", "bob")
    await players.place(ann, "ann street 1", None, "geocoder_unavailable", None)
    assert await players.change_status(change(ann, "verified", reason="checked by hand", note="called her")) == \
        "pending"
    assert await players.change_status(change(ann, "verified")) == "verified"       # a repeat: nothing more
    assert await players.change_status(change(bob, "rejected", reason="outside the area")) == "pending"
    row = await players.get(ann)
    assert row is not None and row.status_reason is None       # the reason it was pending is gone
    assert await backend.admin_log() == [
        ("org", "player_verified", ann, "checked by hand", {"before": "pending", "after": "verified",
                                                           "note": "called her"}),
        ("org", "player_rejected", bob, "outside the area", {"before": "pending", "after": "rejected"})]
    # the event names the player publicly; a rejection publishes nothing
    assert await backend.staged() == [(subjects.PLAYER_VERIFIED,
                                       verification(ann, AT, "ann_d").model_dump(mode="json"))]


async def test_r28_a_disqualification_ends_sessions_and_is_logged_as_a_correction(backend: Backend) -> None:
    players = backend.players
    ann, bob = await registered(players, "ann", "bob")
    await players.change_status(change(ann, "verified"))
    until = datetime.now(UTC) + timedelta(hours=1)
    await backend.sessions.create("h-ann", ann, until)
    await backend.sessions.create("h-bob", bob, until)
    dq = StatusChange(ann, "disqualified", "org", "GPS spoofing", "private", AT, True)
    assert await players.change_status(dq) == "verified"
    assert await players.change_status(dq) == "disqualified"         # a repeat: no second record
    assert await backend.sessions.lookup("h-ann") is None            # its sessions ended with it
    assert await backend.sessions.lookup("h-bob") is not None
    [rec] = await backend.corrections.records()
    assert rec == Record(rec.id, AT, "disqualify", "org", "GPS spoofing", {"player_id": ann, "note": "private"},
                         None, ann, {"status": "verified"}, {"status": "disqualified"}, True)
    assert (await backend.admin_log())[-1] == (
        "org", "player_disqualified", ann, "GPS spoofing", {"before": "verified", "after": "disqualified",
                                                             "note": "private"})
    staged = await backend.staged()
    assert [s for s, _ in staged] == [subjects.PLAYER_VERIFIED, subjects.PLAYER_DISQUALIFIED,
                                      subjects.CORRECTION_APPLIED]
    assert staged[1][1] == disqualification(ann, AT).model_dump(mode="json")
    applied = staged[2][1]
    assert (applied["correction_id"], applied["action"], applied["player_id"], applied["reason"],
            applied["post_season"]) == (rec.id, "disqualify", ann, "GPS spoofing", True)


async def test_r28_a_disqualification_without_reason_or_note_is_logged_with_a_dash(backend: Backend) -> None:
    ann, = await registered(backend.players, "ann")
    await backend.players.change_status(change(ann, "disqualified", reason=""))
    [rec] = await backend.corrections.records()
    assert (rec.reason, rec.request, rec.before, rec.post_season) == ("-", {"player_id": ann},
                                                                      {"status": "pending"}, False)
    assert (await backend.admin_log())[0][3] is None     # the log entry's reason: none given


async def test_r27_the_organizer_and_an_unknown_id_are_not_found(players: PlayerStore) -> None:
    await players.ensure_organizer("org@example.com", "hash-org", _never)
    org = await players.account("org@example.com")
    assert org is not None
    for pid in (org.id, "nobody"):
        assert await refused("not_found", players.change_status(change(pid, "disqualified"))) == "No such player."
    assert await players.standing(org.id) == ("organizer", "verified")


async def test_log_action_appends_an_entry(backend: Backend) -> None:
    await backend.players.log_action("org", "announcement", None, None, {"text": "hi", "n": (1, 2)})
    await backend.players.log_action("org", "export", "players", "weekly", {})
    assert await backend.admin_log() == [("org", "announcement", None, None, {"text": "hi", "n": [1, 2]}),
                                         ("org", "export", "players", "weekly", {})]


# ---- the organizer's account ---------------------------------------------------------------------------------------

async def _never(stored: str) -> bool:
    raise AssertionError("no stored password to compare")


async def test_ensure_organizer_keeps_sessions_for_the_same_password_and_ends_them_for_another(
        backend: Backend) -> None:
    players, sessions = backend.players, backend.sessions
    assert await players.ensure_organizer("Org@example.com", "hash-1", _never) == []
    org = await players.account("org@example.com")
    assert org is not None
    ann, = await registered(players, "ann")
    until = datetime.now(UTC) + timedelta(hours=1)
    await sessions.create("h-org", org.id, until)
    await sessions.create("h-ann", ann, until)
    compared: list[str] = []

    async def same(stored: str) -> bool:
        compared.append(stored)
        return stored == "hash-1"

    assert await players.ensure_organizer("ORG@example.com", "hash-1b", same) == []   # same password, new hash
    assert await sessions.lookup("h-org") is not None
    assert await players.ensure_organizer("org@example.com", "hash-2", same) == [org.id]  # another password
    assert compared == ["hash-1", "hash-1b"]
    assert await sessions.lookup("h-org") is None and await sessions.lookup("h-ann") is not None
    assert await players.account("org@example.com") == Account(org.id, "organizer", "hash-2", "verified")
    assert [p.id for p in await players.players()] == [ann]
    row = await players.get(org.id)
    assert row is not None and (row.name, row.email, row.discord, row.home_address) == \
        ("Organizer", "Org@example.com", "organizer", "-")
    assert await backend.admin_log() == [] and await backend.staged() == []


async def test_ensure_organizer_on_a_players_email_makes_that_account_the_organizer(players: PlayerStore) -> None:
    ann, bob = await registered(players, "ann", "bob")
    await players.change_status(change(ann, "rejected"))

    async def other(stored: str) -> bool:
        return False

    assert await players.ensure_organizer("ann@example.com", "hash-org", other) == [ann]
    assert await players.account("ann@example.com") == Account(ann, "organizer", "hash-org", "verified")
    assert [p.id for p in await players.players()] == [bob]


async def test_a_changed_organizer_email_demotes_the_old_account_and_ends_its_sessions(backend: Backend) -> None:
    """Threat: after ``TURF_ORGANIZER_EMAIL`` changed (a handover, a leaked mailbox) the old account stayed
    organizer with its old password and sessions (or the new account's start failed on the name ``organizer``).
    Now the old account is demoted: no organizer role, no usable password, no session, and no player either."""
    players, sessions = backend.players, backend.sessions
    assert await players.ensure_organizer("old@example.com", "hash-old", _never) == []
    old = await players.account("old@example.com")
    assert old is not None
    ann, = await registered(players, "ann")
    until = datetime.now(UTC) + timedelta(hours=1)
    await sessions.create("h-old", old.id, until)
    await sessions.create("h-ann", ann, until)
    assert await players.ensure_organizer("new@example.com", "hash-new", _never) == [old.id]
    assert await sessions.lookup("h-old") is None and await sessions.lookup("h-ann") is not None
    assert await players.account("old@example.com") == Account(old.id, "former_organizer", "", "verified")
    new_org = await players.account("new@example.com")
    assert new_org is not None and new_org == Account(new_org.id, "organizer", "hash-new", "verified")
    assert [p.id for p in await players.players()] == [ann]   # the former organizer is no player
    assert await refused("not_found", players.change_status(change(old.id, "disqualified")))
    assert await players.ensure_organizer("new@example.com", "hash-new", lambda _: _same()) == []   # a restart


async def _same() -> bool:
    return True


async def test_ensure_organizer_fails_when_a_player_took_the_name_organizer(players: PlayerStore) -> None:
    """Noticed while writing this contract, left as it is: the organizer's start fails (the unique Discord name)."""
    await players.create(new("ann", discord="Organizer"))
    with pytest.raises((IntegrityError, DuplicateKey)):
        await players.ensure_organizer("org@example.com", "hash-org", _never)

