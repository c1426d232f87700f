"""Territory names for the texts, from the committed board's display file (names only: no geometry kept)."""

from __future__ import annotations

import json
from pathlib import Path

from turf_common.board.loader import DEFAULT_BOARD_DIR


def town_names(board_dir: Path | None = None) -> dict[str, str]:
    """territory id → municipality name."""
    d = Path(board_dir or DEFAULT_BOARD_DIR)
    path = d / "display.geojson" if (d / "display.geojson").exists() else d / "territories.geojson"
    with open(path, encoding="utf-8") as fh:
        fc = json.load(fh)
    return {str(f["properties"]["id"]): str(f["properties"]["name"]) for f in fc["features"]}
