"""Registration refuses a guessable password (ASVS 5.0 V6.2; the policy is ``turf_gateway.handlers.password_policy``).
Threat: ``password`` and ``12345678`` were registered (201) and fall to the first guesses of any attacker."""

from __future__ import annotations

from datetime import timedelta

import pytest

from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.players import Players, Registration
from turf_gateway.testing import MemoryPlayers, MemorySessions, MemoryTables, NoLimits


def _registration(password: str) -> Registration:
    return Registration(name="Maria Lopez", email="maria@example.org", discord="mlopez",
                        home_address="1 Main St, Hoboken, NJ", password=password)


@pytest.mark.parametrize("password", ["password", "12345678", "a       ", "maria@example.org", "mlopez2026"])
async def test_a_weak_password_is_refused_at_registration_and_nothing_is_stored(password: str) -> None:
    tables = MemoryTables()
    players = Players(MemoryPlayers(tables), MemorySessions(tables), None, None, NoLimits(),  # type: ignore[arg-type]
                      None, None, None, None, None, timedelta(hours=1))   # type: ignore[arg-type]
    with pytest.raises(ApiError) as refused:
        await players.register(_registration(password), "198.18.0.1")
    assert (refused.value.status, refused.value.reason) == (422, "weak_password")
    assert refused.value.message.endswith(".") and not tables.players
