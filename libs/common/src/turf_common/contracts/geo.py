from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Message
from turf_common.contracts.claims import Fix, SubmitClaim
from turf_common.rules.refusals import RefusalCode


class LocatePoint(Message):
    """``geo.locate`` request: a WGS84 point in degrees."""

    lat: float = Field(ge=-90, le=90, allow_inf_nan=False)
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)


class Located(Message):
    """``geo.locate`` reply: the territory containing the point (or None) and the distance in metres from
    the point to the nearest border that territory shares with another (R7; None off the board or when it shares
    none: a coastline or the board's edge is not a border)."""

    territory_id: str | None
    territory_name: str | None = None
    border_distance_m: float | None


#: One fix of a player's trail (R7.1), compact because a trail may hold hundreds: (lat, lon, accuracy_m, fix_time,
#: received_at), degrees, metres and aware instants, oldest first.
TrailFix = tuple[float, float, float, AwareDatetime, AwareDatetime]


class FixToVerify(Message):
    """One fix of a ``geo.verify`` batch: the fix as the player sent it, the game clock's instant the claims service
    received it at (R7's staleness, R7.1's receipt time) and the player's trail before it (R7.1; ``None``: the fix
    is not screened, as a check by a player who is not verified)."""

    fix: Fix
    received_at: AwareDatetime
    trail: list[TrailFix] | None = None


class VerifyFixes(Message):
    """``geo.verify`` request: a batch of fixes, each verified alone (R7, R7.1), answered in the same order."""

    fixes: list[FixToVerify] = Field(max_length=1000)


class FlagFound(Message):
    """An R7.1 sign that a fix was spoofed (``impossible_travel``, ``repeated_fix``, ``zero_accuracy``) with its
    evidence for the organizer; never a refusal."""

    kind: str
    evidence: dict[str, Any]


class Verdict(Message):
    """What geo-verify found for one fix: where it lies, R7's first refusal (``reason`` one of ``outside_board``,
    ``on_border``, ``inaccurate_fix``, ``stale_fix``, ``message`` quoting the season's limit; both ``None`` when
    R7 allows it) and R7.1's flags."""

    located: Located
    reason: RefusalCode | None = None
    message: str | None = None
    flags: list[FlagFound] = []


class Verified(Message):
    """``geo.verify`` reply: one :class:`Verdict` per fix of the request, in its order."""

    verdicts: list[Verdict]


class VerifiedClaim(Message):
    """``claims.verified.submit`` / ``claims.verified.check``: a claim or check as the gateway sent it, the game
    clock's instant geo-verify received it at (the claim's instant: R3, R5, R8 are judged at it, as R7 was) and
    geo-verify's verdict on its fix (R7; R7.1's flags against the player's trail). Only geo-verify publishes it."""

    claim: SubmitClaim
    received_at: AwareDatetime
    verdict: Verdict
