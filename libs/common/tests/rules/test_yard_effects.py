"""The yard cards' effect vocabulary (docs/rules/yard-cards.md Y18): each effect, its default and named targets."""

from __future__ import annotations

import pytest
from yard_support import CAT, at, game, go, kinds, seat, store_of, to_garage, to_hand, to_pile

from turf_common.rules.yard import Buy, End, Play, Start
from turf_common.rules.yardstate import YardRefused
from turf_common.rules.yardview import score


def test_y18_gain_a_loss_never_takes_money_below_zero() -> None:
    s = at(game(), "start")
    to_pile(s, "ann", 0, "raccoon")  # start: lose $2
    seat(s, "ann").money = 1
    s, events = go(s, Start(player="ann"))
    assert seat(s, "ann").money == 0 and events[1].data["by"] == -1


def test_y18_draw_takes_the_top_of_ones_garage_and_tells_only_how_many() -> None:
    s = at(game(), "start")
    to_pile(s, "ann", 0, "porch_chimes")  # start: draw 1
    to_garage(s, "ann", "clover")
    top = to_garage(s, "ann", "flamingo")
    s, events = go(s, Start(player="ann"))
    assert seat(s, "ann").hand[-1] == top and len(seat(s, "ann").garage) == 1
    assert events[1].data == {"player": "ann", "count": 1, "card": events[0].data["order"][0]}  # type: ignore[index]


def test_y18_turn_chosen_piles_named_or_the_lowest_eligible() -> None:
    s = at(game(), "start")
    sprinkler = to_pile(s, "ann", 0, "sprinkler")  # start: turn one pile to GRASS
    s1, _ = go(s, Start(player="ann", targets={sprinkler: (7,)}))
    assert [i for i, p in enumerate(seat(s1, "ann").yard) if p.grass] == [7]
    s2, _ = go(s, Start(player="ann"))
    assert [i for i, p in enumerate(seat(s2, "ann").yard) if p.grass] == [0]
    seat(s, "ann").yard[3].grass = True
    for bad in ((3,), (1, 2), (9,)):  # already GRASS, too many, no such pile
        with pytest.raises(YardRefused) as e:
            go(s, Start(player="ann", targets={sprinkler: bad}))
        assert (e.value.code, e.value.ruling) == ("bad_target", "Y18")


def test_y18_turn_every_player_takes_each_ones_lowest_bare_pile() -> None:
    s = at(game(3), "act", "away")
    for x in s.seats:
        x.yard[0].grass = x.yard[1].grass = True
    to_pile(s, "bob", 0, "clover")  # not bare
    store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed", deck=("hailstorm", "sunflowers"))
    seat(s, "ann").money = 2
    s, events = go(s, Buy(player="ann", cards=(s.store[0],)))
    turned = next(e for e in events if e.kind == "piles.turned")
    assert turned.data["piles"] == [("ann", 0), ("bob", 1), ("cat", 0)]


def test_y18_trash_under_removes_the_card_beneath() -> None:
    s = at(game(), "act", "home")
    seat(s, "ann").yard[4].grass = True
    flamingo = to_pile(s, "ann", 4, "flamingo")
    mole = to_pile(s, "ann", 4, "mole")
    gloves = next(c for c in seat(s, "ann").hand if s.cards[c] == "gloves")
    s, events = go(s, Play(player="ann", card=gloves, pile=4))
    assert seat(s, "ann").yard[4].cards == [flamingo] and s.trash[-1] == mole
    assert kinds(events) == ["card.played", "card.trashed", "tool.returned"]


