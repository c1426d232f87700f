"""The claims store's contract (cosmicpython's repository tests): each case runs on the memory fake and on
PostgreSQL (``backend``, see conftest.py) and checks exact answers, role by role (ports.py). Where the two
disagreed, the SQL was taken as the truth and the fake fixed."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from claims_backends import Backend
from sqlalchemy.exc import IntegrityError

from turf_claims.ports import Claim, ClaimsTx, Protection, Territory, TerritoryChange
from turf_claims.testing import DuplicateKey
from turf_common import txguard
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import (
    ClaimAccepted,
    ClaimAcceptedReply,
    ClaimRejected,
    FlagOut,
    TerritoryChanged,
)
from turf_common.rules.cards import TakeRecord
from turf_common.rules.claims import Fortification

#: the season whose board every case plays on, but those of R31 (each season has its own board)
S = "2026"
T0 = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
DAY, DAY2 = date(2026, 10, 5), date(2026, 10, 6)
NONE = Fortification(0, None, False)


def claim(cid: str, player: str, tid: str, kind: str = "take", *, normal: bool = True, day: date = DAY,
          at: datetime = T0, prev: str | None = None, fort_before: Fortification = NONE) -> Claim:
    return Claim(cid, player, tid, kind, normal, day, at, 40.5, -74.25, 8.0, at - timedelta(seconds=3), 12.5, prev,
                 fort_before, ["fast"] if kind == "steal" else [], season_id=S)


async def record(tx: ClaimsTx, c: Claim, progress: int = 1) -> int:
    """Record ``c`` as a claim.submit does: the claimant owns the territory after it."""
    fort = Fortification(progress, c.game_day, False)
    assert c.lat is not None and c.lon is not None and c.accuracy_m is not None   # a new claim has its fix
    change = TerritoryChange(c.territory_id, c.player_id, c.previous_owner_id, fort, "claim", c.id)
    accepted = ClaimAccepted(occurred_at=c.at, claim_id=c.id, player_id=c.player_id, territory_id=c.territory_id,
                             kind=c.kind, game_day=c.game_day, progress=progress, fortified=False,  # type: ignore[arg-type]
                             previous_owner_id=c.previous_owner_id, lat=c.lat, lon=c.lon, accuracy_m=c.accuracy_m,
                             border_distance_m=c.border_distance_m, flags=c.flags)
    version = (await tx.ownership.territory(c.territory_id) or Territory("", None, 0, None, False, 0)).version + 1
    return await tx.claims.record_claim(c, change, accepted, change.event(version, c.at))


async def seeded(b: Backend, *ids: str) -> None:
    await b.store.seed_territories(S, list(ids))


# ---- ownership -----------------------------------------------------------------------------------------------------

async def test_board_seed_read_and_change(backend: Backend) -> None:
    await seeded(backend, "b", "a", "c")
    await seeded(backend, "a")                         # a second seed changes nothing
    async with backend.store.begin(S) as tx:
        assert await tx.ownership.territory("a") == Territory("a", None, 0, None, False, 0)
        assert await tx.ownership.territory("zz") is None
        change = TerritoryChange("a", "ann", None, Fortification(2, DAY, True), "correction")
        assert await tx.ownership.change_territory(change, T0) == 1
        assert await tx.ownership.change_territory(TerritoryChange("c", "ann", None, NONE, "trade"), T0) == 1
    async with backend.store.connect(S) as tx:
        assert await tx.ownership.territory("a", lock=False) == Territory("a", "ann", 2, DAY, True, 1)
        assert await tx.ownership.owner_of("a") == "ann"
        assert await tx.ownership.owner_of("b") is None
        assert await tx.ownership.owner_of("zz") is None
        assert await tx.ownership.owners() == {"a": "ann", "b": None, "c": "ann"}
        assert await tx.ownership.owners(("a", "b", "zz")) == {"a": "ann", "b": None}
        assert sorted(t.id for t in await tx.ownership.territories()) == ["a", "b", "c"]
        assert await tx.ownership.territories("b") == [Territory("b", None, 0, None, False, 0)]
        assert await tx.ownership.territories("zz") == []
    async with backend.store.begin(S) as tx:
        assert [t.id for t in await tx.ownership.owned_for_update("ann")] == ["a", "c"]
        assert await tx.ownership.owned_for_update("bob") == []
        assert await tx.ownership.territory("a", lock=True) == Territory("a", "ann", 2, DAY, True, 1)
    ((subject, _), (subject2, _)) = await backend.staged()
    assert subject == subject2 == subjects.TERRITORY_CHANGED


async def test_a_unit_of_work_that_raises_leaves_nothing(backend: Backend) -> None:
    await seeded(backend, "a")
    try:
        async with backend.store.begin(S) as tx:
            await tx.ownership.change_territory(TerritoryChange("a", "ann", None, NONE, "correction"), T0)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    async with backend.store.connect(S) as tx:
        assert await tx.ownership.territory("a") == Territory("a", None, 0, None, False, 0)
    assert await backend.staged() == []


# ---- locks, messages, replies --------------------------------------------------------------------------------------

async def test_locks_are_taken_and_held_to_the_end(backend: Backend) -> None:
    await seeded(backend, "a", "b")
    async with backend.store.begin(S) as tx:
        assert await tx.locks.lock("player:ann") is None
        assert await tx.locks.lock_all(["player:ann", "player:bob"]) is None
        assert await tx.locks.lock_all([]) is None
        assert await tx.locks.lock_territories(["a", "b", "zz"]) is None
        assert await tx.locks.lock_territories([]) is None


async def test_messages_inbox_once_and_outbox_in_order(backend: Backend) -> None:
    e1 = TerritoryChanged(occurred_at=T0, territory_id="a", owner_id="ann", previous_owner_id=None, progress=1,
                          fortified=False, version=1, cause="claim")
    e2 = e1.model_copy(update={"event_id": "e2", "version": 2})
    async with backend.store.begin(S) as tx:
        assert await tx.messages.first_time("ev-1", "clock.day_started") is True
        assert await tx.messages.first_time("ev-1", "clock.day_started") is False
        assert await tx.messages.first_time("ev-2", "player.disqualified") is True
        await tx.messages.stage(subjects.TERRITORY_CHANGED, e1)
        await tx.messages.stage("protection.lapsed", e2)
    async with backend.store.begin(S) as tx:
        assert await tx.messages.first_time("ev-2", "player.disqualified") is False
    assert await backend.staged() == [(subjects.TERRITORY_CHANGED, e1.event_id), ("protection.lapsed", "e2")]


async def test_replies_are_kept_per_command_and_per_player_key(backend: Backend) -> None:
    reply = ClaimAcceptedReply(claim_id="c1", kind="take", territory_id="a", owner_id="ann", progress=1,
                               fortified=False, version=1)
    async with backend.store.begin(S) as tx:
        assert await tx.replies.command_reply("cmd-1") is None
        await tx.replies.store_command_reply("cmd-1", "war", "ann", reply, T0)
        assert await tx.replies.idempotent_reply("ann", "k1") is None
        await tx.replies.store_idempotent_reply("ann", "k1", reply, T0)
    async with backend.store.begin(S) as tx:
        assert await tx.replies.command_reply("cmd-1") == reply.model_dump_json()
        assert await tx.replies.command_reply("cmd-2") is None
        assert await tx.replies.idempotent_reply("ann", "k1") == reply.model_dump_json()
        assert await tx.replies.idempotent_reply("bob", "k1") is None


# ---- claims --------------------------------------------------------------------------------------------------------

async def test_claims_record_read_undo_and_log(backend: Backend) -> None:
    await seeded(backend, "a", "b")
    c1 = claim("c1", "ann", "a")
    c2 = claim("c2", "bob", "a", "steal", day=DAY2, at=T0 + timedelta(days=1), prev="ann",
               fort_before=Fortification(1, DAY, False))
    c3 = claim("c3", "ann", "b", day=DAY2, at=T0 + timedelta(days=1, minutes=1))
    async with backend.store.begin(S) as tx:
        assert await record(tx, c1) == 1
        assert await record(tx, c2) == 2
        assert await record(tx, c3) == 1
    async with backend.store.connect(S) as tx:
        assert await tx.ownership.territory("a") == Territory("a", "bob", 1, DAY2, False, 2)
        assert await tx.claims.claim("c2") == c2
        assert await tx.claims.claim("zz") is None
        assert await tx.claims.claims_log(None, None, 10) == [c1, c2, c3]
        assert await tx.claims.claims_log(DAY2, None, 10) == [c2, c3]
        assert await tx.claims.claims_log(None, "ann", 10) == [c1, c3]
        assert await tx.claims.claims_log(DAY2, "ann", 10) == [c3]
        assert await tx.claims.claims_log(None, None, 2) == [c1, c2]
        assert await tx.claims.normal_claims("ann", DAY) == 1
        assert await tx.claims.normal_claims("ann", DAY2) == 1
        assert await tx.claims.normal_claims("bob", DAY) == 0
        assert await tx.claims.standing_claim_after("a", T0) is True
        assert await tx.claims.standing_claim_after("a", T0 + timedelta(days=1)) is False
    async with backend.store.begin(S) as tx:
        await tx.claims.undo_claim("c2", "war")
    async with backend.store.connect(S) as tx:
        undone = await tx.claims.claim("c2")
        assert undone is not None and undone.undone_by == "war"
        assert await tx.claims.standing_claim_after("a", T0) is False
    staged = await backend.staged()
    assert [s for s, _ in staged] == [subjects.CLAIM_ACCEPTED, subjects.TERRITORY_CHANGED] * 3


async def test_the_claim_log_a_page_after_a_claim(backend: Backend) -> None:
    """The log's order is the order claims were logged in (not ``at``: c3 is logged before c2 with a later time),
    and ``after`` (a claim id) starts past that claim, narrowed like the whole log; an unknown one is LookupError."""
    await seeded(backend, "a", "b")
    c1 = claim("c1", "ann", "a")
    c3 = claim("c3", "ann", "b", at=T0 + timedelta(minutes=5))
    c2 = claim("c2", "bob", "a", "steal", day=DAY2, at=T0 + timedelta(minutes=1), prev="ann")
    c4 = claim("c4", "ann", "a", "steal", day=DAY2, at=T0 + timedelta(minutes=2), prev="bob")
    async with backend.store.begin(S) as tx:
        for c in (c1, c3, c2, c4):
            await record(tx, c)
    async with backend.store.connect(S) as tx:
        assert await tx.claims.claims_log(None, None, 2) == [c1, c3]
        assert await tx.claims.claims_log(None, None, 2, "c3") == [c2, c4]
        assert await tx.claims.claims_log(None, None, 2, "c4") == []
        assert await tx.claims.claims_log(None, "ann", 10, "c1") == [c3, c4]
        assert await tx.claims.claims_log(DAY2, None, 10, "c1") == [c2, c4]
        with pytest.raises(LookupError):
            await tx.claims.claims_log(None, None, 2, "nope")


async def test_take_record_is_the_owners_latest_take_ties_by_log_order(backend: Backend) -> None:
    await seeded(backend, "a")
    async with backend.store.begin(S) as tx:
        await record(tx, claim("c1", "ann", "a"))
        await record(tx, claim("c2", "ann", "a", "reinforce", at=T0 + timedelta(hours=1)))   # not a take
        await record(tx, claim("c3", "bob", "a", "steal", at=T0 + timedelta(hours=2), prev="ann"))
        await record(tx, claim("c4", "ann", "a", "steal", at=T0 + timedelta(hours=2), prev="bob"))  # same instant
    async with backend.store.connect(S) as tx:
        assert await tx.claims.take_record("a", "ann") == TakeRecord(
            "c4", "steal", "ann", "bob", T0 + timedelta(hours=2), undone=False, fort_before=NONE)
        assert (await tx.claims.take_record("a", "bob")) == TakeRecord(
            "c3", "steal", "bob", "ann", T0 + timedelta(hours=2), undone=False, fort_before=NONE)
        assert await tx.claims.take_record("a", None) is None
        assert await tx.claims.take_record("a", "cat") is None


async def test_day_facts_and_card_facts(backend: Backend) -> None:
    await seeded(backend, "a", "b")
    async with backend.store.begin(S) as tx:
        await record(tx, claim("c1", "ann", "a"))
        await record(tx, claim("c2", "bob", "a", at=T0 + timedelta(minutes=1)))
        await record(tx, claim("c3", "cat", "a", at=T0 + timedelta(minutes=2)))
        await record(tx, claim("c4", "ann", "b", "war_reclaim", normal=False, at=T0 + timedelta(minutes=3)))
        await record(tx, claim("c5", "ann", "b", day=DAY2, at=T0 + timedelta(days=1)))
        await tx.allowances.grant_extra_claim("ann", DAY)
        await tx.allowances.add_replacement_claim("ann", DAY)
        await tx.exclusions.exclude_player("cat", T0)
        await tx.cards.open_war_window("w1", "a", "dan", "eve", "c0", T0 - timedelta(hours=2), T0 + timedelta(hours=5))
        await tx.cards.open_war_window("w2", "a", "fay", "eve", "c0", T0 - timedelta(hours=1), T0 + timedelta(hours=5))
        await tx.protections.schedule_protection(Protection("f1", "freeze", "bob", "a", None, DAY, "active"), "x1", T0)
        await tx.protections.schedule_protection(Protection("k1", "blockade", "bob", None, "ann", DAY, "active"),
                                                 "x2", T0)
    async with backend.store.connect(S) as tx:
        f = await tx.claims.day_facts("a", "bob", "ann", DAY, T0)
        assert (f.normal_claims_today, f.extra_claims, f.replacement_claims, sorted(f.claimed_today_by),
                f.war_holder, f.frozen, f.blockaded, f.took_it_today) == (1, 1, 1, ["ann", "bob"], "fay", True, True,
                                                                          False)
        g = await tx.claims.day_facts("b", None, "ann", DAY, T0 + timedelta(hours=6))
        assert (g.normal_claims_today, g.extra_claims, g.replacement_claims, g.claimed_today_by, g.war_holder,
                g.frozen, g.blockaded, g.took_it_today) == (1, 1, 1, [], None, False, False, True)
        h = await tx.claims.day_facts("b", "ann", "dan", DAY2, T0)
        assert (h.normal_claims_today, h.extra_claims, h.replacement_claims, h.claimed_today_by, h.took_it_today) \
            == (0, 0, 0, ["ann"], False)
        c = await tx.cards.card_facts("a", "bob", "ann", DAY, T0)
        assert (c.war_reclaim_holder, c.frozen, c.blockade_against_claimant) == ("fay", True, True)
        c = await tx.cards.card_facts("a", "bob", "dan", DAY2, T0 + timedelta(hours=5))
        assert (c.war_reclaim_holder, c.frozen, c.blockade_against_claimant) == (None, False, False)


# ---- trail ---------------------------------------------------------------------------------------------------------

async def test_a_days_snapshot_holds_its_growing_facts_and_the_owners(backend: Backend) -> None:
    """Refusals from memory load a day once: its normal claims (R6, R10) of players not excluded (R28), its
    allowances above the standard, the last open War window's end (R8.2) and every owner with its version."""
    await seeded(backend, "a", "b")
    async with backend.store.begin(S) as tx:
        await record(tx, claim("c1", "ann", "a"))
        await record(tx, claim("c2", "cat", "b", at=T0 + timedelta(minutes=1)))
        await record(tx, claim("c3", "ann", "b", "war_reclaim", normal=False, at=T0 + timedelta(minutes=2)))
        await record(tx, claim("c4", "bob", "a", day=DAY2, at=T0 + timedelta(days=1)))
        await tx.allowances.grant_extra_claim("ann", DAY)
        await tx.exclusions.exclude_player("cat", T0)
        await tx.cards.open_war_window("w1", "a", "dan", "eve", "c0", T0 - timedelta(hours=2), T0 + timedelta(hours=5))
        await tx.cards.open_war_window("w2", "b", "fay", "eve", "c0", T0 - timedelta(hours=2), T0 - timedelta(hours=1))
    snap = await backend.store.day_snapshot(S, DAY, T0)
    assert snap.claims == [("c1", "ann", "a")]
    assert snap.allowances == {"ann": (1, 0)}
    assert snap.windows_until == T0 + timedelta(hours=5)
    assert snap.owners["a"][0] == "bob" and snap.owners["b"] == ("ann", 2)
    assert (await backend.store.day_snapshot(S, DAY, T0 + timedelta(hours=6))).windows_until is None


