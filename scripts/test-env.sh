#!/usr/bin/env bash
# Owns the test machine setup: Debian packages, PostgreSQL role/db, a Docker engine, local test images,
# three local image registries (open on 127.0.0.1:5000, basic auth on 127.0.0.1:5001, Bearer token auth on
# 127.0.0.1:5002 with its signing key and certificate), git identity, .test-env.
# Usage: scripts/test-env.sh [--verify]   (--verify re-runs the container and registry smoke tests even when
#                                           nothing was built or pushed)
set -euo pipefail

START=$EPOCHREALTIME
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
IMAGES_DIR="$REPO_ROOT/scripts/images"
REGISTRY_CONF_DIR="$REPO_ROOT/scripts/registry"

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
REGISTRY_BIN=/usr/bin/docker-registry
REGISTRY_DATA=/var/lib/dockwright-test-registry
REGISTRY_OPEN=127.0.0.1:5000
REGISTRY_AUTH=127.0.0.1:5001
REGISTRY_AUTH_USER=dwtest
REGISTRY_AUTH_PASSWORD=dwtest-pass   # its bcrypt hash is in scripts/registry/htpasswd
REGISTRY_REPO=dockwright-test/busybox  # pushed to the open and basic auth registries with tag 1 = $BUSYBOX_IMAGE:1
# Token auth: the registry trusts tokens signed with token.key (its self-signed certificate token.crt is the
# rootcertbundle). The token service is the tests' own (tests/plugins/releases/token-server.ts) on the realm's port.
REGISTRY_TOKEN=127.0.0.1:5002
REGISTRY_TOKEN_REALM=http://127.0.0.1:5003/token
REGISTRY_TOKEN_SERVICE=dockwright-test-registry-token
REGISTRY_TOKEN_ISSUER=dockwright-test-token-service

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
TMP_TAGS=()   # local 127.0.0.1:500x/... tags from pushes/pulls; tests must start without them
verify_started=0
cleanup() {
  if (( verify_started )); then
    docker rm -f "$VERIFY_PREFIX-web" "$VERIFY_PREFIX-peer" >/dev/null 2>&1 || true
    docker network rm "$VERIFY_PREFIX-net" >/dev/null 2>&1 || true
  fi
  if (( ${#TMP_TAGS[@]} )); then docker rmi "${TMP_TAGS[@]}" >/dev/null 2>&1 || true; TMP_TAGS=(); fi
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
for pkg in postgresql postgresql-client-15 docker.io busybox-static git openssh-client openssl iproute2 docker-registry caddy restic; do
  is_installed "$pkg" || missing+=("$pkg")
done
if (( ${#missing[@]} )); then
  apt_install "${missing[@]}" || die "could not install: ${missing[*]}"
fi
# docker-registry's postinst enables Debian's own registry service (all interfaces, :5000, its own
# config), which would take our open registry's port at the next boot: keep it disabled. Cheap when done.
if compgen -G '/etc/rc[2-5].d/S[0-9][0-9]docker-registry' >/dev/null; then
  update-rc.d docker-registry disable >/dev/null 2>&1 || log "WARNING: could not disable Debian's docker-registry init script"
fi
if [[ -e /etc/systemd/system/multi-user.target.wants/docker-registry.service ]]; then
  deb-systemd-helper disable docker-registry.service >/dev/null 2>&1 \
    || rm -f /etc/systemd/system/multi-user.target.wants/docker-registry.service
fi
# Dockwright runs caddy itself (the edge plugin, as a child process): Debian's own caddy service must stay off.
if compgen -G '/etc/rc[2-5].d/S[0-9][0-9]caddy' >/dev/null; then
  update-rc.d caddy disable >/dev/null 2>&1 || log "WARNING: could not disable Debian's caddy init script"
fi
if [[ -e /etc/systemd/system/multi-user.target.wants/caddy.service ]]; then
  deb-systemd-helper disable caddy.service >/dev/null 2>&1 \
    || rm -f /etc/systemd/system/multi-user.target.wants/caddy.service
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
if ! image_ids="$(docker image inspect -f '{{.Id}}' "$BUSYBOX_IMAGE:1" "$BUSYBOX_IMAGE:2" "$WEB_IMAGE" 2>/dev/null)"; then
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
  image_ids="$(docker image inspect -f '{{.Id}}' "$BUSYBOX_IMAGE:1")"
fi
busybox1_id="${image_ids%%$'\n'*}"

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

# --- 5. Local image registries -------------------------------------------------
# Debian's docker-registry (distribution 2.8), run directly as three detached processes (no container, no
# systemd), each on 127.0.0.1 over plain HTTP. dockerd treats 127.0.0.0/8 as an insecure registry by
# default, and the registry accepts htpasswd basic auth over plain HTTP (its docs only *recommend* TLS).
# The token registry verifies Bearer tokens (JWT, ES256) by the x5c certificate in their header, which must
# chain to its rootcertbundle (token.crt; distribution 2.8 also takes a `kid` in libtrust's key-id format).
# Configs: scripts/registry/{open,auth,token}.yml and htpasswd, copied to $REGISTRY_DATA so the running
# processes do not depend on this checkout.

REGISTRY_AUTH_HEADER="Authorization: Basic $(printf '%s:%s' "$REGISTRY_AUTH_USER" "$REGISTRY_AUTH_PASSWORD" | base64 -w0)"
MANIFEST_ACCEPT="Accept: application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json"

# One HTTP/1.0 request over bash /dev/tcp (a fresh machine may lack curl): method host:port path [header...]
# Sets resp_status (000: nothing answered), resp_api (Docker-Distribution-Api-Version), resp_digest
# (Docker-Content-Digest) and resp_challenge (Www-Authenticate).
http_req() {
  local method=$1 hostport=$2 path=$3 req resp line h
  shift 3
  req="$method $path HTTP/1.0"$'\r\n'"Host: $hostport"$'\r\n'
  for h in "$@"; do req+="$h"$'\r\n'; done
  req+=$'\r\n'
  resp="$(
    { exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null || exit 0
    printf '%s' "$req" >&3
    timeout 3 cat <&3
  )" || true
  resp_status=000 resp_api="" resp_digest="" resp_challenge=""
  [[ "$resp" == HTTP/* ]] || return 0
  read -r _ resp_status _ <<<"$resp"
  while IFS= read -r line; do
    line="${line%$'\r'}"
    [[ -n "$line" ]] || break
    case "${line,,}" in
      docker-distribution-api-version:*) resp_api="${line#*: }" ;;
      docker-content-digest:*) resp_digest="${line#*: }" ;;
      www-authenticate:*) resp_challenge="${line#*: }" ;;
    esac
  done <<<"$resp"
}

registry_addr() { case $1 in open) echo "$REGISTRY_OPEN" ;; auth) echo "$REGISTRY_AUTH" ;; token) echo "$REGISTRY_TOKEN" ;; esac; }

# registry_probe open|auth: is a registry with the right auth behaviour answering on its address?
# Sets reg_ok (1/0), reg_why (if not), reg_digest (digest of $REGISTRY_REPO:1 there, "" if absent).
registry_probe() {
  local kind=$1 addr auth=()
  addr="$(registry_addr "$kind")"
  reg_ok=0 reg_why="" reg_digest=""
  if [[ $kind == token ]]; then
    # no token service runs outside the tests: the challenge naming it is all there is to see
    http_req HEAD "$addr" "/v2/$REGISTRY_REPO/manifests/1" "$MANIFEST_ACCEPT"
    if [[ $resp_status == 000 ]]; then
      reg_why="no answer within 3 s"
    elif [[ $resp_status != 401 || ${resp_challenge,,} != bearer* || $resp_challenge != *"realm=\"$REGISTRY_TOKEN_REALM\""* ]]; then
      reg_why="a request without a token got HTTP $resp_status ${resp_challenge:+($resp_challenge)}, not 401 with a Bearer challenge naming $REGISTRY_TOKEN_REALM"
    elif [[ $resp_api != registry/2.0 ]]; then
      reg_why="not a v2 registry (HTTP $resp_status)"
    else
      reg_ok=1
    fi
    return 0
  fi
  if [[ $kind == auth ]]; then
    http_req HEAD "$addr" "/v2/$REGISTRY_REPO/manifests/1" "$MANIFEST_ACCEPT"
    if [[ $resp_status == 000 ]]; then
      reg_why="no answer within 3 s"
      return 0
    elif [[ $resp_status != 401 || ${resp_challenge,,} != basic* ]]; then
      reg_why="a request without credentials got HTTP $resp_status ${resp_challenge:+($resp_challenge)}, not 401 with a Basic challenge"
      return 0
    fi
    auth=("$REGISTRY_AUTH_HEADER")
  fi
  http_req HEAD "$addr" "/v2/$REGISTRY_REPO/manifests/1" "$MANIFEST_ACCEPT" "${auth[@]}"
  case "$resp_status" in
    200|404) ;;
    000) reg_why="no answer within 3 s"; return 0 ;;
    *) reg_why="HTTP $resp_status for /v2/$REGISTRY_REPO/manifests/1"; return 0 ;;
  esac
  [[ $resp_api == registry/2.0 ]] || { reg_why="not a v2 registry (HTTP $resp_status)"; return 0; }
  [[ $resp_status == 404 ]] || reg_digest="$resp_digest"
  reg_ok=1
}

registry_pidfile() { echo "/var/run/dockwright-test-registry-$1.pid"; }

# Pid of the registry this script started for open|auth, if it still runs.
registry_pid() {
  local pid args
  pid="$(cat "$(registry_pidfile "$1")" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  mapfile -d '' args 2>/dev/null <"/proc/$pid/cmdline" || return 1
  [[ "${args[*]}" == "$REGISTRY_BIN serve $REGISTRY_DATA/$1.yml" ]] && echo "$pid"
}

# Running (not gone, not a zombie: whoever reaps orphans here may take a while).
proc_alive() {
  local st
  read -r st 2>/dev/null </proc/"$1"/stat || return 1
  st="${st##*) }"
  [[ "${st%% *}" != Z ]]
}

stop_pid() {
  local pid=$1 i
  kill "$pid" 2>/dev/null || return 0
  kill -CONT "$pid" 2>/dev/null || true  # a stopped (hung) process handles TERM only once continued
  for ((i = 0; i < 50; i++)); do
    proc_alive "$pid" || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Debian's own docker-registry service (if some init started it) listens on *:5000 with its own config.
stop_debian_registry_service() {
  local pid
  if pid="$(cat /var/run/docker-registry.pid 2>/dev/null)" && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == docker-registry ]]; then
    log "stopping Debian's docker-registry service (pid $pid), it would hold port 5000"
    stop_pid "$pid"
  fi
  if [[ -d /run/systemd/system ]] && systemctl is-active --quiet docker-registry.service 2>/dev/null; then
    log "stopping Debian's docker-registry.service, it would hold port 5000"
    systemctl stop docker-registry.service || true
  fi
}

registry_ensure() {
  local kind=$1 addr pid="" pidfile logf log_start deadline
  addr="$(registry_addr "$kind")"
  pidfile="$(registry_pidfile "$kind")"
  logf="/var/log/dockwright-test-registry-$kind.log"
  pid="$(registry_pid "$kind")" || pid=""
  registry_probe "$kind"
  if (( reg_ok )) && [[ -n "$pid" ]] && [[ "$REGISTRY_DATA/$kind.yml" -nt "$pidfile" \
      || ( $kind == auth && "$REGISTRY_DATA/htpasswd" -nt "$pidfile" ) \
      || ( $kind == token && "$REGISTRY_DATA/token.crt" -nt "$pidfile" ) ]]; then
    log "registry $addr: configuration changed, restarting (pid $pid)"
    stop_pid "$pid"
    pid="" reg_ok=0 reg_why="restarted"
  fi
  (( reg_ok )) && return 0
  if [[ -n "$pid" ]]; then
    log "registry $addr (pid $pid) does not answer properly ($reg_why): restarting"
    stop_pid "$pid"
  fi
  stop_debian_registry_service
  log "starting registry on $addr (log: $logf)"
  log_start="$(stat -c %s "$logf" 2>/dev/null || echo 0)"  # error messages show only this start's log lines
  setsid nohup "$REGISTRY_BIN" serve "$REGISTRY_DATA/$kind.yml" >>"$logf" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pidfile"
  deadline=$((SECONDS + 15))
  while :; do
    registry_probe "$kind"
    (( reg_ok )) && break
    if ! proc_alive "$pid"; then
      die "the registry for $addr exited; its log ($logf):
$(tail -c +$((log_start + 1)) "$logf" | tail -n 10)
listeners on that port: $(ss -Hltnp "sport = :${addr##*:}" 2>/dev/null)"
    fi
    (( SECONDS < deadline )) || die "the registry for $addr (pid $pid) does not answer properly within 15 s ($reg_why); its log ($logf):
$(tail -c +$((log_start + 1)) "$logf" | tail -n 10)"
    sleep 0.1
  done
}

# docker login into a throwaway DOCKER_CONFIG (removed on exit), so no credentials land in
# ~/.docker/config.json. Sets auth_cfg to the directory to use as DOCKER_CONFIG.
auth_docker_config() {
  auth_cfg="$(mktemp -d)"
  TMP_PATHS+=("$auth_cfg")
  printf '%s' "$REGISTRY_AUTH_PASSWORD" | DOCKER_CONFIG="$auth_cfg" docker login -u "$REGISTRY_AUTH_USER" \
    --password-stdin "$REGISTRY_AUTH" >/dev/null 2>&1 || die "docker login $REGISTRY_AUTH failed"
}

# Push $BUSYBOX_IMAGE:1 as <addr>/$REGISTRY_REPO:1 and record "<image id> <digest>" in $REGISTRY_DATA/<kind>.pushed.
registry_push() {
  local kind=$1 addr ref out digest dcfg="${DOCKER_CONFIG:-}"  # empty: docker's default
  addr="$(registry_addr "$kind")"
  ref="$addr/$REGISTRY_REPO:1"
  log "pushing $BUSYBOX_IMAGE:1 to $ref"
  docker tag "$BUSYBOX_IMAGE:1" "$ref"
  TMP_TAGS+=("$ref")
  if [[ $kind == auth ]]; then auth_docker_config; dcfg="$auth_cfg"; fi
  out="$(DOCKER_CONFIG="$dcfg" docker push "$ref" 2>&1)" || die "docker push $ref failed:
$out"
  [[ $kind == open ]] || DOCKER_CONFIG="$dcfg" docker logout "$REGISTRY_AUTH" >/dev/null 2>&1 || true
  docker rmi "$ref" >/dev/null
  digest="$(grep -o 'digest: sha256:[0-9a-f]\{64\}' <<<"$out")" || die "no digest in the output of docker push $ref:
$out"
  digest="${digest#digest: }"
  registry_probe "$kind"
  [[ "$reg_digest" == "$digest" ]] || die "after pushing, $ref has digest '$reg_digest', not $digest"
  printf '%s %s\n' "$busybox1_id" "$digest" >"$REGISTRY_DATA/$kind.pushed"
  pushed=1
}

[[ -x "$REGISTRY_BIN" ]] || die "$REGISTRY_BIN missing (docker-registry)"
mkdir -p "$REGISTRY_DATA/open" "$REGISTRY_DATA/auth" "$REGISTRY_DATA/token"
# Copy only on change: a newer copy than the pid file makes registry_ensure restart that registry.
cmp -s "$REGISTRY_CONF_DIR/open.yml" "$REGISTRY_DATA/open.yml" || install -m 644 "$REGISTRY_CONF_DIR/open.yml" "$REGISTRY_DATA/open.yml"
cmp -s "$REGISTRY_CONF_DIR/auth.yml" "$REGISTRY_DATA/auth.yml" || install -m 644 "$REGISTRY_CONF_DIR/auth.yml" "$REGISTRY_DATA/auth.yml"
cmp -s "$REGISTRY_CONF_DIR/htpasswd" "$REGISTRY_DATA/htpasswd" || install -m 600 "$REGISTRY_CONF_DIR/htpasswd" "$REGISTRY_DATA/htpasswd"
cmp -s "$REGISTRY_CONF_DIR/token.yml" "$REGISTRY_DATA/token.yml" || install -m 644 "$REGISTRY_CONF_DIR/token.yml" "$REGISTRY_DATA/token.yml"
# The token signing key, made once here (never in the checkout); a new certificate restarts the token registry.
if ! openssl x509 -in "$REGISTRY_DATA/token.crt" -noout -checkend 86400 >/dev/null 2>&1 || [[ ! -s "$REGISTRY_DATA/token.key" ]]; then
  log "making the token registry's signing key and certificate"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=$REGISTRY_TOKEN_ISSUER" \
    -keyout "$REGISTRY_DATA/token.key.new" -out "$REGISTRY_DATA/token.crt.new" 2>/dev/null || die "openssl could not make the token signing key"
  chmod 600 "$REGISTRY_DATA/token.key.new"
  mv "$REGISTRY_DATA/token.key.new" "$REGISTRY_DATA/token.key"
  mv "$REGISTRY_DATA/token.crt.new" "$REGISTRY_DATA/token.crt"
fi

pushed=0
for kind in open auth; do
  registry_ensure "$kind"
  # (Re)push when the tag is missing, points elsewhere (a test left an "update" behind) or $BUSYBOX_IMAGE:1 was rebuilt.
  read -r st_id st_digest 2>/dev/null <"$REGISTRY_DATA/$kind.pushed" || st_id="" st_digest=""
  if [[ -z "$reg_digest" || "$reg_digest" != "$st_digest" || "$st_id" != "$busybox1_id" ]]; then
    registry_push "$kind"
  fi
done
# the token registry starts empty: its tests push what they need, through their own token service
registry_ensure token

if (( pushed || verify )); then
  log "verifying registries"
  ref_open="$REGISTRY_OPEN/$REGISTRY_REPO:1"
  ref_auth="$REGISTRY_AUTH/$REGISTRY_REPO:1"
  TMP_TAGS+=("$ref_open" "$ref_auth")
  docker rmi "$ref_open" "$ref_auth" >/dev/null 2>&1 || true
  out="$(docker pull "$ref_open" 2>&1)" || die "docker pull $ref_open failed:
$out"
  [[ "$(docker image inspect -f '{{.Id}}' "$ref_open")" == "$busybox1_id" ]] || die "$ref_open is not $BUSYBOX_IMAGE:1"
  # Anonymous: an empty DOCKER_CONFIG, whatever ~/.docker holds.
  anon_cfg="$(mktemp -d)"
  TMP_PATHS+=("$anon_cfg")
  if out="$(DOCKER_CONFIG="$anon_cfg" docker pull "$ref_auth" 2>&1)"; then
    die "docker pull $ref_auth without credentials succeeded"
  fi
  [[ "$out" == *"no basic auth credentials"* || "$out" == *unauthorized* ]] \
    || die "docker pull $ref_auth without credentials failed, but not with an auth error: $out"
  auth_docker_config
  out="$(DOCKER_CONFIG="$auth_cfg" docker pull "$ref_auth" 2>&1)" || die "docker pull $ref_auth after login failed:
$out"
  DOCKER_CONFIG="$auth_cfg" docker logout "$REGISTRY_AUTH" >/dev/null 2>&1 || true
  # Image update detection the way tests simulate it: push other content under the same tag (scratch repository).
  ref_upd="$REGISTRY_OPEN/$VERIFY_PREFIX/update:1"
  TMP_TAGS+=("$ref_upd")
  upd_digests=()
  for v in 1 2; do
    docker tag "$BUSYBOX_IMAGE:$v" "$ref_upd"
    out="$(docker push "$ref_upd" 2>&1)" || die "docker push $ref_upd failed: $out"
    docker rmi "$ref_upd" >/dev/null
    out="$(docker pull "$ref_upd" 2>&1)" || die "docker pull $ref_upd failed: $out"
    d="$(grep -o 'Digest: sha256:[0-9a-f]\{64\}' <<<"$out")" || die "no digest in docker pull output: $out"
    upd_digests+=("${d#Digest: }")
    [[ "$(docker run --rm "$ref_upd" cat /version)" == "$v" ]] || die "pulling $ref_upd after pushing :$v content did not give it"
    # Untagging by tag also drops the pulled repo digest reference (else a <none> entry stays behind).
    docker rmi "$ref_upd" >/dev/null
  done
  [[ "${upd_digests[0]}" != "${upd_digests[1]}" ]] || die "pushing $BUSYBOX_IMAGE:2 over $ref_upd did not change its digest"
  cleanup
  log "verified: pull from $REGISTRY_OPEN, auth error then pull after login on $REGISTRY_AUTH, digest change on re-push"
fi

# --- 6. Git ---------------------------------------------------------------------

command -v git >/dev/null || die "git not found"
git config --global user.email >/dev/null || git config --global user.email "dockwright-tests@localhost"
git config --global user.name >/dev/null || git config --global user.name "Dockwright Tests"

# --- 7. Components of later plugins ----------------------------------------------
# Each scripts/test-env.d/<component>.sh is sourced in name order: it may call apt_install, log and die, must be
# idempotent, and adds the variables its tests need to EXTRA_ENV ("NAME=value" entries) for .test-env.

EXTRA_ENV=()
for part in scripts/test-env.d/*.sh; do
  [[ -e $part ]] || continue
  # shellcheck source=/dev/null
  . "$part"
done

# --- 8. .test-env ---------------------------------------------------------------

env_file_content="export DATABASE_URL_TEST=$DATABASE_URL_TEST
export DOCKER_HOST=$DOCKER_HOST
export REGISTRY_OPEN=$REGISTRY_OPEN
export REGISTRY_AUTH=$REGISTRY_AUTH
export REGISTRY_AUTH_USER=$REGISTRY_AUTH_USER
export REGISTRY_AUTH_PASSWORD=$REGISTRY_AUTH_PASSWORD
export REGISTRY_TOKEN=$REGISTRY_TOKEN
export REGISTRY_TOKEN_REALM=$REGISTRY_TOKEN_REALM
export REGISTRY_TOKEN_SERVICE=$REGISTRY_TOKEN_SERVICE
export REGISTRY_TOKEN_ISSUER=$REGISTRY_TOKEN_ISSUER
export REGISTRY_TOKEN_KEY=$REGISTRY_DATA/token.key
export REGISTRY_TOKEN_CERT=$REGISTRY_DATA/token.crt"
for entry in "${EXTRA_ENV[@]}"; do env_file_content+=$'\n'"export $entry"; done
if [[ "$(cat .test-env 2>/dev/null)" != "$env_file_content" ]]; then
  printf '%s\n' "$env_file_content" >.test-env
fi

docker_ver="$(docker version -f '{{.Server.Version}}' 2>/dev/null || echo '?')"
elapsed="$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
echo "test-env ready in ${elapsed}s: postgres $pg_ver on 127.0.0.1:$pg_port ($DB_NAME), docker $docker_ver, images $BUSYBOX_IMAGE:1 $BUSYBOX_IMAGE:2 $WEB_IMAGE, registries $REGISTRY_OPEN (open) $REGISTRY_AUTH (basic auth) with $REGISTRY_REPO:1 and $REGISTRY_TOKEN (token auth), env in .test-env"
