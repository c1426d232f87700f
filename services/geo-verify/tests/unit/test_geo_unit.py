"""geo-verify without servers: the handler on a fake board, the subscriber on FastStream's TestNatsBroker."""

from __future__ import annotations

from faststream.nats import TestNatsBroker

from turf_common.board.loader import Location
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.geo import Located, LocatePoint
from turf_geo import bootstrap, entrypoints


class SquareBoard:
    """One territory, ``hoboken``: the unit square from (0, 0) to (1, 1) in (lat, lon) degrees; the border distance
    is a made-up 1,000 m per degree to the nearest side."""

    def locate(self, lat: float, lon: float) -> Location:
        if 0 <= lat <= 1 and 0 <= lon <= 1:
            return Location("hoboken", 1000 * min(lat, lon, 1 - lat, 1 - lon))
        return Location(None, None)

    def name_of(self, territory_id: str) -> str:
        return {"hoboken": "Hoboken"}[territory_id]


def test_locate_names_the_territory_and_its_border_distance() -> None:
    h = bootstrap.handlers(SquareBoard())
    assert h.locate(LocatePoint(lat=0.5, lon=0.25)) == Located(
        territory_id="hoboken", territory_name="Hoboken", border_distance_m=250.0)
    assert h.locate(LocatePoint(lat=2.0, lon=0.5)) == Located(territory_id=None, border_distance_m=None)


async def test_the_subscriber_decodes_the_contract_and_replies_with_the_handlers_answer() -> None:
    broker = make_broker("nats://test", "geo-verify")
    broker.include_router(entrypoints.router(bootstrap.handlers(SquareBoard()), "TURF"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(LocatePoint(lat=0.75, lon=0.5), subjects.GEO_LOCATE)
        assert Located.model_validate_json(resp.body) == Located(
            territory_id="hoboken", territory_name="Hoboken", border_distance_m=250.0)


async def test_a_point_off_the_globe_is_refused_as_invalid_input_not_answered_or_crashed() -> None:
    broker = make_broker("nats://test", "geo-verify")
    broker.include_router(entrypoints.router(bootstrap.handlers(SquareBoard()), "TURF"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request({"lat": 91.0, "lon": 0.0}, subjects.GEO_LOCATE)
        assert decode_reply(resp.body, Located) == Refusal(
            reason="invalid_input", message="The command does not fit its contract.")
