"""The public feed's history (territory history, player journals, replay), by stream sequence"""
from turf_common.migrations import create_and_drop

revision = "0005"
down_revision = "0004"

TABLES = {
    "feed_log": (
        "seq bigint PRIMARY KEY",
        "type varchar(64) NOT NULL",
        "at timestamptz NOT NULL",
        "territory_id varchar(16)",
        "players varchar(64)[] NOT NULL",
        "body jsonb NOT NULL",
    ),
}
INDEXES = (
    "CREATE INDEX feed_log_territory ON gateway.feed_log (territory_id, seq) WHERE territory_id IS NOT NULL",
    "CREATE INDEX feed_log_at ON gateway.feed_log (at, seq)",
    "CREATE INDEX feed_log_players ON gateway.feed_log USING gin (players)",
)

upgrade, downgrade = create_and_drop("gateway", TABLES, INDEXES)
