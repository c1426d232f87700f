"""The ``turfwar simulate`` command (registered in :mod:`turfwar.cli`); heavy imports wait until it runs."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console


class Mode(StrEnum):
    season = "season"
    team_turf = "team-turf"
    hill = "hill"
    yard_cards = "yard-cards"


def simulate(
    players: int = typer.Option(None, "--players", "-n", min=2,
                                help="Bots to register and verify (default 40); with --mode team-turf the bots "
                                     "split over the teams (default 12), with --mode hill the room (3–5, default 4), "
                                     "with --mode yard-cards the table (2–5; default: each of 2, 3, 4 and 5)."),
    mode: Mode = typer.Option(Mode.season, "--mode", "-m", case_sensitive=False,
                             help="season: through a stack's HTTP API; team-turf, hill, yard-cards: a turn-based "
                                  "mode's game played in process on its pure rules (and the real board)."),
    games: int = typer.Option(1, "--games", min=1, max=10000,
                              help="With --mode yard-cards: games per table size; more make the balance report."),
    catalogue: Path = typer.Option(None, "--catalogue", help="With --mode yard-cards: a catalogue file (Y1); "
                                                             "default: the starter."),
    turns: int = typer.Option(40, "--turns", min=1, help="With --mode team-turf: turns before the organizer ends "
                                                         "the game (T22) if no team holds the field."),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the bots' homes, routes and choices."),
    days: int = typer.Option(None, "--days", "-d", min=1, max=18,
                             help="Game days to play (default: the rest of the season); the clock then moves on "
                                  "to the season's close so results are final."),
    out: Path = typer.Option(Path("season-out"), "--out", "-o", help="Where results, pictures and logs go."),
    cheaters: int = typer.Option(None, "--cheaters", min=0, help="Bots that cheat on purpose (default: a few)."),
    url: str = typer.Option(None, "--url", help="Gateway of a running stack (manual clock), e.g. "
                                                "http://127.0.0.1:8000; default: start one."),
    organizer_email: str = typer.Option(None, "--organizer-email", envvar="TURF_ORGANIZER_EMAIL"),
    organizer_password: str = typer.Option(None, "--organizer-password", envvar="TURF_ORGANIZER_PASSWORD"),
    database_url: str = typer.Option(None, "--database-url", help="With --url: the stack's PostgreSQL (for the "
                                     "score recompute); default from --data-dir's stack.json or TURF_DATABASE_URL."),
    nats_url: str = typer.Option(None, "--nats-url", help="With --url: the stack's NATS (event log)."),
    stream: str = typer.Option(None, "--stream", help="With --url: the stack's event stream (TURF_STREAM)."),
    data_dir: Path = typer.Option(None, "--data-dir", help="Data directory of the stack started here (default: "
                                  "a temporary one), or of the running stack given by --url."),
    concurrency: int = typer.Option(6, "--concurrency", min=1, max=64, help="HTTP requests in flight."),
    slot_minutes: int = typer.Option(10, "--slot-minutes", min=1, max=60,
                                     help="Largest step of the game clock within a day."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="A progress bar per game day."),
) -> None:
    """Play a whole season with bots through the public HTTP API (manual clock), then check invariants and write
    results, a season map, standings over time and the event log to --out. Exit 1 if an invariant breaks."""
    import time

    from rich.console import Console

    if mode is Mode.yard_cards:
        _simulate_yard(players, seed, games, catalogue, Console())
        return
    if mode is not Mode.season:
        _simulate_mode(mode, players, seed, turns, Console())
        return
    players = 40 if players is None else players

    from turfwar.simulate.config import SimConfig
    from turfwar.simulate.engine import SimulationError
    from turfwar.simulate.run import run
    from turfwar.simulate.target import TargetError

    console = Console()
    cfg = SimConfig(players=players, seed=seed, days=days, out=out, cheaters=cheaters, url=url,
                    organizer_email=organizer_email if url else None,
                    organizer_password=organizer_password if url else None, database_url=database_url,
                    nats_url=nats_url, stream=stream, data_dir=data_dir, concurrency=concurrency,
                    slot_minutes=slot_minutes, progress=progress)
    t0 = time.perf_counter()
    try:
        outcome = run(cfg, console)
    except (SimulationError, TargetError) as e:
        console.print(f"[red]simulation failed:[/] {e}")
        raise typer.Exit(2) from None
    console.print(outcome.files["results_txt"].read_text(), soft_wrap=True, highlight=False, markup=False)
    for name, path in outcome.files.items():
        console.print(f"  {name:<13} {path}")
    wall = outcome.summary.get("wall", {})
    console.print(f"wall time {time.perf_counter() - t0:.0f} s (stack {wall.get('stack_start_s')} s, register "
                  f"{wall.get('register_s')} s, season {wall.get('season_s')} s)")
    if not outcome.ok:
        bad = ", ".join(c.name for c in outcome.checks if not c.ok)
        console.print(f"[bold red]INVARIANTS BROKEN: {bad}[/] (details in {outcome.files['results_txt']})")
        raise typer.Exit(1)
    console.print("[bold green]all invariants hold[/]")


def _simulate_mode(mode: Mode, players: int | None, seed: int, turns: int, console: Console) -> None:
    """One game of a turn-based mode (:mod:`turfwar.simulate.modes`); exit 1 if an invariant breaks."""
    from turfwar.simulate.modes import run_hill, run_team_turf

    if mode is Mode.hill:
        if players is not None and not 3 <= players <= 5:
            console.print("[red]--mode hill needs 3 to 5 players (K1)[/]")
            raise typer.Exit(2)
        run = run_hill(str(seed), players or 4)
    else:
        run = run_team_turf(str(seed), players_per_team=max(1, (players or 12) // 3), max_turns=turns)
    for line in run.lines:
        console.print(line, highlight=False, markup=False)
    if not run.ok:
        console.print(f"[bold red]INVARIANTS BROKEN:[/] {'; '.join(run.broken[:5])}")
        raise typer.Exit(1)
    console.print("[bold green]all invariants hold[/]")


def _simulate_yard(players: int | None, seed: int, games: int, catalogue: Path | None, console: Console) -> None:
    """Yard card games (:mod:`turfwar.simulate.yardcards`) and their balance report; exit 1 if an invariant
    breaks, 2 on a refused catalogue or table size."""
    from turf_common.rules.yardcatalogue import CatalogueError, load_catalogue, starter
    from turfwar.simulate.yardcards import run_yard

    if players is not None and not 2 <= players <= 5:
        console.print("[red]--mode yard-cards needs 2 to 5 players (Y2)[/]")
        raise typer.Exit(2)
    try:
        cat = load_catalogue(catalogue) if catalogue else starter()
    except CatalogueError as e:
        console.print(f"catalogue refused: {e}", highlight=False, markup=False)
        raise typer.Exit(2) from None
    run = run_yard(str(seed), players, games, cat)
    for line in run.lines:
        console.print(line, highlight=False, markup=False)
    if not run.ok:
        console.print(f"[bold red]INVARIANTS BROKEN:[/] {'; '.join(run.broken[:5])}")
        raise typer.Exit(1)
    console.print("[bold green]all invariants hold[/]")
