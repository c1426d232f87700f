#!/usr/bin/env bash
# CI: the tests marked `containers` (the walking skeleton, a claims/cards e2e module, the server-restart faults, the
# backend's own tests) on the containers backend: PostgreSQL, Redis and NATS in Docker, started by testcontainers
# from the images deploy/ci/server-images.sh builds (no container registry is reachable here, so testcontainers'
# reaper is disabled and this script removes what the run leaves, found by its label, after a pass or a failure).
# Exit 0: passed, or this machine cannot run containers (a loud WARNING says so); otherwise pytest's exit code.
# Usage (root, Debian 12): deploy/ci/containers-tests.sh [pytest args]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
export DEBIAN_FRONTEND=noninteractive
RUN=ci-$(date +%s)-$$   # every container of this run carries turfwar.test-run=$RUN (tests/support/containers.py)
skip() {
  echo "WARNING: ================================================================================"
  echo "WARNING: this machine cannot run containers ($*): the containers backend was NOT tested"
  echo "WARNING: ================================================================================"
  exit 0
}
left() { docker ps -aq --filter "label=turfwar.test-run=$RUN" 2>/dev/null; }
DPID=""; TPID=""
cleanup() {
  # pytest interrupted (a timeout's signal): its fixtures remove what they can, the label finds the rest
  if [ -n "$TPID" ] && kill -INT "$TPID" 2>/dev/null; then
    for _ in $(seq 1 40); do kill -0 "$TPID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$TPID" 2>/dev/null || true
  fi
  local stale; stale=$(left)
  if [ -n "$stale" ]; then
    echo "containers tests: removing $(echo "$stale" | wc -l) container(s) of run $RUN"
    echo "$stale" | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  fi
  if [ -n "$DPID" ]; then kill "$DPID" 2>/dev/null || true; wait "$DPID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT   # a timeout's signal still removes the containers and stops our dockerd

# the engine (as deploy/ci/compose-e2e.sh: Debian's packages, a daemon of our own unless one runs, killed on exit)
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker.io debootstrap \
      >"$WORK/apt.log" 2>&1; } || { tail -5 "$WORK/apt.log"; skip "apt-get install failed"; }
fi
if ! docker info >/dev/null 2>&1; then
  # in a session of its own: `timeout` signals its whole process group, and the clean-up still needs the daemon
  setsid dockerd >"$WORK/dockerd.log" 2>&1 & DPID=$!
  for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && break; kill -0 "$DPID" 2>/dev/null || break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log"; DPID=""; skip "dockerd did not start"; }
fi
# the images (already there after the compose phase; built otherwise); from here on a failure is ours
"$ROOT/deploy/ci/server-images.sh" || { echo "containers tests: FAIL (deploy/ci/server-images.sh)"; exit 1; }

export TURF_TEST_BACKEND=containers TURF_TEST_RUN=$RUN TESTCONTAINERS_RYUK_DISABLED=true
export TURF_TEST_IMAGE_POSTGRES=turfwar-ci/postgres:latest TURF_TEST_IMAGE_REDIS=turfwar-ci/redis:latest
export TURF_TEST_IMAGE_NATS=turfwar-ci/nats:latest
unset TURF_NATS_URL TURF_DATABASE_URL TURF_REDIS_URL
# in the background: a signal's trap runs at once (bash defers it while a foreground child runs)
"$ROOT/turf" test -m containers -p no:cacheprovider --durations=10 "$@" & TPID=$!
wait "$TPID"; rc=$?; TPID=""
# the fixtures remove their own containers: one still here after pytest returned is a leak
if [ -n "$(left)" ]; then
  echo "containers tests: containers left behind by the run:"; docker ps -a --filter "label=turfwar.test-run=$RUN"
  rc=1
fi
exit "$rc"
