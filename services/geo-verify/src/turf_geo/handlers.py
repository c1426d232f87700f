"""geo.locate: which territory contains a WGS84 point, and how far the point is from its border (R7)."""

from __future__ import annotations

from dataclasses import dataclass

from turf_common.contracts.geo import Located, LocatePoint
from turf_geo.ports import BoardIndex


@dataclass
class GeoHandlers:
    board: BoardIndex

    def locate(self, q: LocatePoint) -> Located:
        """The territory containing the point (``None`` outside the board) and the distance in metres from the
        point to the nearest border that territory shares with another territory (R7; ``None`` if it shares none)."""
        loc = self.board.locate(q.lat, q.lon)
        name = self.board.name_of(loc.territory_id) if loc.territory_id else None
        return Located(territory_id=loc.territory_id, territory_name=name, border_distance_m=loc.border_distance_m)
