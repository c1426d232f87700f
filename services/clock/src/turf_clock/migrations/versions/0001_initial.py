"""initial clock schema: the emission cursor and the outbox

Frozen: the tables as they stood at this revision, written out (not today's models; the outbox by
turf_common.migrations, frozen too)."""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_outbox, drop_outbox

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table('cursor',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('emitted_upto', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    schema='clock'
    )
    create_outbox("clock")


def downgrade() -> None:
    drop_outbox("clock")
    op.drop_table("cursor", schema="clock")