async def test_a_refusal_from_memory_is_kept_in_one_step_and_a_used_key_answers_its_first_reply(
        backend: Backend) -> None:
    first = ClaimAcceptedReply(claim_id="c1", territory_id="a", kind="take", owner_id="ann", progress=1,
                               fortified=False, claims_left_today=0)
    async with backend.store.begin(S) as tx:
        await tx.replies.store_idempotent_reply("ann", "k1", first, T0)
    refused = Refusal(reason="no_claims_left", message="You have no claims left today.")

    def rejected() -> ClaimRejected:
        return ClaimRejected(occurred_at=T0, player_id="ann", territory_id="a", reason="no_claims_left",
                             message="You have no claims left today.")

    assert await backend.store.refuse("ann", "k1", refused, subjects.CLAIM_REJECTED, rejected(), T0) == \
        first.model_dump_json()
    assert await backend.staged() == []                      # a repeat: nothing staged
    event = rejected()
    assert await backend.store.refuse("ann", "k2", refused, subjects.CLAIM_REJECTED, event, T0) is None
    assert await backend.staged() == [(subjects.CLAIM_REJECTED, event.event_id)]
    assert await backend.store.refuse("ann", "k2", refused, subjects.CLAIM_REJECTED, rejected(), T0) == \
        refused.model_dump_json()
    assert await backend.store.refuse("ann", None, refused, subjects.CLAIM_REJECTED, rejected(), T0) is None
    assert len(await backend.staged()) == 2


