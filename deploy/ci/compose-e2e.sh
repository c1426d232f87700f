#!/usr/bin/env bash
# CI: build the images, start deploy/compose.yaml (with compose.ci.yaml: images built locally, manual clock, Caddy's
# internal CA, a mail relay of its own), check the settings reached the containers, drive it over HTTPS through Caddy
# (deploy/ci/drive.py: mail confirmed and a password reset through the relay's mail, replicas and a NATS node killed),
# run the organizer's tools against it, back it up, change it, restore it and show the change gone, bring it down.
# Exit 0: passed, or this machine cannot run containers (a loud WARNING says so); exit 1: our deployment is broken.
# Usage (root, Debian 12): deploy/ci/compose-e2e.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=$ROOT/.venv/bin/python
PROJECT=turfwar-ci
WORK=$(mktemp -d)
export DEBIAN_FRONTEND=noninteractive
START=$(date +%s)
t() { echo "[compose-e2e $(date +%T) +$(( $(date +%s) - START ))s] $*"; }
skip() {
  echo "WARNING: ================================================================================"
  echo "WARNING: this machine cannot run containers ($*): the compose deployment was NOT tested"
  echo "WARNING: ================================================================================"
  exit 0
}
COMPOSE=(docker-compose -p "$PROJECT" -f "$ROOT/deploy/compose.yaml" -f "$ROOT/deploy/compose.ci.yaml"
         --env-file "$WORK/ci.env")
fail() {
  t "FAIL: $*"
  "${COMPOSE[@]}" ps 2>/dev/null
  "${COMPOSE[@]}" logs --no-color --tail=40 2>/dev/null | tail -200
  echo "compose e2e: FAIL ($*) after $(( $(date +%s) - START ))s"
  exit 1
}

# 1. the engine, compose v1 and debootstrap from Debian (no recommends: avoids needrestart)
if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null || ! command -v debootstrap >/dev/null; then
  t "apt-get install docker.io docker-compose debootstrap"
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker.io docker-compose debootstrap \
      >"$WORK/apt.log" 2>&1; } || { tail -5 "$WORK/apt.log" 2>/dev/null; skip "apt-get install failed"; }
fi

# 2. a daemon of our own unless one runs (nothing is left running between a session and CI); killed by pid on exit
DPID=""
cleanup() {
  if [ -f "$WORK/ci.env" ]; then "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true; fi
  if [ -n "$DPID" ]; then kill "$DPID" 2>/dev/null || true; wait "$DPID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT   # a timeout's signal still brings the deployment down and stops our dockerd
if ! docker info >/dev/null 2>&1; then
  t "starting dockerd"
  # in a session of its own: `timeout` signals its whole process group, and the clean-up still needs the daemon
  setsid dockerd >"$WORK/dockerd.log" 2>&1 & DPID=$!
  for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && break; kill -0 "$DPID" 2>/dev/null || break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log"; DPID=""; skip "dockerd did not start"; }
fi

# 3. the base image (debootstrap from the Debian mirror: no registry here), and proof a container runs at all
if ! docker image inspect local/debian:bookworm >/dev/null 2>&1; then
  t "building local/debian:bookworm (debootstrap)"
  "$ROOT/deploy/ci/base-image.sh" "$WORK" || skip "debootstrap of the base image failed"
fi
docker run --rm --network none local/debian:bookworm true >/dev/null 2>&1 || skip "a container does not start"

# 4. our images: wheels on the host, then every image (a failure from here on is ours)
t "wheels"
"$ROOT/deploy/build-wheels.sh" "$PY" 2>&1 | grep -v '^WARNING: Location' || fail "deploy/build-wheels.sh"
[ -n "$(ls "$ROOT"/deploy/wheels/turf_gateway-*.whl 2>/dev/null)" ] || fail "no gateway wheel"
"$ROOT/.venv/bin/turfwar" deploy-env --organizer-email ci-organizer@example.org --out "$WORK/ci.env" >/dev/null \
  || fail "turfwar deploy-env"
# the site's name and host ports for this machine (4222/5432/6379/8000 and 80/443 may be taken here)
printf 'TURF_DOMAIN=localhost\nTURF_PUBLIC_HTTP_PORT=18080\nTURF_PUBLIC_HTTPS_PORT=18443\n' >>"$WORK/ci.env"
printf 'TURF_BACKUP_EVERY=20s\nTURF_BACKUP_KEEP=3\n' >>"$WORK/ci.env"   # the scheduled backup, quick enough to see
# R30: mail leaves through a relay of CI's own (mailsink), on STARTTLS with a certificate made now and AUTH, set in the
# env file as an organizer sets theirs (docs/organizer/mail.md); the links lead to the public address
MAILSINK=$WORK/mailsink
mkdir -p "$MAILSINK/certs" "$MAILSINK/inbox"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=mailsink -addext subjectAltName=DNS:mailsink \
  -keyout "$MAILSINK/certs/mailsink.key" -out "$MAILSINK/certs/mailsink.pem" >/dev/null 2>&1 || fail "relay certificate"
chmod 0644 "$MAILSINK/certs/mailsink.pem"   # notify reads it as its own unprivileged user
SMTP_PASSWORD=$("$PY" -c 'import secrets; print(secrets.token_urlsafe(18))')
cat >>"$WORK/ci.env" <<EOF
TURF_CI_MAILSINK_DIR=$MAILSINK
TURF_CI_SMTP_PASSWORD=$SMTP_PASSWORD
TURF_SMTP_URL=smtp+starttls://ci-relay:$SMTP_PASSWORD@mailsink:587
TURF_MAIL_FROM=Turf War CI <league@example.org>
TURF_MAIL_INTERVAL_S=0
TURF_PUBLIC_URL=https://localhost:18443
EOF
t "building images"
# NATS, PostgreSQL and Redis by the script the tests' containers backend also uses (tests/support/containers.py);
# then one build per image: the six services share turfwar:latest (gateway builds it), nats-2/3 and db-setup use the
# server images; the backup image is the Dockerfile's backup target
"$ROOT/deploy/ci/server-images.sh" "$PY" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "server images"; }
"${COMPOSE[@]}" build caddy gateway backup mailsink >>"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log"; fail "image build"; }
docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(turfwar|local/debian)' | sed 's/^/  /'

