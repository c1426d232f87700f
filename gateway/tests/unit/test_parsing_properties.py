"""Property tests (hypothesis) on what the gateway parses: coordinates, times, card arguments. Whatever
arrives, parsing either yields a value inside the contract or raises a ValidationError (a 422) — nothing else."""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from turf_gateway.api.routes.cards import ARGUMENT, PlayBody, TradeBody
from turf_gateway.api.routes.claims import ClaimBody
from turf_gateway.api.types import IsoTime

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | \
    st.text(max_size=40)
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                                             max_size=3), max_leaves=6)
numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-10**6, max_value=10**6) | \
    st.text(max_size=12) | st.none()
times = st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()) | st.text(max_size=30) | \
    st.integers() | st.floats() | st.none()


def parse(model: type[BaseModel], raw: Any) -> BaseModel | None:
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


@settings(max_examples=200, deadline=None)
@given(lat=numbers, lon=numbers, acc=numbers, t=times, extra=st.dictionaries(st.text(max_size=6), json_values,
                                                                             max_size=2))
def test_claim_body_is_in_range_or_invalid(lat: Any, lon: Any, acc: Any, t: Any, extra: dict[str, Any]) -> None:
    body = parse(ClaimBody, {"lat": lat, "lon": lon, "accuracy_m": acc, "fix_time": t} | extra)
    if body is not None:
        assert isinstance(body, ClaimBody)
        assert math.isfinite(body.lat) and -90 <= body.lat <= 90
        assert math.isfinite(body.lon) and -180 <= body.lon <= 180
        assert math.isfinite(body.accuracy_m) and body.accuracy_m >= 0
        assert body.fix_time.tzinfo is not None
        assert not isinstance(t, int | float)   # a bare number is never a time
        assert isinstance(lat, float | int) and not isinstance(lat, bool | str)


@settings(max_examples=300, deadline=None)
@given(raw=json_values)
def test_arbitrary_json_never_breaks_parsing(raw: Any) -> None:
    for model in (ClaimBody, PlayBody, TradeBody):
        parse(model, raw)   # only ValidationError may escape
    json.dumps(raw, default=str)


@settings(max_examples=300, deadline=None)
@given(t=times)
def test_iso_time_is_aware_or_invalid(t: Any) -> None:
    try:
        v = TypeAdapter(IsoTime).validate_python(t)
    except ValidationError:
        return
    assert isinstance(v, datetime) and v.utcoffset() is not None


@settings(max_examples=200, deadline=None)
@given(type_=st.sampled_from([*ARGUMENT, "trade", "nuke", ""]),
       args=st.dictionaries(st.sampled_from(["territory_id", "rival_id", "claim_id", "mode"]),
                            st.none() | st.text(max_size=70) | st.sampled_from(["random", "cluster_edge"]),
                            max_size=4))
def test_card_play_has_exactly_the_argument_its_card_needs(type_: str, args: dict[str, Any]) -> None:
    body = parse(PlayBody, {"type": type_} | args)
    if body is None:
        return
    assert isinstance(body, PlayBody) and body.type in ARGUMENT and body.type != "trade"
    given_args = {k for k in ("territory_id", "rival_id", "claim_id", "mode") if getattr(body, k) is not None}
    wanted = ARGUMENT[body.type]
    assert given_args == ({wanted} if wanted else set())
