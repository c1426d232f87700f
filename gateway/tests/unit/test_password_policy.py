"""The password policy (ASVS 5.0 V6.2): a guessable password is refused with ``weak_password`` and a sentence,
a long or unusual one of any characters is taken."""

from __future__ import annotations

import pytest

from turf_gateway.handlers.password_policy import MAX_LENGTH, MIN_LENGTH, REASON, refusal

EMAIL = "maria.lopez@example.org"
NAMES = ("Maria Lopez", "mlopez")


@pytest.mark.parametrize("password", ["password", "12345678", "Password", "qwertyuiop", "iloveyou", "PASSWORD1"])
def test_a_common_password_from_breaches_is_refused(password: str) -> None:
    found = refusal(password, EMAIL, NAMES)
    assert found is not None and found.reason == REASON and "common" in found.message


@pytest.mark.parametrize("password", ["short", "1234567", "       a", "a" * (MIN_LENGTH - 1)])
def test_a_password_under_the_minimum_is_refused_runs_of_spaces_counting_once(password: str) -> None:
    found = refusal(password, EMAIL, NAMES)
    assert found is not None and found.reason == REASON and f"at least {MIN_LENGTH}" in found.message


def test_a_password_of_64_characters_and_up_to_the_bound_is_taken_one_more_is_refused() -> None:
    assert refusal("x7!" * 22) is None and len("x7!" * 22) == 66
    assert refusal("k9$q" * (MAX_LENGTH // 4)) is None
    found = refusal("k9$q" * (MAX_LENGTH // 4) + "z")
    assert found is not None and f"at most {MAX_LENGTH}" in found.message


@pytest.mark.parametrize("password", [EMAIL, "MARIA.LOPEZ", "maria.lopez2024", "mlopez!!", "Maria Lopez 1"])
def test_the_accounts_own_email_or_name_with_little_around_it_is_refused(password: str) -> None:
    found = refusal(password, EMAIL, NAMES)
    assert found is not None and found.reason == REASON and "email or name" in found.message


@pytest.mark.parametrize("password", ["correct horse battery", "mlopez walks the palisades", "Zürich–Ñandú 2026",
                                      "long enough pw", "correct horse " + "a1b2c3"])
def test_an_unusual_password_is_taken_whatever_its_characters(password: str) -> None:
    assert refusal(password, EMAIL, NAMES) is None
