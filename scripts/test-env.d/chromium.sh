# Chromium from Debian for the portal's browser tests (playwright-core drives it through CHROMIUM_PATH; no browser download).
if ! command -v chromium >/dev/null 2>&1; then
  log "installing chromium (portal browser tests)"
  apt_install chromium
fi
command -v chromium >/dev/null 2>&1 || die "chromium did not install"
EXTRA_ENV+=("CHROMIUM_PATH=$(command -v chromium)")
