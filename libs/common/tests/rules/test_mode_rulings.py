"""One test per mode ruling that had none of its own (T8, T15, T16, T18, T21; K8, K10–K14, K17).

Pure rules only (docs/rules/team-turf.md, docs/rules/king-of-the-hill.md); each test names its ruling and checks
the exact outcome the ruling states, with dice, shuffles and battles scripted by label (modes_support).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from modes_support import FIELD, ScriptedSource, order, refused

from turf_common.rules import hill
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource
from turf_common.rules.teamturf import (
    GameEnded,
    Order,
    TeamTurfState,
    TurnResolved,
    give_order,
    join,
    leave,
    new_game,
    place,
    resolve_turn,
    withdraw_order,
)

T18_ORDER = ("participation", "conquest", "territory", "elimination", "county")  # as the ruling lists them


def turf(board: dict[str, dict[str, int]] | None, players: dict[str, str],
         teams: tuple[str, ...] = ("red", "blue")) -> TeamTurfState:
    """A game of ``teams`` (homes a, e, f in that order) joined by ``players`` (player → team). With ``board``,
    the troops are exactly ``board``, every reserve 0 and no home reserved."""
    homes = dict(zip(teams, ("a", "e", "f"), strict=False))
    s = new_game("g1", FIELD, teams, ScriptedSource(), homes=homes)
    for p, t in players.items():
        s = join(s, p, t)
    if board is not None:
        s = replace(s, board=board, reserve={p: 0 for p in s.reserve}, reserved_homes={})
    return s





def resolved(events: list[TurnResolved | GameEnded]) -> TurnResolved:
    assert isinstance(events[0], TurnResolved)
    return events[0]


# --------------------------------------------------------------------------- Team Turf


def test_t8_a_troop_ordered_to_attack_does_not_defend_its_town() -> None:
    """T8: amy's only troop in b attacks c; bob's attack on b then meets nobody and walks in without a battle."""
    s = turf({"b": {"amy": 1}, "a": {"bob": 2}, "e": {"bob": 1}}, {"amy": "red", "bob": "blue"})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s = order(s, "2", "bob", "attack", "a", "b", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = resolved(ev)
    assert e.battles == 0 and e.killed == 0
    assert s.board["b"] == {"bob": 1} and s.board["c"] == {"amy": 1} and s.board["a"] == {"bob": 1}


def test_t8_troops_with_no_order_stay_and_are_the_only_defenders() -> None:
    """T8: of amy's 2 troops in b, 1 attacks c and 1 has no order; bob's attack fights that one troop only."""
    s = turf({"b": {"amy": 2}, "a": {"bob": 1}, "e": {"bob": 1}}, {"amy": "red", "bob": "blue"})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s = order(s, "2", "bob", "attack", "a", "b", 1)
    # scripted shuffle: bob's card first; battle 0 is won by bob, killing b's one defender; his card then walks in
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    e = resolved(ev)
    assert e.battles == 1 and e.killed == 1  # two defenders would have taken a second battle
    assert s.board["b"] == {"bob": 1} and s.board["c"] == {"amy": 1}


def _three_teams() -> TeamTurfState:
    """Red (amy) in b, green (gus) in e, blue (bob, bea active; bo who left) in c and d, reserves bob 3, bea 1."""
    players = {"amy": "red", "bob": "blue", "bea": "blue", "bo": "blue", "gus": "green"}
    s = turf({"b": {"amy": 2}, "c": {"bob": 1}, "d": {"bea": 1}, "e": {"gus": 2}}, players,
             teams=("red", "blue", "green"))
    s, _ = leave(s, "bo")
    s = replace(s, reserve={**s.reserve, "bob": 3, "bea": 1})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    return order(s, "2", "gus", "attack", "e", "d", 1)


def test_t15_every_team_that_took_a_town_of_the_eliminated_team_gets_two_per_active_player() -> None:
    """T15: red takes c and green takes d, blue's last towns; each gets 2 × blue's 2 active players = 4."""
    src = ScriptedSource()  # every battle won by the attacker
    s, ev = resolve_turn(_three_teams(), FIELD, src)
    e = resolved(ev)
    assert e.eliminated == ("blue",) and e.conquests == {"green": ("d",), "red": ("c",)}
    assert s.board["c"] == {"amy": 1} and s.board["d"] == {"gus": 1}
    assert e.bonuses["red"]["elimination"] == 4 and e.bonuses["green"]["elimination"] == 4  # bo left: not counted
    drawn = [x for x in src.drawn if "|elimination|" in x]
    assert sorted(drawn) == sorted(f"turn|1|bonus|{t}|elimination|{j}" for t in ("red", "green") for j in range(4))


def test_t15_a_team_that_eliminates_itself_gives_nobody_the_bonus() -> None:
    """T15: red's only troop attacks out of b and dies; red holds nothing, blue took none of red's towns: 0."""
    s = turf({"b": {"amy": 1}, "c": {"bob": 1}, "e": {"bob": 1}}, {"amy": "red", "bob": "blue"})
    s = order(s, "1", "amy", "attack", "b", "c", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource({"turn|1|battle|0|odds": 99}))
    e = resolved(ev)
    assert e.eliminated == ("red",) and e.killed == 1 and e.conquests == {}
    assert e.bonuses["blue"]["elimination"] == 0


def test_t16_an_eliminated_team_loses_its_reserves_gets_nothing_and_gives_no_orders() -> None:
    """T16: blue's reserves (bob 3, bea 1) are lost, no reinforcements now or later, every action refused."""
    s, ev = resolve_turn(_three_teams(), FIELD, ScriptedSource())
    e = resolved(ev)
    assert e.eliminated == ("blue",) and e.lost == 4
    assert s.reserve["bob"] == 0 and s.reserve["bea"] == 0
    assert "blue" not in e.bonuses and not {"bob", "bea"} & set(e.reinforcements)
    refused("unknown_player", place, s, FIELD, "bob", "c", 1)
    refused("unknown_player", give_order, s, FIELD, Order("3", "bea", "attack", "b", "c", 1), s.turn)
    refused("unknown_player", withdraw_order, s, "bob", "1")
    s, ev = resolve_turn(s, FIELD, ScriptedSource())  # a later turn: still nothing for blue
    e = resolved(ev)
    assert "blue" not in e.bonuses and not {"bob", "bea"} & set(e.reinforcements)
    assert s.reserve["bob"] == 0 and s.reserve["bea"] == 0


