"""``turfwar audit game`` (T20, K16): a game replayed from its revealed seed and log gives every published
die and turn again; a forged die, a forged battle count or another seed is caught."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import networkx as nx

from turf_common.contracts.modes import (
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameRequest,
    GiveOrder,
    JoinGame,
    LogRequest,
    OpenHill,
    PlaceTroops,
    ResolveTurn,
    StartRoom,
)
from turf_common.testing import FakeClock, RecordingPublisher
from turf_modes.games import BoardFields
from turf_modes.handlers import ModesHandlers
from turf_modes.testing import MemoryModesStore
from turfwar.modeaudit import audit_game

TOWNS = ("A", "B", "C", "D")


def _service() -> tuple[ModesHandlers, RecordingPublisher, BoardFields]:
    g = nx.Graph()
    g.add_edges_from(itertools.pairwise(TOWNS))
    fields = BoardFields(g, dict.fromkeys(TOWNS, "X"))
    store = MemoryModesStore()
    pub = RecordingPublisher(store.drain)
    ids = (f"g{i}" for i in itertools.count())
    h = ModesHandlers(store, FakeClock(datetime.fromisoformat("2026-10-05T12:00:00-04:00")), pub, fields,
                      ids=lambda: next(ids), seeds=lambda: "audit-seed")
    return h, pub, fields


def _events(pub: RecordingPublisher) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for _, e in pub.sent]


async def _hill() -> tuple[dict[str, Any], list[dict[str, Any]], BoardFields]:
    h, pub, fields = _service()
    gid = (await h.open_hill(OpenHill(command_id="c", player_id="a", hill="B"))).game_id  # type: ignore[union-attr]
    for p in ("b", "c"):
        await h.join(JoinGame(game_id=gid, player_id=p))
    await h.start(StartRoom(game_id=gid, player_id="a"))
    for n in range(1, 11):   # everybody not holding attacks: dice, defences, discards and ties every round
        view = await h.game(GameRequest(game_id=gid))
        holder = view.hill.holder  # type: ignore[union-attr]
        for p in ("a", "b", "c"):
            if p != holder:
                await h.choose(ChooseAction(game_id=gid, player_id=p, round=n, choice="attack"))
    log = (await h.log(LogRequest(game_id=gid))).model_dump(mode="json")
    return log, _events(pub), fields


async def test_k16_a_room_replays_to_its_published_dice_and_a_forged_die_is_caught() -> None:
    log, events, fields = await _hill()
    rep = audit_game(log, events, fields)
    assert rep.ok and rep.resolutions == 10, rep.mismatches
    forged = [dict(e) for e in events]
    r5 = next(e for e in forged if e["type"] == "mode.round_resolved" and e["result"]["round"] == 5)
    r5["result"] = r5["result"] | {"rolls": {p: [6] * len(v) for p, v in r5["result"]["rolls"].items()}}
    assert audit_game(log, forged, fields).mismatches == ["resolution 5: replayed and published differ in rolls"]
    other = audit_game(log | {"seed": "another-seed"}, events, fields)
    assert len(other.mismatches) == 1 and "SeedMismatch" in other.mismatches[0]


async def test_t20_a_team_turf_game_replays_to_its_published_turns() -> None:
    h, pub, fields = _service()
    gid = (await h.create_team_turf(CreateTeamTurf(command_id="c", organizer_id="o", teams=["red", "blue"],
                                                   homes={"red": "A", "blue": "D"}))).game_id  # type: ignore[union-attr]
    for p, team, town in (("r", "red", "A"), ("b", "blue", "D")):
        await h.join(JoinGame(game_id=gid, player_id=p, team=team))
        await h.place(PlaceTroops(game_id=gid, player_id=p, town=town, n=2))
    await h.order(GiveOrder(game_id=gid, player_id="r", turn=1, kind="attack", src="A", dst="B", n=2))
    await h.resolve(ResolveTurn(game_id=gid, turn=1))
    await h.place(PlaceTroops(game_id=gid, player_id="r", town="B", n=10))
    await h.order(GiveOrder(game_id=gid, player_id="r", turn=2, kind="attack", src="B", dst="C", n=8))
    await h.order(GiveOrder(game_id=gid, player_id="b", turn=2, kind="attack", src="D", dst="C", n=2))
    await h.resolve(ResolveTurn(game_id=gid, turn=2))
    await h.end(EndGame(game_id=gid))
    log, events = (await h.log(LogRequest(game_id=gid))).model_dump(mode="json"), _events(pub)
    rep = audit_game(log, events, fields)
    assert rep.ok and rep.resolutions == 2, rep.mismatches
    forged = [e | ({"battles": e["battles"] + 1} if e["type"] == "mode.turn_resolved" and e["turn"] == 2 else {})
              for e in events]
    assert audit_game(log, forged, fields).mismatches == ["resolution 2: replayed and published differ in battles"]
