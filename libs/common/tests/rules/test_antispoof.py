from datetime import datetime, timedelta

from turf_common.rules.antispoof import FixRecord, flags_for, haversine_m

T = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = FixRecord(40.7440, -74.0320, 10, T)


def kinds(fix: FixRecord, prev: FixRecord | None, seen: bool = False) -> list[str]:
    return [f.kind for f in flags_for(fix, prev, seen, max_travel_kmh=200)]


def test_haversine_one_degree_of_latitude() -> None:
    d = haversine_m(FixRecord(40, -74, 0, T), FixRecord(41, -74, 0, T))
    assert abs(d - 111_195) < 5


def test_driving_speed_is_not_flagged_teleport_is() -> None:
    # ~22 km in 20 minutes = 66 km/h
    newark_later = FixRecord(40.7357, -74.1724, 10, T + timedelta(minutes=20))
    assert kinds(newark_later, HOBOKEN) == []
    newark_soon = FixRecord(40.7357, -74.1724, 10, T + timedelta(minutes=2))
    f = flags_for(newark_soon, HOBOKEN, False, 200)
    assert [x.kind for x in f] == ["impossible_travel"] and f[0].evidence["speed_kmh"] > 200


def test_gps_jitter_within_accuracy_is_not_travel() -> None:
    near = FixRecord(40.7441, -74.0321, 20, T)  # ~14 m away, same instant
    assert kinds(near, HOBOKEN) == []


def test_repeated_and_zero_accuracy() -> None:
    assert kinds(HOBOKEN, None, seen=True) == ["repeated_fix"]
    assert kinds(FixRecord(40.7, -74.0, 0, T), None) == ["zero_accuracy"]
