"""geo.locate: which territory contains a WGS84 point, and how far the point is from its border."""

from __future__ import annotations

from turf_common.board import Board
from turf_common.contracts.geo import Located, LocatePoint


def locate(board: Board, q: LocatePoint) -> Located:
    loc = board.locate(q.lat, q.lon)
    name = board.territories[loc.territory_id].name if loc.territory_id else None
    return Located(territory_id=loc.territory_id, territory_name=name, border_distance_m=loc.border_distance_m)
