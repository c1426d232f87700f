"""Swaying, the end, the score and online play in the yard cards (docs/rules/yard-cards.md Y19–Y27)."""

from __future__ import annotations

import pytest
from yard_support import CAT, at, game, go, kinds, row_of, seat, to_garage, to_hand, to_pile

from turf_common.rules.yard import ChooseSide, End, Idle, Leave, Play, Start, Sway, Work
from turf_common.rules.yardstate import YardRefused, YardState
from turf_common.rules.yardview import ranking, view


def shown(v: object) -> set[str]:
    """Every card instance a view shows."""
    if isinstance(v, dict):
        return {str(v["card"])} if "card" in v else set().union(*(shown(x) for x in v.values()))
    if isinstance(v, list | tuple):
        return set().union(*(shown(x) for x in v))
    return set()


def refused(s: YardState, move: object, code: str, ruling: str) -> None:
    with pytest.raises(YardRefused) as e:
        go(s, move)
    assert (e.value.code, e.value.ruling) == (code, ruling)


def test_y19_a_neighbour_of_the_row_whose_criteria_the_yard_meets_goes_to_the_sway() -> None:
    s = at(game(), "act", "home")
    gardener, *_ = row_of(s, "retired_gardener", "night_owl", "landlord", "builder", "collector")
    refused(s, Sway(player="ann", neighbour=seat(s, "ann").hand[0]), "unknown_neighbour", "Y19")
    for i in range(2):
        to_pile(s, "ann", i, "clover")
    refused(s, Sway(player="ann", neighbour=gardener), "criteria_not_met", "Y19")
    to_pile(s, "ann", 2, "sunflowers")
    s, events = go(s, Sway(player="ann", neighbour=gardener))
    assert seat(s, "ann").sway == [gardener] and gardener not in s.row
    assert events[0].kind == "neighbour.swayed"


def test_y19_grass_and_single_card_criteria() -> None:
    s = at(game(), "act", "home")
    lawn, birder, *_ = row_of(s, "lawn_perfectionist", "birdwatcher", "landlord", "builder", "collector")
    for i in range(4):
        seat(s, "ann").yard[i].grass = True
    refused(s, Sway(player="ann", neighbour=lawn), "criteria_not_met", "Y19")
    refused(s, Sway(player="ann", neighbour=birder), "criteria_not_met", "Y19")
    seat(s, "ann").yard[8].grass = True
    to_pile(s, "ann", 8, "birdbath")
    assert seat(go(s, Sway(player="ann", neighbour=lawn))[0], "ann").sway == [lawn]
    assert seat(go(s, Sway(player="ann", neighbour=birder))[0], "ann").sway == [birder]


def test_y19_a_bribe_is_paid_in_full_or_not_at_all() -> None:
    s = at(game(), "act", "home")
    landlord, _, composter, *_ = row_of(s, "landlord", "collector", "compost_collector", "builder", "night_owl")
    seat(s, "ann").money = 8
    refused(s, Sway(player="ann", neighbour=landlord), "bribe_unpaid", "Y19")
    refused(s, Sway(player="ann", neighbour=composter), "bribe_unpaid", "Y19")  # no plant in the yard
    assert seat(s, "ann").money == 8
    seat(s, "ann").money = 9
    s1, events = go(s, Sway(player="ann", neighbour=landlord))
    assert seat(s1, "ann").money == 0 and events[0].data["paid"] == 9


def test_y19_a_bribe_trashes_the_topmost_cards_of_its_kind_or_the_named_ones() -> None:
    s = at(game(), "act", "home")
    composter, *_ = row_of(s, "compost_collector", "builder", "night_owl", "landlord", "collector")
    low = to_pile(s, "ann", 3, "clover")
    high = to_pile(s, "ann", 3, "sunflowers")
    s1, _ = go(s, Sway(player="ann", neighbour=composter))
    assert seat(s1, "ann").yard[3].cards == [low] and s1.trash[-1] == high
    s2, _ = go(s, Sway(player="ann", neighbour=composter, trash=(low,)))
    assert seat(s2, "ann").yard[3].cards == [high]
    flamingo = to_pile(s, "ann", 4, "flamingo")
    refused(s, Sway(player="ann", neighbour=composter, trash=(flamingo,)), "bad_target", "Y18")


def test_y20_criteria_are_checked_only_when_swaying() -> None:
    s = at(game(), "act", "home")
    builder, *_ = row_of(s, "builder", "night_owl", "landlord", "collector", "compost_collector")
    bed = to_pile(s, "ann", 0, "raised_bed")
    to_pile(s, "ann", 1, "cedar_trellis")
    s, _ = go(s, Sway(player="ann", neighbour=builder))
    seat(s, "ann").yard[0].cards.remove(bed)
    s.trash.append(bed)
    assert seat(s, "ann").sway == [builder] and seat(s, "ann").yard[0].cards == []


def test_y21_two_players_never_refill_the_row_three_refill_it_from_the_aside_in_place() -> None:
    s = at(game(), "act", "home")
    row_of(s, "builder", "night_owl", "landlord", "collector", "compost_collector")
    s2, _ = go(s, Sway(player="ann", neighbour=s.row[1]))
    assert len(s2.row) == 4
    s = at(game(3), "act", "home")
    row = row_of(s, "builder", "night_owl", "landlord", "collector", "compost_collector", aside=("kid_next_door",))
    kid = s.aside[0]
    s3, events = go(s, Sway(player="ann", neighbour=row[1]))
    assert s3.row == [row[0], kid, *row[2:]] and s3.aside == []
    assert events[0].data["row"] == s3.row