def _t18_game() -> TeamTurfState:
    """Red takes c (blue's only town) from b, keeping county X (a, b); green holds d and e."""
    players = {"ann": "red", "amy": "red", "bob": "blue", "gus": "green"}
    s = turf({"a": {"ann": 1}, "b": {"amy": 2}, "c": {"bob": 1}, "d": {"gus": 1}, "e": {"gus": 1}}, players,
             teams=("red", "blue", "green"))
    return order(s, "1", "amy", "attack", "b", "c", 1)


def test_t18_bonuses_are_distributed_in_the_fixed_order_of_kinds() -> None:
    """T18: participation, conquest, territory, elimination, county, then distributed in that order."""
    src = ScriptedSource()
    _, ev = resolve_turn(_t18_game(), FIELD, src)
    e = resolved(ev)
    assert e.bonuses["red"] == {"participation": 2, "conquest": 2, "territory": 12, "elimination": 2, "county": 4}
    assert e.bonuses["green"] == {"participation": 1, "conquest": 0, "territory": 8, "elimination": 0, "county": 0}
    for team in ("red", "green"):
        kinds = [x.split("|")[4] for x in src.drawn if f"|bonus|{team}|" in x]
        assert kinds == [k for k in T18_ORDER for _ in range(e.bonuses[team][k])
                         if k not in ("participation", "conquest")]  # the two per-player kinds need no draw


def test_t18_the_seed_replays_every_bonus_draw_identically() -> None:
    """T18, T20: the same seed gives the same reinforcements, each troop the draw its own label names."""
    first = resolve_turn(_t18_game(), FIELD, SeededSource("t18", "g1"))
    assert resolve_turn(_t18_game(), FIELD, SeededSource("t18", "g1")) == first
    src = SeededSource("t18", "g1")
    expected: dict[str, int] = {}
    members = {"red": ["amy", "ann"], "blue": ["bob"], "green": ["gus"]}
    for team, bonus in resolved(first[1]).bonuses.items():  # whichever teams this seed left in the game
        players = members[team]
        for p in players:
            expected[p] = (bonus["participation"] + bonus["conquest"]) // len(players)
        for kind in T18_ORDER[2:]:
            for j in range(bonus[kind]):
                winner = src.choice(f"turn|1|bonus|{team}|{kind}|{j}", players)
                expected[winner] += 1
    assert dict(resolved(first[1]).reinforcements) == expected


