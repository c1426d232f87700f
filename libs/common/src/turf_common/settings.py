"""One settings class for every process: the ``TURF_*`` environment variables.

Unset server URLs mean "embedded": ``turfwar up`` and the test fixtures start NATS, PostgreSQL and Redis
themselves and hand the children the URLs through the same variables.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from turf_common import secrets_policy

#: R30: what the notify service logs at start, ``turfwar status`` prints and the organizer page shows when
#: ``TURF_SMTP_URL`` is unset (each message is then only written as a file where the notify service runs)
MAIL_NOT_CONFIGURED = "mail is not configured: players get no mail"

# Public defaults: anyone can read them here, so they may serve tests and manual-clock rehearsals only
PUBLIC_SEED = "turfwar-2026"
DEFAULT_ORGANIZER_PASSWORD = "organizer"


class Settings(BaseSettings):
    # an empty variable is an unset one: compose hands every deployment setting to every service as
    # ``TURF_X: ${TURF_X:-}`` (deploy/compose.yaml), and one the organizer left out must keep its default
    model_config = SettingsConfigDict(env_prefix="TURF_", extra="ignore", populate_by_name=True, env_ignore_empty=True)

    nats_url: str | None = None
    database_url: str | None = None
    redis_url: str | None = None
    data_dir: Path = Path(".turfwar")
    http_port: int = 8000
    http_host: str = "127.0.0.1"
    # "real", "accelerated:N" or "manual"
    clock: str = "real"
    clock_start: datetime | None = None
    # public defaults, refused outside manual-clock rehearsals (seed_refusal, organizer_password_refusal)
    seed: str = PUBLIC_SEED
    organizer_email: str = "organizer@turfwar.local"
    organizer_password: str = DEFAULT_ORGANIZER_PASSWORD
    board_dir: Path | None = None
    season_file: Path | None = None   # the season configuration (R1): calendar and rule limits
    medals_file: Path | None = None   # the season's medals and thresholds (docs/medals.md); None: medals-2026.json
    stream: str = "TURF"
    stream_replicas: int = 1   # 3 on a NATS cluster
    # the event stream's byte limit (NATS reserves it on every node's disk). 8 GiB holds a season of about
    # 1,000 players (150 events of under 1 kB a player a game day, 36 game days: ~4 GiB) twice over
    stream_max_bytes: int = Field(default=8 * 1024**3, ge=1024 * 1024)
    metrics_port: int | None = None   # Prometheus metrics of a service process (the gateway: /metrics)
    # the pages' optional base map: a raster XYZ tile template (``https://tile.example.org/{z}/{x}/{y}.png``) and the
    # attribution its provider requires (turf_gateway.api.pages, docs/organizer/tiles.md); none: the towns alone.
    # TURF_TILES_URL / TURF_TILES_ATTRIBUTION, or the older singular TURF_TILE_URL / TURF_TILE_ATTRIBUTION
    tile_url: str = Field(default="", validation_alias=AliasChoices("TURF_TILES_URL", "TURF_TILE_URL"))
    tile_attribution: str = Field(default="", validation_alias=AliasChoices("TURF_TILES_ATTRIBUTION",
                                                                            "TURF_TILE_ATTRIBUTION"))
    redis_prefix: str = "turf:"
    session_ttl_hours: float = 24 * 14
    # a session unused this long ends (the organizer's sooner), whatever its session_ttl_hours (session_idle.py)
    session_idle_hours: float = Field(default=24 * 7, gt=0)
    organizer_session_idle_hours: float = Field(default=12, gt=0)
    # the argon2id parameters of new password hashes: "default" (argon2-cffi's RFC 9106 low-memory
    # profile, ~0.2 s of CPU a hash) or "fast" (one pass over 8 KiB: for tests and manual-clock rehearsals on
    # loopback only, see password_hash_refusal). A hash keeps its parameters, so either verifies the other's
    password_hash: str = "default"
    # password hashes that may wait for one of the gateway's 2 hashing threads; one more sign-in or
    # registration is answered 503 with Retry-After at once (a burst queued the organizer's sign-in for 20.9 s)
    password_queue: int = 12
    # places of that queue one client address holds at once (one more: 429); priority sign-ins (the organizer's
    # account, an address the account signed in from) count per account and address (turf_gateway.adapters.passwords)
    password_queue_per_client: int = Field(default=2, ge=1)
    # seconds a gateway answers a session (and GET /me's profile) from memory (0: ask PostgreSQL on every request).
    # Every change that ends a session or alters a profile drops it at once in every gateway
    # (session_revocation.py), so this only bounds a revocation lost on the bus: a minute, so the page's load
    # before an opening still answers its check and claim at the bell
    session_cache_s: float = 60.0
    log_level: str = "INFO"
    access_log: bool = True   # the gateway's JSON access lines (uvicorn's format, with the trace id)
    # the share of ordinary requests logged (errors, slow ones and callers' sampled traces always are)
    access_log_sample: float = 0.01
    # address verification (R27): "none" (organizer verifies by hand), "census" or "table:PATH"
    geocoder: str = "none"
    # "default", "off", or overrides like "claims_player=10/60,players_ip=5/3600" (see turf_gateway.adapters.ratelimit)
    rate_limits: str = "default"
    # browser origins allowed to call the API from other sites (comma-separated); none by default
    cors_origins: str = ""
    # Host names the gateway answers (comma-separated; "*.example.org" for subdomains): a web page that
    # rebinds its own name to 127.0.0.1 sends its own Host and is refused 400. Loopback names by default
    # ("testserver": the ASGI test client's)
    allowed_hosts: str = "127.0.0.1,localhost,::1,testserver"
    # addresses of the reverse proxies whose X-Forwarded-For/-Proto the gateway believes (uvicorn's
    # forwarded_allow_ips: comma-separated IPs or CIDRs, "*" for any); empty: none, the socket's peer is the client
    forwarded_allow_ips: str = ""
    # the gateway's HTTP server (turf_gateway.server): a request's headers must arrive within
    # http_header_timeout_s of the connection (or of the previous answer), its body within http_body_timeout_s of
    # its headers (else 408 and closed: slowloris); an idle keep-alive connection is closed after http_keep_alive_s;
    # past http_max_connections connections and requests at once, 503 (above ws_max_total: spectators fit)
    http_header_timeout_s: float = Field(default=10.0, gt=0)
    http_body_timeout_s: float = Field(default=30.0, gt=0)
    http_keep_alive_s: int = Field(default=5, ge=1)
    http_max_connections: int = Field(default=6000, ge=1)
    # spectator websockets per client address and in all, per gateway process (over: closed 1008)
    ws_max_per_ip: int = 50
    ws_max_total: int = 5000
    # how far back WS /ws/scores?since= resends, in stream sequences (every event counts, not only the
    # feed's); a client further behind gets a snapshot instead
    ws_resend_max: int = 10000
    # where a service's metrics listen (TURF_METRICS_PORT); the gateway's /metrics answers loopback
    # clients only. A deployment whose Prometheus scrapes across the network sets 0.0.0.0
    metrics_host: str = "127.0.0.1"
    # the league channel's Discord webhook (live commentary; none: no posts). Secret: whoever has it posts
    discord_webhook_url: str | None = None
    # Web Push (VAPID) private key, base64url of the raw P-256 scalar; `turfwar up` makes one per data
    # directory. Unset (compose without it): the notify service keeps one in its schema, shared by its replicas
    vapid_private_key: str | None = None
    # steals of one player within this many seconds make one push
    push_group_seconds: float = 60.0
    # R30: where mail goes. ``smtp://host:port`` (plain, for a loopback server), ``smtp+starttls://user:pw@host:587``
    # or ``smtps://user:pw@host:465`` for a real relay; unset, each message is written as an .eml file under
    # ``<data dir>/mail/`` (a rehearsal follows the links from there or from the organizer page). Secret (credentials)
    smtp_url: str | None = None
    mail_from: str = "Turf War <turfwar@localhost>"
    # at least this many seconds between two messages to the relay (pacing: relays throttle bursts)
    mail_interval_s: float = Field(default=0.2, ge=0)
    # R30: home addresses and location fixes of every player are erased this many days after the season's close
    erase_after_days: int = Field(default=30, ge=0)
    # the address players open the pages at, for the links in mail (unset: http://<http_host>:<http_port>)
    public_url: str = ""

    def base_url(self) -> str:
        """The pages' address for links in mail: ``TURF_PUBLIC_URL``, else the gateway's own."""
        host = f"[{self.http_host}]" if ":" in self.http_host else self.http_host
        return (self.public_url or f"http://{host}:{self.http_port}").rstrip("/")

    @field_validator("clock")
    @classmethod
    def _valid_clock(cls, v: str) -> str:
        parse_clock_mode(v)
        return v

    @field_validator("password_hash")
    @classmethod
    def _known_profile(cls, v: str) -> str:
        if v not in ("default", "fast"):
            raise ValueError(f"TURF_PASSWORD_HASH must be default or fast, not {v!r}")
        return v

    @field_validator("clock_start")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("TURF_CLOCK_START must carry a UTC offset, e.g. 2026-10-05T05:00:00-04:00")
        return v


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def seed_refusal(seed: str, clock: str) -> str | None:
    """R12.1: why ``seed`` may not run a ``clock`` (``TURF_CLOCK``) season, or None. The public default
    ``turfwar-2026`` (or an empty seed) lets anyone replay every private hand, so it is refused whenever the clock is
    ``real`` or ``accelerated``; a ``manual`` clock (tests, rehearsals) may keep it. So is a placeholder or
    a seed of fewer than 128 bits, which could be found from its published ``sha256`` commitment
    (:func:`turf_common.secrets_policy.weakness`)."""
    if parse_clock_mode(clock)[0] == "manual":
        return None
    if not seed or seed == PUBLIC_SEED:
        return (f"TURF_SEED is the public default {PUBLIC_SEED!r} (or empty) with TURF_CLOCK={clock}: anyone could "
                "replay every draw (R12.1). Unset TURF_SEED to let `turfwar up` choose a random one, or set a secret "
                "seed")
    if why := secrets_policy.weakness(seed, "TURF_SEED"):   # sha256(seed) is public
        return (f"{why}, with TURF_CLOCK={clock} (R12.1). Make one with `python -c 'import secrets; "
                "print(secrets.token_hex(32))'`, or unset it to let `turfwar up` choose")
    return None


def organizer_password_refusal(password: str, clock: str, host: str) -> str | None:
    """Why the organizer may not use ``password`` with ``clock`` on ``host`` (``TURF_HTTP_HOST``), or None.
    The well-known default ``organizer`` (or an empty password) is allowed only for a manual-clock rehearsal
    listening on loopback; with a real or accelerated clock, a placeholder or a password of fewer than
    128 bits is refused too (:func:`turf_common.secrets_policy.weakness`)."""
    if parse_clock_mode(clock)[0] == "manual" and is_loopback(host):
        return None
    if not password or password == DEFAULT_ORGANIZER_PASSWORD:
        return (f"TURF_ORGANIZER_PASSWORD is the public default {DEFAULT_ORGANIZER_PASSWORD!r} (or empty) with "
                f"TURF_CLOCK={clock} on {host}: allowed only for a manual-clock rehearsal on loopback. Unset it to let "
                "`turfwar up` make a random one, or set a secret password")
    if parse_clock_mode(clock)[0] != "manual" and (why := secrets_policy.weakness(password, "TURF_ORGANIZER_PASSWORD")):
        return (f"{why}, with TURF_CLOCK={clock}. Make one with `python -c 'import secrets; "
                "print(secrets.token_urlsafe(24))'`, or unset it to let `turfwar up` make one")
    return None


def password_hash_refusal(profile: str, clock: str, host: str) -> str | None:
    """Why passwords may not be hashed with ``profile`` (``TURF_PASSWORD_HASH``) on this ``clock`` and
    ``host``, or None. ``fast`` makes a stolen hash cheap to crack, so it serves only a manual-clock rehearsal (the
    tests) listening on loopback."""
    if profile != "fast" or (parse_clock_mode(clock)[0] == "manual" and is_loopback(host)):
        return None
    return (f"TURF_PASSWORD_HASH=fast with TURF_CLOCK={clock} on {host}: allowed only for a manual-clock rehearsal on "
            "loopback (a stolen hash would be cheap to crack). Unset it")


def parse_clock_mode(spec: str) -> tuple[str, float]:
    """``"real"`` → ("real", 1.0); ``"accelerated:60"`` → ("accelerated", 60.0); ``"manual"`` → ("manual", 0.0).

    Raises ValueError for anything else.
    """
    if spec == "real":
        return "real", 1.0
    if spec == "manual":
        return "manual", 0.0
    if spec.startswith("accelerated:"):
        try:
            factor = float(spec.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad accelerated factor in {spec!r}") from None
        if not factor > 0:
            raise ValueError("accelerated factor must be positive")
        return "accelerated", factor
    raise ValueError(f"TURF_CLOCK must be real, accelerated:N or manual, not {spec!r}")


def get_settings() -> Settings:
    return Settings()
