"""R12–R20 as pure rules: each test names its ruling and checks the exact outcome."""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import date, datetime, timedelta

import networkx as nx
import pytest

from turf_common.rules import gametime
from turf_common.rules.cards import (
    CARD_TYPES,
    ClaimRecord,
    JokerChoice,
    TakeRecord,
    WarOutcome,
    check_blockade,
    check_double_trouble,
    check_freeze,
    check_mulligan,
    check_trade_acceptance,
    check_trade_proposal,
    day_start_draws,
    decide_war,
    draw_card,
    in_dispute,
    is_week_start,
    joker_entropy,
    joker_pick,
    largest_clusters,
    mulligan_undoable,
    pick_index,
    protection_activates,
    replay_joker,
    schedule_day,
    seed_commitment,
    trade_still_possible,
    verification_draws,
    war_play_deadline,
)
from turf_common.rules.claims import Fortification
from turf_common.rules.refusals import Refused

CFG = gametime.load_season()
MON_D, TUE_D, SAT_D, NEXT_MON_D = date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 10), date(2026, 10, 12)
LAST_D = date(2026, 10, 24)


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def reason(x: object) -> str | None:
    return x.reason if isinstance(x, Refused) else None


# ---- R12 hands and the seeded generator ------------------------------------------------------------
def test_r12_monday_tops_up_to_three_counting_reserved_cards() -> None:
    assert [day_start_draws(CFG, MON_D, n) for n in (0, 1, 2, 3, 7)] == [3, 2, 1, 0, 0]
    assert [day_start_draws(CFG, NEXT_MON_D, n) for n in (0, 2, 5)] == [3, 1, 0]


def test_r12_tuesday_to_saturday_add_one_card_whatever_the_hand() -> None:
    for d in (TUE_D, date(2026, 10, 7), SAT_D, LAST_D):
        assert [day_start_draws(CFG, d, n) for n in (0, 3, 12)] == [1, 1, 1]
    assert [is_week_start(CFG, d) for d in (MON_D, TUE_D, SAT_D, NEXT_MON_D, date(2026, 10, 19))] == \
        [True, False, False, True, True]


def test_r12_verification_during_the_season_gets_the_monday_top_up() -> None:
    assert verification_draws(CFG, at("2026-10-05T05:59:59-04:00"), 0) == 0   # before: the first day start does it
    assert verification_draws(CFG, at("2026-10-07T13:00:00-04:00"), 0) == 3
    assert verification_draws(CFG, at("2026-10-11T13:00:00-04:00"), 1) == 2   # a Sunday is inside the season
    assert verification_draws(CFG, at("2026-10-24T22:00:00-04:00"), 0) == 0   # closed


def test_r12_draws_are_deterministic_per_seed_season_player_and_index() -> None:
    a = [draw_card("s", "2026", "p1", i) for i in range(50)]
    assert a == [draw_card("s", "2026", "p1", i) for i in range(50)]
    assert a != [draw_card("s2", "2026", "p1", i) for i in range(50)]
    assert a != [draw_card("s", "2026", "p2", i) for i in range(50)]
    assert set(a) <= set(CARD_TYPES)
    with pytest.raises(ValueError):
        draw_card("s", "2026", "p1", -1)


def test_r12_draws_are_uniform_over_the_seven_types() -> None:
    n = 70_000
    counts = Counter(draw_card("turfwar-2026", "2026", f"p{i % 97}", i) for i in range(n))
    assert set(counts) == set(CARD_TYPES)
    # chi-square with 6 degrees of freedom; 22.46 is the 0.999 quantile
    chi2 = sum((c - n / 7) ** 2 / (n / 7) for c in counts.values())
    assert chi2 < 22.46, counts


def test_r12_seed_commitment_is_sha256_of_the_seed() -> None:
    assert seed_commitment("turfwar-2026") == hashlib.sha256(b"turfwar-2026").hexdigest()
    assert len(seed_commitment("x")) == 64 and seed_commitment("x") != seed_commitment("y")


def test_r12_pick_index_is_uniform_and_in_range() -> None:
    counts = Counter(pick_index(joker_entropy("s", "2026", "p", str(i)), "territory", 3) for i in range(3000))
    assert set(counts) == {0, 1, 2} and all(900 < c < 1100 for c in counts.values())


