"""The recap image and the statistics plot read at a glance: a player with no steal sees no axis numbers on an empty
chart (they were −0.045 … 0.000, one over another); a hold that has not lasted to a close is "less than a game day",
never "0 game days"; the recap's map frames the player's town with its neighbours and names it (on the whole board it
was a sliver)."""

from __future__ import annotations

from typing import Any

import pytest

from turf_common.board import Board, load_board
from turf_gateway.adapters.recap_image import recap_figure, stats_figure

HOBOKEN = "3401732250"


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def recap(rivals: list[dict[str, Any]] | None = None, hold_days: int = 0) -> dict[str, Any]:
    rivals = rivals or []
    return {
        "display_name": "ada_l", "place": 3, "final": False, "towns_held": 1, "towns_ever": 1,
        "longest_hold": {"territory_id": HOBOKEN, "name": "Hoboken", "days": hold_days,
                         "since": "2026-10-05T07:00:00-04:00"},
        "best_steal": None, "medals": [],
        "footprint": [{"territory_id": HOBOKEN, "name": "Hoboken", "status": "held", "claims": 1, "lost": 0}],
        "stats": {"claims_by_hour": {"7": 1}, "steals_given": sum(r["given"] for r in rivals),
                  "steals_taken": sum(r["taken"] for r in rivals), "rivals": rivals},
    }


def _steals_axes(fig: Any) -> Any:
    return next(ax for ax in fig.axes if ax.get_title(loc="left").startswith("steals:"))


def _tick_labels(ax: Any) -> list[Any]:
    return [t for t in [*ax.get_xticklabels(), *ax.get_yticklabels()] if t.get_visible() and t.get_text()]


def test_an_empty_steals_chart_has_no_axis_numbers_and_a_full_one_counts_from_zero() -> None:
    fig = stats_figure(recap())
    fig.canvas.draw()
    ax = _steals_axes(fig)
    assert [t.get_text() for t in _tick_labels(ax)] == []
    assert any(t.get_text() == "no steals yet" for t in ax.texts)

    fig = stats_figure(recap([{"player_id": "b", "display_name": "bobby", "given": 2, "taken": 1}]))
    fig.canvas.draw()
    ax = _steals_axes(fig)
    xs = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert xs and not any(x.startswith(("−", "-")) for x in xs), xs
    boxes = [t.get_window_extent() for t in ax.get_xticklabels() if t.get_text()]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_a_hold_shorter_than_a_game_day_is_said_so(board: Board) -> None:
    texts = [t.get_text() for t in recap_figure(recap(hold_days=0), board, "Turf War 2026").texts]
    assert "Longest hold: Hoboken, less than a game day" in texts, texts
    assert not any("0 game days" in t for t in texts)
    texts = [t.get_text() for t in recap_figure(recap(hold_days=1), board, "Turf War 2026").texts]
    assert "Longest hold: Hoboken, 1 game day" in texts, texts


def test_the_recap_map_frames_the_players_town_with_its_name(board: Board) -> None:
    fig = recap_figure(recap(), board, "Turf War 2026")
    fig.canvas.draw()
    ax = fig.axes[0]   # the map
    town = board.territories[HOBOKEN].geometry.bounds   # (lon0, lat0, lon1, lat1)
    (x0, y0), (x1, y1) = ax.transData.transform([(town[0], town[1]), (town[2], town[3])])
    box = ax.get_window_extent()
    # the town is a tenth of the map's width at least (on the whole board it was a fiftieth), and all in view
    assert (x1 - x0) / box.width >= 0.1, (x1 - x0, box.width)
    assert box.x0 <= x0 and x1 <= box.x1 and box.y0 <= y0 and y1 <= box.y1
    assert [t.get_text() for t in ax.texts] == ["Hoboken"]
