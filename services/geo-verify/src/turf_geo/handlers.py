"""geo-verify's use cases: ``geo.locate`` (which territory contains a point, how far from its border) and
``geo.verify`` (R7 and R7.1 for a batch of claims' fixes, asked once per batch by the claims service)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from turf_common.contracts.geo import FixToVerify, FlagFound, Located, LocatePoint, Verdict, Verified, VerifyFixes
from turf_common.rules.antispoof import FixRecord
from turf_common.rules.claims import ClaimLimits
from turf_common.rules.location import verify_fix
from turf_common.seasonbook import SeasonBook
from turf_geo.ports import BoardIndex


@dataclass
class GeoHandlers:
    board: BoardIndex
    #: R7's and R7.1's limits, the season configuration's (R1)
    limits: ClaimLimits = field(default_factory=ClaimLimits)
    #: R31: every season's limits (the catalog the clock keeps); None: ``limits`` alone
    book: SeasonBook | None = None

    def limits_at(self, at: datetime) -> ClaimLimits:
        """R7's and R7.1's limits of the season in force at ``at`` (R31: each season has its own)."""
        return self.book.config_at(at).limits if self.book is not None else self.limits

    def locate(self, q: LocatePoint) -> Located:
        """The territory containing the point (``None`` outside the board) and the distance in metres from the
        point to the nearest border that territory shares with another territory (R7; ``None`` if it shares none)."""
        loc = self.board.locate(q.lat, q.lon)
        name = self.board.name_of(loc.territory_id) if loc.territory_id else None
        return Located(territory_id=loc.territory_id, territory_name=name, border_distance_m=loc.border_distance_m)

    def verify(self, q: VerifyFixes) -> Verified:
        """One :class:`Verdict` per fix, in order: where it lies, R7's first refusal, R7.1's flags."""
        return Verified(verdicts=[self._verdict(f) for f in q.fixes])

    def _verdict(self, f: FixToVerify) -> Verdict:
        located = self.locate(LocatePoint(lat=f.fix.lat, lon=f.fix.lon))
        fix = FixRecord(f.fix.lat, f.fix.lon, f.fix.accuracy_m, f.fix.fix_time, f.received_at)
        trail = None if f.trail is None else [FixRecord(*t) for t in f.trail]
        refused, flags = verify_fix(fix, located.territory_id, located.border_distance_m, trail,
                                   self.limits_at(f.received_at))
        return Verdict(located=located, reason=refused.reason if refused else None,
                       message=refused.message if refused else None,
                       flags=[FlagFound(kind=fl.kind, evidence=fl.evidence) for fl in flags])
