"""A turn of the yard cards (docs/rules/yard-cards.md Y7–Y17): each test names its ruling."""

from __future__ import annotations

import pytest
from yard_support import at, game, go, kinds, seat, store_of, to_garage, to_hand, to_pile

from turf_common.rules.yard import Buy, ChooseSide, End, Play, Start, Sway, Work
from turf_common.rules.yardstate import YardRefused


def refused(s: object, move: object, code: str, ruling: str) -> None:
    with pytest.raises(YardRefused) as e:
        go(s, move)  # type: ignore[arg-type]
    assert (e.value.code, e.value.ruling) == (code, ruling)


def test_y7_start_actions_run_once_each_in_the_players_order_even_under_other_cards() -> None:
    s = at(game(), "start")
    shed = to_pile(s, "ann", 4, "potting_shed")      # start: extra_buy 1
    maple = to_pile(s, "ann", 0, "maple_sapling")    # start: gain $1
    to_pile(s, "ann", 0, "clover")                   # on top of the maple
    s, events = go(s, Start(player="ann", order=(shed, maple)))
    assert events[0].data["order"] == [shed, maple]
    assert [e.kind for e in events[1:]] == ["buys.extended", "money.changed"]
    assert (seat(s, "ann").money, s.turn.extra_buys) == (1, 1)


def test_y7_without_an_order_the_yards_order_and_a_wrong_order_is_refused() -> None:
    s = at(game(), "start")
    shed = to_pile(s, "ann", 4, "potting_shed")
    maple = to_pile(s, "ann", 0, "maple_sapling")
    clover = to_pile(s, "ann", 1, "clover")  # no start action
    _, events = go(s, Start(player="ann"))
    assert events[0].data["order"] == [maple, shed]
    for order in ((maple,), (maple, shed, shed), (maple, shed, clover)):
        refused(s, Start(player="ann", order=order), "bad_order", "Y7")
    assert seat(s, "ann").money == 0


def test_y8_only_away_to_home_picks_up_the_garage() -> None:
    s = at(game(), "side", "away")
    bought = to_garage(s, "ann", "clover")
    s2, events = go(s, ChooseSide(player="ann", side="home"))
    assert bought in seat(s2, "ann").hand and seat(s2, "ann").garage == []
    assert events[0].data == {"player": "ann", "side": "home", "picked_up": 1}
    for before, after in (("home", "home"), ("away", "away"), ("home", "away")):
        s3 = at(game(), "side", before)
        to_garage(s3, "ann", "clover")
        s3, _ = go(s3, ChooseSide(player="ann", side=after))
        assert len(seat(s3, "ann").garage) == 1 and seat(s3, "ann").side == after


def test_y9_each_side_has_its_two_actions_once_each() -> None:
    s = at(game(), "act", "away")
    refused(s, Play(player="ann", card=seat(s, "ann").hand[0], pile=0), "wrong_side", "Y9")
    s, _ = go(s, Work(player="ann"))
    refused(s, Work(player="ann"), "already_done", "Y9")
    home = at(game(), "act", "home")
    refused(home, Work(player="ann"), "wrong_side", "Y9")
    refused(home, Buy(player="ann", cards=(home.store[0],)), "wrong_side", "Y9")
    s, _events = go(home, End(player="ann"))  # no action at all is fine
    assert s.seats[s.current].player == "bob"


def test_y10_working_adds_five_dollars() -> None:
    s, events = go(at(game(), "act", "away"), Work(player="ann"))
    assert seat(s, "ann").money == 5 and events[0].kind == "worked"


def test_y11_a_buy_pays_puts_the_card_on_the_garage_and_restocks() -> None:
    s = at(game(), "act", "away")
    _clover, flamingo, *_ = store_of(s, "clover", "flamingo", "raised_bed", "mole", "tiller", deck=("sunflowers",))
    seat(s, "ann").money = 4
    s, events = go(s, Buy(player="ann", cards=(flamingo,)))
    assert seat(s, "ann").money == 1 and seat(s, "ann").garage == [flamingo]
    assert [s.cards[c] for c in s.store] == ["clover", "raised_bed", "mole", "tiller", "sunflowers"]
    assert kinds(events) == ["bought", "store.restocked"]


def test_y11_not_enough_money_or_a_card_not_in_the_store_changes_nothing() -> None:
    s = at(game(), "act", "away")
    store_of(s, "maple_sapling", "clover", "flamingo", "mole", "tiller")
    seat(s, "ann").money = 7
    refused(s, Buy(player="ann", cards=(s.store[0],)), "not_enough_money", "Y11")
    refused(s, Buy(player="ann", cards=(seat(s, "ann").hand[0],)), "not_in_store", "Y11")
    assert seat(s, "ann").money == 7 and len(s.store) == 5 and "buy" not in s.turn.done


def test_y11_several_at_once_only_with_extra_buys_paid_together_then_restocked() -> None:
    s = at(game(), "act", "away")
    a, b, c, *_ = store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed", deck=("sunflowers", "crabgrass"))
    seat(s, "ann").money = 5
    refused(s, Buy(player="ann", cards=(a, b)), "too_many", "Y11")
    s.turn.extra_buys = 1
    refused(s, Buy(player="ann", cards=(a, b, c)), "too_many", "Y11")
    s, events = go(s, Buy(player="ann", cards=(a, b)))
    assert seat(s, "ann").garage == [a, b] and seat(s, "ann").money == 0
    assert kinds(events) == ["bought", "store.restocked", "store.restocked"]