def test_y23_the_game_ends_at_once_when_the_last_neighbour_is_swayed() -> None:
    s = at(game(), "act", "home")
    (owl,) = row_of(s, "night_owl")
    to_pile(s, "ann", 0, "compost_bin")  # an end action that must not run
    s, events = go(s, Sway(player="ann", neighbour=owl))
    assert s.finished and kinds(events) == ["neighbour.swayed", "game.ended"]
    assert seat(s, "ann").money == 0 and events[-1].data["why"] == "last neighbour swayed"
    refused(s, End(player="ann"), "game_over", "Y23")


def test_y23_a_game_ends_after_the_round_cap() -> None:
    s = at(game(), "act", "away")
    s.round = 40
    s.first_seat = 0
    s, _ = go(s, End(player="ann"))
    assert not s.finished
    s, _ = go(at(s, "act", "away", "bob"), End(player="bob"))
    assert s.finished and s.round == 41


def test_y24_highest_vp_wins_then_most_neighbours_then_a_shared_win() -> None:
    s = game(3)
    to_pile(s, "ann", 0, "sunflowers")           # 2 VP
    seat(s, "bob").sway.append(row_of(s, "kid_next_door")[0])  # 2 VP, one neighbour
    s.row.clear()
    assert ranking(s, CAT) == ["bob"]
    to_pile(s, "cat", 0, "clover")
    to_pile(s, "cat", 1, "clover")
    assert ranking(s, CAT) == ["bob"]
    seat(s, "ann").sway.append(row_of(s, "night_owl")[0])      # ann 3 VP, one neighbour
    s.row.clear()
    to_pile(s, "bob", 0, "clover")                # bob 3 VP
    assert ranking(s, CAT) == ["ann", "bob"]


def test_y25_an_idle_turn_does_the_rest_with_no_choices() -> None:
    s = at(game(), "start", "away")
    to_pile(s, "ann", 0, "maple_sapling")  # start $1
    to_pile(s, "ann", 1, "compost_bin")    # end $2
    to_garage(s, "ann", "clover")
    s, events = go(s, Idle(player="ann"))
    assert (seat(s, "ann").money, seat(s, "ann").side, len(seat(s, "ann").garage)) == (3, "away", 1)
    assert kinds(events) == ["start.actions", "money.changed", "turn.idled", "end.actions", "money.changed",
                             "turn.started"]
    s = at(game(), "act", "home")
    to_pile(s, "ann", 0, "maple_sapling")
    s, _ = go(s, Idle(player="ann"))  # start actions already done: not again
    assert seat(s, "ann").money == 0


def test_y26_a_leaver_is_skipped_keeps_their_cards_on_the_table_and_the_last_player_wins() -> None:
    s = at(game(3), "start")
    flamingo = to_pile(s, "bob", 0, "flamingo")
    s, _ = go(s, Leave(player="bob"))
    refused(s, Work(player="bob"), "not_in_room", "Y26")
    for m in (Start(player="ann"), ChooseSide(player="ann", side="home"), End(player="ann")):
        s, _ = go(s, m)
    assert s.seats[s.current].player == "cat" and seat(s, "bob").yard[0].cards == [flamingo]
    s, events = go(s, Leave(player="cat"))
    assert s.finished and s.winners == ["ann"] and events[-1].kind == "game.ended"


def test_y26_a_leavers_yard_still_takes_plays_while_away() -> None:
    s = at(game(3), "act", "home")
    seat(s, "bob").side = "away"
    s, _ = go(s, Leave(player="bob"))
    mole = to_hand(s, "ann", "mole")
    s, _ = go(s, Play(player="ann", card=mole, pile=0, owner="bob"))
    assert seat(s, "bob").yard[0].cards == [mole]


def test_y27_hands_garages_and_decks_are_hidden_from_others_and_spectators() -> None:
    s = game(3)
    secret = to_garage(s, "bob", "landlord")
    ann, spectator, bob = view(s, CAT, "ann"), view(s, CAT, None), view(s, CAT, "bob")
    for v in (ann, spectator):
        b = v["seats"][1]
        assert b["hand"] is None and b["garage"] is None and (b["hand_count"], b["garage_count"]) == (3, 1)
        assert secret not in shown(v) and "store_deck" not in v and "aside" not in v
        assert v["store_deck_count"] == len(s.store_deck) and v["aside_count"] == 1
    assert [c["id"] for c in ann["seats"][0]["hand"]] == ["trowel", "gloves", "seed_pail"]
    assert bob["seats"][1]["garage"] == [{"card": secret, "id": "landlord"}]
    assert not shown(spectator) & set(s.store_deck + s.aside + s.unused + seat(s, "ann").hand)
    assert shown(spectator) >= set(s.store + s.row)


def test_y27_events_tell_how_many_cards_move_out_of_sight_never_which() -> None:
    s = at(game(), "side", "away")
    hidden = [to_garage(s, "ann", "clover"), to_garage(s, "ann", "landlord")]
    s, events = go(s, ChooseSide(player="ann", side="home"))
    assert events[0].data == {"player": "ann", "side": "home", "picked_up": 2}
    assert not set(hidden) & {str(x) for e in events for x in e.data.values()}
