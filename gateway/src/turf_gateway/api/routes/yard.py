"""The yard card game (docs/rules/yard-cards.md, Y1–Y27) under ``/modes/yard-cards``: any verified player opens a
room of 2 to 5 and starts it; each step of a turn is its own typed route (Y6). A refusal is 409 with the ruling's
code (``not_your_turn``, ``no_place`` …) and a sentence, 404 ``not_found`` for no such room, 403 ``forbidden``
for a move the caller may not make: nothing changed. Reading a room is public; with a token the caller also sees
their own hand and garage (Y27)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Path
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from turf_common.contracts.modes import GamesReply
from turf_common.contracts.yard import OpenYard, YardLobby
from turf_common.rules import yard
from turf_gateway.api.deps import ModesCase, PlayerOnly
from turf_gateway.api.errors import ApiError
from turf_gateway.api.routes.modes import Viewer, _command_id
from turf_gateway.handlers.modes import NamedGameView
from turf_gateway.handlers.yard import YardCards
from turf_gateway.ports import Caller

router = APIRouter(prefix="/modes/yard-cards", tags=["modes"])

GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Key = Annotated[str | None, Header(alias="Idempotency-Key", min_length=1, max_length=64)]
CardRef = Annotated[str, StringConstraints(min_length=1, max_length=16, pattern=r"^[a-z][a-z0-9_]*$")]
PileNo = Annotated[int, Field(ge=0, le=8)]
Target = Annotated[int, Field(ge=0, le=8)]


async def _yard(modes: ModesCase) -> YardCards:
    return YardCards(modes)


Yard = Annotated[YardCards, Depends(_yard)]


def _verified(caller: Caller) -> Caller:
    if caller.status != "verified":
        raise ApiError("forbidden", "Only verified players play yard cards.")
    return caller


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpenBody(_Body):
    turn_seconds: int = Field(90, ge=15, le=7 * 86400, description="game seconds a turn may take (Y25)")


class ActionsBody(_Body):
    order: list[CardRef] | None = Field(None, max_length=40, description="the yard's acting cards, each once, in "
                                                                         "the order wanted (Y7); default: the yard's")
    targets: dict[CardRef, list[Target]] = Field(default_factory=dict, max_length=40,
                                                 description="card → its actions' targets (piles or store places)")


class SideBody(_Body):
    side: Literal["home", "away"]


class BuyBody(_Body):
    cards: list[CardRef] = Field(min_length=1, max_length=5, description="store cards, bought at once (Y11)")


class PlayBody(_Body):
    card: CardRef = Field(description="a card of the caller's hand")
    pile: PileNo
    owner: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = Field(
        None, description="whose yard (default: the caller's; a rival's only while they are AWAY, Y14)")
    targets: list[Target] | None = Field(None, max_length=9, description="the play action's targets (Y16, Y18)")


class SwayBody(_Body):
    neighbour: CardRef
    trash: list[CardRef] | None = Field(None, max_length=9, description="yard cards given for a bribe (Y19)")


@router.post("", status_code=201, response_model=NamedGameView)
async def open_room(body: OpenBody, caller: PlayerOnly, y: Yard, key: Key = None) -> NamedGameView:
    """Y2: open a room (201); the caller is its first player and starts it. Its seed's SHA-256 is
    ``seed_commitment`` (Y5). A repeated ``Idempotency-Key`` answers the room the first request opened."""
    cmd = OpenYard(command_id=_command_id(caller.id, key), player_id=_verified(caller).id,
                   turn_seconds=body.turn_seconds)
    return await y.open(cmd, key, body.model_dump(mode="json"))


@router.get("", response_model=GamesReply)
async def rooms(y: Yard) -> GamesReply:
    """The latest rooms, newest first. Public."""
    return await y.games()


@router.get("/{game_id}", response_model=NamedGameView)
async def room(game_id: GameId, y: Yard, viewer: Viewer) -> NamedGameView:
    """The table (Y27: no hidden card); with a token, the caller's own hand and garage."""
    return await y.game(game_id, viewer.id if viewer else None)


@router.post("/{game_id}/join", response_model=NamedGameView)
async def join(game_id: GameId, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y2: join a room that has not started (5 players at most)."""
    return await y.lobby(YardLobby(game_id=game_id, player_id=_verified(caller).id, act="join"))


@router.post("/{game_id}/start", response_model=NamedGameView)
async def start(game_id: GameId, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y2–Y4: the opener starts the room with 2 to 5 players; the seed shuffles and picks the first seat."""
    return await y.lobby(YardLobby(game_id=game_id, player_id=caller.id, act="start"))


@router.post("/{game_id}/leave", response_model=NamedGameView)
async def leave(game_id: GameId, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y26: leave; the last player left wins."""
    return await y.move(game_id, yard.Leave(player=caller.id))


@router.post("/{game_id}/start-actions", response_model=NamedGameView)
async def start_actions(game_id: GameId, body: ActionsBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y7: step 1, the start actions of the caller's yard, in the order named."""
    return await y.move(game_id, yard.Start(player=caller.id, order=tuple(body.order) if body.order else None,
                                            targets={k: tuple(v) for k, v in body.targets.items()}))


@router.post("/{game_id}/side", response_model=NamedGameView)
async def side(game_id: GameId, body: SideBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y8: step 2, HOME or AWAY; AWAY → HOME picks the garage up."""
    return await y.move(game_id, yard.ChooseSide(player=caller.id, side=body.side))


@router.post("/{game_id}/work", response_model=NamedGameView)
async def work(game_id: GameId, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y10: AWAY, once a turn: +$5."""
    return await y.move(game_id, yard.Work(player=caller.id))


@router.post("/{game_id}/buy", response_model=NamedGameView)
async def buy(game_id: GameId, body: BuyBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y11: AWAY, once a turn: store cards onto the garage, paid at once, then the store restocks (Y12)."""
    return await y.move(game_id, yard.Buy(player=caller.id, cards=tuple(body.cards)))


@router.post("/{game_id}/play", response_model=NamedGameView)
async def play(game_id: GameId, body: PlayBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y13–Y17: HOME, once a turn: a card of the hand onto a pile."""
    return await y.move(game_id, yard.Play(player=caller.id, card=body.card, pile=body.pile, owner=body.owner,
                                           targets=tuple(body.targets) if body.targets is not None else None))


@router.post("/{game_id}/sway", response_model=NamedGameView)
async def sway(game_id: GameId, body: SwayBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y19–Y21, Y23: HOME, once a turn: a neighbour of the row; the last one ends the game."""
    return await y.move(game_id, yard.Sway(player=caller.id, neighbour=body.neighbour,
                                           trash=tuple(body.trash) if body.trash is not None else None))


@router.post("/{game_id}/end-actions", response_model=NamedGameView)
async def end_actions(game_id: GameId, body: ActionsBody, caller: PlayerOnly, y: Yard) -> NamedGameView:
    """Y22: step 4, the end actions, then the next player's turn."""
    return await y.move(game_id, yard.End(player=caller.id, order=tuple(body.order) if body.order else None,
                                          targets={k: tuple(v) for k, v in body.targets.items()}))



