"""The tests hash passwords with argon2id's cheap parameters (``TURF_PASSWORD_HASH=fast``), which only a
manual-clock rehearsal on loopback may use; a hash keeps its own parameters, so a switch locks nobody out."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters

from turf_common.settings import Settings, password_hash_refusal
from turf_gateway.adapters import passwords


@pytest.mark.parametrize(("clock", "host", "refused"), [
    ("manual", "127.0.0.1", False), ("manual", "::1", False), ("manual", "0.0.0.0", True),
    ("real", "127.0.0.1", True), ("accelerated:60", "127.0.0.1", True)])
def test_the_fast_profile_only_for_a_manual_rehearsal_on_loopback(clock: str, host: str, refused: bool) -> None:
    assert (password_hash_refusal("fast", clock, host) is not None) is refused
    assert password_hash_refusal("default", clock, host) is None


def test_an_unknown_profile_is_a_settings_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_PASSWORD_HASH", "md5")
    with pytest.raises(ValueError, match="TURF_PASSWORD_HASH must be default or fast"):
        Settings()


async def test_hashes_of_either_profile_verify_under_the_other() -> None:
    try:
        passwords.use_profile("fast")
        fast = await passwords.hash_password("correct horse")
        fast_dummy = passwords.dummy_hash()
        passwords.use_profile("default")
        slow = await passwords.hash_password("correct horse")
        assert await passwords.verify_password(fast, "correct horse")
        assert not await passwords.verify_password(fast, "wrong horse")
    finally:
        passwords.use_profile("default")
    p_fast, p_slow = extract_parameters(fast), extract_parameters(slow)
    assert (p_fast.time_cost, p_fast.memory_cost, p_fast.hash_len, p_fast.salt_len) == (1, 8, 32, 16)
    assert (p_slow.time_cost, p_slow.memory_cost) == (3, 65536)
    assert extract_parameters(fast_dummy) == p_fast and extract_parameters(passwords.dummy_hash()) == p_slow
