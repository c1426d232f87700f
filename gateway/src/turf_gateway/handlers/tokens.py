"""How a bearer or account token is kept: only its SHA-256 is stored and looked up, never the token itself."""

from __future__ import annotations

import hashlib


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
