"""The yard card game (docs/rules/yard-cards.md) as the gateway's use cases: the modes service keeps the rooms and
decides; the gateway checks the room's mode first (an id of another mode is 404 ``not_found``) and passes the
service's refusals (409 with the ruling's code, 403 ``forbidden``) through unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turf_common.contracts import subjects
from turf_common.contracts.modes import GamesReply, GameView
from turf_common.contracts.yard import OpenYard, YardLobby, YardMoveCommand
from turf_common.rules.yard import YardMove
from turf_gateway.handlers.modes import TIMEOUT, Modes, NamedGameView


@dataclass
class YardCards:
    modes: Modes

    async def open(self, cmd: OpenYard, key: str | None, body: Any) -> NamedGameView:
        """Y2: a room in its lobby; a repeated ``Idempotency-Key`` with another body is 422 ``invalid_input``; the
        opens and seats of one player are rate limited as King of the Hill's are (429 ``rate_limited``, K19)."""
        await self.modes.limiter.hit("modes_open_player", cmd.player_id, ("modes_seat_player", cmd.player_id))
        if key is not None:
            await self.modes.keys.same_body_or_refuse(subjects.MODES_YARD_OPEN, cmd.player_id, key, body)
        return await self.modes.named(await self.modes.services.ask(subjects.MODES_YARD_OPEN, cmd, GameView, TIMEOUT))

    async def games(self) -> GamesReply:
        return await self.modes.games("yard_cards")

    async def game(self, game_id: str, viewer: str | None) -> NamedGameView:
        return await self.modes.game(game_id, "yard_cards", viewer)

    async def lobby(self, cmd: YardLobby) -> NamedGameView:
        await self.modes.limiter.hit("modes_seat_player" if cmd.act == "join" else "modes_move_player",
                                     cmd.player_id)
        await self.modes.check(cmd.game_id, "yard_cards", cmd.player_id)
        return await self.modes.named(await self.modes.services.ask(subjects.MODES_YARD_LOBBY, cmd, GameView,
                                                                    TIMEOUT))

    async def move(self, game_id: str, move: YardMove) -> NamedGameView:
        await self.modes.limiter.hit("modes_seat_player" if move.move == "leave" else "modes_move_player",
                                     move.player)
        await self.modes.check(game_id, "yard_cards", move.player)
        return await self.modes.named(await self.modes.services.ask(
            subjects.MODES_YARD_MOVE, YardMoveCommand(game_id=game_id, move=move), GameView, TIMEOUT))
