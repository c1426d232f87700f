"""R1 on the real stack: a season file with other hours and limits; every service reads them from it and the
refusals quote them. R7 (amended) through geo-verify: a coastline is no border, any finite accuracy is input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta

import httpx
import numpy as np
import pytest
import shapely

from tests.support.client import Player, move_clock, verified_player
from tests.support.stackfix import running_stack
from turf_common.board import load_board
from turf_common.board.loader import _TO_METRIC
from turf_common.rules import gametime
from turfwar.stack import Stack

HOBOKEN = "3401732250"
BEFORE_OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")  # open by default (06:00), not in this season
OPEN = datetime.fromisoformat("2026-10-05T07:45:00-04:00")
LIMITS = {"max_accuracy_m": 42, "on_border_m": 2.5, "max_fix_age_s": 60, "max_fix_future_s": 10,
          "max_travel_kmh": 90}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    d = tmp_path_factory.mktemp("r1")
    season = {k: v for k, v in gametime.load_season().to_dict().items() if k != "limits"}
    path = d / "season.json"
    path.write_text(json.dumps(season | {"season_id": "r1-test", "open_time": "07:30", "close_time": "20:15",
                                         "limits": LIMITS}))
    with running_stack(d / "stack", TURF_SEASON_FILE=str(path)) as s:
        yield s


@pytest.fixture(scope="module")
def player(http: httpx.Client, org: Player) -> Player:
    return verified_player(http, org)


def _hoboken_point(inside_m: float, shared: bool) -> tuple[float, float]:
    """(lat, lon) ``inside_m`` metres inside Hoboken from the middle of its longest boundary segment that is on a
    border shared with another territory (``shared``) or on its Hudson shore, over 100 m from any other territory."""
    board = load_board()
    g = board._ids.index(HOBOKEN)
    geom = board._metric[g]
    xy = shapely.get_coordinates(geom.exterior)
    a, b = xy[:-1], xy[1:]
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    others = shapely.union_all([o.boundary for i, o in enumerate(board._metric)
                                if i != g and shapely.dwithin(o, geom, 200)])
    if shared:
        ok = np.all([shapely.distance(shapely.points(p), others) < 1e-6 for p in (a, b, (a + b) / 2)], axis=0)
    else:
        ok = shapely.distance(lines, others) > 100
    k = np.flatnonzero(ok)
    i = k[np.argmax(shapely.length(lines[k]))]
    mid, u = (a[i] + b[i]) / 2, (b[i] - a[i]) / np.hypot(*(b[i] - a[i]))
    for normal in (np.array([-u[1], u[0]]), -np.array([-u[1], u[0]])):
        x, y = mid + inside_m * normal
        if shapely.contains_xy(geom, x, y):
            lon, lat = _TO_METRIC.transform(x, y, direction="INVERSE")
            return float(lat), float(lon)
    raise AssertionError("no inside side")


def _body(lat: float, lon: float, accuracy: object, fix_time: datetime) -> dict[str, object]:
    return {"lat": lat, "lon": lon, "accuracy_m": accuracy, "fix_time": fix_time.isoformat()}


def test_r1_refusals_quote_the_season_files_hours_and_limits(http: httpx.Client, org: Player,
                                                              player: Player) -> None:
    lat, lon = _hoboken_point(30.0, shared=True)
    # R3 with this season's hours: 07:00 is closed; the message quotes 7:30 and 20:15
    move_clock(org, BEFORE_OPEN)
    for path in ("/claims/check", "/claims"):
        r = player.post(path, _body(lat, lon, 5.0, BEFORE_OPEN))
        out = r.json()
        assert out["reason"] == "game_closed", (path, r.text)
        assert "7:30" in out["message"] and "20:15" in out["message"], out
    assert r.status_code == 409
    move_clock(org, OPEN)
    # R7 inaccurate_fix at the configured 42 m (50 m passes the default 100 m)
    r = player.post("/claims", _body(lat, lon, 50.0, OPEN))
    assert r.status_code == 409 and r.json()["reason"] == "inaccurate_fix", r.text
    assert "42 m" in r.json()["message"]
    # R7 stale_fix at the configured 60 s
    r = player.post("/claims", _body(lat, lon, 5.0, OPEN - timedelta(seconds=90)))
    assert r.status_code == 409 and r.json()["reason"] == "stale_fix", r.text
    assert "60 s" in r.json()["message"] and "10 s" in r.json()["message"]
    # R7 on_border at the configured 2.5 m: 1.5 m from Hoboken's shared border (accepted with the default 0.5 m)
    blat, blon = _hoboken_point(1.5, shared=True)
    r = player.post("/claims", _body(blat, blon, 5.0, OPEN))
    assert r.status_code == 409 and r.json()["reason"] == "on_border", r.text
    assert "2.5 m" in r.json()["message"]


def test_r7_a_point_just_inside_the_hudson_shore_is_not_on_border(http: httpx.Client, org: Player) -> None:
    move_clock(org, OPEN)
    someone = verified_player(http, org)
    # 0.3 m from a border shared with another territory is on_border (also with the default 0.5 m)
    blat, blon = _hoboken_point(0.3, shared=True)
    r = someone.post("/claims/check", _body(blat, blon, 5.0, OPEN))
    assert r.json()["reason"] == "on_border", r.text
    # 0.3 m inside the Hudson shore, which Hoboken shares with no territory, is not: the claim is accepted
    lat, lon = _hoboken_point(0.3, shared=False)
    r = someone.post("/claims/check", _body(lat, lon, 5.0, OPEN))
    assert r.status_code == 200 and r.json()["allowed"] is True, r.text
    assert r.json()["territory"]["id"] == HOBOKEN
    r = someone.post("/claims", _body(lat, lon, 5.0, OPEN))
    assert r.status_code == 201 and r.json()["territory_id"] == HOBOKEN, r.text


@pytest.mark.parametrize("accuracy", [1e12, 1.7e308, 10 ** 30])
def test_r7_any_finite_accuracy_is_inaccurate_fix_not_malformed(player: Player, org: Player,
                                                                accuracy: float) -> None:
    move_clock(org, OPEN)
    lat, lon = _hoboken_point(30.0, shared=True)
    for path, status in (("/claims/check", 200), ("/claims", 409)):
        r = player.post(path, _body(lat, lon, accuracy, OPEN))
        assert r.status_code == status and r.json()["reason"] == "inaccurate_fix", (path, r.text)
        assert "42 m" in r.json()["message"]


@pytest.mark.parametrize("raw", ["-1", "NaN", "Infinity", '"abc"', '"100"', "null", "1e400"])
def test_r7_malformed_accuracy_is_invalid_input(http: httpx.Client, player: Player, raw: str) -> None:
    content = ('{"lat": 40.744, "lon": -74.032, "accuracy_m": ' + raw + ', "fix_time": "'
               + OPEN.isoformat() + '"}')
    for path in ("/claims/check", "/claims"):
        r = http.post("/api/v1" + path, content=content,
                      headers=player.auth | {"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["reason"] == "invalid_input", (path, raw, r.text)
