"""Reading a list that crosses the bus a page at a time (one reply of a whole list outgrew NATS's 1 MiB
payload limit). Scoring cuts its leaderboard and final results into pages of one ranking, kept for a short time
(``scoring.leaderboard``, ``scoring.results``); the claim log is paged by claim (``claims.list``, read by the
export routes themselves)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from turf_common.contracts.base import Message
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import Services

M = TypeVar("M", bound=Message)

#: how many times a reading starts again when the ranking its pages were cut from expired meanwhile
ATTEMPTS = 3


async def read_pages(services: Services, subject: str, ask_for: Callable[[str | None], Message], reply: type[M],
                     timeout: float = 5.0) -> list[M]:
    """Every page of a paged list, in order: ``ask_for(None)`` asks for the first, ``ask_for(next)`` for the one a
    page's ``next`` names, until a page's ``next`` is None. A list that fits in one page costs one request, as
    before paging. A page refused ``not_found`` (its snapshot expired or was evicted between two pages) starts the
    reading again from the first page, at most :data:`ATTEMPTS` times in all, then 503 ``unavailable``; any other
    refusal or a service that does not answer raises as :meth:`Services.ask` does."""
    for _ in range(ATTEMPTS):
        pages = [await services.ask(subject, ask_for(None), reply, timeout)]
        try:
            while (after := getattr(pages[-1], "next", None)) is not None:
                pages.append(await services.ask(subject, ask_for(after), reply, timeout))
        except ApiError as e:
            if e.reason != "not_found":
                raise
            continue
        return pages
    raise ApiError("unavailable", "The list changed faster than it could be read; try again.")