# ---- R14 War ---------------------------------------------------------------------------------------
SAT_STEAL = at("2026-10-10T21:00:00-04:00")


def steal(**kw: object) -> TakeRecord:
    base = dict(claim_id="c1", kind="steal", player_id="A", previous_owner_id="V", at=SAT_STEAL,
                fort_before=Fortification(2, date(2026, 10, 9), False))
    return TakeRecord(**(base | kw))  # type: ignore[arg-type]


def war(now: str, s: TakeRecord | None = None, owner: str | None = "A", **kw: bool) -> Refused | WarOutcome:
    return decide_war(CFG, at(now), "V", "T", s if s is not None else steal(), owner, **kw)


def test_r14_war_at_exactly_five_game_hours_across_a_sunday() -> None:
    assert war_play_deadline(CFG, SAT_STEAL) == at("2026-10-12T10:00:00-04:00")
    o = war("2026-10-12T10:00:00-04:00")
    assert isinstance(o, WarOutcome)
    assert (o.territory_id, o.victim_id, o.attacker_id, o.restored) == \
        ("T", "V", "A", Fortification(2, date(2026, 10, 9), False))
    # 16 game hours from Monday 10:00: Monday until 22:00 is 12 h, then Tuesday 06:00 + 4 h
    assert o.reclaim_until == at("2026-10-13T10:00:00-04:00")
    assert reason(war("2026-10-12T10:00:00.001-04:00")) == "war_window_closed"


def test_r14_war_refused_when_the_reclaim_window_would_pass_the_season_close() -> None:
    s = steal(at=at("2026-10-24T06:00:00-04:00"))
    o = war("2026-10-24T06:00:00-04:00", s)
    assert isinstance(o, WarOutcome) and o.reclaim_until == at("2026-10-24T22:00:00-04:00")  # fits exactly
    assert reason(war("2026-10-24T06:00:01-04:00", s)) == "war_window_past_season"
    s = steal(at=at("2026-10-23T20:00:00-04:00"))
    assert reason(war("2026-10-24T07:00:00-04:00", s)) == "war_window_past_season"


@pytest.mark.parametrize("s,owner", [
    (steal(undone=True), "A"),                          # undone by Mulligan or reversed by War
    (steal(kind="war_reclaim"), "A"),                   # a War reclaim opens no War window
    (steal(kind="take", previous_owner_id=None), "A"),
    (steal(previous_owner_id="B"), "A"),                # not V's territory that was stolen
    (steal(), "C"),                                     # A no longer owns it
    (steal(), None),
])
def test_r14_war_not_applicable(s: TakeRecord, owner: str | None) -> None:
    assert reason(war("2026-10-12T07:00:00-04:00", s, owner)) == "war_not_applicable"


def test_r14_war_not_applicable_wins_over_a_closed_window() -> None:
    assert reason(war("2026-10-20T07:00:00-04:00", steal(undone=True))) == "war_not_applicable"


def test_r14_freeze_and_blockade_of_the_attacker_stop_war() -> None:
    assert reason(war("2026-10-12T07:00:00-04:00", frozen=True)) == "frozen"
    assert reason(war("2026-10-12T07:00:00-04:00", blockaded=True)) == "blockaded"


def test_r14_territory_in_dispute_while_the_victims_window_is_open() -> None:
    assert in_dispute(CFG, at("2026-10-12T10:00:00-04:00"), steal(), "A") is True
    assert in_dispute(CFG, at("2026-10-12T10:00:01-04:00"), steal(), "A") is False
    assert in_dispute(CFG, at("2026-10-12T07:00:00-04:00"), steal(undone=True), "A") is False
    assert in_dispute(CFG, at("2026-10-12T07:00:00-04:00"), steal(kind="war_reclaim"), "A") is False
    assert in_dispute(CFG, at("2026-10-12T07:00:00-04:00"), None, "A") is False


# ---- R15 / R16 Freeze and Blockade ------------------------------------------------------------------
def test_r15_freeze_is_for_the_next_game_day_and_none_remains_on_the_last() -> None:
    assert schedule_day(CFG, at("2026-10-05T07:00:00-04:00")) == TUE_D
    assert schedule_day(CFG, at("2026-10-10T21:59:00-04:00")) == NEXT_MON_D   # Saturday → Monday
    assert reason(schedule_day(CFG, at("2026-10-24T07:00:00-04:00"))) == "no_future_game_day"


