"""The board as TopoJSON (turf_common.board.topology): a border two towns share is one arc both refer to (one of
them backwards), an enclave's ring is one arc too, and the whole display board decodes to its GeoJSON rings vertex
for vertex, in fewer bytes."""

from __future__ import annotations

import json
from typing import Any

from turf_common.board import load_board
from turf_common.board.topology import SCALE, decode, same_ring, topology


def _square(fid: str, x0: float, y0: float, x1: float, y1: float,
            hole: list[list[float]] | None = None) -> dict[str, Any]:
    ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
    return {"type": "Feature", "id": fid, "properties": {"id": fid},
            "geometry": {"type": "Polygon", "coordinates": [ring, *([hole] if hole else [])]}}


def _rings(geometry: dict[str, Any]) -> list[list[list[tuple[float, float]]]]:
    polys = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    return [[[(x, y) for x, y in r] for r in p] for p in polys]


def test_a_border_two_towns_share_is_stored_once_and_read_backwards_by_one_of_them() -> None:
    west, east = _square("w", 0.0, 0.0, 0.01, 0.01), _square("e", 0.01, 0.0, 0.02, 0.01)
    topo = topology([west, east])
    refs = [g["arcs"][0] for g in topo["objects"]["board"]["geometries"]]
    shared = set(refs[0]) & {~r for r in refs[1]}
    assert len(shared) == 1   # the edge x = 0.01, once: east's ring goes along it the other way
    assert len(topo["arcs"]) == 3 and topo["transform"]["scale"] == [SCALE, SCALE]
    decoded = decode(topo)
    for f in (west, east):
        assert same_ring(_rings(f["geometry"])[0][0], decoded[f["id"]][0][0])


def test_an_enclaves_ring_is_one_arc_shared_with_the_hole_around_it() -> None:
    inner = _square("in", 0.01, 0.01, 0.02, 0.02)
    hole = [[0.01, 0.01], [0.01, 0.02], [0.02, 0.02], [0.02, 0.01], [0.01, 0.01]]   # the other way round
    outer = _square("out", 0.0, 0.0, 0.03, 0.03, hole)
    topo = topology([outer, inner])
    assert len(topo["arcs"]) == 2
    decoded = decode(topo)
    assert same_ring(_rings(outer["geometry"])[0][1], decoded["out"][0][1])
    assert same_ring(_rings(inner["geometry"])[0][0], decoded["in"][0][0])


def test_the_display_board_decodes_to_its_rings_in_half_the_bytes() -> None:
    board = load_board()
    feats = json.loads(board.display_geojson_path().read_text())["features"]
    topo = topology(feats)
    decoded = decode(topo)
    for f in feats:
        # to the metre: a handful of vertices (where the build cut a border) have more than five decimals
        want = [[[(round(x, 5), round(y, 5)) for x, y in r] for r in p] for p in _rings(f["geometry"])]
        got = decoded[f["id"]]
        assert [len(p) for p in want] == [len(p) for p in got], f["id"]
        assert all(same_ring(w, g) for wp, gp in zip(want, got, strict=True)
                   for w, g in zip(wp, gp, strict=True)), f["id"]
    geo_bytes = len(json.dumps({"type": "FeatureCollection", "features": feats}, separators=(",", ":")))
    assert len(json.dumps(topo, separators=(",", ":"))) < geo_bytes / 2
