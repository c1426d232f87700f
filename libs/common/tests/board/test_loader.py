from __future__ import annotations

import time

from turf_common.board import DEFAULT_BOARD_DIR, Board, load_board


def test_load_is_cached_and_quick() -> None:
    t0 = time.perf_counter()
    b = load_board(DEFAULT_BOARD_DIR)
    assert time.perf_counter() - t0 < 3.0
    assert load_board() is b


def test_locate_many_matches_locate(board: Board) -> None:
    lats = [40.7440, 40.7500, 40.7831, 40.6782]
    lons = [-74.0324, -74.0150, -73.9712, -73.9442]
    many = board.locate_many(lats, lons)
    single = [board.locate(la, lo) for la, lo in zip(lats, lons, strict=True)]
    assert [m.territory_id for m in many] == [s.territory_id for s in single]
    assert many[2].territory_id == "3606144919"  # Central Park
    assert board.locate_many([], []) == []


def test_label_points_inside(board: Board) -> None:
    ids = list(board.territories)
    locs = board.locate_many([board.territories[t].label_point[0] for t in ids],
                             [board.territories[t].label_point[1] for t in ids])
    assert [loc.territory_id for loc in locs] == ids


def test_display_geojson_small(board: Board) -> None:
    p = board.display_geojson_path()
    assert p.exists() and p.stat().st_size < 1_000_000


def test_feature_properties(board: Board) -> None:
    props = board.feature_properties("3606144919")
    assert props["name"] == "Manhattan" and props["state"] == "NY"
    assert set(props["label_point"]) == {"lat", "lon"}
