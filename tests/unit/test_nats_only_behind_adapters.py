"""nats-py is imported only by the bus library (``turf_common.bus``) and by the adapters of the services and the
gateway: the use cases, entrypoints, routes and feed reach NATS through those, so that a change of client, or of how
its errors read, is made in one place. Imports under ``if TYPE_CHECKING:`` do not count; every other import does,
in a function too.

The command-line tools (``src/turfwar``) and the benchmarks (``bench``) are operator tools that talk to NATS
itself (set-up, audit, backups, probes) and are not held to this."""

from __future__ import annotations

from pathlib import Path

from tests.support.imports import ROOT, imports, modules

#: the services' and the gateway's code, and the common library they share
CHECKED = ("libs/common/src/", "services/", "gateway/src/")
BUS_LIBRARY = "libs/common/src/turf_common/bus/"


def allowed(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return rel.startswith(BUS_LIBRARY) or "adapters" in path.relative_to(ROOT).parts


def test_the_checked_code_is_found() -> None:
    # a wrong root would make the check below pass on nothing
    paths = [p.relative_to(ROOT).as_posix() for p in modules().values()]
    for place in CHECKED:
        assert any(p.startswith(place) for p in paths), place


def test_only_the_bus_library_and_adapters_import_nats() -> None:
    found: set[str] = set()
    for name, path in modules().items():
        if not path.relative_to(ROOT).as_posix().startswith(CHECKED) or allowed(path):
            continue
        found |= {f"{path.relative_to(ROOT)}:{i.line}" for i in imports(name, path)
                  if i.target == "nats" or i.target.startswith("nats.")}
    assert sorted(found) == [], "nats-py outside the bus library and the adapters:\n" + "\n".join(sorted(found))
