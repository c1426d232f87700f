"""Who may say what on the bus: a NATS user per service process, each allowed to publish and subscribe
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

from turf_common.bus.streams import feed_stream

#: the durable consumers each process reads (declared by the bus set-up, :mod:`turfwar.bussetup`, which
#: lists the same names; a test checks). Its user may ask their info, pull from them and ack them, nothing else.
CONSUMERS: dict[str, list[str]] = {"gateway": ["gateway-history"], "claims": ["claims"], "cards": ["cards"],
                                   "scoring": ["scoring"], "notify": ["notify", "notify-medals"], "modes": ["modes"]}
#: the durables on the feed stream (``<stream>_FEED``, :func:`turf_common.bus.streams.feed_stream`: the
#: public feed's subjects alone, sourced from the event stream); the others are on the event stream
ON_FEED = {"gateway-history"}
#: the users that read a stream through ordered (ephemeral, unacked) consumers, which nats-py creates and
#: re-creates itself: the gateway the feed stream (the spectators' feed and its resends), the services the clock's
#: KV bucket (the game clock's and the season book's watches). The legacy ephemeral create subject
#: (``$JS.API.CONSUMER.CREATE.<stream>``) refuses a durable name, so such a user can make no durable, nor touch
#: another's. It cannot name the filter (https://github.com/nats-io/nats-server/issues/6180), which is why the
#: gateway's is the feed stream's, where no private subject is (docs/reliability.md)
ORDERED: dict[str, tuple[str, ...]] = {"gateway": ("feed",), "claims": ("kv",), "geo-verify": ("kv",),
                                       "cards": ("kv",), "scoring": ("kv",), "notify": ("kv",)}
DEFAULT_STREAM = "TURF"   # turf_common.settings.Settings.stream: the deployments' event stream
#: never for a service, whatever its allow-list: deleting or purging the event log, or single events
JETSTREAM_DENY = ["$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>"]
#: what each process may publish (commands it sends, events it owns) and subscribe to (commands it serves; the
#: gateway: the public feed's events). Its own inbox (``_INBOX.<name>.>``, see turf_common.bus.make_broker) and
#: ``svc.<name>.health`` come on top; replies to the requests it serves are allowed by ``allow_responses``.
PERMISSIONS: dict[str, dict[str, list[str]]] = {
    "gateway": {
        "publish": ["claims.submit", "claims.check", "claims.state", "claims.player", "claims.flags",
                    "claims.list", "claims.correct", "claims.disqualify", "claims.erase_trails", "geo.erase_trails",
                    "claims.player_fixes", "geo.player_fixes",
                    "claims.outlook", "clock.set", "clock.get", "clock.seasons", "scoring.>",
                    "cards.>", "trades.>", "notify.>", "player.>", "correction.>", "gateway.sessions.revoked",
                    "modes.>", "season.created", "season.updated", "season.joined"],
        "subscribe": ["score.>", "territory.>", "correction.>", "season.>", "card.>", "trade.>",
                      "announcement.>", "medal.>", "gateway.sessions.revoked", "mode.>",
                      "player.renamed"],
    },
    # the claim path is a pipeline (docs/architecture/claim-path.md): geo-verify serves the gateway's claims and
    # checks (R7, R7.1 against the trail it keeps) and alone may hand them on to the claims service, as
    # claims.verified.*
    "geo-verify": {"publish": ["claims.verified.submit", "claims.verified.check"],
                   "subscribe": ["geo.>", "claims.submit", "claims.check"]},
    # refusals from memory: every claims replica hears the day's claims and what may change its facts
    "claims": {"publish": ["claim.>", "territory.>", "flag.>", "protection.>"],
               "subscribe": ["claims.>", "claim.accepted", "territory.changed", "card.played", "correction.applied",
                             "player.disqualified"]},
    "cards": {"publish": ["card.>", "trade.>", "claims.effect.>", "claims.trade_check"],
              "subscribe": ["cards.>", "trades.>"]},
    "scoring": {"publish": ["score.>", "season.>"], "subscribe": ["scoring.>"]},
    # announcements are the organizer's, so only the notify service says announcement.> (a notification
    # is no event: nothing consumed one)
    # medals: the notify service awards them (medal.earned, a feed story)
    "notify": {"publish": ["announcement.>", "medal.>"], "subscribe": ["notify.>"]},
    # Team Turf and King of the Hill; reads the game clock from KV (JetStream API)
    "modes": {"publish": ["mode.>"], "subscribe": ["modes.>"]},
    "clock": {"publish": ["clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed",
                          "clock.season_ended", "$KV.>"],
              "subscribe": ["clock.set", "clock.get", "clock.seasons"]},
}
ADMIN = "admin"   # the organizer's tools (turfwar status/verify/audit/simulate, tests), the bus set-up: all
DEPLOY_FILE = Path(__file__).resolve().parents[2] / "deploy" / "nats" / "auth.conf"
HELM_FILE = DEPLOY_FILE.with_name("values.yaml")
_VAR = "@env:"   # marks a password to be written as a NATS variable reference (made passwords never hold "@")


def jetstream(user: str, stream: str = DEFAULT_STREAM) -> list[str]:
    """The JetStream API subjects ``user`` may publish to, for the event stream ``stream``: the stream's
    and the clock bucket's info, the bucket's entries (get, direct get), its own durables (:data:`CONSUMERS`: info,
    next batch, acks; on the feed stream those of :data:`ON_FEED`) and its ordered consumers (:data:`ORDERED`:
    ephemeral create, info, flow control); the gateway (the feed stream's reader) and the clock (its fill metric)
    also see the feed stream's info, and the gateway lists both streams' consumers (``wait_idle``). Never a create,
    update or delete of a stream or durable: the set-up's (:mod:`turfwar.bussetup`)."""
    kv = f"KV_{stream}_clock"   # turf_common.bus.streams.CLOCK_BUCKET's stream
    feed = feed_stream(stream)
    out = [f"$JS.API.STREAM.INFO.{stream}", f"$JS.API.STREAM.INFO.{kv}", f"$JS.API.STREAM.MSG.GET.{kv}",
           f"$JS.API.DIRECT.GET.{kv}.>"]
    if user in ("gateway", "clock"):
        out.append(f"$JS.API.STREAM.INFO.{feed}")
    for name in CONSUMERS.get(user, []):
        on = feed if name in ON_FEED else stream
        out += [f"$JS.API.CONSUMER.INFO.{on}.{name}", f"$JS.API.CONSUMER.MSG.NEXT.{on}.{name}",
                f"$JS.ACK.{on}.{name}.>"]
    for which in ORDERED.get(user, ()):
        target = feed if which == "feed" else kv
        out += [f"$JS.API.CONSUMER.CREATE.{target}", f"$JS.API.CONSUMER.INFO.{target}.*", f"$JS.FC.{target}.>"]
    if user == "gateway":
        out += [f"$JS.API.CONSUMER.LIST.{stream}", f"$JS.API.CONSUMER.LIST.{feed}"]
    return out


def users(password: Callable[[str], str], stream: str = DEFAULT_STREAM) -> list[dict[str, Any]]:
    """The server's ``authorization.users``: ``admin`` (the organizer's tools and the bus set-up) and one user per
    service, ``password(user)`` each, for the event stream ``stream``."""
    out: list[dict[str, Any]] = [{"user": ADMIN, "password": password(ADMIN),
                                  "permissions": {"publish": {"allow": [">"]}, "subscribe": {"allow": [">"]}}}]
    for name, perm in PERMISSIONS.items():
        out.append({"user": name, "password": password(name), "permissions": {
            "publish": {"allow": [*perm["publish"], *jetstream(name, stream)], "deny": JETSTREAM_DENY},
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
    header = ("# Written by `turfwar docs nats-auth` from turfwar/natsauth.py: who may publish and\n"
              "# subscribe on what. Passwords come from the NATS servers' environment (deploy/.env). Do not edit.\n")
    return header + conf_text(users(lambda user: _VAR + password_variable(user)))


def secret_name(user: str) -> str:
    """The Kubernetes Secret holding ``user``'s NATS password (key ``password``): one per user, so a pod is
    given its own password and no other."""
    return f"turfwar-nats-{user}"


def helm_values() -> dict[str, Any]:
    """The generated part of ``deploy/nats/values.yaml`` (the NATS Helm chart's values): the same users and
    permissions as ``auth.conf``, each password a ``<< $TURF_NATS_PASSWORD_<USER> >>`` (the chart writes it bare: a
    variable of the server's environment), and that environment read from each user's own Secret."""
    names = [ADMIN, *PERMISSIONS]
    return {"config": {"merge": {"authorization": {
                "users": users(lambda user: f"<< ${password_variable(user)} >>")}}},
            "container": {"env": {password_variable(u): {"valueFrom": {"secretKeyRef": {
                "name": secret_name(u), "key": "password"}}} for u in names}}}


def helm_file_text(current: str) -> str:
    """``deploy/nats/values.yaml`` (``current``) with its generated ``config.merge`` block written anew from
    :func:`helm_values`; the hand-written rest (and its comments) kept as it is."""
    import yaml

    lines = current.splitlines(True)
    start = next(i for i, line in enumerate(lines) if line.startswith("  merge:"))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("   ")), len(lines))
    body = yaml.safe_dump(helm_values()["config"]["merge"], sort_keys=False, width=1000)
    lines[start + 1:end] = ["    " + line if line.strip() else line for line in body.splitlines(True)]
    return "".join(lines)