def test_y12_an_event_revealed_in_play_is_followed_then_trashed_and_the_next_card_revealed() -> None:
    s = at(game(), "act", "away")
    seat(s, "bob").money = 1
    clover, *_ = store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed",
                          deck=("association_fine", "sunflowers"))
    seat(s, "ann").money = 4
    s, events = go(s, Buy(player="ann", cards=(clover,)))
    assert (seat(s, "ann").money, seat(s, "bob").money) == (0, 0)  # $2 each, never below $0 (Y18)
    assert s.cards[s.trash[-1]] == "association_fine" and s.cards[s.store[-1]] == "sunflowers"
    assert kinds(events) == ["bought", "event.revealed", "money.changed", "money.changed", "store.restocked"]


def test_y12_an_empty_store_deck_leaves_the_store_short() -> None:
    s = at(game(), "act", "away")
    clover, *_ = store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed")
    seat(s, "ann").money = 2
    s, _ = go(s, Buy(player="ann", cards=(clover,)))
    assert len(s.store) == 4


def test_y13_a_card_needs_a_free_place_but_pests_and_tools_ignore_places() -> None:
    s = at(game(), "act", "home")
    clover = to_hand(s, "ann", "clover")
    refused(s, Play(player="ann", card=clover, pile=0), "no_place", "Y13")  # DIRT: no PLACE
    seat(s, "ann").yard[0].grass = True
    s1, _ = go(s, Play(player="ann", card=clover, pile=0))
    assert seat(s1, "ann").yard[0].cards == [clover]
    to_pile(s, "ann", 0, "flamingo")
    refused(s, Play(player="ann", card=clover, pile=0), "no_place", "Y13")  # GRASS's one PLACE taken
    to_pile(s, "ann", 0, "raised_bed")  # +2 PLACES: 3 places, 2 cards
    s2, _ = go(s, Play(player="ann", card=clover, pile=0))
    assert seat(s2, "ann").yard[0].cards[-1] == clover
    mole = to_hand(s, "ann", "mole")
    s3, _ = go(s, Play(player="ann", card=mole, pile=5))  # a Pest on bare DIRT
    assert seat(s3, "ann").yard[5].cards == [mole]


def test_y13_the_card_comes_from_ones_hand_onto_piles_zero_to_eight() -> None:
    s = at(game(), "act", "home")
    refused(s, Play(player="ann", card=seat(s, "bob").hand[0], pile=0), "not_in_hand", "Y13")
    refused(s, Play(player="ann", card=seat(s, "ann").hand[0], pile=9), "unknown_pile", "Y13")


def test_y14_a_rivals_yard_only_while_the_rival_is_away() -> None:
    s = at(game(), "act", "home")
    mole = to_hand(s, "ann", "mole")
    refused(s, Play(player="ann", card=mole, pile=3, owner="bob"), "rival_home", "Y14")
    seat(s, "bob").side = "away"
    s, events = go(s, Play(player="ann", card=mole, pile=3, owner="bob"))
    assert seat(s, "bob").yard[3].cards == [mole]
    assert events[0].data == {"player": "ann", "owner": "bob", "pile": 3, "card": mole, "id": "mole"}


def test_y15_a_pile_that_loses_its_place_keeps_its_cards() -> None:
    s = at(game(), "act", "home")
    seat(s, "ann").yard[2].grass = True
    flamingo = to_pile(s, "ann", 2, "flamingo")
    mole = to_hand(s, "ann", "mole")
    s, _ = go(s, Play(player="ann", card=mole, pile=2))
    s, _ = go(s, End(player="ann"))  # the mole turns the pile to DIRT
    assert seat(s, "ann").yard[2].grass is False and seat(s, "ann").yard[2].cards == [flamingo, mole]


def test_y16_the_yards_owner_does_the_play_action_with_no_choice_for_the_player() -> None:
    s = at(game(), "act", "home")
    seat(s, "bob").side = "away"
    pail = next(c for c in seat(s, "ann").hand if s.cards[c] == "seed_pail")
    s1, _ = go(s, Play(player="ann", card=pail, pile=0, owner="bob"))
    assert (seat(s1, "ann").money, seat(s1, "bob").money) == (0, 2)
    tiller = to_hand(s, "ann", "tiller")
    refused(s, Play(player="ann", card=tiller, pile=0, owner="bob", targets=(1, 2, 3)), "not_your_choice", "Y16")
    s2, _ = go(s, Play(player="ann", card=tiller, pile=0, owner="bob"))
    assert [p.grass for p in seat(s2, "bob").yard] == [True] * 3 + [False] * 6  # the default piles (Y18)


def test_y17_a_played_tool_goes_to_the_players_garage_and_other_cards_stay() -> None:
    s = at(game(), "act", "home")
    seat(s, "bob").side = "away"
    trowel = next(c for c in seat(s, "ann").hand if s.cards[c] == "trowel")
    s, events = go(s, Play(player="ann", card=trowel, pile=6, owner="bob"))
    assert seat(s, "ann").garage == [trowel] and seat(s, "bob").yard[6].cards == []
    assert seat(s, "bob").yard[6].grass is True
    assert kinds(events) == ["card.played", "piles.turned", "tool.returned"]


def test_y9_sway_is_a_home_action() -> None:
    s = at(game(), "act", "away")
    refused(s, Sway(player="ann", neighbour=s.row[0]), "wrong_side", "Y9")
