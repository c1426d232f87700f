"""The project's own modules and the imports each one makes, read with ``ast`` (nothing is imported).

An import under ``if TYPE_CHECKING:`` is left out: it never runs. Every other import counts, at module level or
inside a function, since a function-local import runs as soon as the function is called."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_roots() -> list[Path]:
    """The directories whose children are the project's top-level packages: the runtime tree."""
    return [ROOT / "libs/common/src", *sorted(p for p in (ROOT / "services").glob("*/src") if p.is_dir()),
            ROOT / "gateway/src", ROOT / "src", ROOT]


def _packages(root: Path) -> list[Path]:
    if root == ROOT:
        return [ROOT / "bench"]  # the repository root holds one package of the runtime tree
    return sorted(p for p in root.iterdir() if (p / "__init__.py").is_file())


def modules() -> dict[str, Path]:
    """Every module of the runtime tree by its dotted name (a package by its name, for its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for root in source_roots():
        for package in _packages(root):
            for path in sorted(package.rglob("*.py")):
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


@dataclass(frozen=True)
class Import:
    """One imported name as a dotted path (``a.b`` for ``import a.b``, ``a.b.c`` for ``from a.b import c``)."""

    target: str
    line: int


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, skipping the body (not the ``else``) of each ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _walk(other)
            continue
        yield child
        yield from _walk(child)


def imports(name: str, path: Path) -> list[Import]:
    """What the module ``name`` at ``path`` imports when it runs, relative imports made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: list[Import] = []
    for node in _walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found += [Import(module, node.lineno)]
            found += [Import(f"{module}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*"]
    return found


def resolve(target: str, known: dict[str, Path]) -> str | None:
    """The project module that ``target`` names or lies in (``a.b.func`` -> ``a.b``), or None for another library."""
    parts = target.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None
