"""What the warm process (:mod:`turfwar.launcher`) has ready before it forks a service: every service's and the
gateway's modules imported, and the committed board read with its point index built (a service that asks
``load_board()`` for it gets the cached one). Importing this module does exactly that, and starts nothing: no
thread, no connection, no event loop, so a fork of it is safe."""

import gc
import importlib

import uvicorn.main

import turf_cards.app
import turf_claims.app
import turf_clock.app
import turf_gateway.main
import turf_geo.app
import turf_modes.app
import turf_notify.app
import turf_scoring.app
from turf_common.board import load_board, read_features
from turf_gateway.handlers.public import topology_parts

SERVICE_MODULES = (turf_cards.app, turf_claims.app, turf_clock.app, turf_geo.app, turf_gateway.main,
                   turf_modes.app, turf_notify.app, turf_scoring.app, uvicorn.main)

# what the services import only once they run, so that every fork imported it again (py-spy over a stack's start:
# about a CPU-second in the forks, the suite starts ~80 stacks): the migrations (Alembic, its environment, the sync
# psycopg driver it connects with), the event loop and anyio's backend, the gateway's password meter, HTTP client
# and uvicorn's protocols
LATE_IMPORTS = ("alembic.command", "alembic.config", "alembic.ddl.postgresql", "alembic.runtime.environment",
                "alembic.runtime.migration", "alembic.script", "anyio._backends._asyncio", "httpcore", "psycopg",
                "turf_common.migrations_env", "uvicorn.lifespan.on", "uvicorn.loops.auto",
                "uvicorn.protocols.http.auto", "uvicorn.protocols.websockets.auto", "uvloop", "zxcvbn")
for name in LATE_IMPORTS:
    importlib.import_module(name)

load_board().territory_at(0.0, 0.0)   # the board and its lookup index, built once for every fork
read_features(load_board().display_geojson_path())   # its display features (the gateway's map, notify's names)
topology_parts(load_board().display_geojson_path())   # and its TopoJSON (the pages' map)

# the heap so far is every fork's, for good: frozen here, a service's own full collection at its start
# (turf_common.service) scans what it made since the fork, not the board and the modules again (py-spy: 0.4 s of
# CPU a service, and every page of the heap written to, so copied, in each fork)
gc.collect()
gc.freeze()
