"""The wire of the yard card game (docs/rules/yard-cards.md, Y1–Y27), the third turn-based mode of the modes
service: opening a room, joining and starting it, and the moves of the pure rules (``turf_common.rules.yard``);
the table as a viewer may see it (Y27), and the event of each accepted move."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, StringConstraints

from turf_common.contracts.base import Event, Message
from turf_common.rules.yard import YardMove

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class OpenYard(Message):
    """``modes.yard.open`` (Y2): a room opened by ``player_id``, its first player; ``turn_seconds``: the game
    seconds a turn may take before it is played idle (Y25)."""

    command_id: Id
    player_id: Id
    turn_seconds: int = Field(default=90, ge=15, le=7 * 86400)


class YardLobby(Message):
    """``modes.yard.join`` / ``modes.yard.start``: join a room not yet started, or (its opener) start it."""

    game_id: Id
    player_id: Id
    act: Literal["join", "start"]


class YardMoveCommand(Message):
    """``modes.yard.move``: one move of the rules; its ``player`` is the caller (the gateway sets it)."""

    game_id: Id
    move: YardMove


class CardOut(Message):
    card: str = Field(description="the card's instance on this table")
    id: str = Field(description="the card's id in the catalogue")


class PileOut(Message):
    grass: bool
    cards: list[CardOut] = Field(description="bottom to top")


class YardSeatOut(Message):
    player: str
    side: Literal["home", "away"]
    money: int
    left: bool
    hand_count: int
    garage_count: int
    hand: list[CardOut] | None = Field(description="the viewer's own hand only (Y27)")
    garage: list[CardOut] | None = Field(description="the viewer's own garage only, bottom to top (Y27)")
    yard: list[PileOut]
    sway: list[CardOut]
    vp: int


class YardTurnOut(Message):
    player: str
    step: Literal["start", "side", "act", "end"]
    done: list[str]
    extra_buys: int


class YardTable(Message):
    """The table as one viewer may see it (Y27): decks and set-aside neighbours as counts only."""

    room_id: str
    catalogue: str
    round: int
    finished: bool
    winners: list[str]
    turn: YardTurnOut
    seats: list[YardSeatOut]
    store: list[CardOut]
    row: list[CardOut]
    store_deck_count: int
    aside_count: int
    trash: list[CardOut]


class YardRoom(Message):
    """A yard cards room: its lobby, then its table."""

    opener: str
    players: list[str]
    turn_seconds: int
    turn_deadline: AwareDatetime | None
    table: YardTable | None = Field(default=None, description="null in the lobby")
    catalogue_cards: list[dict[str, Any]] = Field(default_factory=list,
                                                  description="the catalogue's cards (name, kind, cost, vp, text, "
                                                              "actions, bribe)")


class YardEventOut(Message):
    kind: str
    data: dict[str, Any]


class YardMoved(Event):
    """``mode.yard_moved``: an accepted move and what it did, public (Y27: no hidden card in it)."""

    type: Literal["mode.yard_moved"] = "mode.yard_moved"
    game_id: str
    mode: Literal["yard_cards"] = "yard_cards"
    player_id: str
    move: str
    events: list[YardEventOut]
    turn_deadline: AwareDatetime | None
