"""Hand-checked facts about the committed board."""

from __future__ import annotations

import json
from typing import Any

import pytest

from turf_common.board import Board

# (a, b) pairs checked by hand on a map: real land borders.
ADJACENT = [
    ("Hoboken", "Jersey City"),
    ("Jersey City", "Bayonne"),
    ("Newark", "Irvington"),
    ("Newark", "East Orange"),
    ("Manhattan", "Bronx"),  # Marble Hill
    ("Brooklyn", "Queens"),
    ("Bronx", "Yonkers"),
    ("Bronx", "Mount Vernon"),
    ("Mahwah", "Village of Suffern"),  # NJ-NY land line
    ("Mahwah", "Town of Ramapo"),
    ("Montvale", "Town of Orangetown"),
    ("Northvale", "Town of Orangetown"),
    ("West Milford", "Town of Warwick"),
]

# Pairs separated by water (or only an island reached by ferry).
NOT_ADJACENT = [
    ("Manhattan", "Hoboken"),
    ("Manhattan", "Weehawken"),
    ("Manhattan", "Jersey City"),  # only line crosses Ellis Island
    ("Staten Island", "Bayonne"),  # Kill Van Kull
    ("Staten Island", "Elizabeth"),  # Arthur Kill
    ("Brooklyn", "Staten Island"),  # the Narrows
    ("Queens", "Bronx"),  # East River
    ("Town of Orangetown", "Town of Greenburgh"),  # Hudson (Tappan Zee)
    ("Village of Nyack", "Village of Tarrytown"),  # Hudson
    ("Yonkers", "Alpine"),  # Hudson
    # four-corner points: diagonals touch in one point only
    ("Fair Lawn", "Ridgewood"),
    ("Glen Rock", "Paramus"),
    ("Hillsdale", "Ho-Ho-Kus"),
    ("Saddle River", "Washington Township (Bergen County)"),
]

WATER_TRUE = ["Hoboken", "Bayonne", "Manhattan", "Sea Bright", "Village of Nyack", "Phillipsburg",
              "Hopatcong", "West Milford", "Yonkers"]
WATER_FALSE = ["Morristown", "Montclair", "Village of Rye Brook"]


@pytest.mark.parametrize(("a", "b"), ADJACENT)
def test_adjacent(board: Board, by_name: dict[str, str], a: str, b: str) -> None:
    assert by_name[b] in board.neighbours(by_name[a])
    shared = board.shared_border_m(by_name[a], by_name[b])
    assert shared is not None and shared >= 50


@pytest.mark.parametrize(("a", "b"), NOT_ADJACENT)
def test_not_adjacent(board: Board, by_name: dict[str, str], a: str, b: str) -> None:
    assert by_name[b] not in board.neighbours(by_name[a])


@pytest.mark.parametrize("name", WATER_TRUE)
def test_borders_water(board: Board, by_name: dict[str, str], name: str) -> None:
    assert board.territories[by_name[name]].borders_water


@pytest.mark.parametrize("name", WATER_FALSE)
def test_inland(board: Board, by_name: dict[str, str], name: str) -> None:
    assert not board.territories[by_name[name]].borders_water


def test_point_in_hoboken(board: Board, by_name: dict[str, str]) -> None:
    loc = board.locate(40.7440, -74.0324)  # Hoboken City Hall area
    assert loc.territory_id == by_name["Hoboken"]
    assert loc.border_distance_m is not None and 0 < loc.border_distance_m < 2000


def test_point_in_hudson(board: Board) -> None:
    loc = board.locate(40.7500, -74.0150)  # mid-river between Hoboken and Chelsea
    assert loc.territory_id is None and loc.border_distance_m is None


def test_nyc_boroughs_use_cousub_geoids(board: Board, by_name: dict[str, str]) -> None:
    assert by_name["Manhattan"] == "3606144919"
    assert board.territories["3606144919"].population == 1_694_251
    assert board.territories["3606144919"].kind == "borough_nyc"


def test_every_territory_has_population_and_area(board: Board) -> None:
    for t in board.territories.values():
        assert t.population >= 0
        assert t.land_area_m2 > 0
        assert t.state in {"NJ", "NY"}
        assert len(t.id) in (7, 10)