def test_t21_a_team_controlling_every_field_town_wins_and_the_game_ends() -> None:
    """T21: red holds every town but e; a quiet turn changes nothing, taking e wins the game for red."""
    s = turf({"a": {"ann": 1}, "b": {"ann": 1}, "c": {"ann": 1}, "d": {"ann": 2}, "f": {"ann": 1},
              "e": {"bob": 1}}, {"ann": "red", "bob": "blue"})
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert not s.finished and s.winners == () and len(ev) == 1
    s = order(s, "1", "ann", "attack", "d", "e", 1)
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert resolved(ev).controlled["red"] == len(FIELD.towns) == 6
    assert s.finished and s.winners == ("red",) and ev[-1] == GameEnded("g1", ("red",), by_organizer=False)
    refused("game_over", resolve_turn, s, FIELD, ScriptedSource())


def test_t21_every_team_eliminated_is_a_draw_with_no_winner() -> None:
    """T21 (with T2): nobody fielded a troop, so the first turn leaves every team eliminated: a draw."""
    s = turf(None, {"ann": "red", "bob": "blue"})
    s, ev = resolve_turn(s, FIELD, ScriptedSource())
    assert resolved(ev).eliminated == ("red", "blue")
    assert s.finished and s.winners == () and ev[-1] == GameEnded("g1", (), by_organizer=False)


# --------------------------------------------------------------------------- King of the Hill

TOWNS = {"hill", "elsewhere"}
P = ("ann", "bob", "cat", "dan")


def room(dice: dict[str, int], holder: str | None = None) -> hill.HillState:
    s = hill.open_room("room1", "hill", [p for p in P if p in dice], TOWNS)
    return replace(s, dice=dice, holder=holder)


def dice(who: str, values: list[int], attempt: int = 0, r: int = 1) -> dict[str, int]:
    """Script ``who``'s dice (values 1…6) of round ``r``, try ``attempt``."""
    return {f"round|{r}|{who}|{attempt}|{k}": v - 1 for k, v in enumerate(values)}


def play(s: hill.HillState, choices: dict[str, str], src: SeededSource) -> tuple[hill.HillState, hill.RoundResolved]:
    for p, c in choices.items():
        s = hill.choose(s, p, s.round, c)  # type: ignore[arg-type]
    new, events = hill.resolve_round(s, src)
    assert isinstance(events[0], hill.RoundResolved)
    return new, events[0]


def test_k8_attack_power_is_the_sum_of_all_the_attackers_dice() -> None:
    """K8: ann's 3 + 3 + 3 = 9 beats bob's 6 + 2 = 8 although bob rolled the highest die."""
    s, ev = play(room({"ann": 3, "bob": 2, "cat": 1}), {"ann": "attack", "bob": "attack", "cat": "recruit"},
                 ScriptedSource({**dice("ann", [3, 3, 3]), **dice("bob", [6, 2])}))
    assert ev.rolls == {"ann": (3, 3, 3), "bob": (6, 2)} and s.holder == "ann"


def test_k8_every_die_is_the_seeded_draw_of_its_label_on_one_to_six() -> None:
    """K8, K16: each attacker rolls all their dice, die k of round r the seed's draw ``round|r|who|0|k``."""
    src = SeededSource("k8", "room1")
    _, ev = play(room({"ann": 3, "bob": 2, "cat": 1}), {"ann": "attack", "bob": "attack", "cat": "attack"}, src)
    for p, n in (("ann", 3), ("bob", 2), ("cat", 1)):
        assert ev.rolls[p] == tuple(src.die(f"round|1|{p}|0|{k}") for k in range(n))
        assert all(1 <= d <= 6 for d in ev.rolls[p])


def test_k10_an_attacked_holder_rolls_all_dice_once_defence_is_sum_plus_two() -> None:
    """K10: ann holds with 3 dice 2, 3, 4 against two attackers: one roll, defence 9 + 2 = 11."""
    src = ScriptedSource({**dice("ann", [2, 3, 4]), **dice("bob", [6]), **dice("cat", [6])})
    _, ev = play(room({"ann": 3, "bob": 1, "cat": 1}, holder="ann"), {"bob": "attack", "cat": "attack"}, src)
    assert ev.defence == (2, 3, 4) and ev.defence_power == 11
    assert sorted(x for x in src.drawn if "|ann|" in x) == [f"round|1|ann|0|{k}" for k in range(3)]


