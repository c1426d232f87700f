"""The turn-based modes as use cases: Team Turf and King of the Hill games are kept and decided by the
modes service; the gateway asks it. Opening a game: a repeated ``Idempotency-Key`` answers the first game only to a
request with the same body; with another body it is 422 ``invalid_input`` before the modes service is asked (as
for claims and corrections). A move on a game first reads the game, so an id of the other mode is 404
``not_found`` whatever the move; the modes service's refusals (409 with the rule's code, 403 ``forbidden``) pass
through unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import Field

from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.modes import (
    LOG_PAGE,
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameLog,
    GameRequest,
    GamesReply,
    GamesRequest,
    GameView,
    GiveOrder,
    JoinGame,
    LeaveGame,
    LogRequest,
    ModeName,
    OpenHill,
    OrderReply,
    PlaceTroops,
    RemovePlayer,
    ResolveReply,
    ResolveTurn,
    StartRoom,
    WithdrawOrder,
)
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import IdempotencyKeys, Limiter, Services

TIMEOUT = 10.0   # a command waits on its game's row lock; a resolution replays the game

#: a move on a game → the modes service's subject for it
Move = JoinGame | PlaceTroops | WithdrawOrder | LeaveGame | StartRoom | ChooseAction | EndGame | RemovePlayer
MOVES: dict[type[Message], str] = {
    JoinGame: subjects.MODES_JOIN, PlaceTroops: subjects.MODES_PLACE, WithdrawOrder: subjects.MODES_WITHDRAW,
    LeaveGame: subjects.MODES_LEAVE, StartRoom: subjects.MODES_START, ChooseAction: subjects.MODES_CHOOSE,
    EndGame: subjects.MODES_END, RemovePlayer: subjects.MODES_REMOVE}
#: K19: the moves that change who sits where (each a story on the spectators' feed) count against
#: ``modes_seat_player``; every other write against ``modes_move_player`` (``turf_gateway.adapters.ratelimit``)
SEAT_MOVES = (JoinGame, LeaveGame, RemovePlayer)
#: the limits' key of the organizer's writes (they name no player)
ORGANIZER = "organizer"
#: opening a game → its subject (also the idempotency keys' route name)
OPENS: dict[type[Message], str] = {CreateTeamTurf: subjects.MODES_CREATE_TEAM_TURF, OpenHill: subjects.MODES_OPEN_HILL}


class NamedGameView(GameView):
    """A game as the gateway answers it: the modes service's view and its players' names."""

    names: dict[str, str] = Field(
        default_factory=dict, description="player id → public display name of every player the game names (its "
                                          "players, the teams' members, the holder, the winners), so a page reads "
                                          "no roster for them")


class DisplayNames(Protocol):
    """Where the players' public names come from (:class:`turf_gateway.ports.PlayerStore`)."""

    async def display_names(self, ids: list[str]) -> dict[str, str]: ...


def named_players(view: GameView) -> list[str]:
    """Every player id ``view`` names: a room's players, opener, holder and winner, the last round's choosers (King
    of the Hill); the teams' members and the players with troops or a reserve (Team Turf); the seats, turn and
    winners (yard cards). Sorted, each once."""
    ids: set[str] = set()
    if (h := view.hill) is not None:
        ids.update(h.players, h.dice, [h.opener])
        ids.update(p for p in (h.holder, h.winner) if p)
        if h.last_round is not None:
            ids.update(h.last_round.choices)
            ids.update(p for p in (h.last_round.holder_before, h.last_round.holder_after) if p)
    if (t := view.team_turf) is not None:
        ids.update(t.team_of, t.reserve)
        for troops in t.board.values():
            ids.update(troops)
        ids.update(o.player_id for o in t.orders)
    if (y := view.yard_cards) is not None:
        ids.update(y.players, [y.opener])
        if y.table is not None:
            ids.update(s.player for s in y.table.seats)
            ids.update(y.table.winners, [y.table.turn.player])
    return sorted(ids)


