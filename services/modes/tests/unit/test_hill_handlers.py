"""King of the Hill through the modes service's use cases, on the memory store (docs/rules/king-of-the-hill.md)."""

from __future__ import annotations

from datetime import datetime, timedelta

from modes_world import NOON, SEED, World, ok

from turf_common.contracts import subjects as s
from turf_common.contracts.base import Refusal
from turf_common.contracts.modes import (
    ChooseAction,
    GameRequest,
    GamesRequest,
    JoinGame,
    LeaveGame,
    LogRequest,
    OpenHill,
    RemovePlayer,
    ResolveTurn,
    StartRoom,
)
from turf_common.contracts.players import PlayerDisqualified
from turf_common.rules import hill, modereplay
from turf_modes import games, snapshots
from turf_modes.testing import MemoryModesStore


async def _room(w: World, players: tuple[str, ...] = ("a", "b", "c"), start: bool = True) -> str:
    gid = str(ok(await w.h.open_hill(OpenHill(command_id="h1", player_id=players[0], hill="C",
                                              round_seconds=600))).game_id)
    for p in players[1:]:
        ok(await w.h.join(JoinGame(game_id=gid, player_id=p)))
    if start:
        ok(await w.h.start(StartRoom(game_id=gid, player_id=players[0])))
    return gid


async def _round(w: World, gid: str, n: int, choices: dict[str, str]) -> None:
    for p, c in choices.items():
        ok(await w.h.choose(ChooseAction(game_id=gid, player_id=p, round=n, choice=c)))  # type: ignore[arg-type]


def _refused(r: object, reason: str) -> None:
    assert isinstance(r, Refusal) and r.reason == reason and r.message, r


async def test_k1_the_opener_starts_a_room_of_3_to_5(w: World) -> None:
    r = await w.h.open_hill(OpenHill(command_id="x", player_id="a", hill="Z"))
    _refused(r, "invalid_target")
    gid = await _room(w, ("a", "b"), start=False)
    _refused(await w.h.start(StartRoom(game_id=gid, player_id="a")), "wrong_player_count")
    for p in ("c", "d", "e"):
        ok(await w.h.join(JoinGame(game_id=gid, player_id=p)))
    _refused(await w.h.join(JoinGame(game_id=gid, player_id="f")), "wrong_player_count")
    _refused(await w.h.join(JoinGame(game_id=gid, player_id="b")), "already_joined")
    _refused(await w.h.start(StartRoom(game_id=gid, player_id="b")), "forbidden")
    view = ok(await w.h.start(StartRoom(game_id=gid, player_id="a")))
    # K2: one die each, nobody holds the hill
    assert view.hill.dice == dict.fromkeys("abcde", 1) and view.hill.holder is None and view.hill.round == 1
    _refused(await w.h.join(JoinGame(game_id=gid, player_id="f")), "room_started")


async def test_k4_choices_are_secret_once_per_round_and_reveal_together(w: World) -> None:
    gid = await _room(w)
    ok(await w.h.choose(ChooseAction(game_id=gid, player_id="a", round=1, choice="attack")))
    _refused(await w.h.choose(ChooseAction(game_id=gid, player_id="a", round=1, choice="recruit")), "already_chosen")
    _refused(await w.h.log(LogRequest(game_id=gid)), "forbidden")   # K4: the log would tell a's choice
    _refused(await w.h.choose(ChooseAction(game_id=gid, player_id="b", round=2, choice="recruit")), "round_closed")
    _refused(await w.h.choose(ChooseAction(game_id=gid, player_id="z", round=1, choice="recruit")), "not_in_room")
    seen_by_b = ok(await w.h.game(GameRequest(game_id=gid, player_id="b"))).hill
    assert seen_by_b.chosen == ["a"] and seen_by_b.my_choice is None
    assert ok(await w.h.game(GameRequest(game_id=gid, player_id="a"))).hill.my_choice == "attack"
    assert w.events(s.MODE_ROUND_RESOLVED) == []
    await _round(w, gid, 1, {"b": "recruit", "c": "recruit"})
    (ev,) = w.events(s.MODE_ROUND_RESOLVED)
    # K9: a lone attacker takes the open hill; K7: recruiters +1 die; K6: counts change together
    assert ev.result.choices == {"a": "attack", "b": "recruit", "c": "recruit"}
    assert ev.result.holder_after == "a" and ev.result.dice_after == {"a": 1, "b": 2, "c": 2}
    _refused(await w.h.choose(ChooseAction(game_id=gid, player_id="a", round=2, choice="attack")),
             "holder_does_not_choose")


async def test_k5_the_time_limit_makes_the_unchosen_recruit(w: World) -> None:
    gid = await _room(w)
    ok(await w.h.choose(ChooseAction(game_id=gid, player_id="a", round=1, choice="recruit")))
    assert await w.h.tick() == 0
    w.clock.advance(timedelta(seconds=600))
    assert await w.h.tick() == 1
    (ev,) = w.events(s.MODE_ROUND_RESOLVED)
    assert ev.result.choices == dict.fromkeys("abc", "recruit") and ev.result.dice_after == dict.fromkeys("abc", 2)
    assert ev.result.holder_after is None  # K9: nobody attacking leaves it open


