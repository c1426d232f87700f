"""The yard card game's state, its refusals and the look-ups every part of its rules uses (docs/rules/yard-cards.md).

The state is plain mutable dataclasses: :func:`turf_common.rules.yard.apply` copies it before a move and returns
the copy, so for a caller a move is pure (the old state is never touched, a refused move changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from turf_common.rules.yardcatalogue import Card, Catalogue, Kind

Side = Literal["home", "away"]
Step = Literal["start", "side", "act", "end"]
PILES = 9  # Y2: a 3×3 yard

YardCode = Literal[
    "wrong_player_count", "not_in_room", "not_your_turn", "wrong_step", "game_over", "bad_order", "wrong_side",
    "already_done", "not_in_store", "too_many", "not_enough_money", "not_in_hand", "unknown_pile", "no_place",
    "rival_home", "protected", "bad_target", "not_your_choice", "unknown_neighbour", "criteria_not_met", "bribe_unpaid",
]
YARD_CODES: tuple[YardCode, ...] = get_args(YardCode)

# code → (ruling, sentence)
REFUSALS: dict[YardCode, tuple[str, str]] = {
    "wrong_player_count": ("Y2", "A yard cards room needs 2 to 5 players."),
    "not_in_room": ("Y26", "You are not a player of this game (or you have left it)."),
    "not_your_turn": ("Y6", "It is not your turn."),
    "wrong_step": ("Y6", "That move belongs to another step of the turn."),
    "game_over": ("Y23", "This game has ended."),
    "bad_order": ("Y7", "The order must name each card of your yard that has such actions, once."),
    "wrong_side": ("Y9", "That action belongs to the other side of your HOME / AWAY card."),
    "already_done": ("Y9", "You have already done that action this turn."),
    "not_in_store": ("Y11", "That card is not in the store."),
    "too_many": ("Y11", "You may not buy that many cards at once this turn."),
    "not_enough_money": ("Y11", "You do not have enough money in your piggy bank."),
    "not_in_hand": ("Y13", "That card is not in your hand."),
    "unknown_pile": ("Y13", "A yard has piles 0 to 8."),
    "no_place": ("Y13", "That pile has no free PLACE for this card."),
    "rival_home": ("Y14", "You can play onto a rival's yard only while that rival is AWAY."),
    "protected": ("Y18", "No Pest may be played onto that pile."),
    "bad_target": ("Y18", "That target is not one this action can take."),
    "not_your_choice": ("Y16", "The targets of a card played in a rival's yard are not yours to choose."),
    "unknown_neighbour": ("Y19", "That neighbour is not in the unswayed row."),
    "criteria_not_met": ("Y19", "Your yard does not contain everything this neighbour asks for."),
    "bribe_unpaid": ("Y19", "You cannot pay this neighbour's bribe in full."),
}


class YardRefused(Exception):
    """A refused move: ``code``, the ``ruling`` it applies and a ``message`` a person can read; nothing changed."""

    def __init__(self, code: YardCode, message: str | None = None) -> None:
        self.code: YardCode = code
        self.ruling, default = REFUSALS[code]
        self.message = message or default
        super().__init__(f"{code} ({self.ruling}): {self.message}")


@dataclass(frozen=True)
class YardConfig:
    max_rounds: int = 40      # Y23
    store_size: int = 5       # Y3, Y12
    row_size: int = 5         # Y3
    work_pay: int = 5         # Y10
    min_players: int = 2      # Y2
    max_players: int = 5      # Y2
    max_missed: int | None = 3      # Y29: turns missed in a row that put a player out (None: never)
    unswayable_end: bool = True     # Y30: the game ends when no neighbour of the row can be swayed any more


# Y29, Y30 came after the first rooms were played: a room records its rules' version (``rules`` in its config) so
# that an older room's log replays under the rules it was played by
RULES_VERSION = 2
LEGACY = YardConfig(max_missed=None, unswayable_end=False)


def config_for(version: int | None) -> YardConfig:
    """The rules a room was played by: version 2 (Y29, Y30) or the first ones (no version recorded)."""
    return YardConfig() if (version or 1) >= RULES_VERSION else LEGACY


@dataclass
class Pile:
    grass: bool = False
    cards: list[str] = field(default_factory=list)  # bottom → top


@dataclass
class Seat:
    player: str
    side: Side = "home"
    money: int = 0
    hand: list[str] = field(default_factory=list)
    garage: list[str] = field(default_factory=list)  # bottom → top
    yard: list[Pile] = field(default_factory=lambda: [Pile() for _ in range(PILES)])
    sway: list[str] = field(default_factory=list)
    left: bool = False
    missed: int = 0           # Y29: turns in a row the time limit passed before the player's first move of it


@dataclass
class TurnState:
    step: Step = "start"
    done: set[str] = field(default_factory=set)
    extra_buys: int = 0


@dataclass
class YardState:
    """``cards``: every card instance → its catalogue id (the instances are conserved across the zones)."""

    room_id: str
    catalogue: str
    cards: dict[str, str]
    seats: list[Seat]
    store_deck: list[str]       # top first
    store: list[str] = field(default_factory=list)
    row: list[str] = field(default_factory=list)
    aside: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)  # the neighbour deck's rest (Y3)
    trash: list[str] = field(default_factory=list)
    current: int = 0
    first_seat: int = 0          # Y4: a round ends when the turn comes back to it
    round: int = 1
    turn_no: int = 1             # turns started so far: the service's timer idles exactly this one (Y25)
    turn: TurnState = field(default_factory=TurnState)
    moves: int = 0
    finished: bool = False
    winners: list[str] = field(default_factory=list)


def card_of(s: YardState, cat: Catalogue, instance: str) -> Card:
    return cat.card(s.cards[instance])


def seat_of(s: YardState, player: str) -> Seat:
    """The seat of a player still in the game, else ``not_in_room`` (Y26)."""
    for seat in s.seats:
        if seat.player == player and not seat.left:
            return seat
    raise YardRefused("not_in_room")


def any_seat(s: YardState, player: str) -> Seat:
    """A seat whether or not its player left (their yard stays on the table, Y26)."""
    for seat in s.seats:
        if seat.player == player:
            return seat
    raise YardRefused("not_in_room")


def locate(seat: Seat, instance: str) -> tuple[int, int] | None:
    """(pile, depth) of a card in ``seat``'s yard, else None."""
    for i, pile in enumerate(seat.yard):
        if instance in pile.cards:
            return i, pile.cards.index(instance)
    return None