@dataclass
class Modes:
    services: Services
    keys: IdempotencyKeys
    limiter: Limiter
    #: the players' display names the games' answers carry (``GameView.names``); None: answers without them
    players: DisplayNames | None = None

    async def named(self, view: GameView) -> NamedGameView:
        """``view`` with ``names``: the display name of every player it names (a page shows "Ana", never "player
        9ac9a7", and reads no roster for it); an unknown id is left out."""
        names = await self.players.display_names(named_players(view)) if self.players is not None else {}
        return NamedGameView(**dict(view), names={p: n for p, n in names.items() if n})

    async def open(self, cmd: CreateTeamTurf | OpenHill, caller_id: str, key: str | None, body: Any) -> NamedGameView:
        """Make the game of ``cmd`` (its ``command_id`` one per caller and key): a Team Turf game (T1, T2) or a
        King of the Hill room (K1). ``body``: the request's JSON, which a repeated ``key`` must repeat. Raises
        ApiError 422 ``invalid_input`` for a key reused with another body, the service's refusal otherwise."""
        subject = OPENS[type(cmd)]
        if isinstance(cmd, OpenHill):
            await self.limiter.hit("modes_open_player", caller_id, ("modes_seat_player", caller_id))
        else:
            await self.limiter.hit("modes_move_player", ORGANIZER)
        if key is not None:
            await self.keys.same_body_or_refuse(subject, caller_id, key, body)
        return await self.named(await self.services.ask(subject, cmd, GameView, TIMEOUT))

    async def games(self, mode: ModeName) -> GamesReply:
        """The latest games of ``mode``, newest first."""
        return await self.services.ask(subjects.MODES_GAMES, GamesRequest(mode=mode), GamesReply)

    async def game(self, game_id: str, mode: ModeName, viewer: str | None) -> NamedGameView:
        """The game as ``viewer`` sees it (their team's orders, their own choice; None: the public view), its
        players named. 404 ``not_found`` for no such game or a game of the other mode."""
        return await self.named(await self.check(game_id, mode, viewer))

    async def check(self, game_id: str, mode: ModeName, viewer: str | None) -> GameView:
        """:meth:`game` without the names: a move's check that the game is of ``mode`` (404 otherwise)."""
        view = await self.services.ask(subjects.MODES_GAME, GameRequest(game_id=game_id, player_id=viewer),
                                       GameView, TIMEOUT)
        if view.mode != mode:
            raise ApiError("not_found", "There is no game of this mode with that id.")
        return view

    async def move(self, mode: ModeName, cmd: Move, viewer: str | None) -> NamedGameView:
        """Count the write against its rate limit (429 ``rate_limited``: nothing sent), check the game's mode (a
        Team Turf id on a hill route is 404), then send ``cmd``; the game after it as ``viewer`` sees it."""
        who = getattr(cmd, "player_id", None) or ORGANIZER
        await self.limiter.hit("modes_seat_player" if isinstance(cmd, SEAT_MOVES) else "modes_move_player", who)
        await self.check(cmd.game_id, mode, viewer)
        return await self.named(await self.services.ask(MOVES[type(cmd)], cmd, GameView, TIMEOUT))

    async def order(self, cmd: GiveOrder) -> OrderReply:
        """T7: a Team Turf order (MOVE or ATTACK) for the open turn; ``{order_id, turn}``."""
        await self.limiter.hit("modes_move_player", cmd.player_id)
        await self.check(cmd.game_id, "team_turf", cmd.player_id)
        return await self.services.ask(subjects.MODES_ORDER, cmd, OrderReply, TIMEOUT)

    async def resolve(self, cmd: ResolveTurn) -> ResolveReply:
        """T9: resolve a Team Turf turn now, exactly once (``first`` false on a repeat)."""
        await self.limiter.hit("modes_move_player", ORGANIZER)
        await self.check(cmd.game_id, "team_turf", None)
        return await self.services.ask(subjects.MODES_RESOLVE, cmd, ResolveReply, TIMEOUT)

    async def log(self, game_id: str, offset: int = 0, limit: int = LOG_PAGE) -> GameLog:
        """T20, K16: a finished game's creation, seed and a page of its accepted actions; 403 ``forbidden``
        before it ended."""
        return await self.services.ask(subjects.MODES_LOG, LogRequest(game_id=game_id, offset=offset, limit=limit),
                                       GameLog, TIMEOUT)
