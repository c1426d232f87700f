"""The turn-based modes: Team Turf (docs/rules/team-turf.md) and King of the Hill
(docs/rules/king-of-the-hill.md), under ``/modes/team-turf`` and ``/modes/hill``. The modes service keeps the games
and decides; the gateway checks the input's shape, names the caller and asks it. The organizer creates, resolves
and ends Team Turf games; any verified player opens a King of the Hill room, and joins, places, orders and chooses.
A refusal is 409 with the rule's code (``not_neighbour``, ``already_chosen`` …), 404 ``not_found`` for no such game,
403 ``forbidden`` for a move the caller may not make: nothing changed."""

from __future__ import annotations

import hashlib
import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from turf_common.contracts.modes import (
    LOG_PAGE,
    ROUND_SECONDS_MAX,
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameLog,
    GamesReply,
    GiveOrder,
    JoinGame,
    LeaveGame,
    OpenHill,
    OrderReply,
    PlaceTroops,
    RemovePlayer,
    ResolveReply,
    ResolveTurn,
    StartRoom,
    WithdrawOrder,
)
from turf_gateway.api.deps import ModesCase, Organizer, PlayerOnly, State, bearer_token
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.modes import NamedGameView
from turf_gateway.ports import Caller

router = APIRouter(prefix="/modes", tags=["modes"])

Town = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
TeamName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]
GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Key = Annotated[str | None, Header(alias="Idempotency-Key", min_length=1, max_length=64)]


def _command_id(caller_id: str, key: str | None) -> str:
    """The command's id: one per (caller, ``Idempotency-Key``), so a repeat answers the first game; a fresh one
    without a key. A digest, as the contract's ids are at most 64 characters (a 32-character player id and a
    64-character key made a 500 before)."""
    return hashlib.sha256(f"{caller_id}:{key}".encode()).hexdigest() if key else uuid.uuid4().hex


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TeamTurfBody(_Body):
    teams: list[TeamName] = Field(min_length=2, max_length=12, description="two or more distinct team names (T2)")
    towns: list[Town] | None = Field(None, max_length=2000, description="the field (T1); default: the largest "
                                                                         "connected part of the board")
    homes: dict[TeamName, Town] | None = Field(None, description="team → home town; default: drawn from the seed")


class TeamBody(_Body):
    team: TeamName


class PlaceBody(_Body):
    town: Town
    n: int = Field(ge=1, le=1_000_000)


class OrderBody(_Body):
    turn: int = Field(ge=1, description="the open turn (T7, T9)")
    kind: Literal["move", "attack"]
    src: Town
    dst: Town
    n: int = Field(ge=1, le=1_000_000)


class HillBody(_Body):
    hill: Town = Field(description="the town fought over (K1)")
    round_seconds: int = Field(3600, ge=60, le=ROUND_SECONDS_MAX,
                               description="game seconds a round stays open (K5): 60 to 21600 (six hours)")


class ChoiceBody(_Body):
    round: int = Field(ge=1)
    choice: Literal["attack", "recruit"]


async def _viewer(request: Request, state: State) -> Caller | None:
    """The signed-in caller when the request has a token (their team's orders, their own choice), else None."""
    if not request.headers.get("authorization"):
        return None
    return await state.sessions.caller(bearer_token(request))


Viewer = Annotated[Caller | None, Depends(_viewer)]


def _verified(caller: Caller) -> Caller:
    if caller.status != "verified":
        raise ApiError("forbidden", "Only verified players play Team Turf and King of the Hill.")
    return caller


# --------------------------------------------------------------------------- Team Turf


@router.post("/team-turf", status_code=201, response_model=NamedGameView, tags=["organizer"])
async def create_team_turf(body: TeamTurfBody, org: Organizer, modes: ModesCase, key: Key = None) -> NamedGameView:
    """T1, T2: a new game (201); its seed's SHA-256 is ``seed_commitment``, the seed revealed when it ends (T20).
    A repeated ``Idempotency-Key`` answers the game the first request made; with another body it is 422
    ``invalid_input``."""
    return await modes.open(CreateTeamTurf(
        command_id=_command_id(org.id, key), organizer_id=org.id, teams=body.teams,
        towns=body.towns, homes=body.homes), org.id, key, body.model_dump(mode="json"))


@router.get("/team-turf", response_model=GamesReply)
async def team_turf_games(modes: ModesCase) -> GamesReply:
    """The latest Team Turf games, newest first. Public."""
    return await modes.games("team_turf")


@router.get("/team-turf/{game_id}", response_model=NamedGameView)
async def team_turf_game(game_id: GameId, modes: ModesCase, viewer: Viewer) -> NamedGameView:
    """The board, reserves and turn (public, T6); with a token, the caller's team's orders of the open turn (T7)."""
    return await modes.game(game_id, "team_turf", viewer.id if viewer else None)


