"""Which passwords a player may choose (OWASP ASVS 5.0 V6.2): at least :data:`MIN_LENGTH` characters, up to
:data:`MAX_LENGTH` (ASVS asks that at least 64 be allowed), none of the common passwords that breaches show people
pick, and not the player's own email, name or Discord name with a few characters around them.

The common list is the one the ``zxcvbn`` package ships (30 000 passwords from breach corpora, offline: nothing is
looked up on the network when a player registers). :func:`refusal` is pure: registration, a password change and a
reset all ask it and answer its reason with 422."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

#: ASVS 5.0 V6.2.1: at least 8 characters (after runs of spaces count as one, V6.2.1's note in ASVS 4.0 V2.1.1)
MIN_LENGTH = 8
#: the request schemas' bound on any password field; ASVS V6.2.9 asks that at least 64 be allowed
MAX_LENGTH = 200
#: the reason code of every refusal (422)
REASON = "weak_password"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Refusal:
    """Why a password is refused: ``reason`` (always :data:`REASON`) and a sentence for the person choosing it."""

    reason: str
    message: str


def _normal(text: str) -> str:
    """Case, Unicode compatibility forms and runs of spaces do not make a password different."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


@cache
def common_passwords() -> frozenset[str]:
    """zxcvbn's list of common passwords, normalised (read once: the gateway reads it at start, off its loop)."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(_normal(p) for p in FREQUENCY_LISTS["passwords"])


def _own_words(email: str, names: Iterable[str]) -> list[str]:
    """The words of the account a guesser knows first: the email, its part before the ``@``, the names."""
    local = email.split("@", 1)[0]
    return sorted({w for w in (_normal(x) for x in (email, local, *names)) if len(w) >= 3}, key=len, reverse=True)


def refusal(password: str, email: str = "", names: Iterable[str] = ()) -> Refusal | None:
    """None when ``password`` may be used by the account of ``email`` and ``names`` (its name, Discord name); else
    the :class:`Refusal` to answer (422 ``weak_password``). Too short; too long; a common password; or the email,
    its local part or a name (3 characters or more) with fewer than :data:`MIN_LENGTH` other characters around it."""
    pw = _normal(password)
    if len(pw) < MIN_LENGTH:
        return Refusal(REASON, f"A password needs at least {MIN_LENGTH} characters.")
    if len(password) > MAX_LENGTH:
        return Refusal(REASON, f"A password may have at most {MAX_LENGTH} characters.")
    if pw in common_passwords() or pw.replace(" ", "") in common_passwords():
        return Refusal(REASON, "This password is one of the most common ones (it appears in many breaches); "
                               "choose another, a few unrelated words make a good one.")
    for word in _own_words(email, names):
        if word in pw and len(pw.replace(word, "").strip()) < MIN_LENGTH:
            return Refusal(REASON, "A password may not be your email or name; choose something others "
                                   "cannot guess from your profile.")
    return None
