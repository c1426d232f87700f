"""Fixtures of geo-verify's tests: a board index small enough to reason about by hand."""

from __future__ import annotations

import pytest

from turf_common.board.loader import Location
from turf_geo.ports import BoardIndex


class SquareBoard:
    """One territory, ``hoboken``: the unit square from (0, 0) to (1, 1) in (lat, lon) degrees; the border distance
    is a made-up 1,000 m per degree to the nearest side."""

    def locate(self, lat: float, lon: float) -> Location:
        if 0 <= lat <= 1 and 0 <= lon <= 1:
            return Location("hoboken", 1000 * min(lat, lon, 1 - lat, 1 - lon))
        return Location(None, None)

    def name_of(self, territory_id: str) -> str:
        return {"hoboken": "Hoboken"}[territory_id]


@pytest.fixture
def square() -> BoardIndex:
    """The unit square, one territory (:class:`SquareBoard`)."""
    return SquareBoard()
