"""A player's public season on fakes (turf_gateway.handlers.profiles): medals, footprint and recap recomputed from
the feed log, the place from the results once the season has closed, and the recap PNG (its size, and that it
names the player and place); nothing private in any of them (R27, R30)."""

from __future__ import annotations

import io
import json
from datetime import datetime
from typing import Any

import pytest
from PIL import Image

from turf_common.board import Board, load_board
from turf_common.rules import gametime
from turf_common.rules.medals import MedalSet
from turf_common.testing import FakeClock
from turf_gateway.adapters.recap_image import HEIGHT, WIDTH
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.profiles import Profiles
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import MemoryFeedLog, MemoryPlayers, MemoryTables

SEASON = gametime.load_season()
AFTER_CLOSE = datetime.fromisoformat("2026-10-25T09:00:00-04:00")


class Places:
    def __init__(self, final: dict[str, int] | None, live: dict[str, int]) -> None:
        self.final, self.live = final, live

    async def results(self) -> S.Results:
        if self.final is None:
            raise ApiError("season_not_closed", "The season has not closed yet.")
        return S.Results(final=True, standings=[S.FinalStanding(
            place=n, player_id=p, display_name=p, base=1, bonuses=0, total=1, prize="0.00")
            for p, n in self.final.items()])

    async def leaderboard(self) -> dict[str, Any]:
        return {"standings": [{"rank": n, "player_id": p} for p, n in self.live.items()]}


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def change(seq: int, at: str, town: str, owner: str | None, before: str | None, cause: str = "claim",
           fortified: bool = False) -> dict[str, Any]:
    body = {"type": "territory.changed", "at": at, "seq": seq, "occurred_at": at, "territory_id": town,
            "owner_id": owner, "previous_owner_id": before, "progress": 1, "fortified": fortified, "cause": cause,
            "version": seq}
    return {"seq": seq, "type": body["type"], "at": datetime.fromisoformat(at), "territory_id": town,
            "players": sorted({p for p in (owner, before) if p}), "body": body}


async def world(board: Board, final: dict[str, int] | None = None,
                now: datetime = AFTER_CLOSE) -> tuple[Profiles, str, str, list[str]]:
    tables = MemoryTables()
    players = MemoryPlayers(tables)
    ada = await players.create(NewPlayer("Ada Lovelace", "ada@example.org", "ada_l", "1 Secret Lane, Hoboken", "h"))
    bob = await players.create(NewPlayer("Bob Private", "bob@example.org", "bobby", "2 Hidden Rd, Newark", "h"))
    towns = sorted(board.territories)[:3]
    log = MemoryFeedLog(tables)
    await log.store([
        change(1, "2026-10-05T06:00:20-04:00", towns[0], ada, None),
        change(2, "2026-10-05T09:00:00-04:00", towns[1], bob, None),
        change(3, "2026-10-06T10:00:00-04:00", towns[1], ada, bob),
        change(4, "2026-10-07T11:00:00-04:00", towns[0], bob, ada),
    ])
    places = Places(final, {ada: 1, bob: 2})
    profiles = Profiles(log, players, board, SEASON, FakeClock(now), MedalSet.load(), places)
    return profiles, ada, bob, towns


async def test_r9_medals_count_from_the_feed_log_and_date_each_tier(board: Board) -> None:
    profiles, ada, _bob, _ = await world(board)
    body = await profiles.medals(ada)
    medals = {m["id"]: m for m in body["medals"]}
    assert body["display_name"] == "ada_l"
    assert medals["raider"]["value"] == 1 and medals["raider"]["tier"] == "bronze"
    assert medals["raider"]["earned"] == [{"tier": "bronze", "at": "2026-10-06T10:00:00-04:00"}]
    assert medals["early_bird"]["value"] == 1   # R3: 06:00:20 is in the opening minute
    assert medals["explorer"]["value"] == 2 and medals["explorer"]["tier"] is None   # bronze is 3 towns
    assert medals["explorer"]["next_threshold"] == 3


async def test_r25_the_recap_takes_the_final_place_after_the_close_and_the_live_rank_before(board: Board) -> None:
    profiles, ada, bob, towns = await world(board, final={"x": 1, "y": 1})
    profiles.places = Places({bob: 1, ada: 2}, {ada: 1, bob: 2})   # type: ignore[assignment]
    recap = await profiles.recap(ada)
    assert (recap["place"], recap["final"], recap["towns_held"], recap["towns_ever"]) == (2, True, 1, 2)
    assert recap["best_steal"]["territory_id"] == towns[1] and recap["best_steal"]["from_id"] == bob
    assert recap["stats"]["rival_id"] == bob and recap["stats"]["rival_steals"] == 2
    assert {t["territory_id"]: t["status"] for t in recap["footprint"]} == {towns[0]: "lost", towns[1]: "held"}
    live, ada, _, _ = await world(board, now=datetime.fromisoformat("2026-10-08T12:00:00-04:00"))
    assert ((r := await live.recap(ada))["place"], r["final"]) == (1, False)


async def test_a_player_nobody_knows_is_not_found(board: Board) -> None:
    profiles, _, _, _ = await world(board)
    with pytest.raises(ApiError) as e:
        await profiles.recap("nobody")
    assert e.value.reason == "not_found"


async def test_r27_no_email_name_or_address_is_in_a_public_profile(board: Board) -> None:
    profiles, ada, _, _ = await world(board)
    text = json.dumps([await profiles.medals(ada), await profiles.footprint(ada), await profiles.recap(ada)])
    for private in ("ada@example.org", "Ada Lovelace", "1 Secret Lane"):
        assert private not in text


async def test_the_recap_png_is_1200_by_630_and_names_the_player_and_place(board: Board) -> None:
    profiles, ada, bob, _ = await world(board)
    profiles.places = Places({bob: 1, ada: 2}, {})   # type: ignore[assignment]
    png = await profiles.recap_png(ada)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (WIDTH, HEIGHT) == (1200, 630)
    assert img.text["Title"] == "ada_l: Turf War 2026 recap"   # type: ignore[attr-defined]
    assert img.text["Description"].startswith("ada_l, final place 2, 1 towns held")   # type: ignore[attr-defined]


async def test_the_statistics_plot_names_the_rival_fought_most(board: Board) -> None:
    profiles, ada, bob, _ = await world(board)
    stats = (await profiles.recap(ada))["stats"]
    assert stats["rivals"] == [{"player_id": bob, "display_name": "bobby", "given": 1, "taken": 1}]
    assert (stats["rival_name"], stats["claims_by_hour"]) == ("bobby", {"6": 1, "10": 1})
    img = Image.open(io.BytesIO(await profiles.stats_png(ada)))
    assert img.format == "PNG" and img.size == (1000, 420)
    assert img.text["Title"] == "ada_l: statistics"   # type: ignore[attr-defined]
