"""Team Turf as pure rules (docs/rules/team-turf.md): each test names its ruling (T1…T22)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import networkx as nx
import pytest
from modes_support import COUNTY, FIELD, GRAPH, ScriptedSource, order, refused

from turf_common.board import load_board
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource
from turf_common.rules.teamturf import (
    Field,
    GameEnded,
    Order,
    TeamTurfConfig,
    TeamTurfState,
    TurnResolved,
    controller,
    end_by_organizer,
    give_order,
    join,
    leave,
    new_game,
    next_turn_at,
    place,
    resolve_turn,
    total_troops,
    towns_of,
    withdraw_order,
)

CFG = TeamTurfConfig()


def game(board: dict[str, dict[str, int]] | None = None, teams: dict[str, str] | None = None) -> TeamTurfState:
    """Red (ann, amy) at home a, blue (bob) at home e; ``board`` replaces the troops (reserves emptied)."""
    s = new_game("g1", FIELD, ["red", "blue"], ScriptedSource(), homes={"red": "a", "blue": "e"})
    for p, t in (teams or {"ann": "red", "amy": "red", "bob": "blue"}).items():
        s = join(s, p, t)
    if board is not None:
        s = replace(s, board=board, reserve={p: 0 for p in s.reserve}, reserved_homes={})
    return s





def turn_event(events: list[TurnResolved | GameEnded]) -> TurnResolved:
    assert isinstance(events[0], TurnResolved)
    return events[0]


def test_t1_field_is_connected_default_the_largest_part_of_the_board() -> None:
    board = load_board()
    county = {t: f"{v.county}, {v.state}" for t, v in board.territories.items()}
    fld = Field.from_graph(board.graph, county)
    assert len(fld.towns) == max(len(c) for c in nx.connected_components(board.graph))
    assert all(fld.adjacent[t] == set(board.neighbours(t)) & fld.towns for t in list(fld.towns)[:50])
    refused("field_not_connected", Field.from_graph, GRAPH, COUNTY, ["a", "c"])
    refused("unknown_town", Field.from_graph, GRAPH, COUNTY, ["a", "zz"])


def test_t2_homes_drawn_from_the_seed_distinct_and_reserved() -> None:
    a = new_game("g", FIELD, ["red", "blue", "green"], SeededSource("s", "g"))
    b = new_game("g", FIELD, ["red", "blue", "green"], SeededSource("s", "g"))
    assert a.homes == b.homes and len(set(a.homes.values())) == 3
    s = game()
    assert controller(s, "a") == "red" and controller(s, "e") == "blue" and controller(s, "c") is None
    s = place(s, FIELD, "ann", "a", 1)
    s = replace(s, board={**s.board, "d": {"ann": 1}})
    refused("not_hostile", order, s, "2", "ann", "attack", "d", "e", 1)  # blue's untouched home
    refused("unknown_team", new_game, "g", FIELD, ["red"], SeededSource("s", "g"))


def test_t2_t15_a_home_nobody_fielded_is_released_at_the_first_turn() -> None:
    s = place(game(), FIELD, "ann", "a", 1)  # blue joined (bob) but placed nothing
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = turn_event(ev)
    assert e.eliminated == ("blue",) and e.lost == 2 and s.reserved_homes == {}
    assert e.bonuses["red"]["elimination"] == 0  # nobody took it from blue
    assert controller(s, "e") is None  # an ordinary empty town now, open to red's attacks


def test_t3_join_once_with_two_troops_late_joiners_too() -> None:
    s = game()
    assert s.reserve["ann"] == CFG.start_troops == 2
    refused("already_joined", join, s, "ann", "blue")
    refused("unknown_team", join, s, "zed", "green")
    s = place(place(s, FIELD, "ann", "a", 2), FIELD, "bob", "e", 2)
    s, _ = resolve_turn(s, FIELD, ScriptedSource())
    late = join(s, "zoe", "blue")
    assert late.reserve["zoe"] == 2 and late.team_of["zoe"] == "blue"


def test_t4_leaving_loses_the_reserve_troops_stay_orders_withdrawn() -> None:
    s = game({"a": {"ann": 2}, "b": {"amy": 1}, "e": {"bob": 1}})
    s = replace(s, reserve={"ann": 3, "amy": 0, "bob": 0})
    s = order(s, "1", "ann", "move", "a", "b", 1)
    s, lost = leave(s, "ann")
    assert lost == 3 and s.reserve["ann"] == 0 and s.orders == () and s.board["a"] == {"ann": 2}
    assert controller(s, "a") == "red"
    refused("unknown_player", place, s, FIELD, "ann", "a", 1)
    after, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert "ann" not in turn_event(ev).reinforcements and after.board["a"] == {"ann": 2}
    assert turn_event(ev).bonuses["red"]["participation"] == 1  # amy only


def test_t5_t6_placing_at_once_in_own_towns_only() -> None:
    s = place(game(), FIELD, "ann", "a", 2)
    assert s.board["a"] == {"ann": 2} and s.reserve["ann"] == 0 and "red" not in s.reserved_homes
    refused("not_enough_troops", place, s, FIELD, "amy", "a", 3)
    refused("not_your_town", place, s, FIELD, "amy", "b", 1)
    refused("not_your_town", place, s, FIELD, "bob", "a", 1)
    refused("unknown_town", place, s, FIELD, "amy", "zz", 1)


def test_t7_orders_checked_when_given_nothing_changes_on_refusal() -> None:
    s = game({"a": {"ann": 2}, "b": {"amy": 1}, "c": {"bob": 2}, "e": {"bob": 1}})
    refused("not_neighbour", order, s, "1", "ann", "attack", "a", "c", 1)
    refused("not_friendly", order, s, "1", "amy", "move", "b", "c", 1)
    refused("not_hostile", order, s, "1", "ann", "attack", "a", "b", 1)
    refused("not_enough_troops", order, s, "1", "ann", "move", "a", "b", 3)
    refused("not_enough_troops", order, s, "1", "amy", "attack", "b", "c", 0)
    s1 = order(s, "1", "ann", "move", "a", "b", 1)
    refused("not_enough_troops", order, s1, "2", "ann", "move", "a", "b", 2)  # 1 + 2 > 2 in a
    refused("turn_closed", give_order, s1, FIELD, Order("3", "amy", "attack", "b", "c", 1), s1.turn - 1)
    assert withdraw_order(s1, "ann", "1").orders == () and s1.orders != ()
    done, _ = resolve_turn(s1, FIELD, ScriptedSource())
    refused("turn_closed", give_order, done, FIELD, Order("4", "amy", "attack", "b", "c", 1), s1.turn)


def test_t8_t10_t13_attackers_leave_their_town_a_vacated_town_is_taken_without_battle_or_conquest() -> None:
    s = game({"b": {"amy": 1}, "c": {"bob": 1}, "e": {"bob": 1}})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s = give_order(s, FIELD, Order("2", "bob", "attack", "c", "b", 1), s.turn)
    s, ev = resolve_turn(s, FIELD, ScriptedSource({"turn|1|deck|1": 0}))
    e = turn_event(ev)
    # both towns were vacated by their attackers: each troop walks into the other's town, no battle, no conquest
    assert e.battles == 0 and s.board == {"b": {"bob": 1}, "c": {"amy": 1}, "e": {"bob": 1}}
    assert e.conquests == {} and e.bonuses["red"]["conquest"] == 0


def test_t10_moves_first_then_the_deck_troop_by_troop_exact() -> None:
    s = game({"a": {"ann": 1}, "b": {"amy": 3}, "c": {"bob": 2}, "e": {"bob": 1}})
    s = order(s, "1", "ann", "move", "a", "b", 1)          # arrives in b before the attacks
    s = order(s, "2", "amy", "attack", "b", "c", 3)
    # deck of 3 cards; battle 0: attacker wins, battle 1: defender wins, battle 2: attacker wins,
    # battle 3: the card that won first comes back and meets an empty town: moves in
    script = {"turn|1|battle|1|odds": 60}
    s, ev = resolve_turn(s, FIELD, ScriptedSource(script))
    e = turn_event(ev)
    assert e.moves == 1 and e.cards == 3 and e.battles == 3 and e.killed == 3
    assert s.board["b"] == {"ann": 1} and s.board["c"] == {"amy": 2}  # 3 attackers, 1 killed, 2 in c
    assert e.conquests == {"red": ("c",)}


def test_t10_odds_45_55_over_many_seeded_battles() -> None:
    wins = 0
    n = 2000
    for i in range(n):
        s = game({"b": {"amy": 1}, "c": {"bob": 1}, "e": {"bob": 1}})
        s = order(s, "1", "amy", "attack", "b", "c", 1)
        s, _ = resolve_turn(s, FIELD, SeededSource(f"odds-{i}", "g1"))
        wins += controller(s, "c") == "red"
    assert abs(wins / n - 0.45) < 0.045, wins  # about 4 sigma


def test_t10_a_random_defender_is_drawn_from_all_the_defending_troops() -> None:
    s = game({"b": {"amy": 1}, "c": {"bob": 1, "bea": 3}, "e": {"bob": 1}}, teams={"amy": "red", "bob": "blue",
                                                                                "bea": "blue"})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s, _ = resolve_turn(s, FIELD, ScriptedSource({"turn|1|battle|0|defender": 0, "turn|1|battle|0|odds": 99}))
    assert s.board["c"] == {"bob": 1, "bea": 3}  # defender won: the attacker died
    s2 = game({"b": {"amy": 1}, "c": {"bob": 1, "bea": 3}, "e": {"bob": 1}},
              teams={"amy": "red", "bob": "blue", "bea": "blue"})
    s2 = order(s2, "1", "amy", "attack", "b", "c", 1)
    s2, _ = resolve_turn(s2, FIELD, ScriptedSource({"turn|1|battle|0|defender": 1, "turn|1|battle|1|odds": 99}))
    assert s2.board["c"] == {"bob": 1, "bea": 2}  # draw 1 of 4 in sorted order (bea, bea, bea, bob) is bea


def test_t11_t13_two_teams_on_an_empty_town_is_a_conquest_for_the_holder() -> None:
    teams = {"ann": "red", "bob": "blue"}
    s = game({"b": {"ann": 1}, "d": {"bob": 2}, "e": {"bob": 1}}, teams=teams)
    s = order(s, "1", "ann", "attack", "b", "c", 1)
    s = order(s, "2", "bob", "attack", "d", "c", 2)
    # the scripted shuffle turns (ann, bob, bob) into (bob, bob, ann): blue walks in twice, then ann wins two battles
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = turn_event(ev)
    assert e.battles == 2 and s.board["c"] == {"ann": 1}
    assert e.conquests == {"red": ("c",)}  # c was empty, but two teams attacked it


def test_t12_t13_t14_reinforcements_participation_conquest_territory() -> None:
    s = game({"a": {"ann": 1}, "b": {"amy": 1}, "c": {"bob": 1}, "e": {"bob": 1}})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    before = total_troops(s)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())  # attacker wins, then moves in
    e = turn_event(ev)
    assert e.conquests == {"red": ("c",)}
    assert e.bonuses["red"]["participation"] == 2 and e.bonuses["red"]["conquest"] == 2
    assert e.bonuses["red"]["territory"] == 4 * 2  # a and c (b was left by its attacker)
    assert e.bonuses["blue"] == {"participation": 1, "conquest": 0, "territory": 4, "elimination": 0, "county": 0}
    assert sum(e.reinforcements[p] for p in ("ann", "amy")) == 2 + 2 + 8
    assert total_troops(s) == before - e.killed - e.lost + sum(e.reinforcements.values())  # T19


def test_t13_one_conquest_troop_per_turn_however_many_towns() -> None:
    s = game({"b": {"amy": 2}, "d": {"ann": 2}, "c": {"bob": 1}, "f": {"bob": 1}, "e": {"bob": 1}})
    s = order(s, "1", "ann", "attack", "d", "e", 1)
    s = order(s, "2", "amy", "attack", "b", "c", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = turn_event(ev)
    assert sorted(e.conquests["red"]) == ["c", "e"] and e.bonuses["red"]["conquest"] == 2  # 1 per player


def test_t15_t16_elimination_bonus_and_lost_reserves() -> None:
    s = game({"b": {"amy": 2}, "c": {"bob": 1}}, teams={"amy": "red", "bob": "blue", "bea": "blue"})
    s = replace(s, reserve={"amy": 0, "bob": 4, "bea": 1})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = turn_event(ev)
    assert e.eliminated == ("blue",) and "blue" in s.eliminated and e.lost == 5
    assert e.bonuses["red"]["elimination"] == 2 * 2 and "blue" not in e.bonuses
    assert s.reserve["bob"] == 0 and s.reserve["bea"] == 0
    refused("team_eliminated", join, s, "zed", "blue")


def test_t15_a_team_that_empties_itself_gives_no_elimination_bonus() -> None:
    s = game({"b": {"amy": 1}, "d": {"bob": 1}}, teams={"amy": "red", "bob": "blue"})
    s = order(s, "1", "amy", "attack", "b", "c", 1)  # amy leaves b empty ...
    s = order(s, "2", "bob", "attack", "d", "c", 1)  # ... bob walks into empty c first (scripted shuffle)
    s, ev = resolve_turn(s, FIELD, ScriptedSource({"turn|1|battle|0|odds": 99}))  # and kills amy there
    e = turn_event(ev)
    assert s.board == {"c": {"bob": 1}} and e.killed == 1
    assert e.eliminated == ("red",) and e.conquests == {"blue": ("c",)}  # T11: two teams on an empty town
    assert e.bonuses["blue"]["elimination"] == 0  # c was nobody's when the attacks began


def test_t17_county_bonus_escalates_weekly() -> None:
    s = game({"a": {"ann": 1}, "b": {"amy": 1}, "e": {"bob": 1}})
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert turn_event(ev).bonuses["red"]["county"] == 2 * 2 * 1  # county X: 2 towns, turn 1
    s = replace(s, turn=8, reserve={p: 0 for p in s.reserve})
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert turn_event(ev).bonuses["red"]["county"] == 2 * 2 * 2  # turn 8: second week
    assert turn_event(ev).bonuses["blue"]["county"] == 0  # blue holds 1 of Y's 4 towns


def test_t9_turn_instant_is_2359_new_york() -> None:
    assert next_turn_at(datetime(2026, 12, 4, 12, 0, tzinfo=UTC)) == datetime(2026, 12, 5, 4, 59, tzinfo=UTC)
    assert next_turn_at(datetime(2026, 12, 5, 4, 59, tzinfo=UTC)) == datetime(2026, 12, 6, 4, 59, tzinfo=UTC)
    assert next_turn_at(datetime(2026, 7, 1, 12, 0, tzinfo=UTC)) == datetime(2026, 7, 2, 3, 59, tzinfo=UTC)  # EDT


def test_t21_holding_every_town_wins() -> None:
    s = game({"a": {"ann": 1}, "b": {"amy": 1}, "c": {"amy": 1}, "d": {"amy": 2}, "f": {"ann": 1},
              "e": {"bob": 1}})
    s = order(s, "1", "amy", "attack", "d", "e", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert s.finished and s.winners == ("red",) and ev[-1] == GameEnded("g1", ("red",), by_organizer=False)
    refused("game_over", resolve_turn, s, FIELD, ScriptedSource())


def test_t22_organizer_end_most_towns_then_troops_then_draw() -> None:
    s = game({"a": {"ann": 1}, "b": {"amy": 1}, "e": {"bob": 5}})
    assert end_by_organizer(s)[0].winners == ("red",)
    s = game({"a": {"ann": 1}, "d": {"bob": 1}, "e": {"bob": 5}})
    assert end_by_organizer(s)[1] == GameEnded("g1", ("blue",), by_organizer=True)
    s = game({"a": {"ann": 2}, "e": {"bob": 2}})
    ended, _ = end_by_organizer(s)
    assert ended.winners == ("red", "blue") and ended.finished
    refused("game_over", end_by_organizer, ended)


@pytest.mark.parametrize("seed", ["t19-a", "t19-b", "t19-c"])
def test_t19_troops_conserved_over_many_random_turns(seed: str) -> None:
    src = SeededSource(seed, "g1")
    s = game()
    for p in ("ann", "amy"):
        s = place(s, FIELD, p, "a", 2)
    s = place(s, FIELD, "bob", "e", 2)
    for t in range(1, 15):
        if s.finished:
            break
        for p in sorted(s.active):
            if s.team_of[p] in s.eliminated:
                continue
            team = s.team_of[p]
            mine = sorted(towns_of(s, team))
            if s.reserve.get(p, 0):
                s = place(s, FIELD, p, mine[src.below(f"b|{t}|{p}|place", len(mine))], s.reserve[p])
            for k, town in enumerate(mine):
                n = s.board[town].get(p, 0)
                targets = sorted(FIELD.adjacent[town])
                if n:
                    dst = targets[src.below(f"b|{t}|{p}|{k}", len(targets))]
                    kind = "move" if controller(s, dst) == team else "attack"
                    try:
                        s = order(s, f"{t}-{p}-{k}", p, kind, town, dst, n)
                    except ModeRefused as e:
                        assert e.code == "not_hostile"  # a reserved home
        before = total_troops(s)
        s, ev = resolve_turn(s, FIELD, src)
        e = turn_event(ev)
        assert total_troops(s) == before - e.killed - e.lost + sum(e.reinforcements.values())
        assert all(len({s.team_of[p] for p in troops}) == 1 for troops in s.board.values())  # T5


def test_t18_bonuses_drawn_in_a_fixed_order() -> None:
    src = ScriptedSource()
    s = game({"a": {"ann": 1}, "b": {"amy": 1}, "c": {"bob": 1}})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    _, ev = resolve_turn(s, FIELD, src)  # red takes c, blue's last town: territory 8, elimination 2, county 0
    draws = [tuple(x.split("|")[3:5]) for x in src.drawn if "|bonus|" in x]
    assert draws == [("red", "territory")] * 8 + [("red", "elimination")] * 2
    assert turn_event(ev).eliminated == ("blue",)


def test_t20_the_seed_and_the_orders_replay_the_turn_exactly() -> None:
    def play(seed: str) -> tuple[TeamTurfState, list[TurnResolved | GameEnded]]:
        s = game({"a": {"ann": 3}, "b": {"amy": 4}, "c": {"bob": 4}, "d": {"bob": 2}, "e": {"bob": 1}})
        s = order(s, "1", "amy", "attack", "b", "c", 4)
        s = order(s, "2", "bob", "move", "d", "c", 2)
        return resolve_turn(s, FIELD, SeededSource(seed, "g1"))

    assert play("t20") == play("t20")
    outcomes = {tuple(sorted(play(f"t20-{i}")[0].board.get("c", {}).items())) for i in range(12)}
    assert len(outcomes) > 1  # the seed decides: other seeds, other battles


def test_t21_every_team_out_is_a_draw_with_no_winner() -> None:
    s = game({"b": {"amy": 1}, "d": {"bob": 1}}, teams={"amy": "red", "bob": "blue"})
    s = order(s, "1", "amy", "attack", "b", "a", 1)
    s = order(s, "2", "bob", "attack", "d", "e", 1)
    s = replace(s, board={"b": {"amy": 1}, "d": {"bob": 1}, "a": {"zed": 1}, "e": {"zed": 1}},
                team_of={**s.team_of, "zed": "green"}, teams=("red", "blue", "green"), eliminated=frozenset())
    s, ev = resolve_turn(s, FIELD, ScriptedSource({"turn|1|battle|0|odds": 99, "turn|1|battle|1|odds": 99}))
    assert turn_event(ev).eliminated == ("red", "blue") and not s.finished  # green (no players) still holds a, e
    s = replace(s, board={})
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert s.finished and s.winners == () and ev[-1] == GameEnded("g1", (), by_organizer=False)


def test_t2_a_field_with_fewer_towns_than_teams_is_refused_with_its_reason() -> None:
    small = Field.from_graph(GRAPH, COUNTY, ["a", "b"])
    with pytest.raises(ModeRefused) as e:
        new_game("g", small, ["red", "blue", "green"], SeededSource("s", "g"))
    assert e.value.code == "field_too_small" and "2 town(s) for 3 teams" in e.value.message
    assert len(new_game("g", small, ["red", "blue"], SeededSource("s", "g")).homes) == 2   # exactly enough


def test_t7_an_order_for_a_future_turn_is_refused_as_not_open_yet() -> None:
    s = game({"a": {"ann": 2}, "e": {"bob": 1}})
    with pytest.raises(ModeRefused) as e:
        give_order(s, FIELD, Order("1", "ann", "attack", "a", "b", 1), s.turn + 1)
    assert e.value.code == "turn_not_open" and "not open yet" in e.value.message
    assert "already" not in e.value.message


def test_t7_withdrawing_an_unknown_a_rivals_or_a_teammates_order_is_refused() -> None:
    s = order(game({"a": {"ann": 2, "amy": 1}, "e": {"bob": 1}}), "1", "ann", "attack", "a", "b", 1)
    for who, oid in (("ann", "ghost"), ("bob", "1"), ("amy", "1")):
        refused("unknown_order", withdraw_order, s, who, oid)
    assert withdraw_order(s, "ann", "1").orders == ()
    assert withdraw_order(s, "ann", "ghost", strict=False) == s   # an old log's no-op withdrawal replays as one
