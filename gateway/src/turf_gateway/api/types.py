"""Field types shared by request bodies."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AwareDatetime, BeforeValidator

from turf_common.contracts.claims import FixTime


def _iso_text_only(v: Any) -> Any:
    # pydantic would read a bare number as seconds since 1970; for a game clock that is a mistake, not a time
    if isinstance(v, int | float) and not isinstance(v, bool):
        raise ValueError("must be an ISO 8601 date-time with a UTC offset, e.g. 2026-10-05T07:00:00-04:00")
    return v


IsoTime = Annotated[AwareDatetime, BeforeValidator(_iso_text_only)]
#: a GPS fix's own time: an ISO text within the contract's window (a year-10000 fix poisoned the trail)
FixIsoTime = Annotated[FixTime, BeforeValidator(_iso_text_only)]


def _iso_query_only(v: Any) -> Any:
    # a query parameter is always text: pydantic would read "1700000000" as seconds since 1970 too
    if isinstance(v, str) and v.strip().lstrip("+-").replace(".", "", 1).isdigit():
        raise ValueError("must be an ISO 8601 date-time with a UTC offset, e.g. 2026-10-05T07:00:00-04:00")
    return _iso_text_only(v)


IsoQueryTime = Annotated[AwareDatetime, BeforeValidator(_iso_query_only)]
