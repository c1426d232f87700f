"""R3, R6–R11 as pure rules: each test names its ruling and checks the exact outcome."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from turf_common.rules import gametime
from turf_common.rules.claims import (
    ClaimantFacts,
    ClaimOutcome,
    Fortification,
    TerritoryFacts,
    allowance,
    check_claimability,
    check_location,
    check_open,
    claim_effect,
    decide_claim,
)
from turf_common.rules.refusals import Refused

CFG = gametime.load_season()
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
MON_D, TUE_D, SAT_D, NEXT_MON_D = date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 10), date(2026, 10, 12)


def me(**kw: object) -> ClaimantFacts:
    base = dict(player_id="A", eligible=True, normal_claims_today=0, allowance_today=1, claimed_it_today=False)
    return ClaimantFacts(**(base | kw))  # type: ignore[arg-type]


def terr(owner: str | None = None, fort: Fortification = Fortification(), **kw: object) -> TerritoryFacts:
    return TerritoryFacts("T", owner, fort, **kw)  # type: ignore[arg-type]


def reason(x: Refused | None) -> str | None:
    return x.reason if x else None


# ---- R3 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("at,code", [
    ("2026-10-05T05:59:59.999-04:00", "game_closed"),
    ("2026-10-05T06:00:00-04:00", None),
    ("2026-10-05T21:59:59.999-04:00", None),
    ("2026-10-05T22:00:00-04:00", "game_closed"),
    ("2026-10-11T12:00:00-04:00", "game_closed"),   # Sunday
    ("2026-10-04T12:00:00-04:00", "game_closed"),   # the day before the season
    ("2026-10-24T22:00:00-04:00", "season_closed"),  # the instant it closes
    ("2026-10-26T12:00:00-04:00", "season_closed"),
])
def test_r3_open_hours_gate_claims(at: str, code: str | None) -> None:
    assert reason(check_open(CFG, datetime.fromisoformat(at))) == code


# ---- R6 ---------------------------------------------------------------------------------------------
def test_r6_allowance_is_one_plus_double_trouble_plus_mulligans() -> None:
    assert allowance() == 1
    assert allowance(extra_claims=1) == 2
    assert allowance(extra_claims=1, replacement_claims=2) == 4


def test_r6_no_claims_left_after_the_allowance_is_spent() -> None:
    assert reason(check_claimability(me(normal_claims_today=1), terr(), False)) == "no_claims_left"
    assert reason(check_claimability(me(normal_claims_today=1, allowance_today=2), terr(), False)) is None


# ---- R7 ---------------------------------------------------------------------------------------------
def loc(**kw: object) -> str | None:
    args = dict(now=MON, fix_time=MON - timedelta(seconds=5), accuracy_m=10.0, territory_id="T",
                border_distance_m=30.0) | kw
    return reason(check_location(**args))  # type: ignore[arg-type]


def test_r7_location_checks_in_order() -> None:
    assert loc() is None
    assert loc(territory_id=None, border_distance_m=None) == "outside_board"
    assert loc(border_distance_m=0.5) == "on_border"
    assert loc(border_distance_m=0.51) is None
    assert loc(accuracy_m=100.0) is None
    assert loc(accuracy_m=100.01) == "inaccurate_fix"
    assert loc(fix_time=MON - timedelta(seconds=120)) is None
    assert loc(fix_time=MON - timedelta(seconds=120.001)) == "stale_fix"
    assert loc(fix_time=MON + timedelta(seconds=30)) is None
    assert loc(fix_time=MON + timedelta(seconds=30.001)) == "stale_fix"
    # order: on_border wins over a bad accuracy and a stale fix
    assert loc(border_distance_m=0.1, accuracy_m=500, fix_time=MON - timedelta(hours=1)) == "on_border"
    assert loc(accuracy_m=500, fix_time=MON - timedelta(hours=1)) == "inaccurate_fix"


def test_r7_location_checks_come_after_r3() -> None:
    closed = datetime.fromisoformat("2026-10-05T23:00:00-04:00")
    d = decide_claim(CFG, closed, fix_time=closed, accuracy_m=500, territory_id=None, border_distance_m=None,
                     claimant=me(), territory=None, locked_by_other_today=False)
    assert isinstance(d, Refused) and d.reason == "game_closed"


# ---- R8 ---------------------------------------------------------------------------------------------
def test_r8_order_not_eligible_first() -> None:
    t = terr("B", Fortification(3, MON_D, True))
    assert reason(check_claimability(me(eligible=False, normal_claims_today=5), t, True)) == "not_eligible"


def test_r8_war_reclaim_window_of_another_player() -> None:
    assert reason(check_claimability(me(), terr("B", war_reclaim_holder="C"), True)) == "war_reclaim_window"
    # the owner is refused too
    assert reason(check_claimability(me(player_id="B"), terr("B", war_reclaim_holder="C"), False)) \
        == "war_reclaim_window"


def test_r8_reclaim_holder_needs_no_allowance_and_ignores_the_lock() -> None:
    assert check_claimability(me(normal_claims_today=1), terr("B", war_reclaim_holder="A"), True) is None


def test_r8_locked_today_before_fortified() -> None:
    assert reason(check_claimability(me(), terr("B", Fortification(3, MON_D, True)), True)) == "locked_today"


@pytest.mark.parametrize("t,code", [
    (terr("B", Fortification(3, MON_D, True), frozen=True, blockade_against_claimant=True), "fortified"),
    (terr("B", frozen=True, blockade_against_claimant=True), "frozen"),
    (terr("B", blockade_against_claimant=True), "blockaded"),
    (terr("B"), None),
    (terr(None), None),
])
def test_r8_protections_of_another_owner_in_order(t: TerritoryFacts, code: str | None) -> None:
    assert reason(check_claimability(me(), t, False)) == code


def test_r8_own_territory_claimed_today_then_fortified() -> None:
    assert reason(check_claimability(me(claimed_it_today=True, allowance_today=2),
                                     terr("A", Fortification(3, MON_D, True)), False)) == "already_claimed_today"
    assert reason(check_claimability(me(), terr("A", Fortification(3, MON_D, True)), False)) == "already_fortified"
    # freeze and blockade never stop a player on their own territory
    assert check_claimability(me(), terr("A", frozen=True, blockade_against_claimant=True), False) is None


# ---- R9 / R11 ----------------------------------------------------------------------------------------
def effect(t: TerritoryFacts, day: date = TUE_D, who: str = "A") -> ClaimOutcome:
    return claim_effect(CFG, day, who, t)


def test_r9_take_unclaimed_starts_at_progress_one() -> None:
    o = effect(terr(None))
    assert (o.kind, o.owner_id, o.fort_after, o.normal, o.opens_war_window) == \
        ("take", "A", Fortification(1, TUE_D, False), True, False)


def test_r9_steal_resets_progress_and_opens_war_window() -> None:
    o = effect(terr("B", Fortification(2, MON_D, False)))
    assert (o.kind, o.previous_owner_id, o.fort_after, o.opens_war_window) == \
        ("steal", "B", Fortification(1, TUE_D, False), True)
    assert o.fort_before == Fortification(2, MON_D, False)  # kept so War/Mulligan can restore it (R14, R19)


def test_r9_reinforce_on_consecutive_game_days_fortifies_at_three() -> None:
    o = effect(terr("A", Fortification(1, MON_D, False)))
    assert (o.kind, o.fort_after) == ("reinforce", Fortification(2, TUE_D, False))
    o = effect(terr("A", Fortification(2, MON_D, False)))
    assert o.fort_after == Fortification(3, TUE_D, True)


def test_r9_sunday_does_not_break_a_streak() -> None:
    o = effect(terr("A", Fortification(2, SAT_D, False)), day=NEXT_MON_D)
    assert o.fort_after == Fortification(3, NEXT_MON_D, True)


def test_r9_streak_follows_the_territory_last_claim_day_across_a_trade() -> None:
    """R9 (amended wording) / R11: the streak follows the territory's last claim day, which belongs to the territory.
    B claimed T on Monday (progress 2) and traded it to A (R18: the state travels); A's claim on Tuesday continues
    B's streak and fortifies T, though A never claimed T before."""
    traded = terr("A", Fortification(2, MON_D, False))  # B's state, received by Trade
    o = effect(traded)
    assert (o.kind, o.fort_after) == ("reinforce", Fortification(3, TUE_D, True))
    # A's first claim of it on Wednesday: B's last claim (Monday) was not the previous game day, no streak
    wed = date(2026, 10, 7)
    assert effect(traded, day=wed).fort_after == Fortification(1, wed, False)


