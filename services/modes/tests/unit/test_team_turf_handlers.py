"""Team Turf through the modes service's use cases, on the memory store (docs/rules/team-turf.md)."""

from __future__ import annotations

from datetime import timedelta

from modes_world import NOON, SEED, World, at, ok

from turf_common.contracts import subjects as s
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.modes import (
    CreateTeamTurf,
    EndGame,
    GameRequest,
    GiveOrder,
    JoinGame,
    LeaveGame,
    PlaceTroops,
    ResolveTurn,
    WithdrawOrder,
)
from turf_common.contracts.players import PlayerDisqualified
from turf_common.rules.seeded import seed_commitment
from turf_modes.testing import MemoryModesStore


async def _game(w: World) -> str:
    view = ok(await w.h.create_team_turf(CreateTeamTurf(command_id="c1", organizer_id="org", teams=["red", "blue"],
                                                        homes={"red": "A", "blue": "E"})))
    return str(view.game_id)


async def _two_players(w: World) -> str:
    gid = await _game(w)
    ok(await w.h.join(JoinGame(game_id=gid, player_id="r1", team="red")))
    ok(await w.h.join(JoinGame(game_id=gid, player_id="b1", team="blue")))
    ok(await w.h.place(PlaceTroops(game_id=gid, player_id="r1", town="A", n=2)))
    ok(await w.h.place(PlaceTroops(game_id=gid, player_id="b1", town="E", n=2)))
    return gid


async def test_t2_t20_created_with_its_seed_committed_and_a_retry_makes_one_game(w: World) -> None:
    gid = await _game(w)
    view = ok(await w.h.game(GameRequest(game_id=gid)))
    assert view.seed is None and view.seed_commitment == seed_commitment(SEED)  # T20: committed, not revealed
    assert view.team_turf.homes == {"red": "A", "blue": "E"} and view.team_turf.reserved_homes == view.team_turf.homes
    assert view.team_turf.next_turn_at == at("2026-10-05T23:59:00-04:00")  # T9
    assert view.team_turf.field == ["A", "B", "C", "D", "E"] and view.team_turf.field_towns == 5  # T1: the default
    again = ok(await w.h.create_team_turf(CreateTeamTurf(command_id="c1", organizer_id="org", teams=["x", "y"])))
    assert again.game_id == gid and len(w.events(s.MODE_GAME_CREATED)) == 1


async def test_t3_t6_join_place_at_once_and_a_second_join_refused(w: World) -> None:
    gid = await _two_players(w)
    view = ok(await w.h.game(GameRequest(game_id=gid, player_id="r1")))
    assert view.team_turf.board == {"A": {"r1": 2}, "E": {"b1": 2}}  # T6: at once, visible to all
    assert view.team_turf.reserve == {"r1": 0, "b1": 0} and view.team_turf.reserved_homes == {}  # T2
    r = await w.h.join(JoinGame(game_id=gid, player_id="r1", team="blue"))
    assert isinstance(r, Refusal) and r.reason == "already_joined"  # T3: one team, no switching
    placed = w.events(s.MODE_TROOPS_PLACED)
    assert [(e.player_id, e.team, e.town, e.n) for e in placed] == [("r1", "red", "A", 2), ("b1", "blue", "E", 2)]


async def test_t7_bad_orders_are_refused_and_change_nothing(w: World) -> None:
    gid = await _two_players(w)
    store = w.store
    assert isinstance(store, MemoryModesStore)
    before = len(store.state.games[gid].actions)
    cases = [(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="C", n=1), "not_neighbour"),
             (GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=3),
              "not_enough_troops"),
             (GiveOrder(game_id=gid, player_id="r1", turn=1, kind="move", src="A", dst="B", n=1), "not_friendly"),
             (GiveOrder(game_id=gid, player_id="r1", turn=2, kind="attack", src="A", dst="B", n=1), "turn_not_open"),
             (GiveOrder(game_id=gid, player_id="zz", turn=1, kind="attack", src="A", dst="B", n=1), "unknown_player"),
             (GiveOrder(game_id="nope", player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1), "not_found")]
    for cmd, reason in cases:
        r = await w.h.order(cmd)
        assert isinstance(r, Refusal) and r.reason == reason and r.message, (cmd, r)
    assert len(store.state.games[gid].actions) == before


async def test_t7_orders_are_seen_by_their_team_only(w: World) -> None:
    gid = await _two_players(w)
    ok(await w.h.order(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1)))
    mine = ok(await w.h.game(GameRequest(game_id=gid, player_id="r1"))).team_turf.orders
    theirs = ok(await w.h.game(GameRequest(game_id=gid, player_id="b1"))).team_turf.orders
    assert [(o.kind, o.src, o.dst, o.n) for o in mine] == [("attack", "A", "B", 1)] and theirs == []