def test_graph_has_every_territory(board: Board) -> None:
    assert set(board.graph.nodes) == set(board.territories)
    for _a, _b, data in board.graph.edges(data=True):
        assert data["shared_m"] >= 50 or data["source"] == "override"


def test_point_in_suffern_is_the_village(board: Board, by_name: dict[str, str]) -> None:
    assert board.locate(41.1148, -74.1496).territory_id == by_name["Village of Suffern"]


def test_point_in_ramapo_outside_villages_is_the_town(board: Board, by_name: dict[str, str]) -> None:
    # Harriman State Park / Ladentown area, west of Pomona: unincorporated Ramapo
    loc = board.locate(41.1700, -74.0900)
    assert loc.territory_id == by_name["Town of Ramapo"]


def test_no_village_reaches_into_the_hudson(board: Board) -> None:
    # mid-river off Nyack, off Tarrytown and at the Tappan Zee (the rebuilt shore is approximate near the banks)
    for lat, lon in [(41.0900, -73.8900), (41.0750, -73.8900), (41.0700, -73.8950)]:
        assert board.locate(lat, lon).territory_id is None


def test_staten_island_alone(board: Board, by_name: dict[str, str]) -> None:
    assert board.neighbours(by_name["Staten Island"]) == set()


# R22 (amended 2026-12-03): water crossings the polygons measure as lines; each is removed by an override whose
# reason names the water and the ruling, and the builder's own measure still finds the line (so the override acts).
R22_WATER_CROSSINGS = [
    ("Brooklyn", "Manhattan", "East River"),  # Manhattan holds the tips of Brooklyn's piers in the borough file
    ("Bayonne", "Elizabeth", "Newark Bay"),
    ("Bayonne", "Newark", "Newark Bay"),
    ("Jersey City", "Newark", "Newark Bay"),
]


def _removal(board: Board, a: str, b: str) -> dict[str, str]:
    with open(board.directory / "overrides.json", encoding="utf-8") as fh:
        removed = json.load(fh)["edges_remove"]
    return next(o for o in removed if {o["a"], o["b"]} == {a, b})


@pytest.mark.parametrize(("a", "b", "water"), R22_WATER_CROSSINGS)
def test_r22_water_crossing_does_not_connect(board: Board, by_name: dict[str, str], a: str, b: str,
                                             water: str) -> None:
    assert by_name[b] not in board.neighbours(by_name[a])
    reason = _removal(board, by_name[a], by_name[b])["reason"]
    assert water in reason and "R22" in reason
    rows = _manifest(board)["diagnostics"]["water_lines"]
    row = next(r for r in rows if {r["a"], r["b"]} == {by_name[a], by_name[b]})
    assert row["decision"] == "does not connect" and row["shared_m"] >= 50


def test_r22_bayonne_staten_island_reason_names_shooters_island(board: Board, by_name: dict[str, str]) -> None:
    assert "Shooters Island" in _removal(board, by_name["Bayonne"], by_name["Staten Island"])["reason"]


# R22 (amended): rivers, inlets and lakes that are the municipal line connect.
R22_WATER_LINES_CONNECT = [
    ("Perth Amboy", "South Amboy"),  # Raritan
    ("Avon-by-the-Sea", "Belmar"), ("Belmar", "Neptune"),  # Shark River
    ("Highlands", "Sea Bright"), ("Rumson", "Sea Bright"),  # Shrewsbury
    ("Asbury Park", "Loch Arbour"), ("Asbury Park", "Ocean"),  # Deal Lake
    ("Jefferson", "Hopatcong"), ("Mount Arlington", "Hopatcong"),  # Lake Hopatcong
    ("Montague", "Port Jervis"),  # Tri-States point: a real line, not a corner
]


@pytest.mark.parametrize(("a", "b"), R22_WATER_LINES_CONNECT)
def test_r22_river_inlet_lake_lines_connect(board: Board, by_name: dict[str, str], a: str, b: str) -> None:
    assert by_name[b] in board.neighbours(by_name[a])
    rows = _manifest(board)["diagnostics"]["water_lines"]
    row = next(r for r in rows if {r["a"], r["b"]} == {by_name[a], by_name[b]})
    assert row["decision"] == "connects" and row["water"]


def _manifest(board: Board) -> dict[str, Any]:
    with open(board.directory / "manifest.json", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data