def yard_cards(seat: Seat) -> list[str]:
    """Y7: the yard's order, pile 0 to 8, bottom to top."""
    return [c for pile in seat.yard for c in pile.cards]


def count_in_yard(s: YardState, cat: Catalogue, seat: Seat, kind: Kind | None = None,
                  card: str | None = None, grass: bool = False) -> int:
    """Y19, Y18 ``score_per``: cards of a kind (or one card) anywhere in the yard's piles, or GRASS piles."""
    if grass:
        return sum(p.grass for p in seat.yard)
    return sum(1 for c in yard_cards(seat) if (card is not None and s.cards[c] == card)
               or (kind is not None and card_of(s, cat, c).kind == kind))


def places(s: YardState, cat: Catalogue, pile: Pile) -> int:
    """Y13: 1 for GRASS, 0 for DIRT, plus what the cards on it add."""
    return int(pile.grass) + sum(card_of(s, cat, c).places for c in pile.cards)


def protected(s: YardState, cat: Catalogue, pile: Pile) -> bool:
    """Y18 ``protect``: a card on the pile forbids Pests."""
    return any(a.effect.do == "protect" for c in pile.cards for a in card_of(s, cat, c).actions)


def active(s: YardState) -> list[Seat]:
    return [seat for seat in s.seats if not seat.left]


@dataclass(frozen=True)
class YardEvent:
    """What happened, public to every viewer (Y27): ``kind`` (past tense) and its data; no hidden card in it."""

    kind: str
    data: dict[str, object]
