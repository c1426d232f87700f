"""Who may say what on the bus (issue 15): a NATS user per service process, each allowed to publish and subscribe
only on its own subjects, and ``admin`` for the organizer's tools. One table serves both servers that enforce it:
the embedded one (passwords of its data directory, :mod:`turfwar.embedded`) and the compose deployment's
``deploy/nats/auth.conf`` (passwords from the environment, ``$TURF_NATS_PASSWORD_<USER>``), which
``turfwar docs nats-auth`` writes and CI keeps current."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: JetStream for every user: the API (stream and consumer set-up, pull requests, KV reads), acks and flow control.
JETSTREAM = ["$JS.API.>", "$JS.ACK.>", "$JS.FC.>"]
#: what no service may do to the shared event log: delete or purge it, or delete single events
JETSTREAM_DENY = ["$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>"]
#: what each process may publish (commands it sends, events it owns) and subscribe to (commands it serves; the
#: gateway: the public feed's events). Its own inbox (``_INBOX.<name>.>``, see turf_common.bus.make_broker) and
#: ``svc.<name>.health`` come on top; replies to the requests it serves are allowed by ``allow_responses``.
PERMISSIONS: dict[str, dict[str, list[str]]] = {
    "gateway": {
        "publish": ["geo.locate", "claims.submit", "claims.check", "claims.state", "claims.player", "claims.flags",
                    "claims.list", "claims.correct", "claims.disqualify",
                    "claims.outlook", "clock.set", "clock.get", "scoring.>",
                    "cards.>", "trades.>", "notify.>", "player.>", "correction.>", "gateway.sessions.revoked",
                    "modes.>"],
        "subscribe": ["score.>", "territory.>", "correction.>", "season.>", "card.>", "trade.>",
                      "announcement.>", "gateway.sessions.revoked", "mode.>"],
    },
    "geo-verify": {"publish": [], "subscribe": ["geo.>"]},
    "claims": {"publish": ["claim.>", "territory.>", "flag.>", "protection.>"], "subscribe": ["claims.>"]},
    "cards": {"publish": ["card.>", "trade.>", "claims.effect.>", "claims.trade_check"],
              "subscribe": ["cards.>", "trades.>"]},
    "scoring": {"publish": ["score.>", "season.>"], "subscribe": ["scoring.>"]},
    # issue 18: notifications are private, so only the notify service says notification.>
    "notify": {"publish": ["notification.>", "announcement.>"], "subscribe": ["notify.>"]},
    # issue 32: Team Turf and King of the Hill; reads the game clock from KV (JetStream API)
    "modes": {"publish": ["mode.>"], "subscribe": ["modes.>"]},
    "clock": {"publish": ["clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed",
                          "clock.season_ended", "$KV.>"],
              "subscribe": ["clock.set", "clock.get"]},
}
ADMIN = "admin"   # the organizer's tools (turfwar status/verify/audit/simulate, tests): every subject
DEPLOY_FILE = Path(__file__).resolve().parents[2] / "deploy" / "nats" / "auth.conf"
_VAR = "@env:"   # marks a password to be written as a NATS variable reference (made passwords never hold "@")


def users(password: Callable[[str], str]) -> list[dict[str, Any]]:
    """The server's ``authorization.users``: ``admin`` and one user per service, ``password(user)`` each."""
    out: list[dict[str, Any]] = [{"user": ADMIN, "password": password(ADMIN),
                                  "permissions": {"publish": {"allow": [">"]}, "subscribe": {"allow": [">"]}}}]
    for name, perm in PERMISSIONS.items():
        out.append({"user": name, "password": password(name), "permissions": {
            "publish": {"allow": [*perm["publish"], *JETSTREAM], "deny": JETSTREAM_DENY},
            "subscribe": {"allow": [*perm["subscribe"], f"_INBOX.{name}.>", f"svc.{name}.health"]},
            "allow_responses": True}})
    return out


def password_variable(user: str) -> str:
    """The environment variable the deployment's NATS servers read ``user``'s password from."""
    return "TURF_NATS_PASSWORD_" + re.sub(r"[^A-Z0-9]", "_", user.upper())


def conf_text(server_users: list[dict[str, Any]]) -> str:
    """A NATS server configuration (JSON is one) with these users. Subjects stay quoted strings (unquoted,
    ``$JS…`` would name a variable); passwords made by :func:`deploy_conf` become variable references."""
    text = json.dumps({"authorization": {"users": server_users}}, indent=1)
    return re.sub(r'"' + _VAR + r'(\w+)"', r"$\1", text) + "\n"


def deploy_conf() -> str:
    """``deploy/nats/auth.conf``: every password a ``$TURF_NATS_PASSWORD_<USER>`` of the server's environment."""
    header = ("# Written by `turfwar docs nats-auth` from turfwar/natsauth.py (issue 15): who may publish and\n"
              "# subscribe on what. Passwords come from the NATS servers' environment (deploy/.env). Do not edit.\n")
    return header + conf_text(users(lambda user: _VAR + password_variable(user)))


def secret_name(user: str) -> str:
    """Issue 29: the Kubernetes Secret holding ``user``'s NATS password (key ``password``): one per user, so a pod is
    given its own password and no other."""
    return f"turfwar-nats-{user}"


def helm_values() -> dict[str, Any]:
    """Issue 29: the generated part of ``deploy/nats/values.yaml`` (the NATS Helm chart's values): the same users and
    permissions as ``auth.conf``, each password a ``<< $TURF_NATS_PASSWORD_<USER> >>`` (the chart writes it bare: a
    variable of the server's environment), and that environment read from each user's own Secret."""
    names = [ADMIN, *PERMISSIONS]
    return {"config": {"merge": {"authorization": {
                "users": users(lambda user: f"<< ${password_variable(user)} >>")}}},
            "container": {"env": {password_variable(u): {"valueFrom": {"secretKeyRef": {
                "name": secret_name(u), "key": "password"}}} for u in names}}}
