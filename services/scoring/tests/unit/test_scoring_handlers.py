"""Scoring's use cases without servers: the handlers on the in-memory store (through bootstrap) and a recording
publisher, on a six-territory board. Each test names its ruling and checks exact figures.

The board: a line a - b - c - d - e (each adjacent to the next, R22) and f alone.

    territory  borders_water  land m²  residents
    a          yes            10       100
    b          no             20        50
    c          no             30        10
    d          no              5       500
    e          yes             5         5
    f          no              1         1
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import networkx as nx
from scoring_world import Game

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import AdjustScore, FinalStanding, ScoreAdjusted
from turf_common.rules.scoring import TerritoryStats
from turf_scoring import bootstrap
from turf_scoring.testing import MemoryScoreStore

AT = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
GRAPH = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")])
GRAPH.add_node("f")
STATS = {"a": TerritoryStats(True, 10, 100), "b": TerritoryStats(False, 20, 50), "c": TerritoryStats(False, 30, 10),
         "d": TerritoryStats(False, 5, 500), "e": TerritoryStats(True, 5, 5), "f": TerritoryStats(False, 1, 1)}


def game() -> Game:
    """The handlers over a fresh store on the six-territory board, the clock at :data:`AT`."""
    return Game(GRAPH, STATS, AT)


def fig(pid: str, base: int, outposts: int, bonuses: int, total: int, territories: int) -> dict[str, Any]:
    return {"schema_version": 1, "player_id": pid, "base": base, "outposts": outposts, "bonuses": bonuses,
            "total": total, "territories": territories}


async def test_r23_base_is_the_largest_connected_cluster_and_the_rest_are_outposts() -> None:
    g = game()
    for tid in ("a", "b", "d", "f"):   # clusters {a, b}, {d}, {f}
        upd = await g.claim(tid, "ann")
    assert upd["changes"] == [fig("ann", 2, 2, 9, 11, 4)]
    assert upd["players"] == ["ann"] and upd["territory_id"] == "f"
    upd = await g.claim("c", "ann")   # c joins the line a-b-c-d: one cluster of 4, f an outpost
    assert upd["changes"] == [fig("ann", 4, 1, 9, 13, 5)]


async def test_r23_r24_a_steal_moves_points_from_one_cluster_to_another() -> None:
    g = game()
    for tid in ("a", "b", "c"):
        await g.claim(tid, "ann")
    for tid in ("e", "d"):
        await g.claim(tid, "ben")
    lb = await g.h.leaderboard()
    # R24: Lord of the Seas tied 1-1 (both +3), Hippo ann 60 m² vs 10, Butterfly ben 505 residents vs 160
    assert [(s.player_id, s.base, s.bonuses, s.total) for s in lb.standings] == [("ann", 3, 6, 9), ("ben", 2, 6, 8)]
    upd = await g.claim("c", "ben")   # ben takes c from ann
    assert upd["players"] == ["ann", "ben"] and upd["territory_id"] == "c"
    # ann: {a, b}; ben: {c, d, e} and now the larger land area (40 m² vs 30)
    assert upd["changes"] == [fig("ann", 2, 0, 3, 5, 2), fig("ben", 3, 0, 9, 12, 3)]
    assert {q: v["leaders"] for q, v in upd["side_quests"].items()} == {
        "lord_of_the_seas": ["ann", "ben"], "hungry_hungry_hippo": ["ben"], "social_butterfly": ["ben"]}


async def test_r24_a_player_whose_bonus_moved_is_in_the_delta_though_the_change_did_not_touch_them() -> None:
    g = game()
    first = await g.claim("a", "ann")   # ann leads all three quests alone
    assert first["changes"] == [fig("ann", 1, 0, 9, 10, 1)]
    second = await g.claim("d", "ben")   # ben: more residents (500 vs 100); no water, less land
    assert second["players"] == ["ben"]
    assert second["changes"] == [fig("ann", 1, 0, 6, 7, 1), fig("ben", 1, 0, 3, 4, 1)]


async def test_r24_a_quest_whose_top_value_is_zero_has_no_leader() -> None:
    g = game()
    upd = await g.claim("d", "ben")   # no territory on the water is owned
    assert upd["side_quests"]["lord_of_the_seas"] == {"schema_version": 1, "leaders": [], "value": 0.0}
    assert upd["changes"] == [fig("ben", 1, 0, 6, 7, 1)]


async def test_a_redelivered_change_changes_nothing_and_publishes_the_same_delta() -> None:
    g = game()
    await g.claim("a", "ann")
    ev = g.change("d", "ben")
    assert await g.h.apply(ev) is True
    first = g.bus.raw[-1]
    stored = (dict(g.store.own), dict(g.store.score), dict(g.store.pv), dict(g.store.bonus))
    assert await g.h.apply(ev) is False   # the redelivery
    again = g.bus.raw[-1]
    assert (dict(g.store.own), dict(g.store.score), dict(g.store.pv), dict(g.store.bonus)) == stored
    assert again[2] == first[2] == "score:" + ev.event_id   # the stream drops it as a duplicate
    assert again[1]["changes"] == first[1]["changes"] and again[1]["side_quests"] == first[1]["side_quests"]
    assert {c["player_id"] for c in again[1]["changes"]} == {"ann", "ben"}   # ann's bonus moved with it


async def test_a_change_older_than_the_stored_version_changes_nothing() -> None:
    g = game()
    late = g.change("c", "cat")        # version 1, delivered after version 2
    await g.claim("c", "ann")          # version 2
    assert await g.h.apply(late) is False
    assert g.store.own == {"c": "ann"} and g.store.score["ann"]["territories"] == 1
    assert (await g.h.leaderboard()).standings[0].player_id == "ann"


async def test_r25_standings_share_a_rank_on_equal_totals() -> None:
    g = game()
    await g.claim("b", "ann")   # Hippo: 20 m² (+3)
    await g.claim("c", "ben")   # ... until ben's 30 m² (+3 to ben instead)
    await g.claim("f", "cat")
    await g.claim("a", "dan")   # water (+3) and 100 residents (+3)
    # totals: dan 1 + 6 = 7, ben 1 + 3 = 4, ann 1 + 0 = 1, cat 1 + 0 = 1
    lb = await g.h.leaderboard()
    assert [(s.rank, s.player_id, s.total) for s in lb.standings] == [(1, "dan", 7), (2, "ben", 4), (3, "ann", 1),
                                                                     (3, "cat", 1)]


async def test_r28_an_adjustment_counts_in_the_total_once_per_command() -> None:
    g = game()
    await g.claim("a", "ann")
    cmd = AdjustScore(command_id="c1", player_id="ann", points=7)
    first = await g.h.adjust(cmd)
    assert first == ScoreAdjusted(command_id="c1", player_id="ann", before=0, after=7)
    upd = g.bus.raw[-1]
    assert upd[2] == "score:adj:c1" and upd[1]["changes"] == [fig("ann", 1, 0, 9, 17, 1)]
    assert await g.h.adjust(cmd) == first   # a retry: the first reply, not a second +7
    again = g.bus.raw[-1]                  # and the same delta again, in case the first publish was lost
    assert again[2] == upd[2] and again[1]["changes"] == upd[1]["changes"]
    assert (await g.h.leaderboard()).standings[0].total == 17


async def test_r28_an_adjustment_of_a_player_never_scored_creates_their_standing() -> None:
    g = game()
    assert await g.h.adjust(AdjustScore(command_id="c2", player_id="eve", points=-2)) == ScoreAdjusted(
        command_id="c2", player_id="eve", before=0, after=-2)
    assert g.bus.last(subjects.SCORE_UPDATED)["changes"] == [fig("eve", 0, 0, 0, -2, 0)]


async def test_r28_a_disqualified_player_leaves_the_standings() -> None:
    g = game()
    await g.claim("a", "ann")
    await g.claim("d", "ben")
    await g.h.on_event(PlayerDisqualified(occurred_at=AT, player_id="ben", at=AT))
    upd = g.bus.last(subjects.SCORE_UPDATED)
    assert upd["removed"] == ["ben"] and upd["players"] == ["ben"] and upd["changes"] == []
    assert [s.player_id for s in (await g.h.leaderboard()).standings] == ["ann"]


def season_ended() -> SeasonEnded:
    return SeasonEnded(occurred_at=AT, at=AT, game_day=date(2026, 10, 24), game_day_number=20, week=3,
                       season_id="2026")


async def test_r25_r26_the_close_publishes_final_places_and_prizes_and_a_later_correction_republishes_them() -> None:
    g = game()
    assert await g.h.results() == Refusal(reason="season_not_closed",
                                          message="The season has not closed yet; no final results.")
    await g.claim("a", "ann")   # 1 + 9 = 10
    await g.claim("d", "ben")   # ben takes Social Butterfly: ann 1 + 6 = 7, ben 1 + 3 = 4
    await g.claim("f", "cat")   # 1
    end = season_ended()
    await g.h.on_event(end)
    subject, final, msg_id = g.bus.raw[-1]
    assert (subject, msg_id) == (subjects.SEASON_FINAL_RESULTS, "final:" + end.event_id)
    want = [FinalStanding(place=1, player_id="ann", base=1, bonuses=6, total=7, prize="50.00"),
            FinalStanding(place=2, player_id="ben", base=1, bonuses=3, total=4, prize="25.00"),
            FinalStanding(place=3, player_id="cat", base=1, bonuses=0, total=1, prize="25.00")]
    assert [FinalStanding.model_validate(s) for s in final["results"]["standings"]] == want
    results = await g.h.results()
    assert not isinstance(results, Refusal) and results.standings == want
    # R28 after the close: ben +3 ties ann for first (R26: $25 each), cat is third
    await g.h.adjust(AdjustScore(command_id="late", player_id="ben", points=3))
    subject, final, msg_id = g.bus.raw[-1]
    assert (subject, msg_id) == (subjects.SEASON_FINAL_RESULTS, "final:adj:late")
    assert [(s["place"], s["player_id"], s["total"], s["prize"]) for s in final["results"]["standings"]] == [
        (1, "ann", 7, "25.00"), (1, "ben", 7, "25.00"), (3, "cat", 1, "25.00")]


async def test_the_consumer_dispatches_each_event_by_its_type() -> None:
    g = game()
    await g.h.on_event(g.change("a", "ann"))
    assert g.store.own == {"a": "ann"}
    await g.h.on_event(season_ended())
    assert g.store.closed == AT and g.bus.raw[-1][0] == subjects.SEASON_FINAL_RESULTS


async def test_r23_r24_a_batch_of_changes_makes_one_delta_equal_to_applying_them_one_by_one() -> None:
    """Consecutive territory changes of one batch: one rescore and one score.updated naming every territory, with
    the same standings and side quests as the last delta of the same changes applied one at a time."""
    one, many = game(), game()
    script = [("a", "ann"), ("b", "ann"), ("e", "ben"), ("d", "ben"), ("c", "ben"), ("c", "ann")]
    for tid, pid in script:
        await one.claim(tid, pid)
    evs = [many.change(tid, pid) for tid, pid in script]
    await many.h.on_events(evs)
    deltas = [p for s, p, _ in many.bus.raw if s == subjects.SCORE_UPDATED]
    assert len(deltas) == 1
    upd, ref = deltas[0], one.bus.last(subjects.SCORE_UPDATED)
    assert upd["territory_ids"] == ["a", "b", "e", "d", "c", "c"] and upd["territory_id"] == "c"
    assert upd["players"] == ["ann", "ben"]
    assert upd["side_quests"] == ref["side_quests"]
    assert (await many.h.leaderboard()) == (await one.h.leaderboard())
    # ann: {a, b, c} a cluster of 3; ben: {d, e} (c taken back): both in the delta, absolute figures
    assert [(c["player_id"], c["base"], c["territories"]) for c in upd["changes"]] == [("ann", 3, 3), ("ben", 2, 2)]
    # the batch again (a redelivery): nothing new, the same figures
    assert await many.h.apply_all(evs) == 0
    assert many.bus.last(subjects.SCORE_UPDATED)["changes"] == upd["changes"]


class CountingStore:
    """A store in front of the memory store, recording the handler's calls to it (each one round trip in Redis)."""

    def __init__(self, inner: MemoryScoreStore) -> None:
        self.inner = inner
        self.calls: list[str] = []
        self.ownership = self.standings = self.organizer = self.season = self   # its roles, counted too

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return await attr(*args, **kwargs)
        return counted


