"""Every statement a service builds once at import (module-level SQLAlchemy constructs in its adapters and
the gateway) can be cached by SQLAlchemy's compiled cache. A statement without a cache key is compiled again at
every execution: the claims service's accepted-claim statement was, and that was a fifth of its CPU per claim."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import ClauseElement

PACKAGES = ["turf_claims.adapters", "turf_cards.adapters", "turf_notify.adapters", "turf_clock.adapters",
            "turf_gateway", "turf_common"]


def _modules() -> list[str]:
    out = []
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        out.append(name)
        out += [m.name for m in pkgutil.walk_packages(pkg.__path__, name + ".")
                if ".migrations" not in m.name and not m.name.endswith(("__main__", ".app", ".main"))]
    return out


def _statements() -> list[tuple[str, ClauseElement]]:
    found = []
    for mod_name in _modules():
        mod = importlib.import_module(mod_name)
        for attr, value in vars(mod).items():
            if isinstance(value, Executable) and isinstance(value, ClauseElement) \
                    and getattr(value, "__module__", None) != mod_name:
                found.append((f"{mod_name}.{attr}", value))
    return found


def test_the_accepted_claims_statement_is_among_those_checked() -> None:
    names = [n for n, _ in _statements()]
    assert "turf_claims.adapters.store._RECORD" in names
    assert len(names) >= 10


@pytest.mark.parametrize(("name", "stmt"), _statements(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_module_level_statement_has_a_cache_key(name: str, stmt: ClauseElement) -> None:
    assert stmt._generate_cache_key() is not None, f"{name} is recompiled at every execution"