async def test_the_unit_of_work_marks_its_transaction_open_and_a_read_connection_not(backend: Backend) -> None:
    """No network round trip inside a transaction (txguard): the bus and the outbox refuse to go out while the
    claims unit of work holds one open; a read-only connection holds no lock."""
    async with backend.store.begin(S):
        assert txguard.open_transaction() == "claims"
        with pytest.raises(txguard.NetworkInTransaction):
            txguard.no_transaction("claims.verified.submit")
    assert txguard.open_transaction() is None
    async with backend.store.connect(S):
        assert txguard.open_transaction() is None


async def test_trail_flags_oldest_first(backend: Backend) -> None:
    async with backend.store.begin(S) as tx:
        await tx.trail.add_flag("f2", T0 + timedelta(minutes=1), "ann", "c1", "impossible_travel", {"speed_kmh": 900})
        await tx.trail.add_flag("f1", T0, "bob", None, "future_fix", {"seconds": 30})
        await tx.trail.add_flag("f0", T0 + timedelta(minutes=1), "ann", None, "impossible_travel", {})
    async with backend.store.connect(S) as tx:
        assert await tx.trail.flags() == [
            FlagOut(id="f1", at=T0, player_id="bob", claim_id=None, kind="future_fix", evidence={"seconds": 30},
                    last_at=T0),
            FlagOut(id="f0", at=T0 + timedelta(minutes=1), player_id="ann", claim_id=None, kind="impossible_travel",
                    evidence={}, last_at=T0 + timedelta(minutes=1)),
            FlagOut(id="f2", at=T0 + timedelta(minutes=1), player_id="ann", claim_id="c1",
                    kind="impossible_travel", evidence={"speed_kmh": 900}, last_at=T0 + timedelta(minutes=1))]