def test_k10_an_unattacked_holder_does_not_roll() -> None:
    """K10: nobody attacks, so the holder rolls nothing and has no defence."""
    src = ScriptedSource()
    _, ev = play(room({"ann": 2, "bob": 1, "cat": 1}, holder="ann"), {"bob": "recruit", "cat": "recruit"}, src)
    assert ev.defence is None and ev.defence_power is None and src.drawn == []


def test_k11_an_attacker_equal_to_the_defence_loses_one_above_it_wins() -> None:
    """K11: defence 4 + 2 = 6; bob's 3 + 3 = 6 loses, bob's 3 + 4 = 7 takes the hill."""
    start = room({"ann": 1, "bob": 2, "cat": 1}, holder="ann")
    s, ev = play(start, {"bob": "attack", "cat": "recruit"},
                 ScriptedSource({**dice("ann", [4]), **dice("bob", [3, 3])}))
    assert ev.defence_power == 6 and s.holder == "ann" and ev.discards == ("bob",)
    s, ev = play(start, {"bob": "attack", "cat": "recruit"},
                 ScriptedSource({**dice("ann", [4]), **dice("bob", [3, 4])}))
    assert s.holder == "bob" and ev.holder_after == "bob"


def test_k12_every_losing_attacker_discards_one_die_never_below_one() -> None:
    """K12: defence 6 + 2 = 8; bob 6, cat 8 (a tie) and dan 1 all lose: 3 → 2, 2 → 1, 1 stays 1."""
    s, ev = play(room({"ann": 1, "bob": 3, "cat": 2, "dan": 1}, holder="ann"),
                 {"bob": "attack", "cat": "attack", "dan": "attack"},
                 ScriptedSource({**dice("ann", [6]), **dice("bob", [2, 2, 2]), **dice("cat", [4, 4]),
                                 **dice("dan", [1])}))
    assert ev.defence_power == 8 and s.holder == "ann" and set(ev.discards) == {"bob", "cat", "dan"}
    assert dict(s.dice) == {"ann": 1, "bob": 2, "cat": 1, "dan": 1}


def test_k13_the_strongest_winner_takes_the_hill_and_the_old_holder_discards_and_chooses() -> None:
    """K13: defence 1 + 2 = 3; bob 12 and cat 5 both win, bob takes the hill; ann discards (stays at 1 die),
    cat keeps her die; from the next round ann chooses and bob does not."""
    s, ev = play(room({"ann": 1, "bob": 2, "cat": 1, "dan": 1}, holder="ann"),
                 {"bob": "attack", "cat": "attack", "dan": "recruit"},
                 ScriptedSource({**dice("ann", [1]), **dice("bob", [6, 6]), **dice("cat", [5])}))
    assert ev.defence_power == 3 and s.holder == "bob" and ev.discards == ("ann",)
    assert dict(s.dice) == {"ann": 1, "bob": 2, "cat": 1, "dan": 2}
    assert hill.choosers(s) == ("ann", "cat", "dan")
    assert hill.choose(s, "ann", s.round, "attack").choices == {"ann": "attack"}
    with pytest.raises(ModeRefused) as e:
        hill.choose(s, "bob", s.round, "attack")
    assert e.value.code == "holder_does_not_choose"


def test_k13_the_holder_with_more_dice_discards_exactly_one() -> None:
    """K13: ann holds with 3 dice and loses the hill: 3 → 2."""
    s, _ = play(room({"ann": 3, "bob": 3, "cat": 1}, holder="ann"), {"bob": "attack", "cat": "recruit"},
                ScriptedSource({**dice("ann", [1, 1, 1]), **dice("bob", [6, 6, 6])}))
    assert s.holder == "bob" and dict(s.dice) == {"ann": 2, "bob": 3, "cat": 2}


def test_k14_only_the_tied_reroll_all_their_dice_the_reroll_is_not_held_against_the_defence() -> None:
    """K14: defence 3 + 2 = 5; bob and cat tie on 8 and re-roll 2 dice each; cat's 3 beats bob's 2 and takes
    the hill although 3 < 5; bob, who lost only the re-roll, keeps his dice; dan lost to the defence and discards."""
    script = {**dice("ann", [3]), **dice("bob", [4, 4]), **dice("cat", [6, 2]), **dice("dan", [1]),
              **dice("bob", [1, 1], attempt=1), **dice("cat", [1, 2], attempt=1)}
    s, ev = play(room({"ann": 1, "bob": 2, "cat": 2, "dan": 1}, holder="ann"),
                 {"bob": "attack", "cat": "attack", "dan": "attack"}, ScriptedSource(script))
    assert ev.defence_power == 5 and len(ev.tiebreaks) == 1
    assert ev.tiebreaks[0].rolls == {"bob": (1, 1), "cat": (1, 2)} and ev.tiebreaks[0].picked is None
    assert s.holder == "cat" and set(ev.discards) == {"dan", "ann"}
    assert dict(s.dice) == {"ann": 1, "bob": 2, "cat": 2, "dan": 1}


