"""The notify service's tables (schema ``notify``)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Identity,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from turf_common.outbox import inbox_table, outbox_table

SCHEMA = "notify"
metadata = MetaData(schema=SCHEMA)

# the players the gateway verified (player.verified / player.disqualified) with their public display names
players = Table(
    "players", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("display_name", String(128), nullable=True),
    Column("status", String(16), nullable=False),            # verified | disqualified
)

notifications = Table(
    "notifications", metadata,
    Column("id", BigInteger, Identity(), primary_key=True),   # increasing: GET ?after=, POST read {up_to}
    Column("player_id", String(64), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),    # game time of what it tells
    Column("kind", String(32), nullable=False),
    Column("message", Text, nullable=False),
    Column("data", JSON, nullable=False),
    Index("ix_notifications_player", "player_id", "id"),
)

reads = Table(
    "reads", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("up_to", BigInteger, nullable=False),
)

# keyed by (player, endpoint), at most ports.MAX_SUBSCRIPTIONS a player (the least recently saved goes)
subscriptions = Table(
    "subscriptions", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("endpoint", String(2048), primary_key=True),
    Column("p256dh", String(256), nullable=False),
    Column("auth", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("saved_at", DateTime(timezone=True), nullable=False),   # the last PUT: the cap replaces the oldest
)

# pushes waiting for quiet hours to end (game time) or for a steal's minute to group (wall time)
pushes = Table(
    "pushes", metadata,
    Column("id", BigInteger, primary_key=True),               # the notification's id
    Column("player_id", String(64), nullable=False, index=True),
    Column("kind", String(32), nullable=False),
    Column("message", Text, nullable=False),
    Column("not_before", DateTime(timezone=True), nullable=False),
    Column("hold_until", DateTime(timezone=True), nullable=False),
)

posts = Table(
    "posts", metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("content", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True), nullable=True, index=True),
)

reminders = Table(
    "reminders", metadata,
    Column("id", String(64), primary_key=True),               # the War's event id
    Column("player_id", String(64), nullable=False),
    Column("territory_id", String(16), nullable=False),
    Column("due", DateTime(timezone=True), nullable=False, index=True),
    Column("until", DateTime(timezone=True), nullable=False),
)

# the players' latest totals (score.updated), for the day's standings at each close; per season (R31)
scores = Table(
    "scores", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True),
    Column("total", BigInteger, nullable=False),
)

announcements = Table(
    "announcements", metadata,
    Column("id", String(64), primary_key=True),
    Column("command_id", String(64), nullable=False, unique=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("title", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# one row: the VAPID private key of the deployment when none is configured (every replica signs with it)
keys = Table(
    "keys", metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Text, nullable=False),
)

# R30: the mail queue, the mail channel's outbox: committed before the asker is answered, sent after under a lease
mails = Table(
    "mails", metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("key", String(64), nullable=False, unique=True),     # the asker's idempotency key
    Column("to_addr", String(320), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("subject", Text, nullable=False),
    Column("text", Text, nullable=False),                       # emptied once sent by SMTP (links are secrets)
    Column("html", Text, nullable=False),
    Column("status", String(8), nullable=False),                # queued | sent | failed
    Column("attempts", Integer, nullable=False),
    Column("next_at", DateTime(timezone=True), nullable=False),  # wall time: due, or leased until
    Column("error", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True), nullable=True),
    Index("ix_mails_due", "status", "next_at"),
)

# medals (docs/medals.md): the public territory changes, in stream order (seq), and the tiers awarded, once each;
# per season (R31: a season starts with no medals of its own, and a player's medals of every season stay)
medal_changes = Table(
    "medal_changes", metadata,
    Column("seq", BigInteger, Identity(), primary_key=True),
    Column("season_id", String(32), nullable=False),
    Column("event_id", String(64), nullable=False, unique=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("territory_id", String(16), nullable=False),
    Column("owner_id", String(64), nullable=True),
    Column("previous_owner_id", String(64), nullable=True),
    Column("fortified", Boolean, nullable=False),
    Column("cause", String(32), nullable=False),
    Index("ix_medal_changes_owner", "owner_id"),
    Index("ix_medal_changes_previous_owner", "previous_owner_id"),
    Index("ix_medal_changes_season", "season_id", "seq"),
)

medal_awards = Table(
    "medal_awards", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True),
    Column("medal", String(32), primary_key=True),
    Column("tier", String(16), primary_key=True),
    Column("value", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

outbox = outbox_table(metadata, SCHEMA)
inbox = inbox_table(metadata, SCHEMA)
