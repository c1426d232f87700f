"""One settings class for every process: the ``TURF_*`` environment variables.

Unset server URLs mean "embedded": ``turfwar up`` and the test fixtures start NATS, PostgreSQL and Redis
themselves and hand the children the URLs through the same variables.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TURF_", extra="ignore")

    nats_url: str | None = None
    database_url: str | None = None
    redis_url: str | None = None
    data_dir: Path = Path(".turfwar")
    http_port: int = 8000
    http_host: str = "127.0.0.1"
    # "real", "accelerated:N" or "manual"
    clock: str = "real"
    clock_start: datetime | None = None
    seed: str = "turfwar-2026"
    organizer_email: str = "organizer@turfwar.local"
    organizer_password: str = "organizer"
    board_dir: Path | None = None
    season_file: Path | None = None   # the season configuration (R1): calendar and rule limits
    stream: str = "TURF"
    stream_replicas: int = 1   # 3 on a NATS cluster
    metrics_port: int | None = None   # Prometheus metrics of a service process (the gateway: /metrics)
    redis_prefix: str = "turf:"
    session_ttl_hours: float = 24 * 14
    log_level: str = "INFO"
    # address verification (R27): "none" (organizer verifies by hand), "census" or "table:PATH"
    geocoder: str = "none"
    # "default", "off", or overrides like "claims_player=10/60,players_ip=5/3600" (see turf_gateway.ratelimit)
    rate_limits: str = "default"
    # browser origins allowed to call the API from other sites (comma-separated); none by default
    cors_origins: str = ""

    @field_validator("clock")
    @classmethod
    def _valid_clock(cls, v: str) -> str:
        parse_clock_mode(v)
        return v

    @field_validator("clock_start")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("TURF_CLOCK_START must carry a UTC offset, e.g. 2026-10-05T05:00:00-04:00")
        return v


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
