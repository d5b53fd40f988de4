#!/usr/bin/env bash
# Owns the test machine setup: Debian packages, PostgreSQL role/db, a Docker engine, local test images, git identity, .test-env.
# Usage: scripts/test-env.sh [--verify]   (--verify re-runs the container smoke tests even when no image was built)
set -euo pipefail

START=$EPOCHREALTIME
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
IMAGES_DIR="$REPO_ROOT/scripts/images"

export DEBIAN_FRONTEND=noninteractive
# pg_createcluster and perl tools choke on locales that are set but not generated; C.UTF-8 always exists.
export LC_ALL=C.UTF-8
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
export DOCKER_HOST=unix:///var/run/docker.sock

DB_USER=dockwright
DB_PASS=dockwright
DB_NAME=dockwright_test
DOCKERD_LOG=/var/log/dockerd-test.log
APT_LOG=/var/log/test-env-apt.log
DOCKERD_PIDFILE=/var/run/docker.pid
BUSYBOX_IMAGE=dockwright-test/busybox
WEB_IMAGE=dockwright-test/web:1
REQUIRED_APPLETS=(sh sleep echo cat ls wget nc httpd env true false hostname id ps mkdir touch date tail head grep nslookup)
VERIFY_PREFIX=dockwright-test-verify

verify=0
case "${1:-}" in
  "") ;;
  --verify) verify=1 ;;
  *) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