# 5. up: depends_on gates each part on the health of what it needs; then every container must be healthy
healthy() {
  local states
  for _ in $(seq 1 120); do
    # the one-shots (db-setup, the services' PostgreSQL roles; bus-setup, the stream and consumers) are
    # done once they exited 0
    states=$(docker ps -a --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}} {{.Status}}' \
      | grep -v -E '_(db|bus)-setup_[0-9]+ Exited \(0\)')
    echo "$states" | grep -qE 'starting|unhealthy|Exited|Restarting|Created' || break
    sleep 2
  done
  echo "$states" | sed 's/^/  /'
  ! echo "$states" | grep -qE 'starting|unhealthy|Exited|Restarting|Created'
}
t "compose up"
"${COMPOSE[@]}" up -d >"$WORK/up.log" 2>&1 || { tail -20 "$WORK/up.log"; fail "compose up"; }
healthy || fail "not every container is healthy"

# the settings check: they reached the containers that read them, from the env file alone (no hand-copied list; the
# test phase's tests/unit/test_deploy_settings.py holds every field of Settings to it): the relay, the sender and the
# public address in notify and the gateway
t "settings check: what deploy/.env says is what the containers read"
for svc in notify gateway; do
  "${COMPOSE[@]}" exec -T "$svc" python - "$svc" <<'PY' || fail "settings in $svc"
import sys
from turf_common.settings import Settings
s = Settings()
relay = s.smtp_url.split("@")[-1] if s.smtp_url else None   # the host, never the password
print(f"  {sys.argv[1]}: smtp relay {relay}, mail from {s.mail_from!r}, public url {s.public_url!r}, "
      f"mail interval {s.mail_interval_s}, clock {s.clock}, stream replicas {s.stream_replicas}")
assert s.mail_from == "Turf War CI <league@example.org>" and s.public_url == "https://localhost:18443"
assert s.mail_interval_s == 0 and s.clock == "manual" and s.stream_replicas == 3
# the relay's credentials reach notify alone
assert (relay == "mailsink:587") if sys.argv[1] == "notify" else relay is None
PY
done

# 6. Caddy's internal root CA: the driver trusts it (no verify=False)
for _ in $(seq 1 60); do
  "${COMPOSE[@]}" exec -T caddy cat /data/caddy/pki/authorities/local/root.crt >"$WORK/root.crt" 2>/dev/null \
    && grep -q 'BEGIN CERTIFICATE' "$WORK/root.crt" && break
  sleep 1
done
grep -q 'BEGIN CERTIFICATE' "$WORK/root.crt" || fail "no internal root certificate in the caddy container"

# 7. drive it: claims before and after one replica of each service is killed, and again after one NATS node is
# (the claims service's game clock reads its KV entry every second besides its watch, whose consumer may die with
# the node: turf_common.gameclock.WatchedGameClock)
t "driving https://localhost:18443"
DRIVE=("$PY" "$ROOT/deploy/ci/drive.py" --base https://localhost:18443 --ca "$WORK/root.crt" --env "$WORK/ci.env"
       --project "$PROJECT" --state "$WORK/drive.json")
