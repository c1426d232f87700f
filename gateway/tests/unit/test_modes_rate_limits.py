"""K19, T3: every write of the turn-based modes counts against a per-player rate limit; over it, 429 and nothing
is sent to the modes service (threat: one account opening rooms or joining and leaving by the hundred, each a
story on every spectator's feed)."""

from __future__ import annotations

from typing import Any

import pytest

from turf_common.contracts import subjects
from turf_common.contracts.modes import (
    ChooseAction,
    CreateTeamTurf,
    EndGame,
    GameView,
    GiveOrder,
    JoinGame,
    LeaveGame,
    OpenHill,
    PlaceTroops,
    RemovePlayer,
    ResolveTurn,
    StartRoom,
    WithdrawOrder,
)
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.modes import Modes
from turf_gateway.testing import CannedServices, MemoryIdempotencyKeys

T0 = "2026-10-05T12:00:00-04:00"


class Spent:
    """A limiter whose every limit is used up: records what was counted, refuses it 429."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, ...]] = []

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None:
        self.hits.append((name, who, *(n for n, _ in more)))
        raise ApiError("rate_limited", "Too many requests; try again in 5 s.", 429, headers={"Retry-After": "5"})


def _services() -> CannedServices:
    view = GameView(game_id="g1", mode="hill", status="lobby", created_by="ada", created_at=T0,  # type: ignore[arg-type]
                    seed_commitment="c")
    return CannedServices({subjects.MODES_GAME: view})


@pytest.mark.parametrize(("call", "limit"), [
    (lambda m: m.open(OpenHill(command_id="k", player_id="ada", hill="A"), "ada", None, {}),
     ("modes_open_player", "ada", "modes_seat_player")),
    (lambda m: m.move("hill", JoinGame(game_id="g1", player_id="ada"), "ada"), ("modes_seat_player", "ada")),
    (lambda m: m.move("hill", LeaveGame(game_id="g1", player_id="ada"), "ada"), ("modes_seat_player", "ada")),
    (lambda m: m.move("hill", RemovePlayer(game_id="g1", player_id="ada", target_id="bo"), "ada"),
     ("modes_seat_player", "ada")),
    (lambda m: m.move("hill", StartRoom(game_id="g1", player_id="ada"), "ada"), ("modes_move_player", "ada")),
    (lambda m: m.move("hill", ChooseAction(game_id="g1", player_id="ada", round=1, choice="attack"), "ada"),
     ("modes_move_player", "ada")),
    (lambda m: m.move("team_turf", PlaceTroops(game_id="g1", player_id="ada", town="A", n=1), "ada"),
     ("modes_move_player", "ada")),
    (lambda m: m.move("team_turf", WithdrawOrder(game_id="g1", player_id="ada", order_id="o"), "ada"),
     ("modes_move_player", "ada")),
    (lambda m: m.order(GiveOrder(game_id="g1", player_id="ada", turn=1, kind="move", src="A", dst="B", n=1)),
     ("modes_move_player", "ada")),
    (lambda m: m.open(CreateTeamTurf(command_id="k", organizer_id="org", teams=["r", "b"]), "org", None, {}),
     ("modes_move_player", "organizer")),
    (lambda m: m.move("team_turf", EndGame(game_id="g1"), None), ("modes_move_player", "organizer")),
    (lambda m: m.resolve(ResolveTurn(game_id="g1", turn=1)), ("modes_move_player", "organizer")),
])
async def test_every_mode_write_is_rate_limited_and_a_429_sends_nothing(call: Any, limit: tuple[str, ...]) -> None:
    services, spent = _services(), Spent()
    with pytest.raises(ApiError) as e:
        await call(Modes(services, MemoryIdempotencyKeys(), spent))
    assert (e.value.status, e.value.reason) == (429, "rate_limited")
    assert spent.hits == [limit] and services.asked == []


async def test_reads_of_the_modes_are_not_rate_limited() -> None:
    services, spent = _services(), Spent()
    modes = Modes(services, MemoryIdempotencyKeys(), spent)
    assert (await modes.game("g1", "hill", None)).game_id == "g1"
    assert spent.hits == []
