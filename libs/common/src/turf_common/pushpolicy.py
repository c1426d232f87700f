"""Where the server may send a Web Push: the server posts to whatever endpoint a player stores, so a
stored endpoint is a request the server makes on the player's behalf. Only the browsers' real push services are
taken; a rehearsal (manual clock) also takes loopback receivers, which the tests and rehearsals run.

Used by the gateway when a subscription is stored (``PUT /me/push``) and by notify before each send (an endpoint
stored before this policy, or by a bug, is dropped there rather than posted to)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

#: the push services of Chrome/Edge/Android (FCM), Firefox (Mozilla autopush), Safari (Apple) and Windows (WNS)
PUSH_HOSTS = frozenset({"fcm.googleapis.com", "updates.push.services.mozilla.com", "push.services.mozilla.com",
                        "web.push.apple.com"})
#: hosts under these domains (Apple's regional and Windows' per-region hosts, e.g. wns2-db5p.notify.windows.com)
PUSH_DOMAINS = (".push.apple.com", ".notify.windows.com")
MAX_ENDPOINT = 1024   # characters: real endpoints are under 600


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_push_endpoint(endpoint: str, rehearsal: bool) -> bool:
    """True when ``endpoint`` is an https URL on a real push service's host, with no user info and the default
    port; with ``rehearsal`` (manual clock), an http or https URL on a loopback host is taken too."""
    if len(endpoint) > MAX_ENDPOINT:
        return False
    try:
        u = urlsplit(endpoint)
        port = u.port
    except ValueError:
        return False
    host = (u.hostname or "").lower()
    if u.username is not None or u.password is not None:
        return False
    if rehearsal and _loopback(host) and u.scheme in ("http", "https"):
        return True
    if u.scheme != "https" or port not in (None, 443):
        return False
    return host in PUSH_HOSTS or any(host.endswith(d) and len(host) > len(d) for d in PUSH_DOMAINS)
