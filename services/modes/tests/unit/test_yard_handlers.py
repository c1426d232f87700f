"""Yard cards rooms through the modes service's use cases, on the memory store (docs/rules/yard-cards.md)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from modes_world import NOON, SEED, World, ok

from turf_common.contracts import subjects as s
from turf_common.contracts.base import Refusal
from turf_common.contracts.modes import GameRequest, LogRequest
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.yard import OpenYard, YardLobby, YardMoveCommand
from turf_common.rules import yard
from turf_common.rules.yardcatalogue import starter
from turf_modes.yard import decode
from turfwar.simulate.yardcards import bot_move
from turfwar.yardaudit import audit_yard


async def _room(w: World, players: tuple[str, ...] = ("a", "b")) -> str:
    gid = str(ok(await w.h.yard.open(OpenYard(command_id="y1", player_id=players[0], turn_seconds=60))).game_id)
    for p in players[1:]:
        ok(await w.h.yard.lobby(YardLobby(game_id=gid, player_id=p, act="join")))
    ok(await w.h.yard.lobby(YardLobby(game_id=gid, player_id=players[0], act="start")))
    return gid


async def test_y2_a_room_of_two_to_five_started_by_its_opener(w: World) -> None:
    gid = str(ok(await w.h.yard.open(OpenYard(command_id="y1", player_id="a"))).game_id)
    alone = await w.h.yard.lobby(YardLobby(game_id=gid, player_id="a", act="start"))
    assert isinstance(alone, Refusal) and alone.reason == "wrong_player_count"
    ok(await w.h.yard.lobby(YardLobby(game_id=gid, player_id="b", act="join")))
    by_b = await w.h.yard.lobby(YardLobby(game_id=gid, player_id="b", act="start"))
    assert isinstance(by_b, Refusal) and by_b.reason == "forbidden"
    view = ok(await w.h.yard.lobby(YardLobby(game_id=gid, player_id="a", act="start")))
    assert view.status == "running" and view.yard_cards.table.turn.step == "start"
    late = await w.h.yard.lobby(YardLobby(game_id=gid, player_id="c", act="join"))
    assert isinstance(late, Refusal) and late.reason == "room_started"


async def test_y6_a_refused_move_answers_its_code_and_changes_nothing(w: World) -> None:
    gid = await _room(w)
    before = ok(await w.h.game(GameRequest(game_id=gid)))
    first = before.yard_cards.table.turn.player
    other = "b" if first == "a" else "a"
    r = await w.h.yard.move(YardMoveCommand(game_id=gid, move=yard.Start(player=other)))
    assert isinstance(r, Refusal) and r.reason == "not_your_turn" and r.message == "It is not your turn."
    r = await w.h.yard.move(YardMoveCommand(game_id=gid, move=yard.Work(player=first)))
    assert isinstance(r, Refusal) and r.reason == "wrong_step"
    assert ok(await w.h.game(GameRequest(game_id=gid))) == before
    assert not w.events(s.MODE_YARD_MOVED)


async def test_y27_the_room_hides_the_others_hands_and_the_moves_event_is_public(w: World) -> None:
    gid = await _room(w)
    mine = ok(await w.h.game(GameRequest(game_id=gid, player_id="a"))).yard_cards.table
    spectator = ok(await w.h.game(GameRequest(game_id=gid))).yard_cards.table
    assert [x.hand is not None for x in mine.seats] == [True, False]
    assert all(x.hand is None and x.garage is None for x in spectator.seats)
    first = mine.turn.player
    ok(await w.h.yard.move(YardMoveCommand(game_id=gid, move=yard.Start(player=first))))
    (moved,) = w.events(s.MODE_YARD_MOVED)
    assert moved.move == "start" and moved.player_id == first  # type: ignore[attr-defined]


async def test_y25_the_time_limit_plays_the_turn_idle_exactly_once(w: World) -> None:
    gid = await _room(w)
    first = ok(await w.h.game(GameRequest(game_id=gid))).yard_cards.table.turn.player
    w.clock.advance(timedelta(seconds=59))
    assert await w.h.tick() == 0
    w.clock.advance(timedelta(seconds=1))
    assert await w.h.tick() == 1
    assert await w.h.tick() == 0
    view = ok(await w.h.game(GameRequest(game_id=gid))).yard_cards
    assert view.table.turn.player != first and view.turn_deadline is not None
    (moved,) = w.events(s.MODE_YARD_MOVED)
    assert moved.move == "idle" and [e.kind for e in moved.events][-1] == "turn.started"  # type: ignore[attr-defined]


async def test_y5_a_whole_game_ends_reveals_its_seed_and_its_log_replays_it(w: World) -> None:
    gid = await _room(w, ("a", "b", "c"))
    cat, rng = starter(), random.Random(4)
    for _ in range(3000):
        g = await w.store.get(gid)
        assert g is not None
        st = w.h.yard.state(g)
        if st.finished:
            break
        ok(await w.h.yard.move(YardMoveCommand(game_id=gid, move=bot_move(st, cat, rng))))
    view = ok(await w.h.game(GameRequest(game_id=gid)))
    assert view.status == "finished" and view.seed == SEED
    log = ok(await w.h.log(LogRequest(game_id=gid)))
    final, _ = yard.replay(gid, log.config["players"], cat, log.seed, [decode(a) for a in log.actions])
    assert final.finished and final.winners == view.yard_cards.table.winners
    (ended,) = w.events(s.MODE_GAME_ENDED)
    assert ended.winners == final.winners  # type: ignore[attr-defined]
    published = [e.model_dump(mode="json") for _, e in w.relay.sent]
    audit = audit_yard(log.model_dump(mode="json"), published)
    assert audit.ok and audit.resolutions == len(log.actions), audit.mismatches
    moved = next(e for e in published if e["type"] == "mode.yard_moved" and e["move"] == "side")
    moved["events"][0]["data"]["side"] = "nowhere"   # one published move that the replay does not give
    assert len(audit_yard(log.model_dump(mode="json"), published).mismatches) == 1


def _disqualified(player_id: str) -> PlayerDisqualified:
    now = datetime.fromisoformat(NOON)
    return PlayerDisqualified(event_id=f"dq-{player_id}", occurred_at=now, player_id=player_id, at=now)


async def test_y26_a_disqualified_player_leaves_a_running_room_and_the_last_one_wins(w: World) -> None:
    gid = await _room(w, ("a", "b"))
    await w.h.player_removed(_disqualified("b"))
    view = ok(await w.h.game(GameRequest(game_id=gid)))
    assert view.status == "finished" and view.yard_cards.table.winners == ["a"]
    async with w.store.tx() as tx:
        assert await tx.games.seats("a") == [] and await tx.games.seats("b") == []


async def test_y26_a_disqualified_players_lobby_seat_is_freed_and_rooms_are_bounded_per_player(w: World) -> None:
    gid = str(ok(await w.h.yard.open(OpenYard(command_id="y1", player_id="a"))).game_id)
    ok(await w.h.yard.lobby(YardLobby(game_id=gid, player_id="b", act="join")))
    await w.h.player_removed(_disqualified("b"))
    assert ok(await w.h.game(GameRequest(game_id=gid))).yard_cards.players == ["a"]
    for n in (2, 3):
        ok(await w.h.yard.open(OpenYard(command_id=f"y{n}", player_id="a")))
    fourth = await w.h.yard.open(OpenYard(command_id="y4", player_id="a"))
    assert isinstance(fourth, Refusal) and fourth.reason == "too_many_rooms"


async def test_y28_a_lobby_everyone_left_closes_and_frees_the_room_cap(w: World) -> None:
    gids = [str(ok(await w.h.yard.open(OpenYard(command_id=f"y{n}", player_id="a"))).game_id) for n in (1, 2, 3)]
    ok(await w.h.yard.lobby(YardLobby(game_id=gids[0], player_id="b", act="join")))
    fourth = await w.h.yard.open(OpenYard(command_id="y4", player_id="a"))
    assert isinstance(fourth, Refusal) and fourth.reason == "too_many_rooms"
    assert "3 yard cards rooms" in fourth.message and "King of the Hill" not in fourth.message
    ok(await w.h.yard.move(YardMoveCommand(game_id=gids[1], move=yard.Leave(player="a"))))
    view = ok(await w.h.game(GameRequest(game_id=gids[1])))
    assert view.status == "finished" and view.yard_cards.players == [] and view.yard_cards.table is None
    (ended,) = w.events(s.MODE_GAME_ENDED)
    assert ended.game_id == gids[1] and ended.winners == []  # type: ignore[attr-defined]
    ok(await w.h.yard.open(OpenYard(command_id="y4", player_id="a")))   # the cap counts it no more
    again = await w.h.yard.lobby(YardLobby(game_id=gids[1], player_id="c", act="join"))
    assert isinstance(again, Refusal) and again.reason == "game_over"
    late = await w.h.yard.move(YardMoveCommand(game_id=gids[1], move=yard.Leave(player="a")))
    assert isinstance(late, Refusal) and late.reason == "game_over"
    # a lobby with someone left stays open: the seat is freed, the next player opens it
    ok(await w.h.yard.move(YardMoveCommand(game_id=gids[0], move=yard.Leave(player="a"))))
    view = ok(await w.h.game(GameRequest(game_id=gids[0])))
    assert view.status == "lobby" and view.yard_cards.players == ["b"] and view.yard_cards.opener == "b"


async def test_y29_a_room_nobody_plays_ends_after_three_missed_turns_not_forty_rounds(w: World) -> None:
    gid = await _room(w)
    first = ok(await w.h.game(GameRequest(game_id=gid))).yard_cards.table.turn.player
    turns = 0
    while ok(await w.h.game(GameRequest(game_id=gid))).status != "finished" and turns < 80:
        w.clock.advance(timedelta(seconds=60))
        turns += await w.h.tick()
    assert turns == 5   # a, b, a, b, then the first seat's third missed turn puts it out
    view = ok(await w.h.game(GameRequest(game_id=gid)))
    assert view.yard_cards.table.winners == ["b" if first == "a" else "a"]
    assert next(x for x in view.yard_cards.table.seats if x.player == first).left
    async with w.store.tx() as tx:
        assert await tx.games.seats("a") == [] and await tx.games.seats("b") == []
