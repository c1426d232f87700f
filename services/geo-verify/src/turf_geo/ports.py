"""Ports of geo-verify: the board it answers from."""

from __future__ import annotations

from typing import Protocol

from turf_common.board.loader import Location


class BoardIndex(Protocol):
    """Point lookup over the board's territories (WGS84 degrees in, metres out)."""

    def locate(self, lat: float, lon: float) -> Location: ...

    def name_of(self, territory_id: str) -> str: ...
