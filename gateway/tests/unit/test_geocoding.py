"""R27 geocoder adapters: the Census adapter against recorded responses of the real service, the table one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from turf_gateway.adapters.geocoding import (
    CensusGeocoder,
    GeocoderUnavailable,
    GeoPoint,
    NoGeocoder,
    TableGeocoder,
    make_geocoder,
    normalise_address,
)

RECORDED = Path(__file__).parent / "recorded"


def census_with(body: bytes, status: int = 200, seen: list[httpx.Request] | None = None) -> CensusGeocoder:
    def handler(req: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(req)
        return httpx.Response(status, content=body, headers={"content-type": "application/json"})

    return CensusGeocoder(client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))


def test_census_match_reads_x_as_lon_y_as_lat_and_sends_the_contracted_query() -> None:
    seen: list[httpx.Request] = []
    g = census_with((RECORDED / "census_match.json").read_bytes(), seen=seen)
    p = asyncio.run(g.geocode("1600 Pennsylvania Ave NW, Washington, DC 20500"))
    assert p == GeoPoint(lat=38.898754, lon=-77.03535)
    q = seen[0].url.params
    assert seen[0].url.path.endswith("/geocoder/locations/onelineaddress")
    assert (q["benchmark"], q["format"]) == ("Public_AR_Current", "json")
    assert q["address"].startswith("1600 Pennsylvania")


def test_census_no_match_is_none() -> None:
    g = census_with((RECORDED / "census_nomatch.json").read_bytes())
    assert asyncio.run(g.geocode("nowhere at all")) is None


@pytest.mark.parametrize("body,status", [(b"<html>busy</html>", 200), (b"{}", 200), (b"oops", 503)])
def test_census_failure_is_unavailable_not_a_crash(body: bytes, status: int) -> None:
    with pytest.raises(GeocoderUnavailable):
        asyncio.run(census_with(body, status).geocode("1 Main St"))


def test_table_geocoder_normalises_addresses(tmp_path: Path) -> None:
    f = tmp_path / "addr.csv"
    f.write_text("address,lat,lon\n\"1 Newark St., Hoboken, NJ\",40.7370,-74.0300\n")
    g = TableGeocoder(f)
    assert asyncio.run(g.geocode("1  newark st, HOBOKEN NJ")) == GeoPoint(40.737, -74.03)
    assert asyncio.run(g.geocode("2 Newark St, Hoboken, NJ")) is None
    assert isinstance(make_geocoder(f"table:{f}"), TableGeocoder)


def test_make_geocoder_specs() -> None:
    assert isinstance(make_geocoder("none"), NoGeocoder)
    assert isinstance(make_geocoder("census"), CensusGeocoder)
    with pytest.raises(ValueError):
        make_geocoder("google")
    assert normalise_address(" 1 Main St., Apt #2 ") == "1 main st apt 2"
    assert json.loads((RECORDED / "census_match.json").read_text())["result"]["addressMatches"]
