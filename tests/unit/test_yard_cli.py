"""``turfwar cards check`` (Y1) and ``turfwar simulate --mode yard-cards``: whole games keep their invariants, and a
broken rule is caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from turf_common.rules import yard
from turf_common.rules.yardcatalogue import STARTER
from turfwar.cli import app
from turfwar.simulate import yardcards


def test_y1_cards_check_accepts_the_starter_and_names_the_card_and_field_of_a_fault(tmp_path: Path) -> None:
    ok = CliRunner().invoke(app, ["cards", "check", str(STARTER)])
    assert ok.exit_code == 0 and "ok Turf War yard cards, starter 2026.2" in ok.output
    raw = json.loads(STARTER.read_text())
    raw["cards"][5]["vp"] = "lots"
    bad = tmp_path / "cards.json"
    bad.write_text(json.dumps(raw))
    out = CliRunner().invoke(app, ["cards", "check", str(bad)])
    assert out.exit_code == 1
    assert f"refused: card '{raw['cards'][5]['id']}' (cards[5]) field vp" in out.output


@pytest.mark.parametrize("players", [2, 4])
def test_yard_games_end_with_every_invariant_holding(players: int) -> None:
    run = yardcards.run_yard("3", players, games=1)
    assert run.ok, run.broken
    assert run.lines[1].startswith(f"{players} players, 1 games: wins")


def test_yard_simulation_catches_money_made_negative(monkeypatch: pytest.MonkeyPatch) -> None:
    real = yard.apply

    def overdraw(s, cat, move, cfg=yard.YardConfig()):  # type: ignore[no-untyped-def]
        new, events = real(s, cat, move, cfg)
        new.seats[0].money -= 100
        return new, events

    monkeypatch.setattr(yard, "apply", overdraw)
    run = yardcards.run_yard("3", 2, games=1)
    assert not run.ok and "negative money" in run.broken[0]


def test_yard_simulation_catches_a_card_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    real = yard.apply

    def leak(s, cat, move, cfg=yard.YardConfig()):  # type: ignore[no-untyped-def]
        new, events = real(s, cat, move, cfg)
        if new.trash:
            new.trash.pop()
        return new, events

    monkeypatch.setattr(yard, "apply", leak)
    run = yardcards.run_yard("3", 2, games=1)
    assert not run.ok and "not conserved" in run.broken[0]


def test_simulate_mode_yard_cards_from_the_command_line() -> None:
    out = CliRunner().invoke(app, ["simulate", "--mode", "yard-cards", "-n", "3", "--seed", "5"])
    assert out.exit_code == 0, out.output
    assert "3 players, 1 games" in out.output and "all invariants hold" in out.output
