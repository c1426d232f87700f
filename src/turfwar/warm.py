"""What the warm process (:mod:`turfwar.launcher`) has ready before it forks a service: every service's and the
gateway's modules imported, and the committed board read with its point index built (a service that asks
``load_board()`` for it gets the cached one). Importing this module does exactly that, and starts nothing: no
thread, no connection, no event loop, so a fork of it is safe."""

import uvicorn.main

import turf_cards.app
import turf_claims.app
import turf_clock.app
import turf_gateway.main
import turf_geo.app
import turf_modes.app
import turf_notify.app
import turf_scoring.app
from turf_common.board import load_board

SERVICE_MODULES = (turf_cards.app, turf_claims.app, turf_clock.app, turf_geo.app, turf_gateway.main,
                   turf_modes.app, turf_notify.app, turf_scoring.app, uvicorn.main)

load_board().territory_at(0.0, 0.0)   # the board and its lookup index, built once for every fork
