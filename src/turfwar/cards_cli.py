"""``turfwar cards``: the yard card game's catalogues (docs/rules/yard-cards.md, Y1)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

cards_app = typer.Typer(help="The yard card game's catalogues (Y1).", no_args_is_help=True)
console = Console()


@cards_app.command("check")
def check(file: Path = typer.Argument(..., help="a catalogue file (JSON, format 1)")) -> None:
    """Validate a catalogue against the schema; exit 1 naming the card and field of every fault found."""
    from turf_common.rules.yardcatalogue import CatalogueError, load_catalogue

    try:
        cat = load_catalogue(file)
    except CatalogueError as e:
        for fault in str(e).split("; "):
            console.print(f"[red]refused:[/] {escape(fault)}", highlight=False)
        raise typer.Exit(1) from None
    kinds = Counter(c.kind for c in cat.cards for _ in range(c.copies))
    console.print(f"[green]ok[/] {escape(cat.name)} {escape(cat.version)}: {len(cat.cards)} cards, "
                  + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())), highlight=False)
