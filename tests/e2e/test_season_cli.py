"""``turfwar season`` (R31) against the real stack: the organizer makes next year's season from a file, lists it,
shows it, changes the shown file and saves it again; a wrong form exits non-zero naming the field and saves nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from tests.support.stackfix import ORGANIZER
from turfwar.cli import app
from turfwar.stack import Stack

FORM = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
        "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00",
        "rehearsal": False}


@pytest.fixture
def season(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``turfwar season …`` against this module's stack, signed in as its organizer."""
    monkeypatch.setenv("TURF_ORGANIZER_PASSWORD", ORGANIZER[1])

    def run(*args: str) -> Any:
        signs_in = args[0] in ("new", "edit")
        return CliRunner().invoke(app, ["season", *args, "--url", stack.base_url,
                                        *(["--email", ORGANIZER[0]] if signs_in else [])])
    return run


def test_r31_season_new_list_show_edit_round_trip_on_the_real_stack(
        season: Any, http: httpx.Client, tmp_path: Path) -> None:
    form = tmp_path / "2027.json"
    form.write_text(json.dumps(FORM))
    made = season("new", str(form))
    assert made.exit_code == 0, made.output
    assert "season 2027 made" in made.output
    commitment = http.get("/api/v1/seasons/2027").json()["seed_commitment"]
    assert len(commitment) == 64

    listed = season("list")
    assert listed.exit_code == 0, listed.output
    rows = {line.split("│")[1].strip(): line for line in listed.output.splitlines() if line.count("│") > 2}
    assert "upcoming" in rows["2027"] and "upcoming" in rows["2026"]   # the clock stands before 2026's opening

    shown = season("show", "2027")
    assert shown.exit_code == 0, shown.output
    saved = json.loads(shown.output)
    # what was sent, with the last season's limits and prizes filled in (API.md: they default to the last season's)
    assert {k: saved[k] for k in FORM} == FORM
    assert saved["prizes"] == http.get("/api/v1/seasons/2026").json()["prizes"]

    form.write_text(json.dumps(saved | {"name": "Fall 2027", "last_day": "2027-10-30"}))
    edited = season("edit", "2027", str(form))
    assert edited.exit_code == 0, edited.output
    assert "season 2027 changed" in edited.output
    after = http.get("/api/v1/seasons/2027").json()
    assert (after["name"], after["last_day"], after["seed_commitment"]) == ("Fall 2027", "2027-10-30", commitment)
    assert json.loads(season("show", "2027").output) == saved | {"name": "Fall 2027", "last_day": "2027-10-30"}


def test_r31_a_wrong_form_exits_non_zero_naming_the_field_and_saves_nothing(
        season: Any, http: httpx.Client, tmp_path: Path) -> None:
    form = tmp_path / "2028.json"
    form.write_text(json.dumps(FORM | {"id": "2028", "first_day": "2028-10-02", "last_day": "2028-10-21",
                                       "close_time": "05:30"}))
    out = season("new", str(form))
    assert out.exit_code == 1
    assert "refused invalid_input: close_time: The game closes at 05:30, not after it opens at 06:00" in out.output
    assert http.get("/api/v1/seasons/2028").status_code == 404
