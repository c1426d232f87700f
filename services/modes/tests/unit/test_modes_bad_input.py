"""Bad input from the organizer or a player, in any order, is a refusal with a reason and a sentence: never an
exception (which the gateway answers 503 "The service failed"). Hypothesis drives the use cases on the memory
store over the five-town board with well-formed commands of any content (the gateway and the contracts refuse the
malformed ones before they get here)."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from modes_world import TOWNS, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.modes import (
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameRequest,
    GiveOrder,
    JoinGame,
    LeaveGame,
    LogRequest,
    OpenHill,
    PlaceTroops,
    RemovePlayer,
    ResolveTurn,
    StartRoom,
    WithdrawOrder,
)
from turf_modes.handlers import ModesHandlers

PLAYERS = ("p1", "p2", "p3", "p4")
town = st.sampled_from((*TOWNS, "Z"))
player = st.sampled_from(PLAYERS)
game = st.sampled_from(("id1", "id2", "nope"))   # the first games made (ids are numbered), and one not made
team = st.sampled_from(("red", "blue", "gold", "red "))

field = st.none() | st.lists(st.sampled_from(TOWNS), min_size=1, max_size=3, unique=True) | st.lists(town, max_size=5)
create = st.builds(CreateTeamTurf, command_id=st.sampled_from(("c1", "c2")), organizer_id=st.just("org"),
                   teams=st.lists(team, min_size=2, max_size=4), towns=field,
                   homes=st.none() | st.none() | st.dictionaries(team, town, max_size=4))
open_hill = st.builds(OpenHill, command_id=st.sampled_from(("h1", "h2", "h3", "h4")), player_id=player, hill=town)
commands = st.one_of(
    create,
    open_hill,
    st.builds(JoinGame, game_id=game, player_id=player, team=st.none() | team),
    st.builds(StartRoom, game_id=game, player_id=player),
    st.builds(PlaceTroops, game_id=game, player_id=player, town=town, n=st.integers(1, 5)),
    st.builds(GiveOrder, game_id=game, player_id=player, turn=st.integers(1, 3),
              kind=st.sampled_from(("move", "attack")), src=town, dst=town, n=st.integers(1, 5)),
    st.builds(WithdrawOrder, game_id=game, player_id=player, order_id=st.sampled_from(("id3", "id9", "x"))),
    st.builds(ChooseAction, game_id=game, player_id=player, round=st.integers(1, 3),
              choice=st.sampled_from(("attack", "recruit"))),
    st.builds(LeaveGame, game_id=game, player_id=player),
    st.builds(RemovePlayer, game_id=game, player_id=player, target_id=player),
    st.builds(ResolveTurn, game_id=game, turn=st.integers(1, 3)),
    st.builds(EndGame, game_id=game),
)

CALLS: dict[type, str] = {
    CreateTeamTurf: "create_team_turf", OpenHill: "open_hill", JoinGame: "join", StartRoom: "start",
    PlaceTroops: "place", GiveOrder: "order", WithdrawOrder: "withdraw", ChooseAction: "choose", LeaveGame: "leave",
    RemovePlayer: "remove", ResolveTurn: "resolve", EndGame: "end"}


async def _play(cmds: list[Any]) -> None:
    h: ModesHandlers = world().h
    for cmd in cmds:
        reply = await getattr(h, CALLS[type(cmd)])(cmd)   # raises on a crash: the test fails
        if isinstance(reply, Refusal):
            assert reply.reason and reply.message, cmd
    for gid in ("id1", "id2"):   # whatever happened, every game still reads, and its log answers
        assert await h.game(GameRequest(game_id=gid, player_id="p1")) is not None
        assert await h.log(LogRequest(game_id=gid)) is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(create, open_hill, st.lists(commands, max_size=25))
def test_no_sequence_of_mode_commands_crashes_the_service(first: CreateTeamTurf, room: OpenHill,
                                                          cmds: list[Any]) -> None:
    asyncio.run(_play([first, room, *cmds]))
