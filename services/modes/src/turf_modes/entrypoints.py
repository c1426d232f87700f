"""NATS subscribers of the modes service: the gateway's commands (decode, call a use case, reply), and one durable
consumer: ``player.disqualified`` (T23, K21: the player leaves every game). The game clock is read by its timer
(turf_modes.handlers.ModesHandlers.run_timers), not consumed."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_common.bus import Batch, Command, durable, serve, settle
from turf_common.contracts import subjects as s
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.modes import (
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameCreated,
    GameEnded,
    GameLog,
    GameRequest,
    GamesReply,
    GamesRequest,
    GameView,
    GiveOrder,
    JoinGame,
    LeaveGame,
    LogRequest,
    OpenHill,
    OrderReply,
    PlaceTroops,
    PlayerJoined,
    PlayerLeft,
    RemovePlayer,
    ResolveReply,
    ResolveTurn,
    RoomStarted,
    RoundResolved,
    StartRoom,
    TroopsPlaced,
    TurnResolved,
    WithdrawOrder,
)
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.yard import OpenYard, YardLobby, YardMoveCommand, YardMoved
from turf_modes.handlers import ModesHandlers

QUEUE = "modes"
DURABLE = "modes"
#: what the durable consumer takes, in stream order: a disqualification (R28), which a withdrawal (R30) is too
CONSUMED = [s.PLAYER_DISQUALIFIED]
#: commands on one game wait on its row lock; a few at a time
WORKERS = 4
#: the events the service publishes (from its outbox), for the AsyncAPI document
PUBLISHED: dict[str, type[Event]] = {
    s.MODE_GAME_CREATED: GameCreated, s.MODE_PLAYER_JOINED: PlayerJoined, s.MODE_PLAYER_LEFT: PlayerLeft,
    s.MODE_ROOM_STARTED: RoomStarted, s.MODE_TROOPS_PLACED: TroopsPlaced, s.MODE_TURN_RESOLVED: TurnResolved,
    s.MODE_ROUND_RESOLVED: RoundResolved, s.MODE_GAME_ENDED: GameEnded, s.MODE_YARD_MOVED: YardMoved,
}


#: the gateway's commands, in the service's queue group (titled by subject in the AsyncAPI document)
COMMANDS: list[Command[ModesHandlers]] = [
    Command(s.MODES_CREATE_TEAM_TURF, CreateTeamTurf, GameView | Refusal, lambda h, c: h.create_team_turf(c)),
    Command(s.MODES_OPEN_HILL, OpenHill, GameView | Refusal, lambda h, c: h.open_hill(c)),
    Command(s.MODES_JOIN, JoinGame, GameView | Refusal, lambda h, c: h.join(c), WORKERS),
    Command(s.MODES_START, StartRoom, GameView | Refusal, lambda h, c: h.start(c)),
    Command(s.MODES_PLACE, PlaceTroops, GameView | Refusal, lambda h, c: h.place(c), WORKERS),
    Command(s.MODES_ORDER, GiveOrder, OrderReply | Refusal, lambda h, c: h.order(c), WORKERS),
    Command(s.MODES_WITHDRAW, WithdrawOrder, GameView | Refusal, lambda h, c: h.withdraw(c)),
    Command(s.MODES_CHOOSE, ChooseAction, GameView | Refusal, lambda h, c: h.choose(c), WORKERS),
    Command(s.MODES_LEAVE, LeaveGame, GameView | Refusal, lambda h, c: h.leave(c)),
    Command(s.MODES_REMOVE, RemovePlayer, GameView | Refusal, lambda h, c: h.remove(c)),
    Command(s.MODES_RESOLVE, ResolveTurn, ResolveReply | Refusal, lambda h, c: h.resolve(c)),
    Command(s.MODES_END, EndGame, GameView | Refusal, lambda h, c: h.end(c)),
    Command(s.MODES_GAME, GameRequest, GameView | Refusal, lambda h, c: h.game(c), WORKERS),
    Command(s.MODES_GAMES, GamesRequest, GamesReply | Refusal, lambda h, c: h.games(c)),
    Command(s.MODES_LOG, LogRequest, GameLog | Refusal, lambda h, c: h.log(c)),
    Command(s.MODES_YARD_OPEN, OpenYard, GameView | Refusal, lambda h, c: h.yard.open(c)),
    Command(s.MODES_YARD_LOBBY, YardLobby, GameView | Refusal, lambda h, c: h.yard.lobby(c), WORKERS),
    Command(s.MODES_YARD_MOVE, YardMoveCommand, GameView | Refusal, lambda h, c: h.yard.move(c), WORKERS),
]


def router(h: ModesHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[PlayerDisqualified], batch: Batch) -> None:
        await settle(batch, events, h.player_removed, DURABLE)

    serve(r, h, QUEUE, COMMANDS)
    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r