async def test_r30_erasing_flag_places_keeps_each_flag_without_its_coordinates(backend: Backend) -> None:
    at = {"lat": 40.74, "lon": -74.03, "accuracy_m": 0}
    async with backend.store.begin(S) as tx:
        await tx.trail.add_flag("f1", T0, "ann", "c1", "zero_accuracy", {"accuracy_m": 0, "at": at})
        await tx.trail.add_flag("f2", T0 + timedelta(minutes=1), "bob", None, "zero_accuracy", {"at": at})
        await tx.trail.repeat_flag("f1", T0 + timedelta(minutes=2))
    async with backend.store.begin(S) as tx:
        assert await tx.trail.erase_flag_places("ann") == 1
        assert await tx.trail.erase_flag_places("ann") == 0   # nothing left to erase
    async with backend.store.connect(S) as tx:
        assert [(f.id, f.claim_id, f.count, f.evidence) for f in await tx.trail.flags()] == [
            ("f1", "c1", 2, {"accuracy_m": 0, "at": {"accuracy_m": 0}}), ("f2", None, 1, {"at": at})]
    async with backend.store.begin(S) as tx:
        assert await tx.trail.erase_flag_places(None) == 1
    async with backend.store.connect(S) as tx:
        assert [f.evidence for f in await tx.trail.flags()] == [
            {"accuracy_m": 0, "at": {"accuracy_m": 0}}, {"at": {"accuracy_m": 0}}]


