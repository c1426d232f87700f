"""Unit tests for the board pipeline's pure functions."""

from __future__ import annotations

from pathlib import Path

import pytest
from shapely.geometry import box

from turfwar.boardbuild.adjacency import Edge, compute_edges, shared_length
from turfwar.boardbuild.assemble import nj_names
from turfwar.boardbuild.pipeline import apply_edge_overrides


def test_shared_line_counts_and_corner_does_not() -> None:
    a, b = box(0, 0, 100, 100), box(100, 0, 200, 100)  # 100 m shared side
    corner = box(100, 100, 200, 200)  # touches a at one point
    assert shared_length(a, b.buffer(1.0), 1.0) == pytest.approx(100.0, abs=2.0)
    assert shared_length(a, corner.buffer(1.0), 1.0) == 0.0
    assert shared_length(a, corner.buffer(40.0), 40.0) < 50.0  # cross-source tolerance: still no edge


def test_compute_edges_threshold_and_tolerance() -> None:
    a, b = box(0, 0, 100, 100), box(100, 0, 200, 30)  # 30 m shared: a sliver
    c = box(0, 120, 100, 220)  # 20 m gap: a different source within tolerance
    edges = compute_edges(["a", "b", "c"], [a, b, c], ["nj", "nj", "nys"])
    assert {(e.a, e.b) for e in edges} == {("a", "c")}


def test_overrides_add_and_remove() -> None:
    geoms = {"a": box(0, 0, 1, 1), "b": box(1, 0, 2, 1), "c": box(5, 5, 6, 6)}
    computed = [Edge("a", "b", 100.0)]
    ov = {"edges_remove": [{"a": "b", "b": "a", "reason": "water"}],
          "edges_add": [{"a": "a", "b": "c", "reason": "ferry-free causeway", "shared_m": 60}]}
    edges, problems = apply_edge_overrides(computed, ov, geoms, set(geoms))
    assert [(e.a, e.b, e.source) for e in edges] == [("a", "c", "override")]
    assert problems == []


def test_nj_names_short_when_unique() -> None:
    rows = [("1", "Montclair Township", "Township", "Essex"),
            ("2", "Washington Township", "Township", "Bergen"),
            ("3", "Washington Township", "Township", "Morris"),
            ("4", "Franklin Borough", "Borough", "Sussex"),
            ("5", "Franklin Township", "Township", "Somerset")]
    names = nj_names(rows)
    assert names["1"] == "Montclair"
    assert names["2"] == "Washington Township (Bergen County)"
    assert names["4"] == "Franklin Borough" and names["5"] == "Franklin Township"


RAW = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "raw"


@pytest.mark.skipif(not RAW.is_dir(), reason="raw data not present")
def test_i195_line_extends_across_new_jersey() -> None:
    from turfwar.boardbuild.assemble import i195_line
    from turfwar.boardbuild.geom import to_wgs84

    line, extended = i195_line(RAW, [1, 2, 3, 4])
    assert len(line.coords) == 6
    west, east = to_wgs84(extended).coords[0], to_wgs84(extended).coords[-1]
    assert west[0] < -75.5 and east[0] > -73.0  # past the Delaware and out into the ocean


def test_water_lines_decisions_r22() -> None:
    """R22 (amended): a screened or recorded water line gets a decision; a removal with R22 does not connect."""
    from turfwar.boardbuild.water_lines import KEPT_WATER_MIN_M2, decide, screen

    computed = [Edge("a", "b", 900.0), Edge("b", "c", 400.0), Edge("c", "d", 300.0)]
    kept = {"a": KEPT_WATER_MIN_M2, "b": 2 * KEPT_WATER_MIN_M2, "c": KEPT_WATER_MIN_M2 / 2}
    assert set(screen(computed, kept)) == {("a", "b")}
    ov = {"edges_remove": [{"a": "b", "b": "a", "water": "Newark Bay", "reason": "open bay water (R22, amended)"}],
          "water_lines": [{"a": "d", "b": "c", "water": "Deal Lake", "reason": "a lake line connects (R22)"}]}
    rows, problems = decide(computed, ov, kept, {k: k.upper() for k in "abcd"})
    assert problems == []
    assert [(r["a"], r["b"], r["decision"], r["water"]) for r in rows] == [
        ("a", "b", "does not connect", "Newark Bay"), ("c", "d", "connects", "Deal Lake")]
