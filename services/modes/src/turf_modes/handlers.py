"""Use cases of the modes service over its ports: the gateway's commands on Team Turf games and King of the Hill
rooms, and the timer that resolves turns and rounds when the game clock reaches them (T9, K5).

Every change is one transaction on one game (its row locked): the game is replayed from its actions
(:mod:`turf_modes.games`), the pure rule applied, the new actions, the game's row and the events it implies
committed together. A resolution also records (game, turn) in ``resolutions``, so a turn resolves exactly once
however often it is asked for, and a crash before the commit leaves nothing behind (the timer asks again).
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

import structlog

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
    GameSummary,
    GameView,
    GiveOrder,
    JoinGame,
    LeaveGame,
    LogRequest,
    ModeName,
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
from turf_common.outbox import OutboxFlush
from turf_common.rules import hill, modereplay, teamturf
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource, seed_commitment
from turf_common.rules.yardstate import YardRefused
from turf_modes import games, snapshots
from turf_modes.outcomes import AlreadyResolved, Denied, Outcome, Step, refusal
from turf_modes.ports import Clock, Fields, GameRow, Games, ModesStore
from turf_modes.yard import YardGames

log = structlog.get_logger(__name__)

#: the modes whose players take seats in rooms (K19, Y2): bounded per player, left at a disqualification (K21, Y26)
SEATED: tuple[ModeName, ...] = ("hill", "yard_cards")


class ModesHandlers:
    def __init__(self, store: ModesStore, clock: Clock, relay: OutboxFlush, fields: Fields,
                 ids: Callable[[], str] = lambda: uuid.uuid4().hex[:16],
                 seeds: Callable[[], str] = lambda: secrets.token_hex(32)) -> None:
        self.store, self.clock, self.relay, self.fields = store, clock, relay, fields
        self.ids, self.seeds = ids, seeds
        self.replays = games.Replays()
        self.yard = YardGames(self)  # it runs its steps through this class's transaction

    # ------------------------------------------------------------------ the one way a game changes

    async def _act(self, game_id: str, step: Step, seating: str | None = None) -> GameRow:
        """Lock the game, run ``step`` on it, commit its actions, row, resolution, seats and events together,
        publish. ``seating``: a player about to take a seat in a room's lobby (K19: refused past the bound)."""
        now = await self.clock.now()
        async with self.store.tx() as tx:
            g = await tx.games.lock(game_id)
            if g is None:
                raise Denied("not_found", "There is no game with that id.")
            if seating is not None and g.mode in SEATED and g.status == "lobby":
                await self._room_for(tx.games, seating, game_id, g.mode)
            out = step(g, now)
            for a in out.actions:
                enc = a if isinstance(a, dict) else games.encode(a)
                await tx.games.append(g.game_id, g.logged, enc)
                g.actions.append(enc)
            if out.resolved is not None and not await tx.games.mark_resolved(g.game_id, out.resolved, now):
                raise AlreadyResolved
            for p in out.seat:
                await tx.games.seat(g.game_id, g.mode, p)
            for p in out.unseat:
                await tx.games.unseat(g.game_id, p)
            if g.status == "finished":
                await tx.games.unseat(g.game_id)
            self._snapshot(g)
            await tx.games.save(g)
            for subject, event in out.events:
                await tx.messages.stage(subject, event)
        if out.events:
            await self.relay.flush()
        return g

    async def _view_after(self, game_id: str, player_id: str | None, step: Step, seating: str | None = None,
                          ) -> GameView | Refusal:
        try:
            await self._act(game_id, step, seating)
        except (ModeRefused, Denied) as e:
            return refusal(e)
        return await self.game(GameRequest(game_id=game_id, player_id=player_id))

    def _snapshot(self, g: GameRow) -> None:
        """The game's state after this step's actions, kept with its log (not cached: not committed yet)."""
        if g.mode == "yard_cards":
            return   # Y5: a yard room is at most 40 rounds; its table is replayed from the log and kept in memory
        if g.mode == "team_turf":
            g.snapshot = snapshots.team_turf(self.replays.team_turf(g, self._field(g), keep=False))
        elif g.status != "lobby" and not g.config.get("closed"):
            g.snapshot = snapshots.room(*self.replays.room(g, self.fields.towns(), keep=False))
        else:
            return
        g.base, g.actions = g.logged, []

    @staticmethod
    async def _room_for(games_: Games, player_id: str, game_id: str | None = None, mode: ModeName = "hill") -> None:
        """K19: a player sits in at most ``max_rooms_per_player`` unfinished rooms at once (counted under the
        player's lock, so two seats taken at once in two rooms are counted one after the other)."""
        await games_.lock_player(player_id)
        seated = await games_.seats(player_id, mode)
        most = hill.HillConfig().max_rooms_per_player
        if game_id not in seated and len(seated) >= most:
            rooms = "yard cards rooms" if mode == "yard_cards" else "King of the Hill rooms"
            raise ModeRefused("too_many_rooms", f"You are already seated in {most} {rooms}; leave one (or let it "
                                                "finish) first.")

    def _field(self, g: GameRow) -> teamturf.Field:
        towns = g.config.get("towns")
        return self.fields.field(tuple(towns) if towns else None)

    def _team_turf(self, g: GameRow) -> tuple[teamturf.Field, teamturf.TeamTurfState]:
        if g.mode != "team_turf":
            raise Denied("invalid_input", "That game is a King of the Hill room, not a Team Turf game.")
        fld = self._field(g)
        return fld, self.replays.team_turf(g, fld)

    def _room(self, g: GameRow) -> hill.HillState:
        if g.mode != "hill":
            raise Denied("invalid_input", "That game is a Team Turf game, not a King of the Hill room.")
        if g.status == "lobby":
            raise ModeRefused("round_closed", "This room has not started yet.")
        if g.config.get("closed"):
            raise ModeRefused("game_over", "This room closed in its lobby: everyone left before it started.")
        return self.replays.room(g, self.fields.towns())[0]

    def _ended(self, g: GameRow, now: datetime, winners: tuple[str, ...] | list[str], by_organizer: bool
               ) -> tuple[str, Event]:
        """T20, K16: the game is over and its seed revealed with the end."""
        g.status, g.next_at = "finished", None
        return s.MODE_GAME_ENDED, GameEnded(occurred_at=now, game_id=g.game_id, mode=g.mode, winners=list(winners),
                                            by_organizer=by_organizer, seed=g.seed,
                                            seed_commitment=g.seed_commitment)

    # ------------------------------------------------------------------ creating

    async def _create(self, command_id: str, make: Callable[[str, str, datetime], tuple[GameRow, Event]],
                      viewer: str) -> GameView | Refusal:
        now = await self.clock.now()
        try:
            async with self.store.tx() as tx:
                game_id = await tx.games.by_command(command_id)
                if game_id is None:  # a retried command answers the game it made
                    g, event = make(self.ids(), self.seeds(), now)
                    if g.mode in SEATED:
                        await self._room_for(tx.games, g.created_by, None, g.mode)
                    # insert-or-get: a replica that raced us to the same command answers its game, not a 503
                    game_id = await tx.games.insert(command_id, g)
                    if game_id == g.game_id:
                        await tx.messages.stage(s.MODE_GAME_CREATED, event)
                        if g.mode in SEATED:
                            await tx.games.seat(game_id, g.mode, g.created_by)
        except ModeRefused as e:
            return refusal(e)
        await self.relay.flush()
        return await self.game(GameRequest(game_id=game_id, player_id=viewer))

    async def create_team_turf(self, cmd: CreateTeamTurf) -> GameView | Refusal:
        """T1, T2: a running game; its seed committed now, its turn due at the next 23:59 New York (T9)."""
        try:
            fld = self.fields.field(tuple(cmd.towns) if cmd.towns else None)
        except ModeRefused as e:
            return refusal(e)

        def make(game_id: str, seed: str, now: datetime) -> tuple[GameRow, Event]:
            st = teamturf.new_game(game_id, fld, cmd.teams, SeededSource(seed, game_id), cmd.homes)
            g = GameRow(game_id, "team_turf", "running", cmd.organizer_id, now, seed, seed_commitment(seed),
                        {"teams": list(st.teams), "towns": cmd.towns, "homes": dict(st.homes)},
                        turn=1, next_at=teamturf.next_turn_at(now))
            return g, GameCreated(occurred_at=now, game_id=game_id, mode="team_turf", created_by=cmd.organizer_id,
                                  seed_commitment=g.seed_commitment, teams=list(st.teams), homes=dict(st.homes))

        return await self._create(cmd.command_id, make, cmd.organizer_id)

    async def open_hill(self, cmd: OpenHill) -> GameView | Refusal:
        """K1: a room in its lobby, the opener its first player; its seed committed now (K16)."""
        if cmd.hill not in self.fields.towns():
            return refusal(ModeRefused("invalid_target"))

        def make(game_id: str, seed: str, now: datetime) -> tuple[GameRow, Event]:
            g = GameRow(game_id, "hill", "lobby", cmd.player_id, now, seed, seed_commitment(seed),
                        {"hill": cmd.hill, "opener": cmd.player_id, "players": [cmd.player_id],
                         "round_seconds": cmd.round_seconds})
            return g, GameCreated(occurred_at=now, game_id=game_id, mode="hill", created_by=cmd.player_id,
                                  seed_commitment=g.seed_commitment, hill=cmd.hill)

        return await self._create(cmd.command_id, make, cmd.player_id)

    # ------------------------------------------------------------------ joining, starting, leaving

    async def join(self, cmd: JoinGame) -> GameView | Refusal:
        """T3 (Team Turf: a team, any time, once) or K1 (a room's lobby, up to 5 players)."""
        def step(g: GameRow, now: datetime) -> Outcome:
            joined = PlayerJoined(occurred_at=now, game_id=g.game_id, mode=g.mode, player_id=cmd.player_id,
                                  team=cmd.team if g.mode == "team_turf" else None)
            if g.mode == "team_turf":
                if cmd.team is None:
                    raise ModeRefused("unknown_team", "Name the team you join.")
                teamturf.join(self._team_turf(g)[1], cmd.player_id, cmd.team)
                return Outcome([modereplay.Join(cmd.player_id, cmd.team)], [(s.MODE_PLAYER_JOINED, joined)],
                               seat=[cmd.player_id])
            players = list(g.config["players"])
            if g.status != "lobby":
                raise ModeRefused("room_started")
            if cmd.player_id in players:
                raise ModeRefused("already_joined", "You are already in this room.")
            if cmd.player_id in g.config.get("removed", []):
                raise ModeRefused("removed_from_room")   # K20
            if len(players) >= hill.HillConfig().max_players:
                raise ModeRefused("wrong_player_count", "This room is full: 5 players at most (K1).")
            g.config = {**g.config, "players": [*players, cmd.player_id]}
            return Outcome([], [(s.MODE_PLAYER_JOINED, joined)], seat=[cmd.player_id])

        return await self._view_after(cmd.game_id, cmd.player_id, step, seating=cmd.player_id)

    async def start(self, cmd: StartRoom) -> GameView | Refusal:
        """K1, K2: the opener starts the room with 3 to 5 players; round 1 is open until its time limit (K5)."""
        def step(g: GameRow, now: datetime) -> Outcome:
            if g.mode != "hill":
                raise Denied("invalid_input", "Only a King of the Hill room is started.")
            if g.status != "lobby":
                raise ModeRefused("room_started")
            if cmd.player_id != g.config["opener"]:
                raise Denied("forbidden", "Only the player who opened the room starts it.")
            hill.open_room(g.game_id, g.config["hill"], g.config["players"], self.fields.towns())
            g.status, g.turn = "running", 1
            g.next_at = now + timedelta(seconds=g.config["round_seconds"])
            return Outcome([], [(s.MODE_ROOM_STARTED, RoomStarted(
                occurred_at=now, game_id=g.game_id, mode="hill", players=list(g.config["players"]),
                round_deadline=g.next_at))])

        return await self._view_after(cmd.game_id, cmd.player_id, step)

    async def leave(self, cmd: LeaveGame) -> GameView | Refusal:
        """T4 (reserve lost, troops stay) or K17 (out of the room; the last one left wins)."""
        return await self._view_after(cmd.game_id, cmd.player_id, self._leaving(cmd.player_id))

    def _leaving(self, player_id: str) -> Step:
        """The step of ``player_id`` leaving a game: T4 (and T23), K17 (and K21)."""
        def step(g: GameRow, now: datetime) -> Outcome:
            left = PlayerLeft(occurred_at=now, game_id=g.game_id, mode=g.mode, player_id=player_id)
            if g.mode == "yard_cards":
                return self.yard.leaving(g, player_id, now)
            if g.mode == "team_turf":
                _, lost = teamturf.leave(self._team_turf(g)[1], player_id)
                return Outcome([modereplay.Leave(player_id)],
                               [(s.MODE_PLAYER_LEFT, left.model_copy(update={"lost": lost}))], unseat=[player_id])
            if g.status == "lobby":
                return self._out_of_lobby(g, now, player_id, left)
            st, ended = hill.leave(self._room(g), player_id)
            out = Outcome([modereplay.Leave(player_id)], [(s.MODE_PLAYER_LEFT, left)], unseat=[player_id])
            if ended:
                out.events.append(self._ended(g, now, [ended[0].winner] if ended[0].winner else [], False))
            elif hill.all_chosen(st) and st.choices:
                self._resolve_round(g, st, now, out)
            return out
        return step

    def _out_of_lobby(self, g: GameRow, now: datetime, player_id: str, left: PlayerLeft) -> Outcome:
        """K17 in a lobby: the seat is freed; the next player opens the room; a lobby left empty closes."""
        players = [p for p in g.config["players"] if p != player_id]
        if len(players) == len(g.config["players"]):
            raise ModeRefused("not_in_room")
        g.config = {**g.config, "players": players, "opener": players[0] if players else g.config["opener"]}
        out = Outcome([], [(s.MODE_PLAYER_LEFT, left)], unseat=[player_id])
        if not players:   # nobody to start it: closed, never played (no log to audit)
            g.config = {**g.config, "closed": True}
            out.events.append(self._ended(g, now, [], False))
        return out

    async def remove(self, cmd: RemovePlayer) -> GameView | Refusal:
        """K20: the opener removes a seated player from the room's lobby; they may not rejoin it."""
        def step(g: GameRow, now: datetime) -> Outcome:
            if g.mode != "hill":
                raise Denied("invalid_input", "Only a King of the Hill room's players are removed.")
            if g.status != "lobby":
                raise ModeRefused("room_started", "A player is removed only before the room starts (K20).")
            if cmd.player_id != g.config["opener"]:
                raise Denied("forbidden", "Only the player who opened the room removes a player from it.")
            if cmd.target_id == cmd.player_id:
                raise Denied("invalid_input", "The opener leaves the room rather than removing themself.")
            if cmd.target_id not in g.config["players"]:
                raise ModeRefused("not_in_room", "That player is not seated in this room.")
            out = self._out_of_lobby(g, now, cmd.target_id, PlayerLeft(
                occurred_at=now, game_id=g.game_id, mode="hill", player_id=cmd.target_id))
            g.config = {**g.config, "removed": [*g.config.get("removed", []), cmd.target_id]}
            return out

        return await self._view_after(cmd.game_id, cmd.player_id, step)

    async def player_removed(self, ev: PlayerDisqualified) -> None:
        """T23, K21: a disqualified (R28) or withdrawn (R30) player leaves every game they are seated in as a
        leaver does. Idempotent: a game they already left refuses the leave, which changes nothing."""
        async with self.store.tx() as tx:
            seated = await tx.games.seats(ev.player_id)
        for game_id in seated:
            try:
                await self._act(game_id, self._leaving(ev.player_id))
            except (ModeRefused, Denied) as e:   # gone already, or the game ended meanwhile
                log.info("modes removal skipped", game_id=game_id, player_id=ev.player_id, reason=refusal(e).reason)
            except YardRefused as e:
                log.info("modes removal skipped", game_id=game_id, player_id=ev.player_id, reason=e.code)

    # ------------------------------------------------------------------ Team Turf moves

    async def place(self, cmd: PlaceTroops) -> GameView | Refusal:
        """T6: at once and visible to all."""
        def step(g: GameRow, now: datetime) -> Outcome:
            fld, st = self._team_turf(g)
            teamturf.place(st, fld, cmd.player_id, cmd.town, cmd.n)
            return Outcome([modereplay.Place(cmd.player_id, cmd.town, cmd.n)], [(s.MODE_TROOPS_PLACED, TroopsPlaced(
                occurred_at=now, game_id=g.game_id, mode="team_turf", player_id=cmd.player_id,
                team=st.team_of[cmd.player_id], town=cmd.town, n=cmd.n))])

        return await self._view_after(cmd.game_id, cmd.player_id, step)

    async def order(self, cmd: GiveOrder) -> OrderReply | Refusal:
        """T7: an order of the open turn, checked against the board now; seen by the player's team only."""
        order = teamturf.Order(self.ids(), cmd.player_id, cmd.kind, cmd.src, cmd.dst, cmd.n)

        def step(g: GameRow, now: datetime) -> Outcome:
            fld, st = self._team_turf(g)
            teamturf.give_order(st, fld, order, cmd.turn)
            return Outcome([modereplay.Give(order, cmd.turn)])

        try:
            await self._act(cmd.game_id, step)
        except (ModeRefused, Denied) as e:
            return refusal(e)
        return OrderReply(order_id=order.order_id, turn=cmd.turn)

    async def withdraw(self, cmd: WithdrawOrder) -> GameView | Refusal:
        """T7: drop one of the player's orders before the turn."""
        def step(g: GameRow, now: datetime) -> Outcome:
            _, st = self._team_turf(g)
            teamturf.withdraw_order(st, cmd.player_id, cmd.order_id)
            return Outcome([modereplay.Withdraw(cmd.player_id, cmd.order_id)])

        return await self._view_after(cmd.game_id, cmd.player_id, step)

    async def end(self, cmd: EndGame) -> GameView | Refusal:
        """T22: the organizer ends a Team Turf game; the seed is revealed."""
        def step(g: GameRow, now: datetime) -> Outcome:
            _, st = self._team_turf(g)
            _, ended = teamturf.end_by_organizer(st)
            return Outcome([modereplay.End()], [self._ended(g, now, ended.winners, True)])

        return await self._view_after(cmd.game_id, None, step)

    # ------------------------------------------------------------------ King of the Hill choices

    async def choose(self, cmd: ChooseAction) -> GameView | Refusal:
        """K4: a secret choice; the round resolves at once when every chooser has chosen (K5)."""
        def step(g: GameRow, now: datetime) -> Outcome:
            st = hill.choose(self._room(g), cmd.player_id, cmd.round, cmd.choice)
            out = Outcome([modereplay.Choose(cmd.player_id, cmd.round, cmd.choice)])
            if hill.all_chosen(st):
                self._resolve_round(g, st, now, out)
            return out

        return await self._view_after(cmd.game_id, cmd.player_id, step)

    # ------------------------------------------------------------------ resolution (T9, K5): exactly once

    def _resolve_round(self, g: GameRow, st: hill.HillState, now: datetime, out: Outcome) -> None:
        """K4–K18 on ``st`` (the room with this step's actions applied): appended to ``out``."""
        new, events = hill.resolve_round(st, SeededSource(g.seed, g.game_id))
        out.actions.append(modereplay.Resolve())
        out.resolved = st.round
        g.turn = new.round
        g.next_at = None if new.finished else now + timedelta(seconds=g.config["round_seconds"])
        for e in events:
            if isinstance(e, hill.RoundResolved):
                out.events.append((s.MODE_ROUND_RESOLVED, RoundResolved(
                    occurred_at=now, game_id=g.game_id, mode="hill", result=games.round_out(e),
                    round_deadline=g.next_at)))
            else:
                out.events.append(self._ended(g, now, [e.winner] if e.winner else [], False))

    def _resolve_turn(self, g: GameRow, turn: int, now: datetime) -> Outcome:
        """T9–T21 for turn ``turn``; the next turn is due at the 23:59 after this one's instant (T9)."""
        fld, st = self._team_turf(g)
        if st.finished:
            raise ModeRefused("game_over")
        if turn < st.turn:
            raise AlreadyResolved
        if turn > st.turn:
            raise ModeRefused("turn_not_open", f"Turn {turn} is not open yet; the open turn is {st.turn}.")
        new, events = teamturf.resolve_turn(st, fld, SeededSource(g.seed, g.game_id))
        g.turn = new.turn
        g.next_at = teamturf.next_turn_at(max(now, g.next_at or now))
        out = Outcome([modereplay.Resolve()], resolved=turn)
        for e in events:
            if isinstance(e, teamturf.TurnResolved):
                out.events.append((s.MODE_TURN_RESOLVED, TurnResolved(
                    occurred_at=now, game_id=g.game_id, mode="team_turf", turn=e.turn, moves=e.moves,
                    cards=e.cards, battles=e.battles, killed=e.killed,
                    conquests={t: list(v) for t, v in e.conquests.items()}, eliminated=list(e.eliminated),
                    lost=e.lost, bonuses={t: {str(k): v for k, v in b.items()} for t, b in e.bonuses.items()},
                    reinforcements=dict(e.reinforcements), controlled=dict(e.controlled),
                    board={t: dict(v) for t, v in sorted(new.board.items())},
                    next_turn_at=None if new.finished else g.next_at)))
            else:
                out.events.append(self._ended(g, now, e.winners, False))
        return out

    async def resolve(self, cmd: ResolveTurn) -> ResolveReply | Refusal:
        """T9 (Team Turf's turn) or K5 (a room's round, its unchosen players recruiting), exactly once."""
        def step(g: GameRow, now: datetime) -> Outcome:
            if g.mode == "team_turf":
                return self._resolve_turn(g, cmd.turn, now)
            if g.mode == "yard_cards":
                return self.yard.idle(g, cmd.turn, now)  # Y25
            st = self._room(g)
            if st.finished:
                raise ModeRefused("game_over")
            if cmd.turn < st.round:
                raise AlreadyResolved
            if cmd.turn > st.round:
                raise ModeRefused("round_closed")
            out = Outcome()
            self._resolve_round(g, st, now, out)
            return out

        try:
            await self._act(cmd.game_id, step)
        except AlreadyResolved:
            return ResolveReply(game_id=cmd.game_id, turn=cmd.turn, first=False)
        except (ModeRefused, Denied) as e:
            return refusal(e)
        return ResolveReply(game_id=cmd.game_id, turn=cmd.turn, first=True)

    async def tick(self) -> int:
        """Resolve every turn and round the game clock has reached; returns how many resolved now."""
        done = 0
        for game_id, turn in await self.store.due(await self.clock.now()):
            try:
                reply = await self.resolve(ResolveTurn(game_id=game_id, turn=turn))
            except Exception:   # one game that fails (its log, a lost connection) does not hold up the others
                log.exception("modes resolution failed", game_id=game_id, turn=turn)
                continue
            done += isinstance(reply, ResolveReply) and reply.first
        return done

    async def run_timers(self, interval: float) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a database or clock outage: try again next round, the service keeps serving
                log.exception("modes timer failed")
            await asyncio.sleep(interval)

    # ------------------------------------------------------------------ reading

    async def game(self, q: GameRequest) -> GameView | Refusal:
        g = await self.store.get(q.game_id)
        if g is None:
            return refusal(Denied("not_found", "There is no game with that id."))
        view = GameView(game_id=g.game_id, mode=g.mode, status=g.status, created_by=g.created_by,
                        created_at=g.created_at, seed_commitment=g.seed_commitment,
                        seed=g.seed if g.status == "finished" else None)
        if g.mode == "team_turf":
            fld = self._field(g)
            tt = self.replays.team_turf(g, fld)
            return view.model_copy(update={"team_turf": games.team_turf_view(tt, fld, g.next_at, q.player_id)})
        if g.mode == "yard_cards":
            return view.model_copy(update={"yard_cards": self.yard.room(g, q.player_id)})
        if g.status == "lobby" or g.config.get("closed"):
            return view.model_copy(update={"hill": games.lobby_view(g)})
        st, last = self.replays.room(g, self.fields.towns())
        return view.model_copy(update={"hill": games.hill_view(g, st, last, q.player_id)})

    async def games(self, q: GamesRequest) -> GamesReply:
        rows = await self.store.latest(q.mode, q.limit)
        return GamesReply(games=[GameSummary(
            game_id=g.game_id, mode=g.mode, status=g.status, created_at=g.created_at,
            players=len(g.config["players"]) if g.mode != "team_turf" else None,
            # a room or a game is named by its hill or its teams, never by its id
            hill=g.config.get("hill") if g.mode == "hill" else None,
            teams=list(g.config["teams"]) if g.mode == "team_turf" else None) for g in rows])

    async def log(self, q: LogRequest) -> GameLog | Refusal:
        """T20, K16: what the audit replays, once the game has ended: while it runs, its log holds the open turn's
        orders (T7: their team's only) and the open round's choices (K4: secret), so it is refused (``forbidden``)."""
        g = await self.store.get(q.game_id)
        if g is None:
            return refusal(Denied("not_found", "There is no game with that id."))
        if g.status != "finished":
            return refusal(Denied("forbidden", "A game's log and seed are public once it has ended; its orders and "
                                               "choices are secret until then."))
        page = await self.store.actions(g.game_id, q.offset, q.limit)
        end = q.offset + len(page)
        return GameLog(game_id=g.game_id, mode=g.mode, config=g.config, seed_commitment=g.seed_commitment,
                       seed=g.seed, actions=page, offset=q.offset, total=g.logged,
                       next_offset=end if end < g.logged else None)