def test_r15_freeze_scheduling_checks() -> None:
    assert check_freeze("A", "A", True, False) is None
    assert reason(check_freeze("A", "B", True, False)) == "not_owner"
    assert reason(check_freeze("A", None, True, False)) == "not_owner"
    assert reason(check_freeze("A", None, False, False)) == "invalid_target"
    assert reason(check_freeze("A", "A", True, True)) == "already_scheduled"


def test_r15_freeze_activates_only_if_the_player_still_owns_it() -> None:
    assert protection_activates("freeze", "A", territory_owner="A") is True
    assert protection_activates("freeze", "A", territory_owner="B") is False   # e.g. traded away: lapses
    assert protection_activates("freeze", "A", territory_owner=None) is False


def test_r16_blockade_scheduling_checks() -> None:
    assert check_blockade("A", "B", True, False) is None
    assert reason(check_blockade("A", "A", True, False)) == "invalid_target"   # never oneself
    assert reason(check_blockade("A", "Z", False, False)) == "invalid_target"  # unknown rival
    assert reason(check_blockade("A", "B", True, True)) == "already_scheduled"


def test_r16_blockade_lapses_if_either_player_is_disqualified() -> None:
    assert protection_activates("blockade", "A", rival_id="B") is True
    assert protection_activates("blockade", "A", rival_id="B", excluded={"B"}) is False
    assert protection_activates("blockade", "A", rival_id="B", excluded={"A"}) is False


# ---- R17 Double Trouble ------------------------------------------------------------------------------
def test_r17_double_trouble_once_per_day() -> None:
    assert check_double_trouble(0) is None
    assert reason(check_double_trouble(1)) == "already_played_today"


# ---- R18 Trade ---------------------------------------------------------------------------------------
def proposal(**kw: object) -> str | None:
    base = dict(offer_owner="P", want_owner="Q", offer_known=True, want_known=True, proposer_has_trade=True,
                partner_has_trade=True, offer_in_dispute=False, want_in_dispute=False)
    return reason(check_trade_proposal("P", **(base | kw)))  # type: ignore[arg-type]


def test_r18_trade_proposal_checks_in_order() -> None:
    assert proposal() is None
    assert proposal(proposer_has_trade=False, offer_owner="Q") == "card_not_in_hand"
    assert proposal(want_known=False) == "invalid_target"
    assert proposal(offer_owner="Q") == "not_owner"
    assert proposal(want_owner="P") == "invalid_target"      # a trade with oneself
    assert proposal(want_owner=None) == "invalid_target"     # open land has no partner
    assert proposal(partner_has_trade=False) == "invalid_target"
    assert proposal(offer_in_dispute=True) == "territory_in_dispute"
    assert proposal(want_in_dispute=True) == "territory_in_dispute"


def test_r18_trade_acceptance_needs_both_cards_and_both_territories() -> None:
    ok = dict(offer_owner="P", want_owner="Q", proposer_has_trade=True, partner_has_trade=True)
    assert check_trade_acceptance("P", "Q", **ok) is None  # type: ignore[arg-type]
    for change in ({"offer_owner": "R"}, {"want_owner": None}, {"proposer_has_trade": False},
                   {"partner_has_trade": False}):
        assert reason(check_trade_acceptance("P", "Q", **(ok | change))) == "trade_no_longer_valid"  # type: ignore[arg-type]
        assert trade_still_possible("P", "Q", **(ok | change)) is False  # type: ignore[arg-type]
    assert trade_still_possible("P", "Q", **ok) is True  # type: ignore[arg-type]
    assert reason(check_trade_acceptance("P", "Q", **ok, offer_in_dispute=True)) == "territory_in_dispute"  # type: ignore[arg-type]


# ---- R19 Mulligan ------------------------------------------------------------------------------------
def claim(**kw: object) -> ClaimRecord:
    base = dict(claim_id="c", player_id="A", territory_id="T", kind="steal", normal=True, game_day=TUE_D,
                undone_by=None, previous_owner_id="B", fort_before=Fortification(2, MON_D, False))
    return ClaimRecord(**(base | kw))  # type: ignore[arg-type]


