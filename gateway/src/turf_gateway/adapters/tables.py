"""The gateway's tables (schema ``gateway``): players, sessions, the organizer's action log, and the public feed's
history (a read model of the event stream)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Identity,
    Index,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from turf_common.outbox import outbox_table

SCHEMA = "gateway"
metadata = MetaData(schema=SCHEMA)

players = Table(
    "players", metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("email", String(320), nullable=False),
    Column("email_norm", String(320), nullable=False, unique=True),      # R27: unique, case-insensitive
    Column("discord", String(64), nullable=False),
    Column("discord_norm", String(64), nullable=False, unique=True),
    Column("home_address", Text, nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("status", String(16), nullable=False),                       # pending|verified|rejected|disqualified
    Column("status_reason", String(64), nullable=True),
    Column("role", String(16), nullable=False),                         # player|organizer|former_organizer
    Column("address_norm", Text, nullable=True, index=True),            # R27: one address, two players → flag
    Column("home_lat", Float, nullable=True),
    Column("home_lon", Float, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("email_confirmed", Boolean, nullable=False, server_default="false"),   # R30: by a mailed link
    # R30: the organizer's optional announcements by mail (rule changes always go)
    Column("announcements_by_mail", Boolean, nullable=False, server_default="true"),
)

# R30: single-use links sent by mail, by the SHA-256 of their token (the token itself is never stored): an email
# confirmation (for ``email``, valid 24 hours) or a password reset (valid one hour). Issuing one deletes the player's
# earlier ones of the same purpose (a newer link voids the older); using one sets ``used_at``
account_tokens = Table(
    "account_tokens", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(64), nullable=False, index=True),
    Column("purpose", String(32), nullable=False),              # email_confirmation | password_reset
    Column("email", String(320), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True), nullable=True),
)

sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(64), nullable=False, index=True),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    # ends the session unless a use moves it on (session_idle.py); null: made before idle deadlines were kept
    Column("idle_until", DateTime(timezone=True), nullable=True),
)

admin_log = Table(
    "admin_log", metadata,
    Column("id", String(64), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("by", String(64), nullable=False),
    Column("action", String(64), nullable=False),
    Column("target", String(64), nullable=True),
    Column("reason", Text, nullable=True),
    Column("detail", JSON, nullable=False),
)

# R28: the organizer's corrections, append-only (who, when, what, before, after)
corrections = Table(
    "corrections", metadata,
    Column("seq", BigInteger, Identity(), primary_key=True),
    Column("id", String(64), nullable=False, unique=True),
    Column("at", DateTime(timezone=True), nullable=False),       # game time
    Column("by", String(64), nullable=False),
    Column("action", String(32), nullable=False),
    Column("reason", Text, nullable=False),
    Column("territory_id", String(16), nullable=True),
    Column("player_id", String(64), nullable=True),
    Column("request", JSON, nullable=False),
    Column("before", JSON, nullable=False),
    Column("after", JSON, nullable=False),
    Column("post_season", Boolean, nullable=False),
)

# R28: a correction applied by another service (claims, cards, scoring) is recorded here, with the command id that
# service applies once, before it is asked; its log record above is written once the answer comes. A repeat of the
# organizer's Idempotency-Key finds the same command id.
correction_requests = Table(
    "correction_requests", metadata,
    Column("id", String(64), primary_key=True),                 # the command id sent to the owning service
    Column("by", String(64), nullable=False),
    Column("idempotency_key", String(200), nullable=True),
    Column("at", DateTime(timezone=True), nullable=False),       # game time: the log record's ``at``
    Column("post_season", Boolean, nullable=False),
    Column("action", String(32), nullable=False),
    Column("request", JSON, nullable=False),                     # the organizer's body, applied on a repeat too
    Column("state", String(16), nullable=False),                 # asked | logged | refused
    Column("refusal", JSON, nullable=True),                      # {reason, message} when refused
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("by", "idempotency_key", name="correction_requests_key"),
)

# Every public feed message as spectators got it (public fields only), by its stream sequence: the read
# model of GET /territories/{id}/history, /players/{id}/history and /replay, projected from the event stream by the
# gateway's durable consumer (feed/log.py). ``players``: the players it concerns (owner and previous owner,
# card player, trade parties), for a journal.
feed_log = Table(
    "feed_log", metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),   # the event's stream sequence
    Column("type", String(64), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),              # game time of the event (occurred_at)
    Column("territory_id", String(16), nullable=True),
    Column("players", ARRAY(String(64)), nullable=False),
    Column("body", JSONB, nullable=False),                              # the feed message, ``seq`` included
    Index("feed_log_territory", "territory_id", "seq", postgresql_where="territory_id IS NOT NULL"),
    Index("feed_log_at", "at", "seq"),
    Index("feed_log_players", "players", postgresql_using="gin"),
)

# R31: the organizer's seasons (migration 0009): R1's configuration (SeasonConfig.to_dict) and R26's prizes as JSON
seasons = Table(
    "seasons", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("config", JSONB, nullable=False),
    Column("prizes", JSONB, nullable=False),
    Column("seed_commitment", String(64), nullable=False),
    Column("rehearsal", Boolean, nullable=False, server_default="false"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(64), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# R31: who joined which season, with the home address they confirmed then (R27: a changed one is verified again)
season_players = Table(
    "season_players", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True, index=True),
    Column("joined_at", DateTime(timezone=True), nullable=False),
    Column("home_address", Text, nullable=False),
)

outbox = outbox_table(metadata, SCHEMA)