async def test_k5_a_round_resolves_exactly_once(w: World) -> None:
    gid = await _room(w)
    first = ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))
    again = ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))
    assert (first.first, again.first) == (True, False) and len(w.events(s.MODE_ROUND_RESOLVED)) == 1


async def test_k3_k7_k15_k18_ten_rounds_the_holder_wins_and_the_audit_replays_it(w: World) -> None:
    gid = await _room(w)
    await _round(w, gid, 1, {"a": "recruit", "b": "recruit", "c": "recruit"})   # dice 2, 2, 2
    await _round(w, gid, 2, {"a": "attack", "b": "recruit", "c": "recruit"})    # a takes the open hill (K9)
    for n in range(3, 11):                                                     # nobody attacks: K15 free recruit
        await _round(w, gid, n, {"b": "recruit", "c": "recruit"})
    view = ok(await w.h.game(GameRequest(game_id=gid)))
    assert view.status == "finished" and view.hill.winner == "a" and view.hill.dice == dict.fromkeys("abc", 3)  # K3
    (ended,) = w.events(s.MODE_GAME_ENDED)
    assert ended.winners == ["a"] and ended.seed == SEED == view.seed  # K16: revealed at the end
    log = ok(await w.h.log(LogRequest(game_id=gid)))
    _, events = modereplay.replay_hill(gid, log.config["hill"], log.config["players"], {"C"}, log.seed,
                                       log.seed_commitment, [games.decode(a) for a in log.actions])
    replayed = [games.round_out(e) for e in events if not isinstance(e, type(events[-1]))]
    assert replayed == [e.result for e in w.events(s.MODE_ROUND_RESOLVED)] and len(replayed) == 10


async def test_k17_the_last_player_left_wins(w: World) -> None:
    gid = await _room(w)
    ok(await w.h.leave(LeaveGame(game_id=gid, player_id="b")))
    view = ok(await w.h.leave(LeaveGame(game_id=gid, player_id="c")))
    assert view.status == "finished" and view.hill.winner == "a"
    assert [e.winners for e in w.events(s.MODE_GAME_ENDED)] == [["a"]]


async def test_k5_one_room_that_fails_does_not_hold_up_the_others(w: World) -> None:
    broken = await _room(w)
    other = str(ok(await w.h.open_hill(OpenHill(command_id="h2", player_id="d", hill="D",
                                                round_seconds=600))).game_id)
    for p in ("e", "f"):
        ok(await w.h.join(JoinGame(game_id=other, player_id=p)))
    ok(await w.h.start(StartRoom(game_id=other, player_id="d")))
    store = w.store
    assert isinstance(store, MemoryModesStore)
    store.state.games[broken].seed = "not-the-committed-seed"   # its log no longer replays (SeedMismatch)
    w.clock.advance(timedelta(seconds=600))
    assert await w.h.tick() == 1
    assert [e.game_id for e in w.events(s.MODE_ROUND_RESOLVED)] == [other]


async def test_k19_a_player_sits_in_three_unfinished_rooms_at_most(w: World) -> None:
    rooms = [str(ok(await w.h.open_hill(OpenHill(command_id=f"o{i}", player_id="a", hill="C"))).game_id)
             for i in range(3)]
    _refused(await w.h.open_hill(OpenHill(command_id="o4", player_id="a", hill="C")), "too_many_rooms")
    other = str(ok(await w.h.open_hill(OpenHill(command_id="b1", player_id="b", hill="D"))).game_id)
    _refused(await w.h.join(JoinGame(game_id=other, player_id="a")), "too_many_rooms")
    ok(await w.h.leave(LeaveGame(game_id=rooms[0], player_id="a")))   # a seat freed: one more room
    ok(await w.h.join(JoinGame(game_id=other, player_id="a")))
    assert sorted(g.status for g in await w.store.latest("hill", 50)) == ["finished", "lobby", "lobby", "lobby"]


async def test_k17_k19_a_lobby_left_empty_closes_and_the_list_puts_open_rooms_first(w: World) -> None:
    theirs = str(ok(await w.h.open_hill(OpenHill(command_id="t", player_id="z", hill="C"))).game_id)
    w.clock.advance(timedelta(seconds=1))
    spam = str(ok(await w.h.open_hill(OpenHill(command_id="s", player_id="a", hill="C"))).game_id)
    ok(await w.h.leave(LeaveGame(game_id=spam, player_id="a")))
    view = ok(await w.h.game(GameRequest(game_id=spam)))
    assert view.status == "finished" and view.hill.players == [] and view.seed == SEED
    (ended,) = w.events(s.MODE_GAME_ENDED)
    assert ended.game_id == spam and ended.winners == []
    assert [(g.game_id, g.status) for g in (await w.h.games(GamesRequest(mode="hill", limit=1))).games] == \
        [(theirs, "lobby")]   # the newer, closed room does not push the open one off a short list


