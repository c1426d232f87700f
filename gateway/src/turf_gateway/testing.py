"""Fakes of the gateway's ports, for unit tests (no servers)."""

from __future__ import annotations

from typing import Any


class NoLimits:
    """A :class:`~turf_gateway.ports.Limiter` that refuses nothing."""

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def note(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def check(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def over(self, name: str, who: str) -> bool:
        return False

    async def undo(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def remember(self, name: str, who: str, seconds: int) -> None:
        return None

    async def remembers(self, name: str, who: str) -> bool:
        return False


class NoKeys:
    """An :class:`~turf_gateway.ports.IdempotencyKeys` that remembers nothing (as the gateway without Redis)."""

    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        return None


class NoPlayers:
    """A :class:`~turf_gateway.ports.PlayerStore` that knows no player (its other methods are not faked)."""

    async def standing(self, player_id: str) -> tuple[str, str] | None:
        return None
