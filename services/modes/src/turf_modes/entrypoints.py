"""NATS subscribers of the modes service: the gateway's commands (decode, call a use case, reply), and one durable
consumer: ``player.disqualified`` (T23, K21: the player leaves every game). The game clock is read by its timer
(turf_modes.handlers.ModesHandlers.run_timers), not consumed."""

from __future__ import annotations

from faststream.nats import NatsRouter

from turf_common.bus import Batch, durable, settle
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


def router(h: ModesHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[PlayerDisqualified], batch: Batch) -> None:
        await settle(batch, events, h.player_removed, DURABLE)

    @r.subscriber(s.MODES_CREATE_TEAM_TURF, queue=QUEUE, title=s.MODES_CREATE_TEAM_TURF)
    async def create_team_turf(cmd: CreateTeamTurf) -> GameView | Refusal:
        return await h.create_team_turf(cmd)

    @r.subscriber(s.MODES_OPEN_HILL, queue=QUEUE, title=s.MODES_OPEN_HILL)
    async def open_hill(cmd: OpenHill) -> GameView | Refusal:
        return await h.open_hill(cmd)

    @r.subscriber(s.MODES_JOIN, queue=QUEUE, max_workers=WORKERS, title=s.MODES_JOIN)
    async def join(cmd: JoinGame) -> GameView | Refusal:
        return await h.join(cmd)

    @r.subscriber(s.MODES_START, queue=QUEUE, title=s.MODES_START)
    async def start(cmd: StartRoom) -> GameView | Refusal:
        return await h.start(cmd)

    @r.subscriber(s.MODES_PLACE, queue=QUEUE, max_workers=WORKERS, title=s.MODES_PLACE)
    async def place(cmd: PlaceTroops) -> GameView | Refusal:
        return await h.place(cmd)

    @r.subscriber(s.MODES_ORDER, queue=QUEUE, max_workers=WORKERS, title=s.MODES_ORDER)
    async def order(cmd: GiveOrder) -> OrderReply | Refusal:
        return await h.order(cmd)

    @r.subscriber(s.MODES_WITHDRAW, queue=QUEUE, title=s.MODES_WITHDRAW)
    async def withdraw(cmd: WithdrawOrder) -> GameView | Refusal:
        return await h.withdraw(cmd)

    @r.subscriber(s.MODES_CHOOSE, queue=QUEUE, max_workers=WORKERS, title=s.MODES_CHOOSE)
    async def choose(cmd: ChooseAction) -> GameView | Refusal:
        return await h.choose(cmd)

    @r.subscriber(s.MODES_LEAVE, queue=QUEUE, title=s.MODES_LEAVE)
    async def leave(cmd: LeaveGame) -> GameView | Refusal:
        return await h.leave(cmd)

    @r.subscriber(s.MODES_REMOVE, queue=QUEUE, title=s.MODES_REMOVE)
    async def remove(cmd: RemovePlayer) -> GameView | Refusal:
        return await h.remove(cmd)

    @r.subscriber(s.MODES_RESOLVE, queue=QUEUE, title=s.MODES_RESOLVE)
    async def resolve(cmd: ResolveTurn) -> ResolveReply | Refusal:
        return await h.resolve(cmd)

    @r.subscriber(s.MODES_END, queue=QUEUE, title=s.MODES_END)
    async def end(cmd: EndGame) -> GameView | Refusal:
        return await h.end(cmd)

    @r.subscriber(s.MODES_GAME, queue=QUEUE, max_workers=WORKERS, title=s.MODES_GAME)
    async def game(q: GameRequest) -> GameView | Refusal:
        return await h.game(q)

    @r.subscriber(s.MODES_GAMES, queue=QUEUE, title=s.MODES_GAMES)
    async def games(q: GamesRequest) -> GamesReply | Refusal:
        return await h.games(q)

    @r.subscriber(s.MODES_LOG, queue=QUEUE, title=s.MODES_LOG)
    async def log(q: LogRequest) -> GameLog | Refusal:
        return await h.log(q)

    @r.subscriber(s.MODES_YARD_OPEN, queue=QUEUE, title=s.MODES_YARD_OPEN)
    async def open_yard(cmd: OpenYard) -> GameView | Refusal:
        return await h.yard.open(cmd)

    @r.subscriber(s.MODES_YARD_LOBBY, queue=QUEUE, max_workers=WORKERS, title=s.MODES_YARD_LOBBY)
    async def yard_lobby(cmd: YardLobby) -> GameView | Refusal:
        return await h.yard.lobby(cmd)

    @r.subscriber(s.MODES_YARD_MOVE, queue=QUEUE, max_workers=WORKERS, title=s.MODES_YARD_MOVE)
    async def yard_move(cmd: YardMoveCommand) -> GameView | Refusal:
        return await h.yard.move(cmd)

    for subject, model in PUBLISHED.items():
        r.publisher(subject, schema=model, title=subject)
    return r
