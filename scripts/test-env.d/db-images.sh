# Test component of the backups plugin's database strategies: images dockwright-test/postgres:15 and
# dockwright-test/mariadb:10.11, root file systems of Debian bookworm's own packages made with mmdebstrap (minbase) and
# imported with `docker import`, each with an entrypoint (scripts/images/<db>/docker-entrypoint.sh) that reads the
# official images' environment variables. The postgres image also carries sqlite3 (the sqlite strategy's tests).
# Idempotent: an image whose recipe label matches this file and its entrypoint is kept. Runnable alone as root
# (bash scripts/test-env.d/db-images.sh) or sourced by scripts/test-env.sh.

if ! declare -F die >/dev/null; then  # run alone: the helpers scripts/test-env.sh would provide
  set -euo pipefail
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
  log() { printf '[test-env] %s\n' "$*" >&2; }
  die() { printf '[test-env] ERROR: %s\n' "$*" >&2; exit 1; }
  is_installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }
  apt_install() { apt-get update -qq </dev/null >/dev/null && apt-get install -y -q --no-install-recommends "$@" </dev/null >/dev/null; }
  [[ $EUID -eq 0 ]] || die "must run as root (it installs packages and imports images)"
  EXTRA_ENV=()
fi

DB_IMAGE_MIRROR=http://deb.debian.org/debian
DB_IMAGE_POSTGRES=dockwright-test/postgres:15
DB_IMAGE_MARIADB=dockwright-test/mariadb:10.11
DB_IMAGE_PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

is_installed mmdebstrap || apt_install mmdebstrap || die "could not install mmdebstrap (the database test images need it)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is installed but not on PATH"

# db_image_build IMAGE PACKAGES ENTRYPOINT_FILE CUSTOMIZE_SHELL_COMMAND DOCKER_CHANGE...
db_image_build() {
  local image=$1 packages=$2 entrypoint=$3 customize=$4
  shift 4
  [[ -f $entrypoint ]] || die "$entrypoint is missing"
  local recipe
  recipe="$(cat "${BASH_SOURCE[0]}" "$entrypoint" | sha256sum | cut -c1-16)"
  if [[ "$(docker image inspect -f '{{index .Config.Labels "dockwright.test.recipe"}}' "$image" 2>/dev/null)" == "$recipe" ]]; then
    return 0
  fi
  log "building $image from Debian bookworm packages ($packages) with mmdebstrap"
  local started=$SECONDS build_log
  build_log="$(mktemp)"
  # Space savers: no documentation, manual pages or translations; no apt lists or caches; no logs.
  if ! mmdebstrap --variant=minbase --include="$packages" \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
      --customize-hook="copy-in $entrypoint /usr/local/bin" \
      --customize-hook="chmod 755 \"\$1/usr/local/bin/docker-entrypoint.sh\"; mkdir -p \"\$1/docker-entrypoint-initdb.d\"" \
      --customize-hook="$customize" \
      --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/cache/debconf/*-old "$1"/var/log/* "$1"/tmp/*' \
      bookworm - "$DB_IMAGE_MIRROR" 2>"$build_log" \
    | docker import --change "LABEL dockwright.test.recipe=$recipe" \
        --change 'ENTRYPOINT ["docker-entrypoint.sh"]' "$@" - "$image" >/dev/null; then
    tail -n 30 "$build_log" >&2
    rm -f "$build_log"
    die "building $image failed (mmdebstrap from $DB_IMAGE_MIRROR, then docker import); its log is above"
  fi
  rm -f "$build_log"
  log "built $image in $((SECONDS - started)) s, $(docker image inspect -f '{{.Size}}' "$image" | numfmt --to=iec)"
}

# PostgreSQL: Debian's postinst must not create its own cluster (the entrypoint makes $PGDATA); the LLVM JIT (libLLVM
# alone is ~100 MB) goes: the server never loads it with jit=off, which the entrypoint sets.
db_image_build "$DB_IMAGE_POSTGRES" postgresql-15,sqlite3 scripts/images/postgres/docker-entrypoint.sh \
  'rm -rf "$1"/var/lib/postgresql/15 "$1"/etc/postgresql/15 "$1"/usr/lib/postgresql/15/lib/bitcode "$1"/usr/lib/postgresql/15/lib/llvmjit*.so "$1"/usr/lib/*/libLLVM-*.so*' \
  --change "ENV PATH=$DB_IMAGE_PATH" --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'VOLUME /var/lib/postgresql/data' --change 'EXPOSE 5432' --change 'CMD ["postgres"]'
# MariaDB: the server and client cores and the dump tools (mariadb-client), without the full server package's Galera,
# rsync and socat; the system user the full package would add is made here.
db_image_build "$DB_IMAGE_MARIADB" mariadb-server-core,mariadb-client scripts/images/mariadb/docker-entrypoint.sh \
  'chroot "$1" sh -c "getent passwd mysql >/dev/null || useradd --system --user-group --home-dir /nonexistent --shell /usr/sbin/nologin mysql"' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'VOLUME /var/lib/mysql' --change 'EXPOSE 3306' --change 'CMD ["mariadbd"]'

EXTRA_ENV+=("DB_TEST_IMAGE_POSTGRES=$DB_IMAGE_POSTGRES" "DB_TEST_IMAGE_MARIADB=$DB_IMAGE_MARIADB")