async def test_r30_erasing_claim_places_keeps_each_claim_without_its_position(backend: Backend) -> None:
    await seeded(backend, "a", "b")
    c1, c2 = claim("c1", "ann", "a"), claim("c2", "bob", "b", at=T0 + timedelta(minutes=1))
    c3 = claim("c3", "ann", "b", "steal", day=DAY2, at=T0 + timedelta(days=1), prev="bob")
    async with backend.store.begin(S) as tx:
        for c in (c1, c2, c3):
            await record(tx, c)
        await tx.claims.undo_claim("c3", "correction")
    async with backend.store.connect(S) as tx:
        # the player's export (R30) holds the position each of their claims was made from, oldest first
        assert [(x.lat, x.lon, x.accuracy_m, x.fix_time, x.received_at) for x in await tx.trail.player_fixes("ann")] \
            == [(c.lat, c.lon, c.accuracy_m, c.fix_time, c.at) for c in (c1, c3)]
    async with backend.store.begin(S) as tx:
        assert await tx.claims.erase_claim_places("ann") == 2
        assert await tx.claims.erase_claim_places("ann") == 0   # nothing left to erase
        assert await tx.claims.erase_claim_places("cy") == 0
    gone = {"lat": None, "lon": None, "accuracy_m": None}
    async with backend.store.connect(S) as tx:
        # the log keeps each move: its time, the fix's time, the border distance, what it replaced, its undoing
        assert await tx.claims.claims_log(None, None, 10) == [
            replace(c1, **gone), c2, replace(c3, undone_by="correction", **gone)]
        assert await tx.trail.player_fixes("ann") == []   # nothing of where they were is left to export
    async with backend.store.begin(S) as tx:
        assert await tx.claims.erase_claim_places(None) == 1
    async with backend.store.connect(S) as tx:
        assert await tx.claims.claim("c2") == replace(c2, **gone)


async def test_a_repeated_flag_counts_on_the_first_and_recent_flags_find_it(backend: Backend) -> None:
    """A repeat is counted on the flag the organizer has (count, first and last seen), not a new row;
    the candidates are the player's flags of the kind with no claim, first raised since a time, latest first."""
    async with backend.store.begin(S) as tx:
        await tx.trail.add_flag("f1", T0, "ann", None, "impossible_travel", {"n": 1})
        await tx.trail.add_flag("f2", T0 + timedelta(minutes=1), "ann", None, "impossible_travel", {"n": 2})
        await tx.trail.add_flag("f3", T0 + timedelta(minutes=2), "ann", "c1", "impossible_travel", {"n": 3})
        await tx.trail.add_flag("f4", T0 + timedelta(minutes=2), "ann", None, "repeated_fix", {"n": 4})
        await tx.trail.add_flag("f5", T0 + timedelta(minutes=2), "bob", None, "impossible_travel", {"n": 5})
        await tx.trail.repeat_flag("f1", T0 + timedelta(minutes=5))
        await tx.trail.repeat_flag("f1", T0 + timedelta(minutes=6))
    async with backend.store.connect(S) as tx:
        recent = await tx.trail.recent_flags("ann", "impossible_travel", T0, 10)
        assert [(f.id, f.count, f.last_at) for f in recent] == [
            ("f2", 1, T0 + timedelta(minutes=1)), ("f1", 3, T0 + timedelta(minutes=6))]
        # first raised since: a flag's window runs from its first time, however late its last
        assert [f.id for f in await tx.trail.recent_flags("ann", "impossible_travel", T0 + timedelta(minutes=1),
                                                          10)] == ["f2"]
        assert [f.id for f in await tx.trail.recent_flags("ann", "impossible_travel", T0, 1)] == ["f2"]
        (f1,) = [f for f in await tx.trail.flags() if f.id == "f1"]
        assert (f1.at, f1.count, f1.last_at, f1.evidence) == (T0, 3, T0 + timedelta(minutes=6), {"n": 1})
        assert len(await tx.trail.flags()) == 5


