"""``turfwar simulate --mode team-turf | hill``: short games of each mode on the real board, their
invariants, and that a broken rule is caught."""

from __future__ import annotations

from dataclasses import replace

import pytest
from typer.testing import CliRunner

from turf_common.rules import teamturf
from turfwar.cli import app
from turfwar.simulate import modes


def test_team_turf_short_game_holds_its_invariants_and_replays() -> None:
    run = modes.run_team_turf("7", teams=3, players_per_team=2, max_turns=6)
    assert run.ok, run.broken
    assert [line.split(":")[0] for line in run.lines[:-1]] == [f"turn {t:>3}" for t in range(1, 7)]
    assert "6 turns on 419 towns" in run.lines[-1]  # T1: the largest connected part of the board
    assert modes.run_team_turf("7", teams=3, players_per_team=2, max_turns=6).lines == run.lines  # T20


def test_team_turf_simulation_catches_a_troop_made_from_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    real = teamturf.resolve_turn

    def leaky(s, fld, src, cfg=teamturf.TeamTurfConfig()):  # type: ignore[no-untyped-def]
        new, events = real(s, fld, src, cfg)
        some = next(iter(new.reserve))
        return replace(new, reserve={**new.reserve, some: new.reserve[some] + 1}), events

    monkeypatch.setattr(teamturf, "resolve_turn", leaky)
    run = modes.run_team_turf("7", teams=2, players_per_team=1, max_turns=2)
    assert not run.ok and run.broken[0].startswith("T19 turn 1")


@pytest.mark.parametrize("players", [3, 5])
def test_hill_game_is_ten_rounds_with_one_winner(players: int) -> None:
    run = modes.run_hill("11", players=players)
    assert run.ok, run.broken
    assert sum(line.startswith("round") for line in run.lines) == 10 and run.lines[-1].startswith("winner: bot")


def test_cli_modes() -> None:
    runner = CliRunner()
    hill = runner.invoke(app, ["simulate", "--mode", "hill", "--seed", "5", "--players", "3"])
    assert hill.exit_code == 0 and "all invariants hold" in hill.output, hill.output
    turf = runner.invoke(app, ["simulate", "--mode", "team-turf", "--seed", "5", "--turns", "3", "-n", "6"])
    assert turf.exit_code == 0 and "3 turns on 419 towns" in turf.output, turf.output
    bad = runner.invoke(app, ["simulate", "--mode", "hill", "--players", "6"])
    assert bad.exit_code == 2 and "3 to 5 players" in bad.output