@router.post("/team-turf/{game_id}/join", response_model=NamedGameView)
async def join_team(game_id: GameId, body: TeamBody, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """T3: join a team, once per game, with 2 troops in reserve."""
    return await modes.move("team_turf", JoinGame(
        game_id=game_id, player_id=_verified(caller).id, team=body.team), caller.id)


@router.post("/team-turf/{game_id}/place", response_model=NamedGameView)
async def place(game_id: GameId, body: PlaceBody, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """T6: reserve troops into a town of the team, at once and visible to all."""
    return await modes.move("team_turf", PlaceTroops(
        game_id=game_id, player_id=caller.id, town=body.town, n=body.n), caller.id)


@router.post("/team-turf/{game_id}/orders", status_code=201, response_model=OrderReply)
async def give_order(game_id: GameId, body: OrderBody, caller: PlayerOnly, modes: ModesCase) -> OrderReply:
    """T7: MOVE to a friendly / ATTACK a hostile neighbour in the open turn (201 ``{order_id, turn}``)."""
    return await modes.order(GiveOrder(
        game_id=game_id, player_id=caller.id, turn=body.turn, kind=body.kind, src=body.src, dst=body.dst,
        n=body.n))


@router.delete("/team-turf/{game_id}/orders/{order_id}", response_model=NamedGameView)
async def withdraw_order(game_id: GameId, order_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """T7: withdraw one of the caller's orders before the turn."""
    return await modes.move("team_turf", WithdrawOrder(
        game_id=game_id, player_id=caller.id, order_id=order_id), caller.id)


@router.post("/team-turf/{game_id}/leave", response_model=NamedGameView)
async def leave_team(game_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """T4: leave; the reserve is lost, troops on the board stay and defend."""
    return await modes.move("team_turf", LeaveGame(
        game_id=game_id, player_id=caller.id), caller.id)


@router.post("/team-turf/{game_id}/turns/{turn}/resolve", response_model=ResolveReply, tags=["organizer"])
async def resolve_turn(game_id: GameId, turn: Annotated[int, Path(ge=1, le=100_000)], org: Organizer,
                       modes: ModesCase) -> ResolveReply:
    """T9: resolve turn ``turn`` now (the game clock does it at 23:59 New York). Exactly once: asked again,
    ``first`` is false and nothing changes."""
    return await modes.resolve(ResolveTurn(game_id=game_id, turn=turn))


@router.post("/team-turf/{game_id}/end", response_model=NamedGameView, tags=["organizer"])
async def end_team_turf(game_id: GameId, org: Organizer, modes: ModesCase) -> NamedGameView:
    """T22: end the game; most towns wins (then most troops); the seed is revealed."""
    return await modes.move("team_turf", EndGame(game_id=game_id), None)


# --------------------------------------------------------------------------- King of the Hill


@router.post("/hill", status_code=201, response_model=NamedGameView)
async def open_hill(body: HillBody, caller: PlayerOnly, modes: ModesCase, key: Key = None) -> NamedGameView:
    """K1: open a room on a town (201); the caller is its first player and starts it. Its seed's SHA-256 is
    ``seed_commitment`` (K16). A repeated ``Idempotency-Key`` answers the room the first request opened; with
    another body it is 422 ``invalid_input``."""
    return await modes.open(OpenHill(
        command_id=_command_id(caller.id, key), player_id=_verified(caller).id,
        hill=body.hill, round_seconds=body.round_seconds), caller.id, key, body.model_dump(mode="json"))


@router.get("/hill", response_model=GamesReply)
async def hill_rooms(modes: ModesCase) -> GamesReply:
    """The latest rooms, newest first. Public."""
    return await modes.games("hill")


@router.get("/hill/{game_id}", response_model=NamedGameView)
async def hill_room(game_id: GameId, modes: ModesCase, viewer: Viewer) -> NamedGameView:
    """The room: dice, holder, who has chosen (never what, K4), the last round revealed; with a token, the caller's
    own choice."""
    return await modes.game(game_id, "hill", viewer.id if viewer else None)


@router.post("/hill/{game_id}/join", response_model=NamedGameView)
async def join_room(game_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """K1: join a room that has not started (5 players at most)."""
    return await modes.move("hill", JoinGame(
        game_id=game_id, player_id=_verified(caller).id), caller.id)


@router.post("/hill/{game_id}/start", response_model=NamedGameView)
async def start_room(game_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """K1: the opener starts the room with 3 to 5 players."""
    return await modes.move("hill", StartRoom(
        game_id=game_id, player_id=caller.id), caller.id)


@router.delete("/hill/{game_id}/players/{player_id}", response_model=NamedGameView)
async def remove_player(game_id: GameId, player_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """K20: the room's opener removes a seated player before the room starts; they may not rejoin it (409
    ``removed_from_room``). Another caller: 403 ``forbidden``; a started room: 409 ``room_started``."""
    return await modes.move("hill", RemovePlayer(
        game_id=game_id, player_id=caller.id, target_id=player_id), caller.id)


@router.post("/hill/{game_id}/choices", response_model=NamedGameView)
async def choose(game_id: GameId, body: ChoiceBody, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """K4: the caller's secret Attack or Recruit for the open round; the round resolves when all have chosen."""
    return await modes.move("hill", ChooseAction(
        game_id=game_id, player_id=caller.id, round=body.round, choice=body.choice), caller.id)


@router.post("/hill/{game_id}/leave", response_model=NamedGameView)
async def leave_room(game_id: GameId, caller: PlayerOnly, modes: ModesCase) -> NamedGameView:
    """K17: leave; the last player left wins."""
    return await modes.move("hill", LeaveGame(
        game_id=game_id, player_id=caller.id), caller.id)


# --------------------------------------------------------------------------- the audit


@router.get("/games/{game_id}/log", response_model=GameLog)
async def game_log(game_id: GameId, modes: ModesCase,
                   offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
                   limit: Annotated[int, Query(ge=1, le=LOG_PAGE)] = LOG_PAGE) -> GameLog:
    """T20, K16: a finished game's creation, accepted actions and seed, so anyone can replay every die and shuffle
    (``turfwar audit game <id>``), a page at a time: actions number ``offset`` on, at most ``limit`` (500); ``total``
    and ``next_offset`` (null on the last page) say what is left. Public once the game has ended; before, 403
    ``forbidden`` (it would tell the open turn's orders and the open round's choices)."""
    return await modes.log(game_id, offset, limit)
