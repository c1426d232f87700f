"""Tables of the yard card game set by hand for the rules' unit tests (docs/rules/yard-cards.md)."""

from __future__ import annotations

from turf_common.rules.seeded import SeededSource
from turf_common.rules.yard import apply, open_game
from turf_common.rules.yardcatalogue import starter
from turf_common.rules.yardstate import Seat, Side, Step, YardEvent, YardState

CAT = starter()
P = ("ann", "bob", "cat", "dan", "eve")


def game(n: int = 2, seed: str = "seed") -> YardState:
    """A started game whose first seat is ``ann``'s."""
    s, _ = open_game("room", P[:n], CAT, SeededSource(seed, "room"))
    s.current = s.first_seat = 0
    return s


def seat(s: YardState, player: str) -> Seat:
    return next(x for x in s.seats if x.player == player)


def new(s: YardState, card_id: str) -> str:
    CAT.card(card_id)  # a known card
    instance = f"t{len(s.cards)}"
    s.cards[instance] = card_id
    return instance


def to_hand(s: YardState, player: str, card_id: str) -> str:
    c = new(s, card_id)
    seat(s, player).hand.append(c)
    return c


def to_garage(s: YardState, player: str, card_id: str) -> str:
    c = new(s, card_id)
    seat(s, player).garage.append(c)
    return c


def to_pile(s: YardState, player: str, pile: int, card_id: str) -> str:
    c = new(s, card_id)
    seat(s, player).yard[pile].cards.append(c)
    return c


def store_of(s: YardState, *card_ids: str, deck: tuple[str, ...] = ()) -> list[str]:
    """Replace the store and the store deck (the old cards go to the trash, so the zones still hold every card)."""
    s.trash += s.store + s.store_deck
    s.store = [new(s, c) for c in card_ids]
    s.store_deck = [new(s, c) for c in deck]
    return list(s.store)


def row_of(s: YardState, *card_ids: str, aside: tuple[str, ...] = ()) -> list[str]:
    s.unused += s.row + s.aside
    s.row = [new(s, c) for c in card_ids]
    s.aside = [new(s, c) for c in aside]
    return list(s.row)


def at(s: YardState, step: Step, side: Side | None = None, player: str = "ann") -> YardState:
    """The turn of ``player`` at ``step`` (their card showing ``side``)."""
    s.current = [x.player for x in s.seats].index(player)
    s.turn.step = step
    if side is not None:
        seat(s, player).side = side
    return s


def go(s: YardState, move: object) -> tuple[YardState, list[YardEvent]]:
    return apply(s, CAT, move)  # type: ignore[arg-type]


def kinds(events: list[YardEvent]) -> list[str]:
    return [e.kind for e in events]
