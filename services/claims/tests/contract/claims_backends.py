"""The store under test in the claims contract suite (conftest.py makes one per implementation)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from turf_claims.ports import ClaimsStore


@dataclass
class Backend:
    """A store under test and what the contract reads beside its ports: the staged outbox, (subject, event id) in
    commit order."""

    name: str
    store: ClaimsStore
    staged: Callable[[], Awaitable[list[tuple[str, str]]]]
