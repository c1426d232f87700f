"""The wire of the turn-based modes: Team Turf (docs/rules/team-turf.md, T1–T22) and King of the Hill
(docs/rules/king-of-the-hill.md, K1–K18), run by the modes service.

Commands come from the gateway (request/reply, ``modes.*``), each answered with its reply or a
:class:`~turf_common.contracts.base.Refusal` whose reason is a :data:`~turf_common.rules.moderefusals.ModeCode`
(or ``not_found``/``forbidden``). Events go to the stream (``mode.*``, past tense) through the service's outbox.
A game's seed is secret while it runs: only its SHA-256 (``seed_commitment``) is shown until it ends (T20, K16).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, StringConstraints

from turf_common.contracts.base import Event, Message
from turf_common.contracts.yard import YardRoom

ModeName = Literal["team_turf", "hill", "yard_cards"]
GameStatus = Literal["lobby", "running", "finished"]
Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]
#: K5: the longest a round may stay open (game seconds), so one idle seat cannot hold a room for days
ROUND_SECONDS_MAX = 6 * 3600
TeamName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]


# --------------------------------------------------------------------------- commands


class CreateTeamTurf(Message):
    """``modes.team_turf.create`` (T1, T2; the organizer): ``towns`` the field (None: the board's largest connected
    part), ``homes`` team → home town (None: drawn from the seed). ``command_id`` makes a retry create one game."""

    command_id: Id
    organizer_id: Id
    teams: list[TeamName] = Field(min_length=2, max_length=12)
    towns: list[Id] | None = Field(default=None, max_length=2000)
    homes: dict[TeamName, Id] | None = None


class OpenHill(Message):
    """``modes.hill.open`` (K1): a room on ``hill`` (a town id) opened by ``player_id``, who is its first player.
    ``round_seconds``: game seconds a round stays open before unchosen players recruit (K5)."""

    command_id: Id
    player_id: Id
    hill: Id
    round_seconds: int = Field(default=3600, ge=60, le=ROUND_SECONDS_MAX)


class JoinGame(Message):
    """``modes.join``: Team Turf (T3, ``team`` required) or a King of the Hill room not yet started (K1)."""

    game_id: Id
    player_id: Id
    team: TeamName | None = None


class RemovePlayer(Message):
    """``modes.remove`` (K20): the opener (``player_id``) removes ``target_id`` from the room's lobby."""

    game_id: Id
    player_id: Id
    target_id: Id


class StartRoom(Message):
    """``modes.start`` (K1): the opener starts the room with its 3 to 5 players."""

    game_id: Id
    player_id: Id


class PlaceTroops(Message):
    """``modes.place`` (T6): ``n`` reserve troops into ``town``, at once."""

    game_id: Id
    player_id: Id
    town: Id
    n: int = Field(ge=1, le=1_000_000)


class GiveOrder(Message):
    """``modes.order`` (T7): ``n`` of the player's troops in ``src`` MOVE to / ATTACK ``dst`` in turn ``turn``."""

    game_id: Id
    player_id: Id
    turn: int = Field(ge=1)
    kind: Literal["move", "attack"]
    src: Id
    dst: Id
    n: int = Field(ge=1, le=1_000_000)


class WithdrawOrder(Message):
    """``modes.withdraw`` (T7): drop one of the player's orders of the open turn."""

    game_id: Id
    player_id: Id
    order_id: Id


class ChooseAction(Message):
    """``modes.choose`` (K4): the player's secret choice for round ``round``."""

    game_id: Id
    player_id: Id
    round: int = Field(ge=1)
    choice: Literal["attack", "recruit"]


class LeaveGame(Message):
    """``modes.leave`` (T4, K17)."""

    game_id: Id
    player_id: Id


class ResolveTurn(Message):
    """``modes.resolve`` (T9, K5): resolve Team Turf's turn ``turn`` or the room's round ``turn`` now — the organizer's
    chosen instant, or the game clock's (the service's timer). Exactly once: a turn already resolved is answered
    with ``first=False`` and changes nothing."""

    game_id: Id
    turn: int = Field(ge=1)


class EndGame(Message):
    """``modes.end`` (T22): the organizer ends a Team Turf game."""

    game_id: Id


class GameRequest(Message):
    """``modes.game``: one game as ``player_id`` (None: a spectator) may see it."""

    game_id: Id
    player_id: Id | None = None


class GamesRequest(Message):
    """``modes.games``: the latest games, newest first."""

    mode: ModeName | None = None
    limit: int = Field(default=50, ge=1, le=200)


#: actions of a game's log per page (``modes.log``): a page stays far below NATS's 1 MiB message limit
LOG_PAGE = 500


class LogRequest(Message):
    """``modes.log``: a finished game's creation, seed and a page of its accepted actions (from number ``offset``,
    at most ``limit``), for the audit (T20, K16)."""

    game_id: Id
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=LOG_PAGE, ge=1, le=LOG_PAGE)


# --------------------------------------------------------------------------- replies


class OrderOut(Message):
    order_id: str
    player_id: str
    kind: Literal["move", "attack"]
    src: str
    dst: str
    n: int


