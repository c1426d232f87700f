"""One meaning per name (docs/architecture/vocabulary.md): the two publishing contracts are declared once, in
``turf_common.outbox`` (``StreamPublisher``: one message to the stream; ``OutboxFlush``: the outbox relay), and the
names that once meant several things (``Publisher``, ``Board``, ``Handlers``) are not declared again. Reads the
source of the shared library, the services and the gateway (tests and their fakes are free to name things)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "libs/common/src", *sorted((ROOT / "services").glob("*/src")), ROOT / "gateway/src"]
OUTBOX = "libs/common/src/turf_common/outbox.py"

#: a class name and the only modules that may declare it (none: nowhere)
ONE_PLACE: dict[str, set[str]] = {
    "Publisher": set(),
    "Flusher": set(),
    "Handlers": set(),
    "ClaimsService": set(),
    "Board": {"libs/common/src/turf_common/board/loader.py",   # the loaded board
              "gateway/src/turf_gateway/api/schemas.py"},      # its wire form, named so in the OpenAPI document
}


def classes() -> list[tuple[str, ast.ClassDef]]:
    """Every class of the sources, with its module's path relative to the repository."""
    out = []
    for src in SOURCES:
        for path in sorted(src.rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            out += [(rel, node) for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)]
    return out


def protocol_methods(node: ast.ClassDef) -> frozenset[str] | None:
    """The method names of a Protocol class, None for any other class."""
    if not any(isinstance(b, ast.Name) and b.id == "Protocol" for b in node.bases):
        return None
    return frozenset(f.name for f in node.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef))


def test_the_publishing_contracts_are_declared_once_in_the_outbox_module() -> None:
    found = {(rel, node.name) for rel, node in classes()
             if protocol_methods(node) in ({"flush"}, {"publish"})}
    assert found == {(OUTBOX, "OutboxFlush"), (OUTBOX, "StreamPublisher")}


def test_a_name_that_meant_several_things_is_declared_only_where_the_vocabulary_puts_it() -> None:
    declared: dict[str, set[str]] = {name: set() for name in ONE_PLACE}
    for rel, node in classes():
        if node.name in declared:
            declared[node.name].add(rel)
    assert declared == ONE_PLACE