async def test_k1_the_games_list_names_a_room_by_its_hill_not_its_id(w: World) -> None:
    gid = str(ok(await w.h.open_hill(OpenHill(command_id="n", player_id="a", hill="C"))).game_id)
    (room,) = (await w.h.games(GamesRequest(mode="hill"))).games
    assert (room.game_id, room.hill, room.teams, room.players) == (gid, "C", None, 1)


async def test_k20_the_opener_removes_a_seated_player_from_the_lobby(w: World) -> None:
    gid = await _room(w, ("a", "b", "c", "d"), start=False)
    _refused(await w.h.remove(RemovePlayer(game_id=gid, player_id="b", target_id="c")), "forbidden")
    _refused(await w.h.remove(RemovePlayer(game_id=gid, player_id="a", target_id="zz")), "not_in_room")
    view = ok(await w.h.remove(RemovePlayer(game_id=gid, player_id="a", target_id="c")))
    assert view.hill.players == ["a", "b", "d"]
    assert [(e.player_id) for e in w.events(s.MODE_PLAYER_LEFT)] == ["c"]
    _refused(await w.h.join(JoinGame(game_id=gid, player_id="c")), "removed_from_room")
    ok(await w.h.start(StartRoom(game_id=gid, player_id="a")))
    _refused(await w.h.remove(RemovePlayer(game_id=gid, player_id="a", target_id="b")), "room_started")


def _disqualified(player_id: str) -> PlayerDisqualified:
    now = datetime.fromisoformat(NOON)
    return PlayerDisqualified(event_id=f"dq-{player_id}", occurred_at=now, player_id=player_id, at=now)


async def test_k21_a_running_room_stops_waiting_for_a_disqualified_players_seat(w: World) -> None:
    gid = await _room(w, ("a", "b", "c"))
    await _round(w, gid, 1, {"a": "attack", "b": "recruit"})   # c never chooses
    assert w.events(s.MODE_ROUND_RESOLVED) == []
    await w.h.player_removed(_disqualified("c"))
    (r1,) = w.events(s.MODE_ROUND_RESOLVED)   # resolved at once, not at the round's time limit
    assert r1.result.round == 1 and set(r1.result.choices) == {"a", "b"}
    view = ok(await w.h.game(GameRequest(game_id=gid))).hill
    assert view.players == ["a", "b"] and view.round == 2


async def test_k21_a_disqualified_players_lobby_seats_are_freed(w: World) -> None:
    gid = await _room(w, ("a", "b", "c"), start=False)
    await w.h.player_removed(_disqualified("b"))
    assert ok(await w.h.game(GameRequest(game_id=gid))).hill.players == ["a", "c"]
    async with w.store.tx() as tx:
        assert await tx.games.seats("b") == []


async def test_k16_the_rooms_snapshot_is_its_logs_replay_and_its_log_is_read_in_pages(w: World) -> None:
    gid = await _room(w)
    await _round(w, gid, 1, {"a": "recruit", "b": "recruit", "c": "recruit"})
    await _round(w, gid, 2, {"a": "attack", "b": "recruit", "c": "attack"})
    store = w.store
    assert isinstance(store, MemoryModesStore)
    row = store.state.games[gid]
    whole = row.actions   # the memory store keeps the whole log beside the snapshot
    assert row.base == len(whole) == 8 and row.snapshot is not None
    final, events = modereplay.replay_hill(gid, "C", ["a", "b", "c"], {"C"}, SEED, row.seed_commitment,
                                           [games.decode(a) for a in whole])
    last = [e for e in events if isinstance(e, hill.RoundResolved)][-1]
    assert snapshots.room_state(row.snapshot) == (final, last)
    for p in ("b", "c"):   # to the end, so the log is public (K16)
        ok(await w.h.leave(LeaveGame(game_id=gid, player_id=p)))
    pages, offset = [], 0
    while offset is not None:
        page = ok(await w.h.log(LogRequest(game_id=gid, offset=offset, limit=3)))
        pages.append(page.actions)
        offset = page.next_offset
    assert [len(p) for p in pages] == [3, 3, 3, 1] and [a for p in pages for a in p] == store.state.games[gid].actions
    assert page.total == 10


async def test_k16_a_room_stored_before_snapshots_still_reads_from_its_log(w: World) -> None:
    gid = await _room(w)
    await _round(w, gid, 1, {"a": "attack", "b": "recruit", "c": "recruit"})
    warm = ok(await w.h.game(GameRequest(game_id=gid)))
    store = w.store
    assert isinstance(store, MemoryModesStore)
    store.state.games[gid].snapshot, store.state.games[gid].base = None, 0   # as the migration leaves old rows
    w.h.replays = type(w.h.replays)()
    assert ok(await w.h.game(GameRequest(game_id=gid))) == warm
    await _round(w, gid, 2, {"b": "recruit", "c": "recruit"})   # the next command writes its snapshot
    assert store.state.games[gid].base == 7 and store.state.games[gid].snapshot is not None
