"""Refusals of the turn-based modes (Team Turf T1–T22, King of the Hill K1–K18): a reason code and a sentence,
nothing changed — as R29 asks of the season game, in their own list so the season's codes stay as they are."""

from __future__ import annotations

from typing import Literal, get_args

ModeCode = Literal[
    "field_not_connected",
    "unknown_town",
    "unknown_team",
    "unknown_player",
    "already_joined",
    "team_eliminated",
    "not_your_town",
    "not_enough_troops",
    "not_neighbour",
    "not_friendly",
    "not_hostile",
    "turn_closed",
    "game_over",
    "wrong_player_count",
    "room_started",
    "not_in_room",
    "already_chosen",
    "holder_does_not_choose",
    "round_closed",
    "invalid_target",
    "field_too_small",
    "turn_not_open",
    "unknown_order",
    "too_many_rooms",
    "removed_from_room",
]
MODE_CODES: tuple[ModeCode, ...] = get_args(ModeCode)

MESSAGES: dict[ModeCode, str] = {
    "field_not_connected": "Those towns do not form one connected field, so no team could ever hold them all.",
    "unknown_town": "That town is not on this game's field.",
    "unknown_team": "There is no team of that name in this game.",
    "unknown_player": "You are not playing in this game.",
    "already_joined": "You have already joined this game (one team per player, no switching).",
    "team_eliminated": "That team has been eliminated.",
    "not_your_town": "You can only place troops in a town your team controls.",
    "not_enough_troops": "You do not have that many troops there.",
    "not_neighbour": "That town is not a neighbour of the town your troops are in.",
    "not_friendly": "Troops can only MOVE to a town your team controls.",
    "not_hostile": "Troops can only ATTACK a town your team does not control (and not a team's untouched home).",
    "turn_closed": "That turn has already been resolved.",
    "game_over": "This game has ended.",
    "wrong_player_count": "A King of the Hill room needs 3 to 5 players.",
    "room_started": "This room has already started.",
    "not_in_room": "You are not a player in this room.",
    "already_chosen": "You have already chosen for this round.",
    "holder_does_not_choose": "The holder of the hill defends and does not choose.",
    "round_closed": "That round is not the open one.",
    "invalid_target": "The hill must be a town of the board.",
    "field_too_small": "The field has fewer towns than the game has teams: every team needs a home of its own.",
    "turn_not_open": "That turn is not open yet: orders are given for the open turn.",
    "unknown_order": "You have no order with that id in the open turn.",
    "too_many_rooms": "You are already seated in 3 King of the Hill rooms; leave one (or let it finish) first.",
    "removed_from_room": "The room's opener removed you from this room; you cannot rejoin it.",
}


class ModeRefused(Exception):
    """A refused mode action: ``code`` (a :data:`ModeCode`) and ``message`` (a sentence a person can read)."""

    def __init__(self, code: ModeCode, message: str | None = None) -> None:
        self.code: ModeCode = code
        self.message = message or MESSAGES[code]
        super().__init__(f"{code}: {self.message}")
