from alembic import context

from turf_common.migrations_env import run

run(context)