async def test_trail_flags_a_page_after_a_cursor(backend: Backend) -> None:
    async with backend.store.begin(S) as tx:
        for fid, minutes in (("f2", 1), ("f1", 0), ("f0", 1), ("f3", 2)):
            await tx.trail.add_flag(fid, T0 + timedelta(minutes=minutes), "ann", None, "impossible_travel", {})
    async with backend.store.connect(S) as tx:
        assert [f.id for f in await tx.trail.flags(None, 2)] == ["f1", "f0"]
        assert [f.id for f in await tx.trail.flags((T0 + timedelta(minutes=1), "f0"), 2)] == ["f2", "f3"]
        assert [f.id for f in await tx.trail.flags((T0 + timedelta(minutes=2), "f3"), 2)] == []

# ---- allowances, exclusions, days ----------------------------------------------------------------------------------

async def test_allowances_extra_once_replacements_add_up(backend: Backend) -> None:
    async with backend.store.begin(S) as tx:
        assert await tx.allowances.player_day("ann", DAY) == (0, 0)
        await tx.allowances.add_replacement_claim("ann", DAY)
        await tx.allowances.add_replacement_claim("ann", DAY)
        await tx.allowances.grant_extra_claim("ann", DAY)
        await tx.allowances.grant_extra_claim("ann", DAY)
        await tx.allowances.grant_extra_claim("bob", DAY2)
    async with backend.store.connect(S) as tx:
        assert await tx.allowances.player_day("ann", DAY) == (1, 2)
        assert await tx.allowances.player_day("bob", DAY2) == (1, 0)
        assert await tx.allowances.player_day("bob", DAY) == (0, 0)


async def test_exclusions_and_days(backend: Backend) -> None:
    async with backend.store.begin(S) as tx:
        assert await tx.exclusions.excluded_players() == set()
        await tx.exclusions.exclude_player("ann", T0)
        await tx.exclusions.exclude_player("ann", T0 + timedelta(hours=1))
        await tx.exclusions.exclude_player("bob", T0)
        assert await tx.days.day_started(DAY) is False
        await tx.days.mark_day_started(DAY, T0)
        await tx.days.mark_day_started(DAY, T0 + timedelta(hours=1))
    async with backend.store.connect(S) as tx:
        assert await tx.exclusions.excluded_players() == {"ann", "bob"}
        assert await tx.days.day_started(DAY) is True
        assert await tx.days.day_started(DAY2) is False


# ---- cards: War windows, Joker awards ------------------------------------------------------------------------------

async def test_war_windows_reclaimed_and_ended(backend: Backend) -> None:
    await seeded(backend, "a", "b", "c")
    until = T0 + timedelta(hours=5)
    async with backend.store.begin(S) as tx:
        await tx.cards.open_war_window("w1", "a", "ann", "bob", "s1", T0, until)
        await tx.cards.open_war_window("w2", "b", "ann", "bob", "s2", T0, until)
        await tx.cards.open_war_window("w3", "c", "cat", "bob", "s3", T0, until)
        await tx.cards.mark_reclaimed("a", "ann", "r1")
        await tx.cards.mark_reclaimed("c", "ann", "r2")              # not ann's window: nothing
    async with backend.store.begin(S) as tx:
        assert (await tx.cards.card_facts("a", None, "x", DAY, T0)).war_reclaim_holder is None   # used
        assert (await tx.cards.card_facts("c", None, "x", DAY, T0)).war_reclaim_holder == "cat"
        assert await tx.cards.end_war_windows("ann") == ["b"]
        assert await tx.cards.end_war_windows("ann") == []
        assert (await tx.cards.card_facts("b", None, "x", DAY, T0)).war_reclaim_holder is None


async def test_a_joker_award_counts_as_the_players_claim_of_it_that_day(backend: Backend) -> None:
    await seeded(backend, "a")
    async with backend.store.begin(S) as tx:
        await tx.cards.record_joker_award("j1", "ann", "a", DAY, T0)
    async with backend.store.connect(S) as tx:
        assert (await tx.claims.day_facts("a", "ann", "ann", DAY, T0)).took_it_today is True
        assert (await tx.claims.day_facts("a", "ann", "ann", DAY2, T0)).took_it_today is False
        assert (await tx.claims.day_facts("a", "ann", "bob", DAY, T0)).took_it_today is False


# ---- protections ---------------------------------------------------------------------------------------------------

def _freeze(card: str, player: str, tid: str, day: date = DAY, state: Any = "scheduled") -> Protection:
    return Protection(card, "freeze", player, tid, None, day, state)


