"""Whole-board geometric checks: no overlaps, counts as in the manifest/report."""

from __future__ import annotations

import json
from collections import Counter

import shapely

from turf_common.board import Board

EXPECTED_PER_COUNTY = {
    ("NJ", "Bergen"): 70, ("NJ", "Essex"): 22, ("NJ", "Hudson"): 12, ("NJ", "Hunterdon"): 26,
    ("NJ", "Mercer"): 12, ("NJ", "Middlesex"): 25, ("NJ", "Monmouth"): 44, ("NJ", "Morris"): 39,
    ("NJ", "Passaic"): 16, ("NJ", "Somerset"): 21, ("NJ", "Sussex"): 24, ("NJ", "Union"): 21,
    ("NJ", "Warren"): 22,
    ("NY", "Bronx"): 1, ("NY", "Kings"): 1, ("NY", "New York"): 1, ("NY", "Queens"): 1, ("NY", "Richmond"): 1,
    ("NY", "Orange"): 42, ("NY", "Rockland"): 23, ("NY", "Westchester"): 24,
}


def test_counts_per_county(board: Board) -> None:
    counts = Counter((t.state, t.county) for t in board.territories.values())
    assert dict(counts) == EXPECTED_PER_COUNTY


def test_counts_match_manifest(board: Board) -> None:
    with open(board.directory / "manifest.json", encoding="utf-8") as fh:
        manifest = json.load(fh)
    per = manifest["counts"]["per_county"]
    assert {(s, c): n for s, cs in per.items() for c, n in cs.items()} == EXPECTED_PER_COUNTY


def test_no_two_territories_overlap(board: Board) -> None:
    geoms = board._metric
    tree = shapely.STRtree(geoms)
    a, b = tree.query(geoms, predicate="overlaps")
    pairs = [(i, j) for i, j in zip(a.tolist(), b.tolist(), strict=True) if i < j]
    worst = max((geoms[i].intersection(geoms[j]).area for i, j in pairs), default=0.0)
    assert worst <= 1.0


def test_geometries_valid_and_polygonal(board: Board) -> None:
    for t in board.territories.values():
        assert t.geometry.geom_type in ("Polygon", "MultiPolygon"), t.id
        assert t.geometry.is_valid, t.id
