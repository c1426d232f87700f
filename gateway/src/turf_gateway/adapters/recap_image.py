"""The shareable recap image: a 1200×630 PNG (the size link previews use) drawn with matplotlib's object API (no
pyplot state, so it may run in a worker thread): the player's name and place, towns, longest hold, best steal and
medals; the footprint map (held now, lost, the rest of the board); the claims by hour. The PNG's text chunks name
the player and place too (``Title``, ``Description``), so a test or a crawler reads them without looking."""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch, PathPatch
from matplotlib.path import Path as MPath
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox

from turf_common.board import Board

WIDTH, HEIGHT, DPI = 1200, 630, 100
COLOURS = {"held": "#1f77b4", "lost": "#f28e2b", None: "#e6e6e6"}
#: the recap map's least width in degrees of longitude (about 10 km): a single small town shows with its neighbours
MAP_SPAN_MIN = 0.12
#: the map's place in the recap (left, bottom, width, height), in parts of the image
MAP_BOX = (0.52, 0.03, 0.46, 0.94)
#: the footprint's towns named on the recap map, those held now first
MAP_NAMES = 6
TIER_COLOURS = {"bronze": "#b07030", "silver": "#8c8c8c", "gold": "#c9a000", "platinum": "#4a6f8a"}


def shape_path(geom: Any) -> MPath | None:
    """A shapely Polygon/MultiPolygon as one matplotlib path (holes kept, rings under 3 points dropped); None when
    nothing is left. Also the simulated season's map (``turfwar.simulate.report``)."""
    verts: list[Any] = []
    codes: list[Any] = []
    for poly in getattr(geom, "geoms", [geom]):
        if poly.geom_type != "Polygon" or poly.is_empty:
            continue
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords)[:, :2]
            if len(xy) >= 3:
                verts.extend(xy.tolist())
                codes += [MPath.MOVETO] + [MPath.LINETO] * (len(xy) - 2) + [MPath.CLOSEPOLY]
    return MPath(verts, codes) if verts else None


@lru_cache(maxsize=2)
def _outlines(board: Board) -> tuple[tuple[str, MPath], ...]:
    """The board's towns simplified for a small map (made once per board)."""
    out = []
    for tid, t in board.territories.items():
        p = shape_path(t.geometry.simplify(0.001, preserve_topology=True))
        if p is not None:
            out.append((tid, p))
    return tuple(out)


def place_words(recap: dict[str, Any]) -> str:
    place = recap.get("place")
    if place is None:
        return "not placed"
    return f"{'final' if recap.get('final') else 'live'} place {place}"


def game_days(n: int) -> str:
    """"1 game day", "3 game days"; a hold that has not yet lasted to a close is "less than a game day" (it read
    "0 game days")."""
    return "less than a game day" if n <= 0 else f"{n} game day{'s' if n != 1 else ''}"


def render(recap: dict[str, Any], board: Board, season_name: str) -> bytes:
    """The PNG of one :meth:`~turf_gateway.handlers.profiles.Profiles.recap`."""
    fig = recap_figure(recap, board, season_name)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={
        "Title": f"{recap['display_name']}: {season_name} recap",
        "Description": f"{recap['display_name']}, {place_words(recap)}, {recap['towns_held']} towns held"})
    return buf.getvalue()


def recap_figure(recap: dict[str, Any], board: Board, season_name: str) -> Figure:
    """The recap drawn (:func:`render` saves it): the text on the left, the footprint's map on the right."""
    fig = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    _text(fig, recap, season_name)
    _map(fig.add_axes(MAP_BOX), recap, board)
    _hours(fig.add_axes((0.05, 0.07, 0.42, 0.2)), recap)
    return fig


