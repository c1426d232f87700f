"""``turfwar season`` (R31) against a mock gateway: the file becomes the API's body exactly, the organizer signs in
and out, the saved season and refusals are printed, ``show`` round-trips into ``edit``, ``template`` moves a season a
year on. The same commands against a real stack: tests/e2e/test_season_cli.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner

from turfwar import season_cli
from turfwar.cli import app

COMMITMENT = "9f" * 32
SAVED: dict[str, Any] = {
    "id": "2027", "name": "Fall 2027", "zone": "America/New_York", "first_day": "2027-10-04",
    "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00",
    "limits": {"max_accuracy_m": 100.0, "on_border_m": 0.5, "max_fix_age_s": 120.0, "max_fix_future_s": 30.0,
               "max_travel_kmh": 200.0},
    "prizes": [{"place": 1, "amount": "50.00"}, {"place": 2, "amount": "25.00"}],
    "state": "upcoming", "seed_commitment": COMMITMENT, "first_opening": "2027-10-04T06:00:00-04:00",
    "rehearsal": False}
TOML = """\
id = "2027"
name = "Fall 2027"
zone = "America/New_York"
first_day = 2027-10-04
last_day = 2027-10-23
open_weekdays = [0, 1, 2, 3, 4, 5]
open_time = 06:00:00
close_time = 22:00:00
rehearsal = false

[[prizes]]
place = 1
amount = 50

