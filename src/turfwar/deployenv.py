"""``turfwar deploy-env``: the secrets ``deploy/compose.yaml`` asks for, made once from the OS's CSPRNG (so
nothing in a deployment starts on a default password or the public seed)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from turfwar import natsauth

#: compose's PostgreSQL roles besides the superuser (deploy/postgres/roles.sh): one per service with a
#: schema, owning it alone, and the backup's read-only one
DB_ROLES = ["gateway", "claims", "cards", "clock", "notify", "modes", "backup"]
#: what compose refuses to start without (``${VAR:?}``), besides the organizer's email; ``TURF_DB_PASSWORD`` is the
#: superuser's, which only the one-shot db-setup holds
SECRETS = ["TURF_SEED", "TURF_ORGANIZER_PASSWORD", "TURF_DB_PASSWORD", "TURF_REDIS_PASSWORD",
           *(f"TURF_DB_PASSWORD_{role.upper()}" for role in DB_ROLES),
           *(natsauth.password_variable(u) for u in [natsauth.ADMIN, *natsauth.PERMISSIONS])]


def env_text(organizer_email: str) -> str:
    """The ``.env`` lines: the organizer's email and a fresh 256-bit secret for each of :data:`SECRETS`."""
    lines = ["# deploy/.env for `docker compose -f deploy/compose.yaml up -d` (made by `turfwar deploy-env`; keep it",
             "# private, and back it up: the seed's commitment is public, the seed is revealed at the close)",
             f"TURF_ORGANIZER_EMAIL={organizer_email}"]
    # a leading letter: nats-server reads a $VARIABLE that starts with a digit as a number, not as the password
    lines += [f"{name}=s{secrets.token_urlsafe(32)}" for name in SECRETS]
    return "\n".join(lines) + "\n"


def write_env(path: Path, organizer_email: str) -> None:
    """Create ``path`` (mode 0600, never readable by others). Raises FileExistsError if it exists: a season's
    seed and passwords are made once."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(env_text(organizer_email))
