"""The season's outputs: results (JSON and a readable table), the season map and the standings over time."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from turf_common.board import Board
from turf_common.rules import gametime
from turf_common.rules.scoring import clusters

UNCLAIMED = "#ececec"
FLAG_SHORT = {"impossible_travel": "travel", "repeated_fix": "repeat", "zero_accuracy": "zero-acc"}


def colours(order: list[str]) -> dict[str, Any]:
    """A distinct colour per player, the strongest for the best placed."""
    import matplotlib

    cmaps = [matplotlib.colormaps[n] for n in ("tab10", "Set2", "Dark2", "tab20b", "tab20c", "Set3")]
    palette: list[Any] = []
    for cm in cmaps:
        palette += [cm(i) for i in range(cm.N)]
    palette = [c for c in palette if not (abs(c[0] - c[1]) < 0.03 and abs(c[1] - c[2]) < 0.03)]  # no greys
    return {pid: palette[i % len(palette)] for i, pid in enumerate(order)}


def season_map(path: Path, board: Board, owners: dict[str, str | None], fortified: dict[str, bool],
               names: dict[str, str], order: list[str], cols: dict[str, Any], title: str, places: dict[str, int],
               outline: int = 6) -> None:
    """Territories coloured by final owner (fortified ones hatched), the largest clusters of the best-placed
    players outlined and labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import shapely
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Patch, PathPatch

    from turf_gateway.adapters.recap_image import shape_path

    simple = {tid: t.geometry.simplify(0.0004, preserve_topology=True) for tid, t in board.territories.items()}
    fig, ax = plt.subplots(figsize=(11, 12.5), dpi=120)
    patches, faces, hatched = [], [], []
    for tid, g in simple.items():
        p = shape_path(g)
        if p is None:
            continue
        owner = owners.get(tid)
        patches.append(PathPatch(p))
        faces.append(cols.get(owner, UNCLAIMED) if owner else UNCLAIMED)
        if owner and fortified.get(tid):
            hatched.append(PathPatch(p))
    ax.add_collection(PatchCollection(patches, facecolors=faces, edgecolors="white", linewidths=0.35))
    if hatched:
        ax.add_collection(PatchCollection(hatched, facecolors="none", edgecolors=(0, 0, 0, 0.45), hatch="////",
                                          linewidths=0))
    for pid in order[:outline]:
        owned = {t for t, o in owners.items() if o == pid}
        cl = clusters(board.graph, owned)
        if not cl:
            continue
        shape = shapely.union_all([simple[t].buffer(0.0002) for t in cl[0]]).buffer(-0.0002)
        for poly in getattr(shape, "geoms", [shape]):
            for ring in [poly.exterior]:
                xy = np.asarray(ring.coords)
                ax.plot(xy[:, 0], xy[:, 1], color="black", linewidth=2.4, solid_joinstyle="round")
                ax.plot(xy[:, 0], xy[:, 1], color=cols[pid], linewidth=1.0, solid_joinstyle="round")
        pt = shape.representative_point()
        ax.annotate(f"{places.get(pid, '-')}. {names.get(pid, pid[:6])} · {len(cl[0])}", (pt.x, pt.y), ha="center",
                    va="center", fontsize=9, fontweight="bold",
                    bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": "black", "alpha": 0.85})
    minx, miny, maxx, maxy = shapely.union_all(list(simple.values())).bounds
    ax.set_xlim(minx - 0.02, maxx + 0.02)
    ax.set_ylim(miny - 0.02, maxy + 0.02)
    ax.set_aspect(1 / np.cos(np.radians((miny + maxy) / 2)))
    ax.set_xlabel("longitude")
    ax.set_ylabel("latitude")
    ax.set_title(title, fontsize=12)
    handles = [Patch(facecolor=cols[pid], edgecolor="none", label=f"{places.get(pid, '-')}. {names.get(pid, pid[:6])}")
               for pid in order[:14]]
    handles += [Patch(facecolor=UNCLAIMED, edgecolor="#bbbbbb", label="unclaimed"),
                Patch(facecolor="white", edgecolor="black", hatch="////", label="fortified"),
                Patch(facecolor="none", edgecolor="black", linewidth=2, label=f"largest cluster (top {outline})")]
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9, title="final standings")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def standings_plot(path: Path, timeline: list[dict[str, Any]], names: dict[str, str], order: list[str],
                   cols: dict[str, Any], title: str, places: dict[str, int], played_until: datetime | None = None,
                   top: int = 10) -> None:
    """Total points (base + side quests) over the season's open hours, the best-placed players in colour.
    Snapshots after ``played_until`` (the clock moved on to the close without play) are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    cfg = gametime.load_season()
    start = gametime.season_opens_at(cfg)
    points = [p for p in timeline if played_until is None or datetime.fromisoformat(p["at"]) <= played_until]
    xs = [gametime.game_hours_between(cfg, start, datetime.fromisoformat(p["at"])) for p in points]
    fig, ax = plt.subplots(figsize=(12, 6.5), dpi=120)
    lines: dict[str, Any] = {}
    for pid in reversed(order):
        ys = [p["standings"].get(pid, [0, 0, 0])[2] for p in points]
        rank = order.index(pid)
        if rank < top:
            (lines[pid],) = ax.plot(xs, ys, drawstyle="steps-post", color=cols[pid], linewidth=2.0,
                                    label=f"{places.get(pid, '-')}. {names.get(pid, pid[:6])}", zorder=3 + top - rank)
        else:
            ax.plot(xs, ys, drawstyle="steps-post", color="#9a9a9a", linewidth=0.8, alpha=0.6, zorder=1)
    days = [d for d in gametime.game_days(cfg)]
    hours_max = max(xs) if xs else 16
    ticks = [(i * 16, d.strftime("%a %-d")) for i, d in enumerate(days) if i * 16 <= hours_max + 1]
    ax.set_xticks([t for t, _ in ticks], [lbl for _, lbl in ticks], rotation=45, ha="right", fontsize=8)
    for t, _ in ticks:
        ax.axvline(t, color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_xlim(0, max(hours_max, 16))
    ax.set_ylabel("total points (largest cluster + side quests)")
    ax.set_xlabel("game day (open hours only, 06:00–22:00)")
    ax.set_title(title, fontsize=12)
    ax.legend(handles=[lines[p] for p in order if p in lines], loc="upper left", fontsize=8, ncol=2, framealpha=0.9)
    ax.grid(axis="y", color="#eeeeee")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def results_table(rows: list[dict[str, Any]], title: str) -> Table:
    t = Table(title=title, title_justify="left")
    for col, just in (("place", "right"), ("player", "left"), ("style", "left"), ("home", "left"),
                      ("base", "right"), ("bonus", "right"), ("total", "right"), ("prize", "right"),
                      ("claims", "right"), ("steals", "right"), ("refused", "right"), ("cards", "right"),
                      ("cheats", "left"), ("flags", "left")):
        t.add_column(col, justify=just, no_wrap=col in ("home", "flags"))  # type: ignore[arg-type]
    for r in rows:
        t.add_row(str(r["place"]), r["name"], r["style"], r["home"], str(r["base"]), str(r["bonuses"]),
                  str(r["total"]), f"${r['prize']}", str(r["claims"]), str(r["steals"]), str(r["refused"]),
                  str(r["cards_played"]), f"{r['cheat']} ×{len(r['cheats'])}" if r["cheat"] else "-",
                  ", ".join(f"{FLAG_SHORT.get(k, k)} ×{n}" for k, n in r["flags"].items()) or "-")
    return t
