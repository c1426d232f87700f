"""Edges whose shared line may run over water, and their decisions under R22 (amended 2026-12-03).

No water layer is among the raw files, so the screen is what the public data allows: a New Jersey polygon keeps
bay, river and lake water where its area exceeds the Census 2019 land area (ALAND) of the same place. An edge
between two territories that both keep at least ``KEPT_WATER_MIN_M2`` is flagged: its line may lie on that water.
Townships are not Census places (no ALAND), New York polygons are shoreline-clipped, so the screen misses some
lines; those are recorded by hand in ``overrides.json`` ``water_lines`` with their evidence, and a removal with a
``water`` field is a water crossing. Every flagged or recorded edge gets a decision: an edge removed with a reason
does not connect; a recorded river, inlet or lake line connects (R22: they are ordinary borders); a screened edge
with no record connects with "screen only".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turfwar.boardbuild.adjacency import Edge
from turfwar.boardbuild.assemble import Unit

KEPT_WATER_MIN_M2 = 250_000.0  # a quarter km²: above the area noise between NJOGIS and Census (~0.1 km²)


def kept_water(units: Sequence[Unit], aland: dict[str, int]) -> dict[str, float]:
    """m² of water each NJ territory's polygon keeps (polygon area − Census ALAND); places only."""
    out: dict[str, float] = {}
    for u in units:
        place = "34" + u.id[-5:]  # an NJ municipality's place code is its county-subdivision code
        if u.source == "njogis" and place in aland:
            out[u.id] = u.geom.area - aland[place]
    return out


def screen(edges: Sequence[Edge], kept: dict[str, float]) -> dict[tuple[str, str], str]:
    """Edges both of whose territories keep water, with the evidence as a sentence."""
    flagged: dict[tuple[str, str], str] = {}
    for e in edges:
        ka, kb = kept.get(e.a), kept.get(e.b)
        if ka is not None and kb is not None and min(ka, kb) >= KEPT_WATER_MIN_M2:
            flagged[(e.a, e.b)] = (f"both polygons keep water beyond Census land: {ka / 1e6:.2f} and "
                                   f"{kb / 1e6:.2f} km²")
    return flagged


def _key(entry: dict[str, Any]) -> tuple[str, str]:
    a, b = sorted((str(entry["a"]), str(entry["b"])))
    return a, b


def decide(computed: Sequence[Edge], overrides: dict[str, Any], kept: dict[str, float],
           names: dict[str, str]) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per water-line edge (computed edges screened, plus recorded ones): decision and why."""
    problems: list[str] = []
    by_key = {(e.a, e.b): e for e in computed}
    removed = {_key(o): o for o in overrides["edges_remove"]}
    recorded = {_key(o): o for o in overrides.get("water_lines", [])}
    flagged = screen(computed, kept)
    rows: list[dict[str, Any]] = []
    for key in sorted(set(flagged) | set(recorded) | {k for k, o in removed.items() if o.get("water")}):
        a, b = key
        edge = by_key.get(key)
        if edge is None:
            problems.append(f"water_lines {a}-{b}: not in the computed graph")
            continue
        rec = recorded.get(key) or removed.get(key)
        if key in removed:
            decision, why = "does not connect", str(removed[key]["reason"])
        elif rec is not None:
            decision, why = "connects", str(rec["reason"])
        else:
            decision, why = "connects", "screen only: no evidence of open bay or harbour water on the line"
        rows.append({"a": a, "b": b, "names": f"{names[a]} / {names[b]}", "shared_m": round(edge.shared_m, 1),
                     "water": str(rec.get("water", "")) if rec else "", "evidence": flagged.get(key, "recorded"),
                     "decision": decision, "reason": why})
    return rows, problems