async def test_t9_t10_t12_t14_t17_t19_a_turn_resolves_exactly_once_with_its_bonuses(w: World) -> None:
    gid = await _two_players(w)
    ok(await w.h.order(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1)))
    first = ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))
    again = ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))  # the same command replayed
    assert (first.first, again.first) == (True, False)
    (ev,) = w.events(s.MODE_TURN_RESOLVED)
    # T10 c: the lone card takes empty B, no battle; T13: no conquest (B was empty)
    assert (ev.turn, ev.cards, ev.battles, ev.killed, ev.conquests) == (1, 1, 0, 0, {})
    assert ev.board == {"A": {"r1": 1}, "B": {"r1": 1}, "E": {"b1": 2}}
    # T12 participation 1, T14 4 × towns, T17 county X (A, B) 2 × 2 × 1 to red
    assert ev.bonuses == {"red": {"participation": 1, "conquest": 0, "territory": 8, "elimination": 0, "county": 4},
                          "blue": {"participation": 1, "conquest": 0, "territory": 4, "elimination": 0, "county": 0}}
    assert ev.reinforcements == {"r1": 13, "b1": 5}
    view = ok(await w.h.game(GameRequest(game_id=gid))).team_turf
    assert view.turn == 2 and view.reserve == {"r1": 13, "b1": 5}
    assert sum(sum(t.values()) for t in view.board.values()) + sum(view.reserve.values()) == 4 + 18  # T19
    assert view.next_turn_at == at("2026-10-06T23:59:00-04:00")


async def test_t9_the_game_clock_resolves_the_turn_at_2359_new_york(w: World) -> None:
    gid = await _two_players(w)
    assert await w.h.tick() == 0
    w.clock.at = at("2026-10-05T23:59:00-04:00")
    assert await w.h.tick() == 1 and await w.h.tick() == 0
    assert ok(await w.h.game(GameRequest(game_id=gid))).team_turf.turn == 2


class _Crash(Exception):
    pass


async def test_t9_a_crash_mid_turn_leaves_nothing_and_the_retry_resolves_once(w: World) -> None:
    gid = await _two_players(w)
    store = w.store
    assert isinstance(store, MemoryModesStore)
    real_tx = store.tx

    def crashing_tx():  # type: ignore[no-untyped-def]
        cm = real_tx()

        class Tx:
            async def __aenter__(self):  # type: ignore[no-untyped-def]
                tx = await cm.__aenter__()

                async def stage(subject: str, event: Event) -> None:
                    raise _Crash  # the process dies as the turn's events are written
                tx.stage = stage  # type: ignore[method-assign]
                return tx

            async def __aexit__(self, *exc):  # type: ignore[no-untyped-def]
                return await cm.__aexit__(*exc)
        return Tx()

    store.tx = crashing_tx  # type: ignore[method-assign]
    try:
        await w.h.resolve(ResolveTurn(game_id=gid, turn=1))
        raise AssertionError("the crash did not happen")
    except _Crash:
        pass
    store.tx = real_tx  # type: ignore[method-assign]
    assert store.state.games[gid].turn == 1 and store.state.resolutions == {}
    assert ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1))).first is True
    assert len(w.events(s.MODE_TURN_RESOLVED)) == 1 and list(store.state.resolutions) == [(gid, 1)]


async def test_t4_leaving_loses_the_reserve(w: World) -> None:
    gid = await _game(w)
    ok(await w.h.join(JoinGame(game_id=gid, player_id="r1", team="red")))
    ok(await w.h.leave(LeaveGame(game_id=gid, player_id="r1")))
    (left,) = w.events(s.MODE_PLAYER_LEFT)
    assert left.lost == 2
    r = await w.h.place(PlaceTroops(game_id=gid, player_id="r1", town="A", n=1))
    assert isinstance(r, Refusal) and r.reason == "unknown_player"


async def test_t22_the_organizer_ends_and_the_seed_is_revealed(w: World) -> None:
    gid = await _two_players(w)
    view = ok(await w.h.end(EndGame(game_id=gid)))
    assert view.status == "finished" and view.seed == SEED  # T20: revealed at the end
    (ended,) = w.events(s.MODE_GAME_ENDED)
    # T22: one town each, two troops each: a draw between both teams
    assert ended.winners == ["red", "blue"] and ended.by_organizer and ended.seed == SEED
    r = await w.h.end(EndGame(game_id=gid))
    assert isinstance(r, Refusal) and r.reason == "game_over"


async def test_t9_no_turn_after_the_end(w: World) -> None:
    gid = await _two_players(w)
    ok(await w.h.end(EndGame(game_id=gid)))
    w.clock.advance(timedelta(days=2))
    assert await w.h.tick() == 0
    r = await w.h.order(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1))
    assert isinstance(r, Refusal) and r.reason == "game_over"


