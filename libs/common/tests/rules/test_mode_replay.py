"""The audit of a turn-based game (T20, K16): its log and its revealed seed replay every die and shuffle."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest

from turf_common.rules import hill, teamturf
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.modereplay import (
    Choose,
    End,
    Give,
    HillAction,
    Join,
    Leave,
    Place,
    Resolve,
    SeedMismatch,
    TeamTurfAction,
    Withdraw,
    replay_hill,
    replay_team_turf,
)
from turf_common.rules.seeded import SeededSource, seed_commitment

TOWNS = {"hill"}
SEED = "revealed-at-the-end"


def _live_hill() -> tuple[list[HillAction], list[hill.RoundResolved | hill.HillEnded]]:
    """A room played as the service would: every accepted action logged, every event kept."""
    src, bots = SeededSource(SEED, "room9"), SeededSource("bots", "room9")
    s = hill.open_room("room9", "hill", ["a", "b", "c", "d"], TOWNS)
    log: list[HillAction] = []
    events: list[hill.RoundResolved | hill.HillEnded] = []
    while not s.finished:
        for p in hill.choosers(s):
            choice: hill.Choice = "attack" if bots.below(f"{s.round}|{p}", 2) else "recruit"
            s = hill.choose(s, p, s.round, choice)
            log.append(Choose(p, s.round, choice))
        s, evs = hill.resolve_round(s, src)
        log.append(Resolve())
        events.extend(evs)
        if s.round == 6 and "d" in s.players:
            s, ended = hill.leave(s, "d")
            log.append(Leave("d"))
            events.extend(ended)
    return log, events


def test_k16_the_seed_and_the_choices_replay_every_roll() -> None:
    log, events = _live_hill()
    s, replayed = replay_hill("room9", "hill", ["a", "b", "c", "d"], TOWNS, SEED, seed_commitment(SEED), log)
    assert replayed == events and s.finished and len([e for e in events if isinstance(e, hill.RoundResolved)]) == 10
    with pytest.raises(SeedMismatch):
        replay_hill("room9", "hill", ["a", "b", "c", "d"], TOWNS, "another", seed_commitment(SEED), log)
    first = next(i for i, a in enumerate(log) if isinstance(a, Choose))
    a = log[first]
    assert isinstance(a, Choose)
    flipped = replace(a, choice="recruit" if a.choice == "attack" else "attack")
    try:  # a log that is not the game's does not give the game's events: other rolls, or a refused action
        _, other = replay_hill("room9", "hill", ["a", "b", "c", "d"], TOWNS, SEED, seed_commitment(SEED),
                               [*log[:first], flipped, *log[first + 1:]])
        assert other != events
    except ModeRefused as e:
        assert e.code == "holder_does_not_choose"


def test_t20_the_seed_and_the_orders_replay_every_shuffle_and_battle() -> None:
    graph = nx.grid_2d_graph(3, 3)
    graph = nx.relabel_nodes(graph, {n: f"t{n[0]}{n[1]}" for n in graph})
    fld = teamturf.Field.from_graph(graph, {t: "C" if t < "t1" else "D" for t in graph})
    src = SeededSource(SEED, "g9")
    s = teamturf.new_game("g9", fld, ["red", "blue"], src)
    log: list[TeamTurfAction] = []

    def act(a: TeamTurfAction) -> None:
        nonlocal s
        match a:
            case Join(p, t):
                s = teamturf.join(s, p, t)
            case Place(p, town, n):
                s = teamturf.place(s, fld, p, town, n)
            case Give(o, t):
                s = teamturf.give_order(s, fld, o, t)
            case Withdraw(p, oid):
                s = teamturf.withdraw_order(s, p, oid)
        log.append(a)

    events: list[teamturf.TurnResolved | teamturf.GameEnded] = []
    for p, t in (("ann", "red"), ("bob", "blue"), ("amy", "red")):
        act(Join(p, t))
        act(Place(p, s.homes[t], 2))
    for turn in range(1, 6):
        for p in sorted(s.active):
            team = s.team_of[p]
            for k, town in enumerate(sorted(teamturf.towns_of(s, team))):
                n = s.board[town].get(p, 0)
                hostile = sorted(x for x in fld.adjacent[town] if teamturf.controller(s, x) != team)
                if n and hostile:
                    act(Give(teamturf.Order(f"{turn}{p}{k}", p, "attack", town, hostile[0], n), turn))
            if s.reserve.get(p):
                act(Place(p, sorted(teamturf.towns_of(s, team))[0], s.reserve[p]))
        if turn == 3:
            act(Withdraw("ann", "3ann0"))
        s, evs = teamturf.resolve_turn(s, fld, src)
        log.append(Resolve())
        events.extend(evs)
        if s.finished:
            break
    if not s.finished:
        s, ended = teamturf.end_by_organizer(s)
        log.append(End())
        events.append(ended)
    final, replayed = replay_team_turf("g9", fld, ["red", "blue"], SEED, seed_commitment(SEED), log)
    assert replayed == events and final == s
    assert sum(e.battles for e in events if isinstance(e, teamturf.TurnResolved)) > 0
    with pytest.raises(SeedMismatch):
        replay_team_turf("g9", fld, ["red", "blue"], SEED + "x", seed_commitment(SEED), log)
