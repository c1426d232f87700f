"""initial claims schema: territories, claims, player days, idempotency, outbox, inbox

Frozen: the tables as they stood at this revision, written out (not today's models; the outbox and inbox by
turf_common.migrations, frozen too), so that a database made here and brought to head by the later revisions is the
one the code declares (tests/integration/test_migrations.py)."""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_inbox, create_outbox, drop_inbox, drop_outbox

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table('claims',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.String(length=64), nullable=False),
    sa.Column('territory_id', sa.String(length=16), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('normal', sa.Boolean(), nullable=False),
    sa.Column('game_day', sa.Date(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('lat', sa.Float(), nullable=False),
    sa.Column('lon', sa.Float(), nullable=False),
    sa.Column('accuracy_m', sa.Float(), nullable=False),
    sa.Column('fix_time', sa.DateTime(timezone=True), nullable=False),
    sa.Column('border_distance_m', sa.Float(), nullable=True),
    sa.Column('previous_owner_id', sa.String(length=64), nullable=True),
    sa.Column('prev_progress', sa.Integer(), nullable=False),
    sa.Column('prev_last_claim_day', sa.Date(), nullable=True),
    sa.Column('prev_fortified', sa.Boolean(), nullable=False),
    sa.Column('undone_by', sa.String(length=16), nullable=True),
    sa.Column('flags', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    schema='claims'
    )
    op.create_index('ix_claims_day_player', 'claims', ['game_day', 'player_id'], unique=False, schema='claims')
    op.create_index('ix_claims_day_territory', 'claims', ['game_day', 'territory_id'], unique=False, schema='claims')
    op.create_table('idempotency',
    sa.Column('player_id', sa.String(length=64), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('response', sa.Text(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('player_id', 'key'),
    schema='claims'
    )
    create_inbox("claims")
    create_outbox("claims")
    op.create_table('player_days',
    sa.Column('player_id', sa.String(length=64), nullable=False),
    sa.Column('game_day', sa.Date(), nullable=False),
    sa.Column('extra_claims', sa.Integer(), nullable=False),
    sa.Column('replacement_claims', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('player_id', 'game_day'),
    schema='claims'
    )
    op.create_table('territories',
    sa.Column('id', sa.String(length=16), nullable=False),
    sa.Column('owner_id', sa.String(length=64), nullable=True),
    sa.Column('progress', sa.Integer(), nullable=False),
    sa.Column('last_claim_day', sa.Date(), nullable=True),
    sa.Column('fortified', sa.Boolean(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    schema='claims'
    )
    op.create_index(op.f('ix_claims_territories_owner_id'), 'territories', ['owner_id'], unique=False, schema='claims')


def downgrade() -> None:
    drop_outbox("claims")
    drop_inbox("claims")
    for table in ("territories", "player_days", "idempotency", "claims"):
        op.drop_table(table, schema="claims")
