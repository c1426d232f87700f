"""initial clock schema: the emission cursor and the outbox

Frozen: the tables as they stood at this revision, written out (not today's models).

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cursor',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('emitted_upto', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    schema='clock'
    )
    op.create_table('outbox',
    sa.Column('seq', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('event_id', sa.String(length=64), nullable=False),
    sa.Column('subject', sa.String(length=128), nullable=False),
    sa.Column('payload', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('published_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('seq'),
    sa.UniqueConstraint('event_id'),
    schema='clock'
    )
    op.create_index(op.f('ix_clock_outbox_published_at'), 'outbox', ['published_at'], unique=False, schema='clock')


def downgrade() -> None:
    op.drop_table("outbox", schema="clock")
    op.drop_table("cursor", schema="clock")
