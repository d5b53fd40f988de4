# Test component of the certificates plugin: Debian's pebble (ACME test CA) and bind9 (authoritative DNS with RFC 2136 + TSIG).
# Tests start their own pebble and named on free loopback ports (tests/plugins/certificates/acme-env.ts); here they are only installed.
need=()
command -v pebble >/dev/null 2>&1 || need+=(pebble)
command -v named >/dev/null 2>&1 || need+=(bind9)
command -v nsupdate >/dev/null 2>&1 || need+=(bind9-dnsutils)
(( ${#need[@]} )) && apt_install "${need[@]}"
command -v pebble >/dev/null 2>&1 || die "pebble is not installed"
command -v named >/dev/null 2>&1 || die "named (bind9) is not installed"
EXTRA_ENV+=("PEBBLE_BIN=$(command -v pebble)" "NAMED_BIN=$(command -v named)" "PEBBLE_VA_NOSLEEP=1")
