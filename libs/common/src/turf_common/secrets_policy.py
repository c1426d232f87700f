"""Is a configured secret (the season's seed, the organizer's password) strong enough for a real season?

The seed's commitment, ``sha256(seed)``, is published before the season (R12.1): a seed that can be guessed can be
checked offline against it, and then every private hand is known. The organizer's password opens every admin route.
So outside a rehearsal both must hold at least :data:`MIN_BITS` bits, and no known placeholder (the examples'
``CHANGE-ME``) may pass. Pure: the callers (:mod:`turf_common.settings`'s refusals) decide when it applies.

The estimate is for a secret made at random, as ``turfwar deploy-env`` makes them: length × log2(the alphabet its
character classes span). It is generous to a random string (a 22-character ``token_urlsafe``, 128 real bits, passes)
and refuses what a person types as a "secret" (a word, a date, a short phrase, a repeated pattern); it is not a
strength meter for chosen passphrases.
"""

from __future__ import annotations

import math
import re
import string

#: the least a seed or the organizer's password must hold outside a rehearsal
MIN_BITS = 128
#: placeholders seen in examples and templates (compared without case, digits' neighbours or separators): a secret
#: that contains one was copied, not made
PLACEHOLDERS = ("changeme", "replaceme", "placeholder", "example", "secret", "password", "turfwar2026", "xxxxxx",
                "fixme", "yourseed", "organizer")
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits, string.punctuation + " ")


def estimated_bits(value: str) -> float:
    """Bits a random string like ``value`` holds: its length (once a repeated pattern is cut to one copy) times
    log2 of the alphabet its character classes span (lower case, upper case, digits, punctuation and space; any other
    character adds 128 symbols). Fewer than 8 distinct characters count as a pattern: 0."""
    if len(set(value)) < 8:
        return 0.0
    period = next((n for n in range(1, len(value) // 2 + 1)
                   if len(value) % n == 0 and value == value[:n] * (len(value) // n)), len(value))
    alphabet = sum(len(c) for c in _CLASSES if any(ch in c for ch in value))
    alphabet += 128 if any(not any(ch in c for c in _CLASSES) for ch in value) else 0
    return period * math.log2(alphabet)


def placeholder_in(value: str) -> str | None:
    """The known placeholder ``value`` contains (case and separators ignored), or None."""
    folded = re.sub(r"[^a-z0-9]", "", value.lower())
    return next((p for p in PLACEHOLDERS if p in folded), None)


def weakness(value: str, what: str) -> str | None:
    """Why ``value`` (``what``: the variable's name, for the message) is too weak for a real season, or None."""
    if found := placeholder_in(value):
        return f"{what} contains the placeholder {found!r}: it was copied from an example, not made"
    if (bits := estimated_bits(value)) < MIN_BITS:
        return (f"{what} holds about {bits:.0f} bits, fewer than {MIN_BITS}: it could be guessed (the seed: checked "
                "offline against its published SHA-256 commitment)")
    return None
