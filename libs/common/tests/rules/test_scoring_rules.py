"""R23–R25 as pure rules."""

from __future__ import annotations

import networkx as nx

from turf_common.rules.scoring import (
    TerritoryStats,
    bonuses,
    competition_ranks,
    player_score,
    side_quests,
)

# a path a-b-c-d and an island e
G = nx.Graph([("a", "b"), ("b", "c"), ("c", "d")])
G.add_node("e")


def test_r23_base_is_the_largest_cluster_rest_are_outposts() -> None:
    s = player_score(G, "P", {"a", "b", "d", "e"})
    assert (s.base, s.outposts, s.territories) == (2, 2, 4)


def test_r23_steal_in_the_middle_splits_a_cluster() -> None:
    assert player_score(G, "P", {"a", "b", "c", "d"}).base == 4
    assert player_score(G, "P", {"a", "b", "d"}).base == 2


def test_r23_player_owning_nothing_scores_zero() -> None:
    s = player_score(G, "P", set())
    assert (s.base, s.outposts) == (0, 0)


STATS = {"a": TerritoryStats(True, 10.0, 100), "b": TerritoryStats(False, 30.0, 5),
         "c": TerritoryStats(True, 5.0, 100), "d": TerritoryStats(False, 1.0, 1)}


def test_r24_side_quests_ties_share_and_zero_has_no_winner() -> None:
    q = side_quests({"P": {"a"}, "Q": {"c", "d"}, "R": {"b"}}, STATS)
    assert q["lord_of_the_seas"].leaders == ["P", "Q"] and q["lord_of_the_seas"].value == 1
    assert q["hungry_hungry_hippo"].leaders == ["R"] and q["hungry_hungry_hippo"].value == 30.0
    assert q["social_butterfly"].leaders == ["Q"] and q["social_butterfly"].value == 101
    assert bonuses(q) == {"P": 3, "Q": 6, "R": 3}
    q = side_quests({"R": {"b"}, "S": {"d"}}, STATS)
    assert q["lord_of_the_seas"].leaders == [] and q["lord_of_the_seas"].value == 0


def test_r25_equal_totals_share_a_rank_1_2_2_4() -> None:
    assert competition_ranks({"w": 9, "x": 5, "y": 5, "z": 1}) == [(1, "w", 9), (2, "x", 5), (2, "y", 5), (4, "z", 1)]