async def test_t20_the_kept_replay_equals_a_replay_from_the_start(w: World) -> None:
    gid = await _two_players(w)
    ok(await w.h.order(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1)))
    ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))
    ok(await w.h.place(PlaceTroops(game_id=gid, player_id="b1", town="E", n=5)))
    warm = ok(await w.h.game(GameRequest(game_id=gid, player_id="r1")))
    w.h.replays = type(w.h.replays)()   # a new process: nothing kept, the whole log replayed
    assert ok(await w.h.game(GameRequest(game_id=gid, player_id="r1"))) == warm
    assert warm.team_turf.board["E"] == {"b1": 7}


async def _red_pair_with_an_order(w: World) -> str:
    """Red: r1 and r2 on A, with r1's attack on B in the open turn; blue: b1 on E."""
    gid = await _two_players(w)
    ok(await w.h.join(JoinGame(game_id=gid, player_id="r2", team="red")))
    ok(await w.h.order(GiveOrder(game_id=gid, player_id="r1", turn=1, kind="attack", src="A", dst="B", n=1)))
    return gid


async def test_t4_t23_a_player_who_left_reads_what_the_public_reads(w: World) -> None:
    gid = await _red_pair_with_an_order(w)
    assert [o.order_id for o in ok(await w.h.game(GameRequest(game_id=gid, player_id="r2"))).team_turf.orders] \
        == ["id2"]   # a teammate sees the team's orders (T7) …
    ok(await w.h.leave(LeaveGame(game_id=gid, player_id="r2")))
    spy = ok(await w.h.game(GameRequest(game_id=gid, player_id="r2")))
    public = ok(await w.h.game(GameRequest(game_id=gid)))
    assert spy.team_turf.orders == [] and spy == public   # … and once gone, only what anyone reads


async def test_t7_withdrawing_an_order_not_ones_own_is_refused_and_stores_nothing(w: World) -> None:
    gid = await _red_pair_with_an_order(w)
    store = w.store
    assert isinstance(store, MemoryModesStore)
    before = list(store.state.games[gid].actions)
    for who, oid in (("r1", "ghost-01"), ("b1", "id2"), ("r2", "id2")):   # none, a rival's, a teammate's
        r = await w.h.withdraw(WithdrawOrder(game_id=gid, player_id=who, order_id=oid))
        assert isinstance(r, Refusal) and r.reason == "unknown_order" and r.message, (who, r)
    assert store.state.games[gid].actions == before
    ok(await w.h.withdraw(WithdrawOrder(game_id=gid, player_id="r1", order_id="id2")))
    assert ok(await w.h.game(GameRequest(game_id=gid, player_id="r1"))).team_turf.orders == []


async def test_t2_a_field_too_small_for_its_teams_is_refused_not_a_crash(w: World) -> None:
    r = await w.h.create_team_turf(CreateTeamTurf(command_id="c9", organizer_id="org", teams=["red", "blue", "gold"],
                                                  towns=["A", "B"]))
    assert isinstance(r, Refusal) and r.reason == "field_too_small" and "2 town(s) for 3 teams" in r.message
    assert await w.store.latest(None, 10) == [] and w.events(s.MODE_GAME_CREATED) == []


async def test_t1_the_view_lists_the_field_the_organizer_named_and_not_the_boards_other_towns(w: World) -> None:
    view = ok(await w.h.create_team_turf(CreateTeamTurf(command_id="c8", organizer_id="org", teams=["red", "blue"],
                                                        towns=["D", "B", "C"])))
    read = ok(await w.h.game(GameRequest(game_id=view.game_id))).team_turf
    assert read.field == ["B", "C", "D"] and read.field_towns == 3   # the page marks these; A and E are not in it
    assert set(read.homes.values()) <= set(read.field)


def _disqualified(player_id: str) -> PlayerDisqualified:
    return PlayerDisqualified(event_id=f"dq-{player_id}", occurred_at=at(NOON), player_id=player_id, at=at(NOON))


async def test_t23_a_disqualified_players_orders_do_not_run_and_they_get_no_reinforcements(w: World) -> None:
    gid = await _red_pair_with_an_order(w)   # r1 ordered an attack from A on B
    await w.h.player_removed(_disqualified("r1"))
    await w.h.player_removed(_disqualified("r1"))   # the event again (a redelivery): nothing more happens
    view = ok(await w.h.game(GameRequest(game_id=gid, player_id="r2"))).team_turf
    assert view.orders == [] and "r1" not in view.active and view.reserve["r1"] == 0
    assert [(e.player_id, e.lost) for e in w.events(s.MODE_PLAYER_LEFT)] == [("r1", 0)]
    ok(await w.h.resolve(ResolveTurn(game_id=gid, turn=1)))
    (ev,) = w.events(s.MODE_TURN_RESOLVED)
    assert ev.cards == 0 and ev.board["A"] == {"r1": 2} and "r1" not in ev.reinforcements   # troops stay, defend
    assert ok(await w.h.game(GameRequest(game_id=gid, player_id="r1"))) == ok(await w.h.game(GameRequest(game_id=gid)))