def test_r19_mulligan_eligibility() -> None:
    assert check_mulligan("A", TUE_D, claim(), "A") is None
    assert check_mulligan("A", TUE_D, claim(kind="take", previous_owner_id=None), "A") is None
    assert check_mulligan("A", TUE_D, claim(kind="reinforce", previous_owner_id="A"), "A") is None


@pytest.mark.parametrize("c,owner,code", [
    (None, "A", "not_eligible_for_mulligan"),                                  # unknown claim (or a Joker award)
    (claim(player_id="B"), "B", "not_eligible_for_mulligan"),                  # someone else's claim
    (claim(game_day=MON_D), "A", "not_eligible_for_mulligan"),                 # not today
    (claim(kind="war_reclaim", normal=False), "A", "not_eligible_for_mulligan"),
    (claim(undone_by="war"), "B", "not_eligible_for_mulligan"),                # reversed by War
    (claim(undone_by="mulligan"), "B", "not_eligible_for_mulligan"),           # already undone
    (claim(), "C", "not_owner"),                                               # no longer owns it
])
def test_r19_mulligan_refusals(c: ClaimRecord | None, owner: str, code: str) -> None:
    assert reason(check_mulligan("A", TUE_D, c, owner)) == code


def test_r19_mulligan_undoable_lists_only_todays_own_standing_normal_claims_still_owned() -> None:
    # R19: the claims the play page's Mulligan form offers; the others would be refused as above
    ok = claim(claim_id="ok", territory_id="T1")
    take = claim(claim_id="take", territory_id="T2", kind="take", previous_owner_id=None)
    claims = [ok, take,
              claim(claim_id="lost", territory_id="T3"),                         # stolen from me since
              claim(claim_id="yday", territory_id="T1", game_day=MON_D),         # not today
              claim(claim_id="rec", territory_id="T4", kind="war_reclaim", normal=False),
              claim(claim_id="done", territory_id="T5", undone_by="mulligan"),
              claim(claim_id="war", territory_id="T6", undone_by="war"),
              claim(claim_id="theirs", territory_id="T7", player_id="B")]
    owners: dict[str, str | None] = {"T1": "A", "T2": "A", "T3": "C", "T4": "A", "T5": "A", "T6": "A", "T7": "A"}
    assert mulligan_undoable("A", TUE_D, claims, owners) == [ok, take]
    assert mulligan_undoable("A", TUE_D, claims, {}) == []


# ---- R20 Joker ---------------------------------------------------------------------------------------
def path_graph() -> nx.Graph:
    # a - b - c - d - e - f - g    and h isolated
    g = nx.path_graph(["a", "b", "c", "d", "e", "f", "g"])
    g.add_node("h")
    return g


def test_r20_random_is_uniform_over_unclaimed_territories() -> None:
    g = path_graph()
    owners = {t: None for t in g} | {"a": "P", "d": "Q"}
    picks = Counter(joker_pick(g, owners, "P", "random", joker_entropy("s", "2026", "P", str(i))).territory_id
                    for i in range(6000))
    assert set(picks) == {"b", "c", "e", "f", "g", "h"}
    assert all(850 < c < 1150 for c in picks.values()), picks


def test_r20_cluster_edge_picks_among_tied_largest_clusters_uniformly() -> None:
    g = path_graph()
    # P owns {a} and {c} and {g}: three tied clusters of size 1; Q owns d
    owners = {t: None for t in g} | {"a": "P", "c": "P", "g": "P", "d": "Q"}
    assert largest_clusters(g, ["a", "c", "g"]) == [["a"], ["c"], ["g"]]
    seen: Counter[tuple[int | None, str | None]] = Counter()
    for i in range(3000):
        ch = joker_pick(g, owners, "P", "cluster_edge", joker_entropy("s", "2026", "P", str(i)))
        assert ch.clusters == [["a"], ["c"], ["g"]]
        expected = {0: ["b"], 1: ["b"], 2: ["f"]}[ch.cluster_index or 0]
        assert ch.candidates == expected and ch.territory_id in expected
        seen[(ch.cluster_index, ch.territory_id)] += 1
    assert set(seen) == {(0, "b"), (1, "b"), (2, "f")}
    assert all(900 < c < 1100 for c in seen.values()), seen


