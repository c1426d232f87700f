"""The yard card game in the modes service (docs/rules/yard-cards.md): rooms of 2 to 5 opened by any verified
player, their lobby, the moves of the pure rules (``turf_common.rules.yard``) and the timer's idle turn (Y25).

A room is a game row like the other modes': its ``config`` (opener, players, turn seconds) and its accepted moves
(JSON) replay its state from the seed (Y5); each change is one transaction through
:meth:`turf_modes.handlers.ModesHandlers._act`, the events in the outbox with it.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from turf_common.contracts import subjects as s
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.modes import GameCreated, GameRequest, GameView, PlayerJoined, RoomStarted
from turf_common.contracts.yard import (
    OpenYard,
    YardEventOut,
    YardLobby,
    YardMoveCommand,
    YardMoved,
    YardRoom,
    YardTable,
)
from turf_common.rules import yard
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource, seed_commitment
from turf_common.rules.yardcatalogue import Catalogue, starter
from turf_common.rules.yardstate import RULES_VERSION, YardConfig, YardEvent, YardRefused, YardState, config_for
from turf_common.rules.yardview import view
from turf_modes.outcomes import AlreadyResolved, Denied, Outcome, refusal
from turf_modes.ports import GameRow

if TYPE_CHECKING:
    from turf_modes.handlers import ModesHandlers

MOVE: TypeAdapter[Any] = TypeAdapter(yard.YardMove)
CFG = YardConfig()


def rules(g: GameRow) -> YardConfig:
    """The rules the room is played by: a room opened before Y29 and Y30 (no ``rules`` in its config) keeps the
    first ones, so that its log replays as it was played."""
    return config_for(g.config.get("rules"))


def decode(action: dict[str, Any]) -> Any:
    """A stored move back into the rules' model."""
    return MOVE.validate_python(action)


