"""Two ends the rule text does not foresee online (docs/rules/yard-cards.md): a player who lets three turns in a
row pass without a move is out (Y29), and a game whose row holds only neighbours nobody can sway any more ends at
once (Y30). Rooms played before these rulings replay without them."""

from __future__ import annotations

from yard_support import CAT, at, game, go, kinds, row_of, seat, store_of, to_hand, to_pile

from turf_common.rules.yard import ChooseSide, End, Idle, Leave, Start, apply
from turf_common.rules.yardstate import LEGACY, YardConfig, YardState, config_for


def _a_turn(s: YardState, player: str) -> YardState:
    for m in (Start(player=player), ChooseSide(player=player, side="home"), End(player=player)):
        s, _ = go(s, m)
    return s


def test_y29_three_turns_missed_in_a_row_put_a_player_out_and_the_last_one_wins() -> None:
    s = game()
    for n in (1, 2):
        s, events = go(s, Idle(player="ann"))
        assert seat(s, "ann").missed == n and not seat(s, "ann").left and "player.left" not in kinds(events)
        s = _a_turn(s, "bob")
    s, events = go(s, Idle(player="ann"))
    left = next(e for e in events if e.kind == "player.left")
    assert left.data == {"player": "ann", "why": "missed_turns"}
    assert s.finished and s.winners == ["bob"] and events[-1].data["why"] == "one player left"


def test_y29_a_move_of_ones_own_ends_the_run_and_a_turn_begun_is_not_missed() -> None:
    s = game()
    for _ in range(2):
        s, _ = go(s, Idle(player="ann"))
        s = _a_turn(s, "bob")
    s, _ = go(s, Start(player="ann"))         # ann moves: the run is over …
    s, _ = go(s, Idle(player="ann"))          # … and a turn she began, then let run out, is not a missed one
    assert seat(s, "ann").missed == 0
    for _ in range(2):
        s = _a_turn(s, "bob")
        s, _ = go(s, Idle(player="ann"))
    assert seat(s, "ann").missed == 2 and not s.finished


def test_y29_with_three_players_the_game_goes_on_without_the_absent_one() -> None:
    s = game(3)
    for _ in range(3):
        s, _ = go(s, Idle(player="ann"))
        s = _a_turn(s, "bob")
        s = _a_turn(s, "cat")
    assert seat(s, "ann").left and not s.finished
    assert s.seats[s.current].player == "bob"   # ann's turns are skipped (Y26)
    s = _a_turn(s, "bob")
    assert s.seats[s.current].player == "cat"


def test_y29_not_in_a_room_played_before_the_ruling() -> None:
    assert config_for(None) == LEGACY and config_for(2) == YardConfig()
    s = game()
    for _ in range(5):
        s, _ = apply(s, CAT, Idle(player="ann"), LEGACY)
        s, _ = apply(s, CAT, Idle(player="bob"), LEGACY)
    assert not s.finished and seat(s, "ann").missed == 5 and not seat(s, "ann").left


def _no_birdbath_left(s: YardState) -> YardState:
    """Both Birdbaths trashed (the store and its deck hold none any more), the Birdwatcher the row's last."""
    store_of(s, "clover", "sunflowers", "flamingo", "raised_bed", "mole", deck=("shade_hostas",))
    row_of(s, "birdwatcher")
    return s


def test_y30_a_row_whose_last_neighbour_can_no_longer_be_swayed_ends_the_game() -> None:
    s = _no_birdbath_left(at(game(), "start"))
    s, events = go(s, Start(player="ann"))
    assert s.finished and events[-1].kind == "game.ended"
    assert events[-1].data["why"] == "no neighbour can be swayed"


def test_y30_a_birdbath_that_may_still_reach_a_yard_keeps_the_game_going() -> None:
    for where in ("store", "hand", "own yard"):
        s = _no_birdbath_left(at(game(), "start"))
        if where == "store":
            store_of(s, "birdbath")
        elif where == "hand":
            to_hand(s, "bob", "birdbath")     # bob may play it in his yard (or in ann's while she is AWAY)
        else:
            to_pile(s, "bob", 3, "birdbath")  # bob's yard has it: bob can still sway the Birdwatcher
        s, _ = go(s, Start(player="ann"))
        assert not s.finished, where


def test_y30_a_birdbath_in_the_yard_of_a_player_who_left_sways_nobody() -> None:
    s = _no_birdbath_left(at(game(3), "start"))
    to_pile(s, "cat", 3, "birdbath")
    s, _ = go(s, Start(player="ann"))
    assert not s.finished
    s, events = go(s, Leave(player="cat"))
    assert s.finished and events[-1].data["why"] == "no neighbour can be swayed"


def test_y30_a_bribe_of_cards_nobody_can_have_any_more_counts_too() -> None:
    s = at(game(), "start")
    store_of(s, "flamingo", "raised_bed", "mole", "crabgrass", "wheelbarrow")   # no plant anywhere …
    row_of(s, "compost_collector")                                              # … for the bribe (Y19)
    s, events = go(s, Start(player="ann"))
    assert s.finished and events[-1].data["why"] == "no neighbour can be swayed"


def test_y30_not_in_a_room_played_before_the_ruling() -> None:
    s = _no_birdbath_left(at(game(), "start"))
    s, _ = apply(s, CAT, Start(player="ann"), LEGACY)
    assert not s.finished