def test_r20_cluster_edge_largest_cluster_only() -> None:
    g = path_graph()
    owners = {t: None for t in g} | {"a": "P", "b": "P", "e": "P"}
    ch = joker_pick(g, owners, "P", "cluster_edge", joker_entropy("s", "2026", "P", "1"))
    assert (ch.clusters, ch.cluster_index, ch.candidates, ch.territory_id) == ([["a", "b"]], 0, ["c"], "c")


def test_r20_cluster_edge_with_an_empty_edge_keeps_the_card() -> None:
    g = path_graph()
    owners = {t: None for t in g} | {"a": "P", "b": "P", "c": "Q", "h": None}
    ch = joker_pick(g, owners, "P", "cluster_edge", joker_entropy("s", "2026", "P", "1"))
    assert (ch.territory_id, ch.candidates, ch.clusters) == (None, [], [["a", "b"]])


def test_r20_cluster_edge_for_a_player_owning_nothing_uses_the_whole_board() -> None:
    g = path_graph()
    owners = {t: None for t in g} | {"a": "Q"}
    ch = joker_pick(g, owners, "P", "cluster_edge", joker_entropy("s", "2026", "P", "1"))
    assert ch.clusters == [] and ch.cluster_index is None
    assert ch.candidates == ["b", "c", "d", "e", "f", "g", "h"] and ch.territory_id in ch.candidates


def test_r20_no_unclaimed_territory_keeps_the_card() -> None:
    g = path_graph()
    owners = {t: "Q" for t in g}
    for mode in ("random", "cluster_edge"):
        assert joker_pick(g, owners, "P", mode, joker_entropy("s", "2026", "P", "1")).territory_id is None  # type: ignore[arg-type]


def test_r20_a_recorded_pick_replays_and_a_forged_one_does_not() -> None:
    g = path_graph()
    owners = {t: None for t in g} | {"a": "P", "c": "P", "g": "P"}
    e = joker_entropy("s", "2026", "P", "play-1")
    ch = joker_pick(g, owners, "P", "cluster_edge", e)
    assert replay_joker(ch, e) == []
    other = next(t for t in [*ch.candidates, "h"] if t != ch.territory_id)
    forged = JokerChoice(ch.mode, other, ch.candidates, ch.clusters, ch.cluster_index)
    assert replay_joker(forged, e) == [f"territory {other} != replayed {ch.territory_id}"]


def test_r14_deadline_is_five_open_hours() -> None:
    d = war_play_deadline(CFG, at("2026-10-06T08:00:00-04:00"))
    assert d == at("2026-10-06T13:00:00-04:00")
    assert gametime.game_hours_between(CFG, at("2026-10-10T21:00:00-04:00"),
                                       war_play_deadline(CFG, SAT_STEAL)) == 5.0
    assert war_play_deadline(CFG, at("2026-10-24T20:00:00-04:00")) == at("2026-10-24T22:00:00-04:00")
    assert timedelta(0) < war_play_deadline(CFG, SAT_STEAL) - SAT_STEAL


def test_r14_amended_nobody_may_trade_a_territory_while_the_attackers_reclaim_window_is_open() -> None:
    # R14 (amended): after V's War, T is V's again and A holds the reclaim window; V's own claim of T is how V
    # holds it (no steal by V, so no War window of its own) -- only the open reclaim window puts T in dispute
    vs_take = TakeRecord("c0", "take", "V", None, at("2026-10-12T07:00:00-04:00"))
    during = at("2026-10-12T11:00:00-04:00")
    assert in_dispute(CFG, during, vs_take, "V") is False                         # no reclaim window: tradable
    assert in_dispute(CFG, during, vs_take, "V", reclaim_holder="A") is True      # A's reclaim window is open
    assert in_dispute(CFG, during, None, "V", reclaim_holder="A") is True
    assert reason(check_trade_proposal(
        "V", offer_owner="V", want_owner="Q", offer_known=True, want_known=True, proposer_has_trade=True,
        partner_has_trade=True, offer_in_dispute=in_dispute(CFG, during, vs_take, "V", reclaim_holder="A"),
        want_in_dispute=False)) == "territory_in_dispute"
    assert reason(check_trade_acceptance(
        "Q", "V", offer_owner="Q", want_owner="V", proposer_has_trade=True, partner_has_trade=True,
        want_in_dispute=in_dispute(CFG, during, vs_take, "V", reclaim_holder="A"))) == "territory_in_dispute"
