"""R7 and R7.1 for one fix, as geo-verify answers them for the claims service: where the fix lies decides R7's
refusals (``outside_board``, ``on_border``, ``inaccurate_fix``, ``stale_fix``, in that order), the player's trail
R7.1's flags (never a refusal)."""

from __future__ import annotations

from collections.abc import Sequence

from turf_common.rules.antispoof import FixRecord, Flag, screen
from turf_common.rules.claims import ClaimLimits, check_location
from turf_common.rules.refusals import Refused


def verify_fix(fix: FixRecord, territory_id: str | None, border_distance_m: float | None,
               trail: Sequence[FixRecord] | None, limits: ClaimLimits) -> tuple[Refused | None, list[Flag]]:
    """R7 for ``fix`` judged at its receipt (``fix.received_at``, the game clock's instant), given the territory
    it lies in (``None``: off the board) and its distance in metres to the nearest shared border; R7.1's flags
    against ``trail`` (the player's earlier fixes, oldest first; ``None``: not screened)."""
    refused = check_location(fix.received_at, fix.fix_time, fix.accuracy_m, territory_id, border_distance_m, limits)
    flags = [] if trail is None else screen(fix, trail, limits.max_travel_kmh, limits.max_fix_future_s)
    return refused, flags