[[prizes]]
place = 2
amount = "25.00"
"""


class Gateway:
    """A mock gateway: answers by (method, path) and keeps every request it was sent."""

    def __init__(self, routes: dict[tuple[str, str], tuple[int, Any]]) -> None:
        self.routes = {("POST", "/api/v1/sessions"): (200, {"token": "tok-1", "player_id": "org", "role": "organizer"}),
                       ("DELETE", "/api/v1/sessions"): (204, None)} | routes
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        status, body = self.routes.get((request.method, request.url.path), (404, {"reason": "not_found",
                                                                                  "message": "no such route"}))
        return httpx.Response(status, json=body) if body is not None else httpx.Response(status)

    def bodies(self, method: str, path: str) -> list[Any]:
        return [json.loads(r.content) for r in self.sent if (r.method, r.url.path) == (method, path)]

    def calls(self) -> list[tuple[str, str]]:
        return [(r.method, r.url.path) for r in self.sent]


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[tuple[str, str], tuple[int, Any]]], Gateway]:
    monkeypatch.setenv("TURF_ORGANIZER_PASSWORD", "secret-password")
    monkeypatch.delenv("TURF_ORGANIZER_EMAIL", raising=False)
    monkeypatch.setattr(season_cli, "console", Console(width=200))   # a table row per line, whatever the terminal

    def make(routes: dict[tuple[str, str], tuple[int, Any]]) -> Gateway:
        gw = Gateway(routes)
        monkeypatch.setattr(season_cli, "open_client", lambda base: httpx.Client(
            base_url=base, transport=httpx.MockTransport(gw)))
        return gw
    return make


def run(*args: str) -> Any:
    return CliRunner().invoke(app, ["season", *args, "--url", "http://gw.test"])


def test_r31_season_new_sends_a_toml_form_as_the_api_body_and_prints_the_saved_season(
        gateway: Callable[..., Gateway], tmp_path: Path) -> None:
    gw = gateway({("POST", "/api/v1/admin/seasons"): (201, SAVED)})
    form = tmp_path / "2027.toml"
    form.write_text(TOML)
    out = run("new", str(form))
    assert out.exit_code == 0, out.output
    assert gw.bodies("POST", "/api/v1/sessions") == [{"email": "organizer@turfwar.local",
                                                      "password": "secret-password"}]
    assert gw.bodies("POST", "/api/v1/admin/seasons") == [{
        "id": "2027", "name": "Fall 2027", "zone": "America/New_York", "first_day": "2027-10-04",
        "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00",
        "rehearsal": False, "prizes": [{"place": 1, "amount": "50"}, {"place": 2, "amount": "25.00"}]}]
    post = next(r for r in gw.sent if r.url.path == "/api/v1/admin/seasons")
    assert post.headers["Authorization"] == "Bearer tok-1"
    assert gw.calls()[-1] == ("DELETE", "/api/v1/sessions")   # the CLI's session ends with it
    assert COMMITMENT in out.output and "Mon, Tue, Wed, Thu, Fri, Sat" in out.output
    assert "1: $50.00, 2: $25.00" in out.output and "season 2027 made" in out.output


def test_r31_season_new_prints_a_refusals_reason_and_sentence_and_exits_1(
        gateway: Callable[..., Gateway], tmp_path: Path) -> None:
    gateway({("POST", "/api/v1/admin/seasons"): (422, {"reason": "invalid_input", "message": (
        "last_day: The last day 2027-10-01 is before the first day 2027-10-04.")})})
    form = tmp_path / "2027.json"
    form.write_text(json.dumps(season_cli.form_of(SAVED) | {"last_day": "2027-10-01"}))
    out = run("new", str(form))
    assert out.exit_code == 1
    assert "refused invalid_input: last_day: The last day 2027-10-01 is before the first day" in out.output


def test_r31_a_file_that_is_no_season_is_refused_before_anything_is_sent(
        gateway: Callable[..., Gateway], tmp_path: Path) -> None:
    gw = gateway({})
    form = tmp_path / "2027.json"
    form.write_text('{"id": "2027",')
    out = run("new", str(form))
    assert (out.exit_code, gw.sent) == (1, [])
    assert "is not valid JSON" in out.output


def test_r31_season_show_prints_the_form_and_edit_sends_it_back_as_a_patch(
        gateway: Callable[..., Gateway], tmp_path: Path) -> None:
    changed = SAVED | {"name": "Autumn 2027"}
    gw = gateway({("GET", "/api/v1/seasons/2027"): (200, SAVED),
                  ("PATCH", "/api/v1/admin/seasons/2027"): (200, changed)})
    shown = run("show", "2027")
    assert shown.exit_code == 0, shown.output
    form = json.loads(shown.output)
    assert list(form) == list(season_cli.FORM_FIELDS)   # the form's shape: no state, commitment or opening
    assert form == {k: v for k, v in SAVED.items() if k not in season_cli.READ_ONLY}
    f = tmp_path / "f.json"
    f.write_text(json.dumps(form | {"name": "Autumn 2027"}))
    out = run("edit", "2027", str(f))
    assert out.exit_code == 0, out.output
    patch = gw.bodies("PATCH", "/api/v1/admin/seasons/2027")
    assert patch == [{k: v for k, v in form.items() if k not in ("id", "rehearsal")} | {"name": "Autumn 2027"}]
    assert "Autumn 2027" in out.output and "season 2027 changed" in out.output


def test_r31_season_edit_refuses_a_file_of_another_season_and_sends_no_change(
        gateway: Callable[..., Gateway], tmp_path: Path) -> None:
    gw = gateway({("GET", "/api/v1/seasons/2027"): (200, SAVED)})
    f = tmp_path / "f.json"
    f.write_text(json.dumps(season_cli.form_of(SAVED) | {"id": "2028"}))
    out = run("edit", "2027", str(f))
    assert out.exit_code == 1
    assert "refused invalid_input: id: the file is season '2028', not '2027'" in out.output
    assert ("PATCH", "/api/v1/admin/seasons/2027") not in gw.calls()


def test_r31_season_list_prints_each_season_with_its_state(gateway: Callable[..., Gateway]) -> None:
    gateway({("GET", "/api/v1/seasons"): (200, {"seasons": [
        {"id": "2027", "name": "Fall 2027", "first_day": "2027-10-04", "last_day": "2027-10-23", "state": "upcoming"},
        {"id": "2026", "name": "2026", "first_day": "2026-10-05", "last_day": "2026-10-24", "state": "closed"}]})})
    out = run("list")
    assert out.exit_code == 0, out.output
    rows = [line for line in out.output.splitlines() if "20" in line and "│" in line]
    assert [r.split("│")[1].strip() for r in rows] == ["2027", "2026"]
    assert "upcoming" in rows[0] and "closed" in rows[1]


def test_r31_season_template_moves_the_latest_season_a_year_on_the_same_weekdays(
        gateway: Callable[..., Gateway]) -> None:
    latest = SAVED | {"id": "2026", "name": "Fall 2026", "first_day": "2026-10-05", "last_day": "2026-10-24",
                      "state": "closed"}
    gateway({("GET", "/api/v1/seasons"): (200, {"seasons": [latest]}), ("GET", "/api/v1/seasons/2026"): (200, latest)})
    out = run("template")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == season_cli.form_of(SAVED)   # Monday 5 October 2026 → Monday 4 October 2027


def test_a_gateway_that_cannot_be_reached_exits_2_saying_where(gateway: Callable[..., Gateway],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    monkeypatch.setattr(season_cli, "open_client", lambda base: httpx.Client(
        base_url=base, transport=httpx.MockTransport(down)))
    out = run("list")
    assert out.exit_code == 2
    assert "no gateway at http://gw.test" in out.output


def test_the_gateway_is_the_running_stacks_unless_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TURF_HTTP_PORT", raising=False)
    assert season_cli.gateway_url(None) == "http://127.0.0.1:8000"
    (tmp_path / "stack.json").write_text(json.dumps({"http": "http://127.0.0.1:43117"}))
    assert season_cli.gateway_url(None) == "http://127.0.0.1:43117"
    assert season_cli.gateway_url("https://turf.example.org/") == "https://turf.example.org"


def test_r31_season_rehearse_makes_a_rehearsal_opening_in_a_minute_for_two_hours_in_the_latest_zone(
        gateway: Callable[..., Gateway]) -> None:
    saved = SAVED | {"id": "rehearsal-20261207-1432", "open_time": "14:32", "rehearsal": True}
    gw = gateway({("GET", "/api/v1/clock"): (200, {"now": "2026-12-07T19:30:41+00:00"}),
                  ("GET", "/api/v1/seasons"): (200, {"seasons": [{"id": "2026"}]}),
                  ("GET", "/api/v1/seasons/2026"): (200, SAVED | {"zone": "America/New_York"}),
                  ("POST", "/api/v1/admin/seasons"): (201, saved)})
    out = run("rehearse")
    assert out.exit_code == 0, out.output
    # 14:30:41 in New York: it opens at the first whole minute a minute on, 14:32, on that Monday alone
    assert gw.bodies("POST", "/api/v1/admin/seasons") == [{
        "id": "rehearsal-20261207-1432", "name": "Rehearsal 07 Dec 14:32", "zone": "America/New_York",
        "first_day": "2026-12-07", "last_day": "2026-12-07", "open_weekdays": [0], "open_time": "14:32",
        "close_time": "16:32", "rehearsal": True}]
    assert "rehearsal rehearsal-20261207-1432 opens at 14:32" in out.output


def test_r31_a_rehearsal_ends_by_midnight_and_one_too_late_in_the_day_is_refused_before_anything_is_sent(
        gateway: Callable[..., Gateway]) -> None:
    late = season_cli.rehearsal_form(datetime(2026, 12, 7, 22, 0, tzinfo=UTC), "America/New_York", 1, 8)
    assert (late["open_time"], late["close_time"]) == ("17:01", "23:59")
    gw = gateway({("GET", "/api/v1/clock"): (200, {"now": "2026-12-08T04:55:00+00:00"}),   # 23:55 there
                  ("GET", "/api/v1/seasons"): (200, {"seasons": []})})
    out = run("rehearse")
    assert out.exit_code == 1 and "rehearse tomorrow" in out.output
    assert ("POST", "/api/v1/admin/seasons") not in gw.calls()