def test_y18_trash_store_takes_all_named_cards_before_restocking() -> None:
    s = at(game(), "act", "home")
    store = store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed", deck=("sunflowers", "crabgrass"))
    blower = to_hand(s, "ann", "leaf_blower")
    s1, events = go(s, Play(player="ann", card=blower, pile=0, targets=(1, 3)))
    assert s1.trash[-2:] == [store[1], store[3]]
    assert [s1.cards[c] for c in s1.store] == ["clover", "mole", "raised_bed", "sunflowers", "crabgrass"]
    assert kinds(events) == ["card.played", "store.trashed", "store.restocked", "store.restocked", "tool.returned"]
    s2, _ = go(s, Play(player="ann", card=blower, pile=0))
    assert s2.trash[-2:] == store[:2]  # the leftmost by default


def test_y18_move_takes_the_card_under_to_a_pile_with_room() -> None:
    s = at(game(), "act", "home")
    seat(s, "ann").yard[0].grass = True
    seat(s, "ann").yard[5].grass = True
    clover = to_pile(s, "ann", 0, "clover")
    barrow = to_hand(s, "ann", "wheelbarrow")
    with pytest.raises(YardRefused, match="bad_target"):
        go(s, Play(player="ann", card=barrow, pile=0, targets=(3,)))  # DIRT: no room for a plant
    s1, _ = go(s, Play(player="ann", card=barrow, pile=0))
    assert seat(s1, "ann").yard[5].cards == [clover] and seat(s1, "ann").yard[0].cards == []


def test_y18_protect_refuses_pests_on_that_pile_only() -> None:
    s = at(game(), "act", "home")
    seat(s, "bob").side = "away"
    seat(s, "bob").yard[2].grass = True
    to_pile(s, "bob", 2, "birdbath")
    mole = to_hand(s, "ann", "mole")
    with pytest.raises(YardRefused) as e:
        go(s, Play(player="ann", card=mole, pile=2, owner="bob"))
    assert (e.value.code, e.value.ruling) == ("protected", "Y18")
    s, _ = go(s, Play(player="ann", card=mole, pile=1, owner="bob"))
    assert seat(s, "bob").yard[1].cards == [mole]


def test_y18_score_per_counts_a_kind_or_grass_piles() -> None:
    s = game()
    ann = seat(s, "ann")
    to_pile(s, "ann", 0, "gnome_choir")   # 1 VP + 1 per ornament
    to_pile(s, "ann", 1, "flamingo")      # 1 VP
    to_pile(s, "ann", 2, "rolled_sod")    # 0 VP + 1 per GRASS pile
    to_pile(s, "ann", 3, "mole")          # -1 VP
    ann.yard[0].grass = ann.yard[5].grass = ann.yard[6].grass = True
    assert score(s, CAT, ann) == 1 + 2 + 1 + 0 + 3 - 1


def test_y18_extra_buy_and_everyone_gain() -> None:
    s = at(game(3), "start")
    to_pile(s, "ann", 0, "potting_shed")
    s, _ = go(s, Start(player="ann"))
    assert s.turn.extra_buys == 1
    s = at(game(3), "act", "away")
    seat(s, "ann").money = 2
    store_of(s, "clover", "flamingo", "mole", "tiller", "raised_bed", deck=("block_party", "sunflowers"))
    s, _ = go(s, Buy(player="ann", cards=(s.store[0],)))
    assert [x.money for x in s.seats] == [2, 2, 2]


def test_y18_an_action_without_an_eligible_target_does_nothing() -> None:
    s = at(game(), "act", "home")
    gloves = next(c for c in seat(s, "ann").hand if s.cards[c] == "gloves")
    trash = list(s.trash)
    s, events = go(s, Play(player="ann", card=gloves, pile=0))  # nothing under the gloves
    assert kinds(events) == ["card.played", "tool.returned"] and s.trash == trash


def test_y22_end_actions_run_then_the_next_seat_plays() -> None:
    s = at(game(), "act", "home")
    to_pile(s, "ann", 0, "compost_bin")  # end: gain $2
    s, events = go(s, End(player="ann"))
    assert seat(s, "ann").money == 2 and s.seats[s.current].player == "bob" and s.turn.step == "start"
    assert kinds(events) == ["end.actions", "money.changed", "turn.started"]
