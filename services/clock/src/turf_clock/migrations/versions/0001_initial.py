"""initial clock schema: the emission cursor and the outbox

Frozen: the tables as they stood at this revision, written out (not today's models; the outbox by
turf_common.migrations, frozen too)."""
from turf_common.migrations import create_and_drop

revision = "0001"
down_revision = None

TABLES = {
    "cursor": (
        "id serial PRIMARY KEY",
        "emitted_upto timestamptz NOT NULL",
    ),
}

upgrade, downgrade = create_and_drop("clock", TABLES, outbox=True)