async def test_protections_schedule_find_and_resolve(backend: Backend) -> None:
    f1, f2 = _freeze("f1", "ann", "a"), _freeze("f2", "bob", "b", DAY2)
    k1 = Protection("k1", "blockade", "cat", None, "ann", DAY, "scheduled")
    async with backend.store.begin(S) as tx:
        await tx.protections.schedule_protection(f2, "x2", T0)
        await tx.protections.schedule_protection(f1, "x1", T0 + timedelta(minutes=1))
        await tx.protections.schedule_protection(k1, "x3", T0 + timedelta(minutes=2))
    async with backend.store.begin(S) as tx:
        assert await tx.protections.protection_scheduled("freeze", DAY, territory_id="a") is True
        assert await tx.protections.protection_scheduled("freeze", DAY2, territory_id="a") is False
        assert await tx.protections.protection_scheduled("blockade", DAY, player_id="cat", rival_id="ann") is True
        assert await tx.protections.protection_scheduled("blockade", DAY, player_id="ann", rival_id="cat") is False
        assert await tx.protections.protection_for_update("f1") == f1
        assert await tx.protections.protection_for_update("zz") is None
        assert await tx.protections.due_protections_for_update(DAY) == [f1, k1]
        assert await tx.protections.due_protections_for_update(DAY2) == [f2, f1, k1]
        assert await tx.protections.scheduled_protections_involving_for_update("ann") == [f1, k1]
        assert await tx.protections.scheduled_protections_involving_for_update("bob") == [f2]
        await tx.protections.resolve_protection("f1", "active", T0)
        await tx.protections.resolve_protection("k1", "cancelled", T0)
    async with backend.store.begin(S) as tx:
        assert await tx.protections.protection_for_update("f1") == _freeze("f1", "ann", "a", state="active")
        assert await tx.protections.protection_scheduled("freeze", DAY, territory_id="a") is True    # active: live
        assert await tx.protections.protection_scheduled("blockade", DAY, player_id="cat", rival_id="ann") is False
        assert await tx.protections.due_protections_for_update(DAY2) == [f2]
        assert await tx.protections.scheduled_protections_involving_for_update("ann") == []


async def test_a_cancelled_card_is_scheduled_again_a_live_one_is_not_replaced(backend: Backend) -> None:
    async with backend.store.begin(S) as tx:
        await tx.protections.schedule_protection(_freeze("f1", "ann", "a"), "x1", T0)
        await tx.protections.schedule_protection(_freeze("f1", "ann", "a", DAY2), "x2", T0)   # live: kept
        assert await tx.protections.protection_for_update("f1") == _freeze("f1", "ann", "a")
        await tx.protections.resolve_protection("f1", "cancelled", T0)
        await tx.protections.schedule_protection(_freeze("f1", "ann", "b", DAY2), "x3", T0)
        assert await tx.protections.protection_for_update("f1") == _freeze("f1", "ann", "b", DAY2)


# ---- outlook -------------------------------------------------------------------------------------------------------

async def test_outlook_facts(backend: Backend) -> None:
    await seeded(backend, "a", "b", "c", "d")
    async with backend.store.begin(S) as tx:
        await record(tx, claim("c1", "ann", "a"))                                     # ann's, taken today
        await record(tx, claim("c2", "ann", "b", day=DAY - timedelta(days=1), at=T0 - timedelta(days=1)))
        await record(tx, claim("c3", "bob", "c", day=DAY - timedelta(days=1), at=T0 - timedelta(days=1)))
        await record(tx, claim("c4", "bob", "d", day=DAY - timedelta(days=1), at=T0 - timedelta(days=1)))
        await record(tx, claim("c5", "ann", "d", "steal", at=T0 + timedelta(minutes=1), prev="bob"))
        await record(tx, claim("c6", "cat", "b", normal=True, at=T0 + timedelta(minutes=2)))  # cat... then back
        await tx.ownership.change_territory(TerritoryChange("b", "ann", "cat", Fortification(1, DAY, False),
                                                        "correction"), T0)
        await tx.cards.open_war_window("w1", "d", "bob", "ann", "c5", T0, T0 + timedelta(hours=5))
        await tx.cards.open_war_window("w2", "c", "ann", "bob", "cX", T0, T0 + timedelta(hours=3))
        await tx.protections.schedule_protection(_freeze("f1", "ann", "a", state="active"), "x1", T0)
        await tx.cards.record_joker_award("j1", "ann", "b", DAY, T0)
    async with backend.store.connect(S) as tx:
        o = await tx.outlook.outlook_facts("ann", DAY, T0 + timedelta(hours=1))
        assert [(f.territory.id, f.claimed_today, f.locked_today, f.frozen_today, f.reclaim_holder, f.reclaim_until,
                 f.take.claim_id if f.take else None) for f in o.owned] == [
            ("a", True, True, True, None, None, "c1"),
            ("b", True, True, False, None, None, "c2"),
            ("d", True, True, False, "bob", T0 + timedelta(hours=5), "c5")]
        assert [(s.territory_id, s.owner_id, s.take.claim_id if s.take else None) for s in o.stolen] == []
        assert [(h.territory_id, h.owner_id, h.until) for h in o.held] == [("c", "bob", T0 + timedelta(hours=3))]
        b = await tx.outlook.outlook_facts("bob", DAY, T0 + timedelta(hours=1))
        assert [f.territory.id for f in b.owned] == ["c"]
        assert [(s.territory_id, s.owner_id, s.take) for s in b.stolen] == [
            ("d", "ann", TakeRecord("c5", "steal", "ann", "bob", T0 + timedelta(minutes=1), fort_before=NONE))]
        assert [(h.territory_id, h.owner_id) for h in b.held] == [("d", "ann")]
        none = await tx.outlook.outlook_facts("ann", None, T0 + timedelta(hours=4))
        assert [(f.territory.id, f.claimed_today, f.locked_today, f.frozen_today, f.reclaim_holder)
                for f in none.owned] == [("a", False, False, False, None), ("b", False, False, False, None),
                                         ("d", False, False, False, "bob")]
        assert none.held == []