log() { printf '[test-env] %s\n' "$*" >&2; }
die() { printf '[test-env] ERROR: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "must run as root (it installs packages and starts services)"

TMP_PATHS=()
verify_started=0
cleanup() {
  if (( verify_started )); then
    docker rm -f "$VERIFY_PREFIX-web" "$VERIFY_PREFIX-peer" >/dev/null 2>&1 || true
    docker network rm "$VERIFY_PREFIX-net" >/dev/null 2>&1 || true
  fi
  if (( ${#TMP_PATHS[@]} )); then rm -rf "${TMP_PATHS[@]}"; fi
  return 0
}
trap cleanup EXIT

# --- 1. Debian packages --------------------------------------------------------

is_installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

apt_updated=0
apt_install() {
  if (( ! apt_updated )); then
    log "apt-get update"
    apt-get update -qq </dev/null >>"$APT_LOG" 2>&1 || { tail -n 30 "$APT_LOG" >&2; die "apt-get update failed"; }
    apt_updated=1
  fi
  log "apt-get install $* (log: $APT_LOG)"
  # Package postinsts must not start dockerd/postgres themselves (dockerd would pick overlay2
  # and its init script; we start both below, our way), so block service starts unless a policy exists.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    TMP_PATHS+=(/usr/sbin/policy-rc.d)
  fi
  if ! apt-get install -y -q --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null >>"$APT_LOG" 2>&1; then
    tail -n 30 "$APT_LOG" >&2
    return 1
  fi
}

missing=()
for pkg in postgresql docker.io busybox-static git iproute2; do
  is_installed "$pkg" || missing+=("$pkg")
done
if (( ${#missing[@]} )); then
  apt_install "${missing[@]}" || die "could not install: ${missing[*]}"
fi
# Only a later benchmark needs docker-compose 1.29, so its failure must not block the tests.
if ! is_installed docker-compose; then
  apt_install docker-compose || log "WARNING: docker-compose could not be installed; continuing"
fi

# --- 2. PostgreSQL --------------------------------------------------------------

pg_ver="$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/postgres' 2>/dev/null \
  | awk -F/ '{print $5}' | sort -n | tail -n1)"
[[ -n "$pg_ver" ]] || die "no PostgreSQL server binaries under /usr/lib/postgresql"

pg_cluster() { pg_lsclusters -h | awk -v v="$pg_ver" '$1 == v && $2 == "main"'; }
cluster="$(pg_cluster)"
if [[ -z "$cluster" ]]; then
  log "creating PostgreSQL $pg_ver cluster 'main'"
  pg_createcluster --locale=C.UTF-8 "$pg_ver" main >/dev/null
  cluster="$(pg_cluster)"
fi
read -r _ _ pg_port pg_status _ <<<"$cluster"
if [[ "$pg_status" != online* ]]; then
  log "starting PostgreSQL $pg_ver/main"
  # After a hard kill, the dead postmaster's children keep its socket lock for a moment: retry briefly.
  deadline=$((SECONDS + 15))
  until pg_out="$(pg_ctlcluster "$pg_ver" main start 2>&1)"; do
    (( SECONDS < deadline )) || die "PostgreSQL $pg_ver/main does not start:
$pg_out"
    sleep 1
  done
fi
[[ "$pg_port" == 5432 ]] || log "WARNING: PostgreSQL $pg_ver/main listens on port $pg_port, not 5432"
DATABASE_URL_TEST="postgres://$DB_USER:$DB_PASS@127.0.0.1:$pg_port/$DB_NAME"

db_login_ok() {
  [[ "$(PGPASSWORD="$DB_PASS" PGCONNECT_TIMEOUT=5 psql -X -w -h 127.0.0.1 -p "$pg_port" -U "$DB_USER" \
    -d "$DB_NAME" -tAc 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user' 2>/dev/null)" == t ]]
}

if ! db_login_ok; then
  log "creating role $DB_USER and database $DB_NAME"
  # cd / so psql, running as postgres, does not complain about an unreadable cwd.
  (cd / && runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$pg_port" -d postgres) <<SQL
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER') THEN
    CREATE ROLE $DB_USER LOGIN SUPERUSER PASSWORD '$DB_PASS';
  ELSE
    ALTER ROLE $DB_USER LOGIN SUPERUSER PASSWORD '$DB_PASS';
  END IF;
END
\$\$;
SELECT 'CREATE DATABASE $DB_NAME OWNER $DB_USER'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME') \gexec
SQL
  db_login_ok || die "password login to $DATABASE_URL_TEST fails; check pg_hba.conf of $pg_ver/main"
fi

# --- 3. Docker engine -----------------------------------------------------------

docker_up() { timeout 5 docker info >/dev/null 2>&1; }

dockerd_running() {
  local pid
  pid="$(cat "$DOCKERD_PIDFILE" 2>/dev/null)" || return 1
  [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == dockerd ]]
}

if ! docker_up; then
  command -v dockerd >/dev/null || die "dockerd not found (is docker.io installed?)"
  dockerd_pid=""
  if ! dockerd_running; then
    # A dockerd killed hard leaves its pid file behind, and a new one refuses to start over it.
    rm -f "$DOCKERD_PIDFILE"
    log "starting dockerd --storage-driver=vfs (log: $DOCKERD_LOG)"
    setsid nohup dockerd --storage-driver=vfs >>"$DOCKERD_LOG" 2>&1 </dev/null &
    dockerd_pid=$!
  fi
  deadline=$((SECONDS + 60))
  until docker_up; do
    if [[ -n "$dockerd_pid" ]] && ! kill -0 "$dockerd_pid" 2>/dev/null; then
      die "the Docker engine could not be started (the tests need it): dockerd exited; last lines of $DOCKERD_LOG:
$(tail -n 20 "$DOCKERD_LOG")"
    fi
    (( SECONDS < deadline )) || die "the Docker engine did not answer on /var/run/docker.sock within 60 s (the tests need it); last lines of $DOCKERD_LOG:
$(tail -n 20 "$DOCKERD_LOG" 2>/dev/null)"
    sleep 0.5
  done
fi

# --- 4. Local test images -------------------------------------------------------

image_exists() { docker image inspect "$@" >/dev/null 2>&1; }

built=0
if ! image_exists "$BUSYBOX_IMAGE:1" "$BUSYBOX_IMAGE:2" "$WEB_IMAGE"; then
  busybox_bin=/bin/busybox
  [[ -x "$busybox_bin" ]] || die "$busybox_bin missing (busybox-static)"
  applets="$("$busybox_bin" --list)"
  for a in "${REQUIRED_APPLETS[@]}"; do
    grep -qxF "$a" <<<"$applets" || die "busybox-static lacks the '$a' applet"
  done

  rootfs="$(mktemp -d)"
  TMP_PATHS+=("$rootfs")
  mkdir -p "$rootfs"/{bin,etc,root,www,proc,sys,dev}
  install -d -m 1777 "$rootfs/tmp"
  cp "$busybox_bin" "$rootfs/bin/busybox"
  while read -r a; do
    [[ "$a" == busybox ]] || ln -s busybox "$rootfs/bin/$a"
  done <<<"$applets"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"$rootfs/etc/group"

  # :1 and :2 differ only in /version, so an update from :1 to :2 changes the image ID.
  for v in 1 2; do
    image_exists "$BUSYBOX_IMAGE:$v" && continue
    log "importing $BUSYBOX_IMAGE:$v"
    echo "$v" >"$rootfs/version"
    tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -cf - . \
      | docker import --change 'CMD ["sh"]' --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
          - "$BUSYBOX_IMAGE:$v" >/dev/null
    built=1
  done

  if ! image_exists "$WEB_IMAGE"; then
    log "building $WEB_IMAGE"
    build_out="$(docker build -t "$WEB_IMAGE" "$IMAGES_DIR/web" 2>&1)" \
      || die "docker build of $WEB_IMAGE failed:
$build_out"
    built=1
  fi
fi

# Smoke tests of the engine features the tests rely on: run, healthcheck, published port on 127.0.0.1,
# and name resolution between containers on a user-defined bridge network.
# Plain bash /dev/tcp, since a fresh machine may have neither curl nor wget.
http_get() (  # host port path -> response body
  exec 3<>"/dev/tcp/$1/$2"
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$3" "$1" >&3
  body="$(timeout 5 cat <&3)"
  printf '%s' "${body#*$'\r\n\r\n'}"
)

if (( built || verify )); then
  log "verifying images and networking"
  verify_started=1
  docker rm -f "$VERIFY_PREFIX-web" "$VERIFY_PREFIX-peer" >/dev/null 2>&1 || true
  docker network rm "$VERIFY_PREFIX-net" >/dev/null 2>&1 || true

  [[ "$(docker run --rm "$BUSYBOX_IMAGE:1" echo ok)" == ok ]] || die "$BUSYBOX_IMAGE:1 does not run"
  [[ "$(docker run --rm "$BUSYBOX_IMAGE:2" cat /version)" == 2 ]] || die "$BUSYBOX_IMAGE:2 lacks /version=2"
  [[ "$(docker image inspect -f '{{.Id}}' "$BUSYBOX_IMAGE:1")" != "$(docker image inspect -f '{{.Id}}' "$BUSYBOX_IMAGE:2")" ]] \
    || die "$BUSYBOX_IMAGE:1 and :2 have the same ID"

  docker network create "$VERIFY_PREFIX-net" >/dev/null
  docker run -d --name "$VERIFY_PREFIX-web" --network "$VERIFY_PREFIX-net" -e MESSAGE=verify \
    -p 127.0.0.1::8080 "$WEB_IMAGE" >/dev/null
  deadline=$((SECONDS + 30))
  until [[ "$(docker inspect -f '{{.State.Health.Status}}' "$VERIFY_PREFIX-web" 2>/dev/null || true)" == healthy ]]; do
    (( SECONDS < deadline )) || die "$WEB_IMAGE did not become healthy within 30 s"
    sleep 0.5
  done
  web_port="$(docker port "$VERIFY_PREFIX-web" 8080/tcp | head -n1)"
  web_port="${web_port##*:}"
  [[ "$(http_get 127.0.0.1 "$web_port" /)" == *"hello from dockwright-test"* ]] \
    || die "$WEB_IMAGE does not answer on published port 127.0.0.1:$web_port"
  [[ "$(http_get 127.0.0.1 "$web_port" /cgi-bin/env)" == *"message=verify"* ]] \
    || die "$WEB_IMAGE CGI /cgi-bin/env does not see the container environment"
  # No `wget -T`: Debian's busybox-static 1.35 wget segfaults with it; bound the run from outside instead.
  peer_out="$(timeout 30 docker run --rm --name "$VERIFY_PREFIX-peer" --network "$VERIFY_PREFIX-net" \
    "$BUSYBOX_IMAGE:1" wget -q -O - "http://$VERIFY_PREFIX-web:8080/" 2>&1 || true)"
  [[ "$peer_out" == *"hello from dockwright-test"* ]] \
    || die "containers on a user-defined bridge network cannot reach each other by name (embedded DNS): $peer_out"

  cleanup
  verify_started=0
  log "verified: run, healthcheck, published port 127.0.0.1:$web_port, bridge DNS"
fi

# --- 5. Git ---------------------------------------------------------------------

command -v git >/dev/null || die "git not found"
git config --global user.email >/dev/null || git config --global user.email "dockwright-tests@localhost"
git config --global user.name >/dev/null || git config --global user.name "Dockwright Tests"

# --- 6. .test-env ---------------------------------------------------------------

env_file_content="export DATABASE_URL_TEST=$DATABASE_URL_TEST
export DOCKER_HOST=$DOCKER_HOST"
if [[ "$(cat .test-env 2>/dev/null)" != "$env_file_content" ]]; then
  printf '%s\n' "$env_file_content" >.test-env
fi

docker_ver="$(docker version -f '{{.Server.Version}}' 2>/dev/null || echo '?')"
elapsed="$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
echo "test-env ready in ${elapsed}s: postgres $pg_ver on 127.0.0.1:$pg_port ($DB_NAME), docker $docker_ver, images $BUSYBOX_IMAGE:1 $BUSYBOX_IMAGE:2 $WEB_IMAGE, env in .test-env"