def test_k14_a_reroll_that_ties_again_is_rolled_again() -> None:
    """K14: ann and bob tie on 3, tie again on 2, then ann's 5 beats bob's 4; cat (lower) never re-rolls."""
    script = {**dice("ann", [3]), **dice("bob", [3]), **dice("cat", [1]),
              **dice("ann", [2], attempt=1), **dice("bob", [2], attempt=1),
              **dice("ann", [5], attempt=2), **dice("bob", [4], attempt=2)}
    s, ev = play(room({"ann": 1, "bob": 1, "cat": 1}), {"ann": "attack", "bob": "attack", "cat": "attack"},
                 ScriptedSource(script))
    assert [dict(t.rolls) for t in ev.tiebreaks] == [{"ann": (2,), "bob": (2,)}, {"ann": (5,), "bob": (4,)}]
    assert s.holder == "ann" and ev.discards == ()


def test_k14_after_max_rerolls_the_seed_picks_among_those_still_tied() -> None:
    """K14: with ``max_rerolls = 2`` every re-roll ties (all dice 1), so the third step is the seed's pick."""
    cfg = hill.HillConfig(max_rerolls=2)
    s = hill.choose(hill.choose(room({"ann": 1, "bob": 1, "cat": 1}), "ann", 1, "attack"), "bob", 1, "attack")
    s, events = hill.resolve_round(s, ScriptedSource({"round|1|pick": 1}), cfg)
    ev = events[0]
    assert isinstance(ev, hill.RoundResolved)
    assert len(ev.tiebreaks) == 3 and ev.tiebreaks[-1].picked == "bob" and s.holder == "bob"
    assert all(set(t.rolls) == {"ann", "bob"} for t in ev.tiebreaks[:2])


def test_k17_a_leaver_is_out_and_their_open_choice_dropped() -> None:
    """K17: dan chose, then left: the round resolves without him and he can no longer choose."""
    s = room({"ann": 1, "bob": 1, "cat": 1, "dan": 1})
    for p in ("ann", "bob", "dan"):
        s = hill.choose(s, p, 1, "recruit")
    assert not hill.all_chosen(s)
    s, ended = hill.leave(s, "dan")
    assert ended == [] and s.players == ("ann", "bob", "cat") and "dan" not in s.choices and "dan" not in s.dice
    s = hill.choose(s, "cat", 1, "recruit")
    assert hill.all_chosen(s)
    s, ev = play(s, {}, ScriptedSource())
    assert set(ev.choices) == {"ann", "bob", "cat"} and dict(ev.dice_after) == {"ann": 2, "bob": 2, "cat": 2}
    with pytest.raises(ModeRefused) as e:
        hill.choose(s, "dan", s.round, "attack")
    assert e.value.code == "not_in_room"


def test_k17_a_leaving_holder_leaves_the_hill_open() -> None:
    """K17: holder ann leaves; the next round is an open hill (K9): bob, the lone attacker, takes it."""
    s, ended = hill.leave(room({"ann": 2, "bob": 1, "cat": 1, "dan": 1}, holder="ann"), "ann")
    assert ended == [] and s.holder is None and hill.choosers(s) == ("bob", "cat", "dan")
    s, ev = play(s, {"bob": "attack", "cat": "recruit", "dan": "recruit"}, ScriptedSource())
    assert ev.holder_before is None and ev.defence is None and s.holder == "bob"


def test_k17_when_one_player_is_left_the_game_ends_and_that_player_wins() -> None:
    """K17: from three players, two leave: the third wins at once and the room takes no more rounds."""
    s = room({"ann": 1, "bob": 1, "cat": 1}, holder="ann")
    s, ended = hill.leave(s, "ann")
    assert ended == [] and not s.finished
    s, ended = hill.leave(s, "bob")
    assert s.finished and s.winner == "cat" and [e.winner for e in ended] == ["cat"]
    with pytest.raises(ModeRefused) as e:
        hill.resolve_round(s, ScriptedSource())
    assert e.value.code == "game_over"