async def test_due_and_involving_cards_come_by_scheduling_time_then_card_id(backend: Backend) -> None:
    """Not by the order the rows were first written: a card scheduled again after a cancellation takes its new
    scheduling time, and cards scheduled at one instant come by card id."""
    z, y = _freeze("z", "ann", "a"), _freeze("y", "ann", "b")
    x = Protection("x", "blockade", "bob", None, "ann", DAY, "scheduled")
    async with backend.store.begin(S) as tx:
        await tx.protections.schedule_protection(x, "x1", T0)
        await tx.protections.schedule_protection(z, "x2", T0 + timedelta(minutes=1))
        await tx.protections.schedule_protection(y, "x3", T0 + timedelta(minutes=1))
        await tx.protections.resolve_protection("x", "cancelled", T0)
        await tx.protections.schedule_protection(x, "x4", T0 + timedelta(minutes=2))
    async with backend.store.begin(S) as tx:
        assert [p.card_id for p in await tx.protections.due_protections_for_update(DAY)] == ["y", "z", "x"]
        assert [p.card_id for p in await tx.protections.scheduled_protections_involving_for_update("ann")] == [
            "y", "z", "x"]


async def test_outlook_windows_opened_at_one_instant_come_by_war_id(backend: Backend) -> None:
    """The latest window on a territory is the last by (opening time, War id); the held ones come in that order."""
    await seeded(backend, "a", "b", "c")
    async with backend.store.begin(S) as tx:
        await tx.ownership.change_territory(TerritoryChange("a", "ann", None, NONE, "correction"), T0)
        await tx.cards.open_war_window("w9", "a", "bob", "ann", "s1", T0, T0 + timedelta(hours=5))
        await tx.cards.open_war_window("w1", "a", "cat", "ann", "s2", T0, T0 + timedelta(hours=4))
        await tx.cards.open_war_window("w8", "c", "dan", "x", "s3", T0, T0 + timedelta(hours=3))
        await tx.cards.open_war_window("w2", "b", "dan", "x", "s4", T0, T0 + timedelta(hours=2))
    async with backend.store.connect(S) as tx:
        (mine,) = (await tx.outlook.outlook_facts("ann", DAY, T0)).owned
        assert (mine.reclaim_holder, mine.reclaim_until) == ("bob", T0 + timedelta(hours=5))
        held = (await tx.outlook.outlook_facts("dan", DAY, T0)).held
        assert [(h.territory_id, h.until) for h in held] == [("b", T0 + timedelta(hours=2)),
                                                              ("c", T0 + timedelta(hours=3))]


async def test_what_a_unique_constraint_refuses_is_refused_and_the_unit_rolled_back(backend: Backend) -> None:
    """A second reply for one command or Idempotency-Key, a second live Freeze on a territory's day or Blockade of a
    player against a rival on a day (R15, R16): the use cases never write them (they read under a lock first), and
    a store that took them silently would hide a race."""
    reply = ClaimAcceptedReply(claim_id="c1", kind="take", territory_id="a", owner_id="ann", progress=1,
                               fortified=False, version=1)
    async with backend.store.begin(S) as tx:
        await tx.replies.store_command_reply("cmd-1", "war", "ann", reply, T0)
        await tx.replies.store_idempotent_reply("ann", "k1", reply, T0)
        await tx.protections.schedule_protection(_freeze("f1", "ann", "a"), "x1", T0)
        await tx.protections.schedule_protection(
            Protection("k1", "blockade", "ann", None, "bob", DAY, "active"), "x2", T0)
    refused = [lambda tx: tx.replies.store_command_reply("cmd-1", "war", "ann", reply, T0),
               lambda tx: tx.replies.store_idempotent_reply("ann", "k1", reply, T0),
               lambda tx: tx.protections.schedule_protection(_freeze("f2", "bob", "a"), "x3", T0),
               lambda tx: tx.protections.schedule_protection(
                   Protection("k2", "blockade", "ann", None, "bob", DAY, "scheduled"), "x4", T0)]
    for write in refused:
        with pytest.raises((IntegrityError, DuplicateKey)):
            async with backend.store.begin(S) as tx:
                await tx.days.mark_day_started(DAY2, T0)
                await write(tx)
    async with backend.store.begin(S) as tx:
        assert await tx.days.day_started(DAY2) is False                     # each unit rolled back whole
        await tx.protections.schedule_protection(_freeze("f3", "bob", "a", DAY2), "x5", T0)   # another day: fine
        await tx.protections.resolve_protection("f1", "cancelled", T0)
        await tx.protections.schedule_protection(_freeze("f4", "bob", "a"), "x6", T0)          # slot free again
        assert [p.card_id for p in await tx.protections.due_protections_for_update(DAY2)] == ["f3", "f4"]