class TeamTurfView(Message):
    """Team Turf as a player sees it: the board is public (T6), orders only the caller's team's (T7)."""

    teams: list[str]
    homes: dict[str, str]
    reserved_homes: dict[str, str]
    field_towns: int
    field: list[str] = Field(default_factory=list, description="the game's towns (T1), sorted: the page marks them "
                             "apart from the board's other towns")
    turn: int
    next_turn_at: AwareDatetime | None
    board: dict[str, dict[str, int]] = Field(description="town → player → troops (occupied towns only)")
    team_of: dict[str, str]
    active: list[str]
    reserve: dict[str, int] = Field(description="unplaced troops per player")
    eliminated: list[str]
    winners: list[str]
    orders: list[OrderOut] = Field(description="the open turn's orders of the caller's team (T7)")


class RoundOut(Message):
    """One resolved round (K4–K15), everything revealed."""

    round: int
    choices: dict[str, Literal["attack", "recruit"]]
    rolls: dict[str, list[int]]
    defence: list[int] | None
    defence_power: int | None
    tiebreaks: list[dict[str, Any]]
    holder_before: str | None
    holder_after: str | None
    discards: list[str]
    dice_after: dict[str, int]


class HillView(Message):
    """A King of the Hill room: who chose is shown, never what (K4)."""

    hill: str
    opener: str
    players: list[str]
    dice: dict[str, int]
    holder: str | None
    round: int
    rounds: int
    round_deadline: AwareDatetime | None
    chosen: list[str]
    my_choice: Literal["attack", "recruit"] | None = None
    winner: str | None
    last_round: RoundOut | None = None


class GameView(Message):
    ok: Literal[True] = True
    game_id: str
    mode: ModeName
    status: GameStatus
    created_by: str
    created_at: AwareDatetime
    seed_commitment: str = Field(description="SHA-256 of the game's seed, published at creation (T20, K16)")
    seed: str | None = Field(default=None, description="the seed, revealed once the game has ended")
    team_turf: TeamTurfView | None = None
    hill: HillView | None = None
    yard_cards: YardRoom | None = None


class GameSummary(Message):
    game_id: str
    mode: ModeName
    status: GameStatus
    created_at: AwareDatetime
    players: int | None = Field(description="a room's players (King of the Hill, yard cards); null for Team Turf")
    hill: str | None = Field(default=None, description="King of the Hill: the hill's territory id (the room's name)")
    teams: list[str] | None = Field(default=None, description="Team Turf: its teams (the game's name)")


class GamesReply(Message):
    ok: Literal[True] = True
    games: list[GameSummary]


class OrderReply(Message):
    ok: Literal[True] = True
    order_id: str
    turn: int


class ResolveReply(Message):
    ok: Literal[True] = True
    game_id: str
    turn: int
    first: bool = Field(description="False: that turn was already resolved, nothing changed (T9: exactly once)")


class GameLog(Message):
    """A finished game's creation (``config``), a page of its accepted actions in order (``modereplay`` actions as
    JSON objects with a ``kind``, numbers ``offset`` …) and its revealed seed; ``total`` actions in all,
    ``next_offset`` the next page's ``offset`` (null on the last page)."""

    ok: Literal[True] = True
    game_id: str
    mode: ModeName
    config: dict[str, Any]
    seed_commitment: str
    seed: str
    actions: list[dict[str, Any]]
    offset: int = 0
    total: int | None = Field(default=None, description="actions in the whole log")
    next_offset: int | None = Field(default=None, description="the next page's offset; null on the last page")


# --------------------------------------------------------------------------- events


class ModeEvent(Event):
    game_id: str
    mode: ModeName


class GameCreated(ModeEvent):
    type: Literal["mode.game_created"] = "mode.game_created"
    created_by: str
    seed_commitment: str
    teams: list[str] | None = None
    homes: dict[str, str] | None = None
    hill: str | None = None


class PlayerJoined(ModeEvent):
    type: Literal["mode.player_joined"] = "mode.player_joined"
    player_id: str
    team: str | None = None


class PlayerLeft(ModeEvent):
    type: Literal["mode.player_left"] = "mode.player_left"
    player_id: str
    lost: int = Field(default=0, description="reserve troops that vanished (T4)")


class RoomStarted(ModeEvent):
    type: Literal["mode.room_started"] = "mode.room_started"
    players: list[str]
    round_deadline: AwareDatetime


class TroopsPlaced(ModeEvent):
    """T6: placements are immediate and visible to all."""

    type: Literal["mode.troops_placed"] = "mode.troops_placed"
    player_id: str
    team: str
    town: str
    n: int


class TurnResolved(ModeEvent):
    """T10–T19: one turn's resolution, and the board after it."""

    type: Literal["mode.turn_resolved"] = "mode.turn_resolved"
    turn: int
    moves: int
    cards: int
    battles: int
    killed: int
    conquests: dict[str, list[str]]
    eliminated: list[str]
    lost: int
    bonuses: dict[str, dict[str, int]]
    reinforcements: dict[str, int]
    controlled: dict[str, int]
    board: dict[str, dict[str, int]]
    next_turn_at: AwareDatetime | None


class RoundResolved(ModeEvent):
    """K4–K15: one round, every choice and die revealed."""

    type: Literal["mode.round_resolved"] = "mode.round_resolved"
    result: RoundOut
    round_deadline: AwareDatetime | None


class GameEnded(ModeEvent):
    """T21, T22, K17, K18: the end, and the seed revealed."""

    type: Literal["mode.game_ended"] = "mode.game_ended"
    winners: list[str]
    by_organizer: bool = False
    seed: str
    seed_commitment: str