def test_r9_a_gap_day_restarts_progress_at_one() -> None:
    o = effect(terr("A", Fortification(2, MON_D, False)), day=date(2026, 10, 7))
    assert o.fort_after == Fortification(1, date(2026, 10, 7), False)


def test_r9_war_reclaim_is_a_free_steal_at_progress_one_without_war_window() -> None:
    o = effect(terr("B", Fortification(2, MON_D, False), war_reclaim_holder="A"))
    assert (o.kind, o.normal, o.opens_war_window, o.fort_after) == \
        ("war_reclaim", False, False, Fortification(1, TUE_D, False))


# ---- R10 ---------------------------------------------------------------------------------------------
def test_r10_lock_refuses_others_not_the_claimant() -> None:
    assert reason(check_claimability(me(), terr("B"), locked_by_other_today=True)) == "locked_today"
    assert reason(check_claimability(me(), terr(None), locked_by_other_today=True)) == "locked_today"


def test_decide_claim_whole_path_accepts_a_take() -> None:
    d = decide_claim(CFG, MON, fix_time=MON, accuracy_m=5, territory_id="T", border_distance_m=50,
                     claimant=me(), territory=terr(None), locked_by_other_today=False)
    assert isinstance(d, ClaimOutcome) and d.kind == "take" and d.fort_after == Fortification(1, MON_D, False)
