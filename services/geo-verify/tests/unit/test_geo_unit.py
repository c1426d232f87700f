"""geo-verify without servers: the handlers on a fake board (``geo.locate``; ``geo.verify``: R7 and R7.1 for a batch
of claims' fixes), the subscribers on FastStream's TestNatsBroker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from faststream.nats import TestNatsBroker

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.claims import Fix
from turf_common.contracts.geo import FixToVerify, Located, LocatePoint, TrailFix, Verified, VerifyFixes
from turf_common.rules.claims import ClaimLimits
from turf_common.rules.refusals import limit_message
from turf_geo import bootstrap, entrypoints
from turf_geo.ports import BoardIndex


def test_locate_names_the_territory_and_its_border_distance(square: BoardIndex) -> None:
    h = bootstrap.handlers(square)
    assert h.locate(LocatePoint(lat=0.5, lon=0.25)) == Located(
        territory_id="hoboken", territory_name="Hoboken", border_distance_m=250.0)
    assert h.locate(LocatePoint(lat=2.0, lon=0.5)) == Located(territory_id=None, border_distance_m=None)


async def test_the_subscriber_decodes_the_contract_and_replies_with_the_handlers_answer(square: BoardIndex) -> None:
    broker = make_broker("nats://test", "geo-verify")
    broker.include_router(entrypoints.router(bootstrap.handlers(square), "TURF"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(LocatePoint(lat=0.75, lon=0.5), subjects.GEO_LOCATE)
        assert Located.model_validate_json(resp.body) == Located(
            territory_id="hoboken", territory_name="Hoboken", border_distance_m=250.0)


async def test_a_point_off_the_globe_is_refused_as_invalid_input_not_answered_or_crashed(square: BoardIndex) -> None:
    broker = make_broker("nats://test", "geo-verify")
    broker.include_router(entrypoints.router(bootstrap.handlers(square), "TURF"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request({"lat": 91.0, "lon": 0.0}, subjects.GEO_LOCATE)
        assert decode_reply(resp.body, Located) == Refusal(
            reason="invalid_input", message="The command does not fit its contract.")


T0 = datetime(2026, 10, 5, 15, 0, tzinfo=UTC)


def _fix(lat: float, lon: float, accuracy_m: float = 10.0, age_s: float = 3.0,
         trail: list[TrailFix] | None = None) -> FixToVerify:
    return FixToVerify(fix=Fix(lat=lat, lon=lon, accuracy_m=accuracy_m, fix_time=T0 - timedelta(seconds=age_s)),
                       received_at=T0, trail=trail)


def test_r7_verify_answers_each_fix_of_a_batch_in_order_with_the_first_refusal_and_the_limits_sentence(
        square: BoardIndex) -> None:
    h = bootstrap.handlers(square, ClaimLimits(on_border_m=5.0, max_accuracy_m=50.0))
    v = h.verify(VerifyFixes(fixes=[_fix(0.5, 0.5), _fix(2.0, 0.5), _fix(0.5, 0.001), _fix(0.5, 0.5, 80.0),
                                    _fix(0.5, 0.5, age_s=600), _fix(0.5, 0.001, 80.0)])).verdicts
    assert [x.reason for x in v] == [None, "outside_board", "on_border", "inaccurate_fix", "stale_fix", "on_border"]
    assert v[0].located == Located(territory_id="hoboken", territory_name="Hoboken", border_distance_m=500.0)
    assert v[2].message == limit_message("on_border", ClaimLimits(on_border_m=5.0, max_accuracy_m=50.0))
    assert all(x.flags == [] for x in v)


def test_r7_1_verify_screens_a_fix_against_the_trail_it_was_sent_with_and_never_refuses_for_it(
        square: BoardIndex) -> None:
    h = bootstrap.handlers(square)
    far = (0.1, 0.1, 10.0, T0 - timedelta(minutes=1), T0 - timedelta(minutes=1))   # ~55 km away a minute ago
    (jump, unscreened, zero) = h.verify(VerifyFixes(fixes=[
        _fix(0.5, 0.5, trail=[far]), _fix(0.5, 0.5), _fix(0.5, 0.5, accuracy_m=0.0, trail=[])])).verdicts
    assert jump.reason is None and [f.kind for f in jump.flags] == ["impossible_travel"]
    assert jump.flags[0].evidence["seconds"] == 60
    assert unscreened.flags == [] and [f.kind for f in zero.flags] == ["zero_accuracy"]


async def test_the_verify_subscriber_answers_a_batch_with_one_reply(square: BoardIndex) -> None:
    broker = make_broker("nats://test", "geo-verify")
    broker.include_router(entrypoints.router(bootstrap.handlers(square), "TURF"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(VerifyFixes(fixes=[_fix(0.5, 0.5), _fix(3.0, 3.0)]), subjects.GEO_VERIFY)
        v = Verified.model_validate_json(resp.body).verdicts
    assert [(x.located.territory_id, x.reason) for x in v] == [("hoboken", None), (None, "outside_board")]


def test_r31_verify_judges_each_fix_by_the_limits_of_the_season_in_force_when_it_came(square: BoardIndex) -> None:
    import dataclasses
    from datetime import date

    from turf_common.rules.gametime import load_season
    from turf_common.seasonbook import SeasonBook

    first = load_season()
    strict = dataclasses.replace(first, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23),
                                 limits=dataclasses.replace(first.limits, max_accuracy_m=20.0))
    h = bootstrap.handlers(square, first.limits, SeasonBook.of(first, strict))
    in_2026, in_2027 = datetime(2026, 10, 6, 16, tzinfo=UTC), datetime(2027, 10, 5, 16, tzinfo=UTC)

    def at(when: datetime) -> FixToVerify:
        return FixToVerify(fix=Fix(lat=0.5, lon=0.5, accuracy_m=30.0, fix_time=when), received_at=when)

    assert [v.reason for v in h.verify(VerifyFixes(fixes=[at(in_2026), at(in_2027)])).verdicts] == [
        None, "inaccurate_fix"]
