"""No network round trip inside a database transaction (docs/architecture/index.md, "No network round trip inside
a transaction"): a unit of work marks the transaction it holds open, and every adapter that goes over the network (a
bus request, an outbox flush, a fresh clock read) asks :func:`no_transaction` first. A request made while a
transaction holds its row locks makes every other writer of those rows wait for the network; this turns such a call
into an error at once, in the tests and in production alike, instead of a slow opening bell."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_OPEN: ContextVar[str | None] = ContextVar("turf_open_transaction", default=None)


class NetworkInTransaction(RuntimeError):
    """A network round trip was asked for while a database transaction is open."""


@contextmanager
def transaction(name: str) -> Iterator[None]:
    """Mark the current task as holding the database transaction ``name`` (the service's) until the block ends."""
    token = _OPEN.set(name)
    try:
        yield
    finally:
        _OPEN.reset(token)


def open_transaction() -> str | None:
    """The name of the transaction the current task holds open, or None."""
    return _OPEN.get()


def no_transaction(what: str) -> None:
    """Raise :class:`NetworkInTransaction` when the current task holds a transaction open: ``what`` (a request's
    subject, "outbox flush") would be a round trip inside it."""
    tx = _OPEN.get()
    if tx is not None:
        raise NetworkInTransaction(f"{what}: a network round trip inside the open {tx} transaction")