class YardGames:
    def __init__(self, h: ModesHandlers, cat: Catalogue | None = None, keep: int = 128) -> None:
        self.h, self.cat, self.keep = h, cat or starter(), keep
        self._kept: OrderedDict[str, tuple[int, YardState]] = OrderedDict()

    # ------------------------------------------------------------------ state

    def state(self, g: GameRow) -> YardState:
        """Y5: the room's table as its moves replay it; the replay of a prefix is kept (a log only grows)."""
        n, st = self._kept.get(g.game_id, (0, None))  # type: ignore[arg-type]
        if st is None or n > len(g.actions):
            n = 0
            st, _ = yard.open_game(g.game_id, g.config["players"], self.cat, SeededSource(g.seed, g.game_id),
                                   rules(g))
        for a in g.actions[n:]:
            st, _ = yard.apply(st, self.cat, decode(a), rules(g))
        self._kept[g.game_id] = (len(g.actions), st)
        self._kept.move_to_end(g.game_id)
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)
        return st

    def room(self, g: GameRow, viewer: str | None) -> YardRoom:
        c = g.config
        table = None
        if g.status != "lobby" and not g.config.get("closed"):  # Y28: a closed lobby has no table
            table = YardTable.model_validate(view(self.state(g), self.cat, viewer))
        # the page offers a card's choices (Y11 extra buys, Y18 targets, Y19 a bribe's cards) from its actions
        cards = [{"id": x.id, "name": x.name, "kind": x.kind, "cost": x.cost, "vp": x.vp, "places": x.places,
                  "text": x.text, "actions": [a.model_dump(mode="json") for a in x.actions],
                  "bribe": x.bribe.model_dump(mode="json") if x.bribe else None} for x in self.cat.cards]
        return YardRoom(opener=c["opener"], players=list(c["players"]), turn_seconds=c["turn_seconds"],
                        turn_deadline=g.next_at, table=table, catalogue_cards=cards)

    # ------------------------------------------------------------------ commands

    async def _view_after(self, game_id: str, viewer: str | None, step: Any, seating: str | None = None,
                          ) -> GameView | Refusal:
        try:
            await self.h._act(game_id, step, seating)
        except YardRefused as e:
            return Refusal(reason=e.code, message=e.message)
        except (ModeRefused, Denied) as e:
            return refusal(e)
        return await self.h.game(GameRequest(game_id=game_id, player_id=viewer))

    async def open(self, cmd: OpenYard) -> GameView | Refusal:
        """Y2: a room in its lobby, the opener its first player; its seed committed now (Y5)."""
        def make(game_id: str, seed: str, now: datetime) -> tuple[GameRow, Event]:
            g = GameRow(game_id, "yard_cards", "lobby", cmd.player_id, now, seed, seed_commitment(seed),
                        {"opener": cmd.player_id, "players": [cmd.player_id], "turn_seconds": cmd.turn_seconds,
                         "catalogue": f"{self.cat.name} {self.cat.version}", "rules": RULES_VERSION})
            return g, GameCreated(occurred_at=now, game_id=game_id, mode="yard_cards", created_by=cmd.player_id,
                                  seed_commitment=g.seed_commitment)

        return await self.h._create(cmd.command_id, make, cmd.player_id)

    def _mine(self, g: GameRow) -> None:
        if g.mode != "yard_cards":
            raise Denied("not_found", "There is no yard cards room with that id.")
        if g.config.get("closed"):
            raise ModeRefused("game_over", "This room closed in its lobby: everyone left before it started (Y28).")

    async def lobby(self, cmd: YardLobby) -> GameView | Refusal:
        """Y2: join a room not yet started (5 at most); its opener starts it with 2 to 5 players."""
        def step(g: GameRow, now: datetime) -> Outcome:
            self._mine(g)
            if g.status != "lobby":
                raise ModeRefused("room_started")
            players = list(g.config["players"])
            if cmd.act == "join":
                if cmd.player_id in players:
                    raise ModeRefused("already_joined", "You are already in this room.")
                if len(players) >= CFG.max_players:
                    raise YardRefused("wrong_player_count", "This room is full: 5 players at most (Y2).")
                g.config = {**g.config, "players": [*players, cmd.player_id]}
                return Outcome([], [(s.MODE_PLAYER_JOINED, PlayerJoined(
                    occurred_at=now, game_id=g.game_id, mode="yard_cards", player_id=cmd.player_id))],
                    seat=[cmd.player_id])
            if cmd.player_id != g.config["opener"]:
                raise Denied("forbidden", "Only the player who opened the room starts it.")
            st, _ = yard.open_game(g.game_id, players, self.cat, SeededSource(g.seed, g.game_id), rules(g))
            g.status, g.turn = "running", st.turn_no
            g.next_at = now + timedelta(seconds=g.config["turn_seconds"])
            return Outcome([], [(s.MODE_ROOM_STARTED, RoomStarted(
                occurred_at=now, game_id=g.game_id, mode="yard_cards", players=players, round_deadline=g.next_at))])

        return await self._view_after(cmd.game_id, cmd.player_id, step,
                                      seating=cmd.player_id if cmd.act == "join" else None)

    def _apply(self, g: GameRow, move: Any, now: datetime, out: Outcome) -> None:
        """One move of the rules on the room: logged, its events published, the turn's deadline moved on (Y25)."""
        st = self.state(g)
        new, events = yard.apply(st, self.cat, move, rules(g))
        out.actions.append(move.model_dump(mode="json"))
        if new.turn_no != st.turn_no:
            g.turn = new.turn_no
            g.next_at = now + timedelta(seconds=g.config["turn_seconds"])
        if new.finished:
            g.next_at = None
        out.events.append((s.MODE_YARD_MOVED, YardMoved(
            occurred_at=now, game_id=g.game_id, player_id=move.player, move=move.move,
            events=[event_out(e) for e in events], turn_deadline=g.next_at)))
        if new.finished:
            out.events.append(self.h._ended(g, now, new.winners, False))

    async def move(self, cmd: YardMoveCommand) -> GameView | Refusal:
        """Y6–Y26: a move of the player whose turn it is (or a leave, any time)."""
        def step(g: GameRow, now: datetime) -> Outcome:
            self._mine(g)
            out = Outcome()
            if g.status == "lobby" and cmd.move.move == "leave":
                return self._out_of_lobby(g, cmd.move.player, now)
            if g.status == "lobby":
                raise ModeRefused("round_closed", "This room has not started yet.")
            self._apply(g, cmd.move, now, out)
            return out

        return await self._view_after(cmd.game_id, cmd.move.player, step)

    def leaving(self, g: GameRow, player_id: str, now: datetime) -> Outcome:
        """Y26 (as T23, K21): a disqualified or withdrawn player leaves the room as a leaver does: out of a lobby,
        or their ``leave`` move in a running game (refused ``not_in_room`` when they are not seated)."""
        self._mine(g)
        if g.status == "lobby":
            return self._out_of_lobby(g, player_id, now)
        out = Outcome(unseat=[player_id])
        self._apply(g, yard.Leave(player=player_id), now, out)
        return out

    def _out_of_lobby(self, g: GameRow, player_id: str, now: datetime) -> Outcome:
        """Y28: a leaver's lobby seat is freed (the next player opens the room if the opener left); a lobby left
        empty closes, ended with no winner and never played, so it is no longer listed as open nor counted among
        anyone's rooms (Y2, K19)."""
        players = [p for p in g.config["players"] if p != player_id]
        if len(players) == len(g.config["players"]):
            raise YardRefused("not_in_room")
        g.config = {**g.config, "players": players, "opener": players[0] if players else g.config["opener"]}
        out = Outcome(unseat=[player_id])
        if not players:
            g.config = {**g.config, "closed": True}
            out.events.append(self.h._ended(g, now, [], False))
        return out

    def idle(self, g: GameRow, turn: int, now: datetime) -> Outcome:
        """Y25: the turn's time limit passed: the player of turn ``turn`` plays it idle, exactly once."""
        st = self.state(g)
        if st.finished:
            raise ModeRefused("game_over")
        if turn < st.turn_no:
            raise AlreadyResolved
        if turn > st.turn_no:
            raise ModeRefused("round_closed", f"Turn {turn} has not begun; the turn now is {st.turn_no}.")
        out = Outcome(resolved=turn)
        self._apply(g, yard.Idle(player=st.seats[st.current].player), now, out)
        return out


def event_out(e: YardEvent) -> YardEventOut:
    return YardEventOut(kind=e.kind, data={k: list(v) if isinstance(v, tuple) else v for k, v in e.data.items()})
