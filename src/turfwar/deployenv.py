"""``turfwar deploy-env``: the deployment's one settings file. It makes the secrets ``deploy/compose.yaml`` asks for,
once, from the OS's CSPRNG (so nothing in a deployment starts on a default password or the public seed), and lists
every other setting of :class:`turf_common.settings.Settings` a deployment may change, commented, at its default.

Which settings reach which container is decided here, once: :data:`SET_BY_COMPOSE` (the compose file makes them
itself), :data:`NOT_FOR_DEPLOYMENTS` (no deployment sets them), :data:`NOTIFY_ONLY` (optional secrets, handed to the
notify service alone); every other field is optional and compose hands it to every Turf War process from ``deploy/.env``
(``x-turf-env`` in compose.yaml). ``tests/unit/test_deploy_settings.py`` fails when a new field of ``Settings`` is in
none of these and reaches no container."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import AliasChoices
from pydantic.fields import FieldInfo

from turf_common.settings import Settings
from turfwar import natsauth

#: compose's PostgreSQL roles besides the superuser (deploy/postgres/roles.sh): one per service with a
#: schema, owning it alone, and the backup's read-only one
DB_ROLES = ["gateway", "claims", "cards", "clock", "notify", "modes", "backup"]
#: what compose refuses to start without (``${VAR:?}``), besides the organizer's email; ``TURF_DB_PASSWORD`` is the
#: superuser's, which only the one-shot db-setup holds
SECRETS = ["TURF_SEED", "TURF_ORGANIZER_PASSWORD", "TURF_DB_PASSWORD", "TURF_REDIS_PASSWORD",
           *(f"TURF_DB_PASSWORD_{role.upper()}" for role in DB_ROLES),
           *(natsauth.password_variable(u) for u in [natsauth.ADMIN, *natsauth.PERMISSIONS])]

#: fields the compose file sets itself, per container, never from ``deploy/.env`` (field: why)
SET_BY_COMPOSE: dict[str, str] = {
    "nats_url": "each process's own NATS user, made from its password",
    "database_url": "each service's own PostgreSQL role, made from its password",
    "redis_url": "made from TURF_REDIS_PASSWORD",
    "http_host": "the gateway listens on the compose network; Caddy is the only face",
    "http_port": "8000 behind Caddy (TURF_PUBLIC_HTTP_PORT and TURF_PUBLIC_HTTPS_PORT are Caddy's)",
    "metrics_port": "9100, the port of the services' health checks",
    "allowed_hosts": "TURF_DOMAIN, the one name Caddy serves",
    "forwarded_allow_ips": "Caddy's fixed address, the only proxy the gateways believe",
    "stream_replicas": "3: one copy of the stream on each NATS node",
    "seed": "a secret deploy-env makes, handed to the services that draw (cards, gateway)",
    "organizer_password": "a secret deploy-env makes, handed to the gateway alone",
    "organizer_email": "deploy-env's --organizer-email, handed to the gateway and notify",
}
#: fields no deployment sets (field: why)
NOT_FOR_DEPLOYMENTS: dict[str, str] = {
    "data_dir": "the image's /tmp/turfwar on a read-only root; a deployment keeps its data in PostgreSQL, Redis, NATS",
    "board_dir": "the board is in the package: every deployment plays the committed board (R21, R22)",
    "password_hash": "`fast` serves loopback rehearsals only and is refused elsewhere: `default` is the one choice",
}
#: optional secrets, handed to the notify service alone (whoever holds them sends mail, posts or pushes as the game)
NOTIFY_ONLY = {"smtp_url", "discord_webhook_url", "vapid_private_key"}

#: the compose file's own variables (not settings of a process) a deployment may change, at their defaults
COMPOSE_VARIABLES: dict[str, str] = {
    "TURF_TLS": "acme",   # `internal`: Caddy's own CA, for a rehearsal without a public name
    "TURF_PUBLIC_HTTP_PORT": "80",
    "TURF_PUBLIC_HTTPS_PORT": "443",
    "TURF_BACKUP_EVERY": "6h",
    "TURF_BACKUP_KEEP": "28",
}


def env_name(name: str, field: FieldInfo) -> str:
    """The variable a field is read from (its first alias when it has several: ``TURF_TILES_URL``)."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return f"TURF_{name.upper()}"


def optional_settings() -> dict[str, str]:
    """Every field a deployment may set in ``deploy/.env``: variable name → its default as the file would hold it
    (empty: unset)."""
    out = {}
    for name, field in Settings.model_fields.items():
        if name in SET_BY_COMPOSE or name in NOT_FOR_DEPLOYMENTS:
            continue
        default = field.default
        out[env_name(name, field)] = "" if default is None else str(default).lower() if isinstance(default, bool) \
            else str(default)
    return out


def env_text(organizer_email: str, domain: str | None = None) -> str:
    """The ``.env`` lines: the organizer's email, a fresh 256-bit secret for each of :data:`SECRETS`, the domain if
    given, then every optional setting commented at its default."""
    lines = ["# deploy/.env for `docker-compose -p turfwar -f deploy/compose.yaml --env-file deploy/.env up -d`",
             "# (made by `turfwar deploy-env`; keep it private, and back it up: the seed's commitment is public, the",
             "# seed is revealed at the close). One KEY=value a line, no quotes: docs/organizer/settings.md.",
             "# A file a setting names goes in deploy/config/, which every service sees as /etc/turfwar/.",
             f"TURF_ORGANIZER_EMAIL={organizer_email}"]
    # a leading letter: nats-server reads a $VARIABLE that starts with a digit as a number, not as the password
    lines += [f"{name}=s{secrets.token_urlsafe(32)}" for name in SECRETS]
    optional = optional_settings()
    if domain:
        lines += [f"TURF_DOMAIN={domain}", f"TURF_PUBLIC_URL=https://{domain}"]
        optional.pop("TURF_PUBLIC_URL")
    else:
        lines += ["# the site's DNS name (compose refuses to start without it), and the address in mail's links:",
                  "# TURF_DOMAIN=turf.example.org", "# TURF_PUBLIC_URL=https://turf.example.org"]
    lines += ["# R30: without TURF_SMTP_URL no mail leaves (no confirmation, no reset): docs/organizer/mail.md",
              "# TURF_SMTP_URL=smtp+starttls://USER:PASSWORD@smtp.example.org:587",
              "# ---- every other setting, at its default: uncomment a line to change it ----"]
    lines += [f"# {name}={value}" for name, value in optional.items() if name != "TURF_SMTP_URL"]
    lines += [f"# {name}={value}" for name, value in COMPOSE_VARIABLES.items()]
    return "\n".join(lines) + "\n"


def write_env(path: Path, organizer_email: str, domain: str | None = None) -> None:
    """Create ``path`` (mode 0600, never readable by others). Raises FileExistsError if it exists: a season's
    seed and passwords are made once."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(env_text(organizer_email, domain))