async def test_a_change_costs_two_store_round_trips_and_three_when_a_bonus_moves_elsewhere() -> None:
    g = game()
    store = CountingStore(g.store)
    g.h = bootstrap.handlers(store, g.bus, GRAPH, STATS)  # type: ignore[arg-type]
    await g.claim("a", "ann")
    assert store.calls == ["apply_and_read", "write_scores_and_swap_bonuses"]
    store.calls = []
    upd = await g.claim("d", "ben")   # R24: ann loses Social Butterfly to ben; her standing is read, not computed
    assert store.calls == ["apply_and_read", "write_scores_and_swap_bonuses", "standings_of"]
    assert upd["changes"] == [fig("ann", 1, 0, 6, 7, 1), fig("ben", 1, 0, 3, 4, 1)]


async def test_r23_a_score_gone_stale_before_its_write_is_read_and_computed_again() -> None:
    """Another replica moves ben's set between this one's read and its write: the write is refused for ben and his
    score is computed from the set as it is now (R23), in the store and in the delta."""
    g = game()
    await g.claim("b", "ben")
    ev = g.change("c", "ben")
    real = g.store.write_scores_and_swap_bonuses

    async def racing(scores: Any, bonus: Any, source_id: str) -> Any:
        g.store._apply("d", 1, "ben")   # the other replica's change, applied meanwhile
        return await real(scores, bonus, source_id)

    g.store.write_scores_and_swap_bonuses = racing  # type: ignore[method-assign]
    assert await g.h.apply(ev) is True
    assert g.store.score["ben"] == {"base": 3, "outposts": 0, "territories": 3}
    # R24 as read before the race: ben alone, no water; Hippo and Butterfly are his (+6)
    assert g.bus.last(subjects.SCORE_UPDATED)["changes"] == [fig("ben", 3, 0, 6, 9, 3)]
