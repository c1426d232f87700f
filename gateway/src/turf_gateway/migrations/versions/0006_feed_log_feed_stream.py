"""The feed log is read from the feed stream (``<stream>_FEED``, the public subjects alone, sourced from the
event stream), whose sequences are not the event stream's: the rows numbered by the event stream are emptied, and
the bus set-up's new durable on the feed stream reads it from its start again (the season so far)

The feed log is derived data (every row is made again from the stream), so nothing is lost. Each gateway runs its
migrations before its broker starts, and the durable ``gateway-history`` on the feed stream is new to this version
(the set-up deletes its namesake on the event stream), so no row of the feed stream's numbering is stored before
this one empties the table. A history cursor (``after_seq``) or a spectator's ``since`` kept from before the switch
names the old numbering, once: the page after it in the new one, and for ``since`` a snapshot when it is past the feed
stream's last sequence (the event stream's numbers are the larger), else a resend that may repeat messages."""
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.execute("TRUNCATE gateway.feed_log")


def downgrade() -> None:
    op.execute("TRUNCATE gateway.feed_log")   # the event stream's durable reads it again from its start