"${DRIVE[@]}" --mailbox "$MAILSINK/inbox" || fail "drive.py"
echo "  the relay took $(ls "$MAILSINK/inbox" | grep -c '\.eml$') message(s)"

# the organizer's tools against the deployment, as docs/organizer/tools.md says (compose's tools service); the
# season is not over, so audit draws is given the seed (deploy/.env's) rather than the one revealed at the close
tools() { "${COMPOSE[@]}" run --rm -T tools turfwar "$@" 2>&1 | sed 's/^/  /'; return "${PIPESTATUS[0]}"; }
SEED=$(grep '^TURF_SEED=' "$WORK/ci.env" | cut -d= -f2-)
t "tools: turfwar status"; tools status || fail "turfwar status"
t "tools: turfwar verify scores"; tools verify scores || fail "turfwar verify scores"
t "tools: turfwar audit draws"; tools audit draws --seed "$SEED" || fail "turfwar audit draws"

# 8. the scheduled backup: complete backups of the played season, the oldest pruned, no failed run
t "scheduled backup"
sleep 25   # one more run after the drive's last claims
"${COMPOSE[@]}" exec -T backup python - <<'PY' || fail "scheduled backup"
import json, pathlib, sys
done = sorted(p for p in pathlib.Path("/backups").iterdir() if (p / "manifest.json").exists())
parts = json.loads((done[-1] / "manifest.json").read_text())["parts"] if done else {}
print(f"  {len(done)} complete backups kept; the newest, {done[-1].name if done else '-'}: {parts}")
sys.exit(0 if 1 <= len(done) <= 3 and parts["database"] > 0 and parts["redis_keys"] > 0 and parts["clock_keys"] > 0
         else 1)
PY
# a run may fail while the drive kills a NATS node (it is retried); the last run must have succeeded
last=$("${COMPOSE[@]}" logs --no-color backup 2>&1 | grep -o '"event": "backup\.[a-z]*"' | tail -1)
echo "  runs failed: $("${COMPOSE[@]}" logs --no-color backup 2>&1 | grep -c '"backup.failed"'); the last: $last"
[ "$last" = '"event": "backup.done"' ] || fail "the last scheduled backup failed"

# 9. restore, as docs/organizer/backups.md says: the newest backup (the scheduler stopped so it stays the newest and
# unpruned), then a claim, then every service stopped (notify and modes too: the restore replaces their schemas), the
# backup restored, all started again: the claim is gone, the season before it is whole, every part healthy
t "restore: the newest backup, then a claim it does not hold"
"${COMPOSE[@]}" stop backup >/dev/null 2>&1 || fail "stop backup"
BEFORE=$("${COMPOSE[@]}" run --rm --no-deps -T backup sh -c 'ls -d /backups/*/manifest.json | sort | tail -1' \
  | tr -d '\r' | xargs -r dirname)
[ -n "$BEFORE" ] || fail "no complete backup to restore"
echo "  backup: $BEFORE"
"${DRIVE[@]}" --phase claim || fail "the claim after the backup"
t "restore: stop every service, restore $BEFORE, start"
"${COMPOSE[@]}" stop geo-verify claims cards scoring clock notify modes gateway backup >/dev/null 2>&1 \
  || fail "stop the services"
"${COMPOSE[@]}" run --rm -T restore "$BEFORE" 2>&1 | tail -4 | sed 's/^/  /'
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "restore"
"${COMPOSE[@]}" up -d >"$WORK/up2.log" 2>&1 || { tail -20 "$WORK/up2.log"; fail "compose up after the restore"; }
healthy || fail "not every container is healthy after the restore"
"${DRIVE[@]}" --phase restored || fail "the restored season"
t "tools after the restore"; tools status || fail "turfwar status after the restore"
tools verify scores || fail "turfwar verify scores after the restore"

# 10. R31: the next season made through the organizer's API while everything runs (not a file in an image), the clock
# moved to its first opening: a fresh board, the player's claim, 2026's standings kept; the tools on the new season
t "rollover: the next season, made and played"
"${DRIVE[@]}" --phase rollover || fail "the next season"
t "tools on the next season"; tools status || fail "turfwar status on the next season"
tools verify scores || fail "turfwar verify scores on the next season"
t "down"
"${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || fail "compose down"
echo "compose e2e: PASS in $(( $(date +%s) - START ))s"
