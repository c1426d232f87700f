"""The yard cards' setup, seats and seed (docs/rules/yard-cards.md Y2–Y6): each test names its ruling."""

from __future__ import annotations

from collections import Counter

import pytest
from yard_support import CAT, P, at, game, go, kinds, seat, store_of

from turf_common.rules.seeded import SeededSource
from turf_common.rules.yard import ChooseSide, End, Start, Work, open_game, replay
from turf_common.rules.yardeffects import restock
from turf_common.rules.yardstate import YardEvent, YardRefused


def test_y2_two_to_five_distinct_players() -> None:
    for n in (2, 5):
        assert len(open_game("r", P[:n], CAT, SeededSource("k", "r"))[0].seats) == n
    for players in (P[:1], (*P, "fay"), ("ann", "ann", "bob")):
        with pytest.raises(YardRefused) as e:
            open_game("r", players, CAT, SeededSource("k", "r"))
        assert (e.value.code, e.value.ruling) == ("wrong_player_count", "Y2")


def test_y2_each_player_starts_home_broke_on_nine_dirt_piles_with_the_starting_tools() -> None:
    s = game(3)
    for x in s.seats:
        assert (x.side, x.money, x.garage, x.sway) == ("home", 0, [], [])
        assert [(p.grass, p.cards) for p in x.yard] == [(False, [])] * 9
        assert [s.cards[c] for c in x.hand] == ["trowel", "gloves", "seed_pail"]


@pytest.mark.parametrize(("n", "copies"), [(2, 1), (3, 2), (5, 2)])
def test_y3_the_store_deck_is_doubled_for_three_or_more_and_the_row_has_aside_per_extra_player(
        n: int, copies: int) -> None:
    s = game(n)
    in_store = Counter(s.cards[c] for c in s.store + s.store_deck + s.trash)
    assert in_store == Counter({c.id: c.copies * copies for c in CAT.store_cards()})
    hood = Counter(s.cards[c] for c in s.row + s.aside + s.unused)
    assert hood == Counter({c.id: c.copies for c in CAT.cards if c.kind == "neighbour"})
    assert (len(s.row), len(s.aside)) == (5, n - 2)
    assert len(s.store) == 5 and all(CAT.card(s.cards[c]).kind != "event" for c in s.store)


def test_y3_an_event_revealed_while_laying_out_the_store_goes_to_the_trash_without_effect() -> None:
    s = game()
    store_of(s, deck=("block_party", "clover", "flamingo"))
    events: list[YardEvent] = []
    restock(s, CAT, events, setup=True)
    assert [s.cards[c] for c in s.store] == ["clover", "flamingo"]
    assert s.cards[s.trash[-1]] == "block_party" and all(x.money == 0 for x in s.seats)
    assert events[0].kind == "event.revealed" and events[0].data["followed"] is False


def test_y4_the_seed_picks_the_first_seat_and_turns_go_round_in_seat_order() -> None:
    src = SeededSource("k", "r")
    s, events = open_game("r", P[:3], CAT, src)
    first = src.below("first", 3)
    assert s.current == first and events[0].data["first"] == P[first]
    seen = []
    for _ in range(4):
        p = s.seats[s.current].player
        seen.append((p, s.round))
        s, _ = go(s, Start(player=p))
        s, _ = go(s, ChooseSide(player=p, side="away"))
        s, _ = go(s, End(player=p))
    order = [P[(first + k) % 3] for k in range(4)]
    assert seen == [(order[0], 1), (order[1], 1), (order[2], 1), (order[3], 2)]


def test_y5_the_seed_and_the_moves_replay_the_game_and_another_seed_shuffles_otherwise() -> None:
    s, _ = open_game("r", P[:2], CAT, SeededSource("k", "r"))
    p = s.seats[s.current].player
    moves = [Start(player=p), ChooseSide(player=p, side="away"), Work(player=p), End(player=p)]
    for m in moves:
        s, _ = go(s, m)
    again, _ = replay("r", P[:2], CAT, "k", moves)
    assert again == s
    other, _ = open_game("r", P[:2], CAT, SeededSource("other", "r"))
    assert other.store_deck != s.store_deck or other.row != s.row


def test_y6_only_the_player_of_the_turn_moves_and_only_the_move_of_the_step() -> None:
    s = at(game(), "start")
    with pytest.raises(YardRefused) as e:
        go(s, Start(player="bob"))
    assert (e.value.code, e.value.ruling) == ("not_your_turn", "Y6")
    for m in (ChooseSide(player="ann", side="away"), Work(player="ann"), End(player="ann")):
        with pytest.raises(YardRefused) as e:
            go(s, m)
        assert e.value.code == "wrong_step"
    s, events = go(s, Start(player="ann"))
    assert s.turn.step == "side" and kinds(events) == ["start.actions"]
    with pytest.raises(YardRefused, match="wrong_step"):
        go(s, Start(player="ann"))


def test_y6_no_move_after_the_end() -> None:
    s = game()
    s.finished = True
    with pytest.raises(YardRefused) as e:
        go(s, Start(player="ann"))
    assert e.value.code == "game_over"
    assert seat(s, "ann").money == 0
