"""`turfwar board build|report`: build the game board from raw data and report on it."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from turf_common.board import DEFAULT_BOARD_DIR

board_app = typer.Typer(help="Build the game board from raw boundary data and report on it.", no_args_is_help=True)
console = Console()

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RAW = PROJECT_ROOT.parent / "shared" / "data" / "raw"
DEFAULT_DOCS = PROJECT_ROOT / "docs"
BUILD_STEPS = 11  # progress ticks the pipeline reports


@board_app.command()
def build(
    raw: Path = typer.Option(DEFAULT_RAW, "--raw", help="Folder with the raw boundary files (PROVENANCE.md)."),
    out: Path = typer.Option(DEFAULT_BOARD_DIR, "--out", help="Board folder (playable_area.json, overrides.json)."),
) -> None:
    """Build the board: territories, adjacency, display GeoJSON and manifest."""
    from turfwar.boardbuild.pipeline import build as run_build

    if not raw.is_dir():
        console.print(f"[red]raw data folder not found: {raw}[/red]")
        raise typer.Exit(2)
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("building board", total=BUILD_STEPS)

        def tick(msg: str, advance: int) -> None:
            bar.update(task, description=msg, advance=advance)

        result = run_build(raw, out, progress=tick)
        bar.update(task, completed=BUILD_STEPS, description="done")
    per_state: dict[str, int] = {}
    for u in result.units:
        per_state[u.state] = per_state.get(u.state, 0) + 1
    console.print(f"[green]{len(result.units)} territories[/green] ({per_state}), {len(result.edges)} edges, "
                  f"{result.seconds:.1f} s → {out}")
    for name, size in result.files.items():
        console.print(f"  {name}: {size / 1e6:.2f} MB")


@board_app.command()
def report(
    board_dir: Path = typer.Option(DEFAULT_BOARD_DIR, "--board", help="Board folder to report on."),
    docs: Path = typer.Option(DEFAULT_DOCS, "--docs", help="Where board-report.md and board-map.png go."),
) -> None:
    """Write docs/board-report.md and docs/board-map.png from the built board."""
    from turf_common.board.loader import _load
    from turfwar.boardbuild.report import write_map, write_report

    board = _load(board_dir)
    docs.mkdir(parents=True, exist_ok=True)
    write_report(board, docs / "board-report.md")
    write_map(board, docs / "board-map.png")
    console.print(f"wrote {docs / 'board-report.md'} and {docs / 'board-map.png'}")


if __name__ == "__main__":
    board_app()