def _text(fig: Figure, r: dict[str, Any], season_name: str) -> None:
    fig.text(0.04, 0.92, r["display_name"], fontsize=28, weight="bold")
    fig.text(0.04, 0.86, f"{season_name} · {place_words(r)}", fontsize=15, color="#444444")
    lines = [f"Towns held: {r['towns_held']} (of {r['towns_ever']} ever)"]
    if (h := r.get("longest_hold")) is not None:
        lines.append(f"Longest hold: {h['name']}, {game_days(h['days'])}")
    if (s := r.get("best_steal")) is not None:
        lines.append(f"Best steal: {s['name']}, held {game_days(s['held_days'])}")
    st = r["stats"]
    lines.append(f"Steals given {st['steals_given']}, taken {st['steals_taken']}")
    for i, line in enumerate(lines):
        fig.text(0.04, 0.77 - i * 0.055, line, fontsize=13)
    for i, m in enumerate(r["medals"]):   # three badges a row, at most eight medals
        fig.text(0.04 + (i % 3) * 0.16, 0.50 - (i // 3) * 0.06, f"{m['name']} · {m['tier']}", fontsize=10,
                 color="white", weight="bold",
                 bbox={"boxstyle": "round,pad=0.3", "facecolor": TIER_COLOURS.get(m["tier"], "#666666")})
    if not r["medals"]:
        fig.text(0.04, 0.50, "No medal yet", fontsize=11, color="#666666")


def _map(ax: Any, r: dict[str, Any], board: Board) -> None:
    status = {t["territory_id"]: t["status"] for t in r["footprint"]}
    outlines = _outlines(board)
    patches = [PathPatch(p) for _, p in outlines]
    faces = [COLOURS[status.get(tid)] for tid, _ in outlines]
    ax.add_collection(PatchCollection(patches, facecolors=faces, edgecolors="white", linewidths=0.3))
    ax.autoscale_view()
    ax.set_aspect(1.3)
    ax.set_axis_off()
    # the map frames the player's towns with their neighbours around them, each named: on the whole board (448
    # towns) one town was a sliver nobody could find
    mine = [p for tid, p in outlines if tid in status]
    if mine:
        box = Bbox.union([p.get_extents() for p in mine])
        x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        tall = MAP_BOX[3] * HEIGHT / (MAP_BOX[2] * WIDTH) / 1.3   # the box's height over width, in degrees
        half_x = max(x1 - x0, (y1 - y0) / tall, MAP_SPAN_MIN) / 2 * 1.25   # a margin of neighbours
        ax.set_xlim(cx - half_x, cx + half_x)
        ax.set_ylim(cy - half_x * tall, cy + half_x * tall)
        named = sorted(r["footprint"], key=lambda t: (t["status"] != "held", -(t.get("claims") or 0)))[:MAP_NAMES]
        for t in named:
            terr = board.territories.get(t["territory_id"])
            if terr is not None:
                ax.text(terr.label_point[1], terr.label_point[0], terr.name, fontsize=11, weight="bold",
                        ha="center", va="center", color="#1d232a", clip_on=True,
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "alpha": 0.8, "linewidth": 0})
    ax.legend(handles=[Patch(color=COLOURS["held"], label="held"), Patch(color=COLOURS["lost"], label="lost")],
              loc="lower left", fontsize=10, frameon=False)


def _hours(ax: Any, r: dict[str, Any]) -> None:
    by_hour = {int(h): n for h, n in r["stats"]["claims_by_hour"].items()}
    hours = list(range(6, 22))
    ax.bar(hours, [by_hour.get(h, 0) for h in hours], color=COLOURS["held"])
    ax.set_title("claims by hour", fontsize=10, loc="left")
    ax.set_xticks(hours[::2])
    ax.tick_params(labelsize=8)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def stats(recap: dict[str, Any]) -> bytes:
    """The statistics plot, 1000×420: claims by hour of the day; steals given and taken with each of the players
    fought most (the rival first)."""
    fig = stats_figure(recap)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Title": f"{recap['display_name']}: statistics"})
    return buf.getvalue()


def stats_figure(recap: dict[str, Any]) -> Figure:
    """The statistics drawn (:func:`stats` saves them)."""
    fig = Figure(figsize=(10, 4.2), dpi=DPI)
    FigureCanvasAgg(fig)
    fig.suptitle(f"{recap['display_name']}: the season in numbers", x=0.02, ha="left", fontsize=13, weight="bold")
    _hours(fig.add_axes((0.06, 0.12, 0.4, 0.7)), recap)
    ax = fig.add_axes((0.62, 0.12, 0.35, 0.7))
    rivals = recap["stats"]["rivals"][::-1]
    y = np.arange(len(rivals))
    ax.barh(y + 0.2, [r["given"] for r in rivals], height=0.4, color=COLOURS["held"], label="steals given")
    ax.barh(y - 0.2, [r["taken"] for r in rivals], height=0.4, color=COLOURS["lost"], label="steals taken")
    ax.set_yticks(y, [r["display_name"] or "a player" for r in rivals], fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"steals: {recap['stats']['steals_given']} given, {recap['stats']['steals_taken']} taken",
                 fontsize=10, loc="left")
    if rivals:
        ax.set_xlim(left=0)
        ax.legend(fontsize=8, frameon=False, loc="lower right")
    else:
        # nothing to count: no axis numbers (an empty plot's were −0.045 … 0.000, one over another)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no steals yet", ha="center", va="center", transform=ax.transAxes, color="#666666")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
