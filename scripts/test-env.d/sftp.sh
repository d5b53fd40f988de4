# Test component of the backups plugin: Debian's openssh-server as a test-only sftp server on a free loopback port (its own host key, one authorized client key, sftp only), for restic's sftp backend.
# State in /var/lib/dockwright-test-sshd: keys, sshd_config, pid, port, and repos/ where the tests' repositories live.
# Idempotent: a running test sshd with the same configuration is kept; Debian's own sshd (port 22, all interfaces) stays off.
SFTP_DIR=/var/lib/dockwright-test-sshd
SFTP_SSHD=/usr/sbin/sshd

is_installed openssh-server || apt_install openssh-server || die "could not install openssh-server"
[[ -x $SFTP_SSHD ]] || die "openssh-server is installed but $SFTP_SSHD is missing"
# the package's own service must not start at boot: it would listen on port 22 of every interface
if compgen -G '/etc/rc[2-5].d/S[0-9][0-9]ssh' >/dev/null; then
  update-rc.d ssh disable >/dev/null 2>&1 || log "WARNING: could not disable Debian's ssh init script"
fi
for unit in ssh.service sshd.service ssh.socket; do
  for wants in multi-user.target.wants sockets.target.wants; do
    [[ -e /etc/systemd/system/$wants/$unit ]] && rm -f "/etc/systemd/system/$wants/$unit"
  done
done

mkdir -p "$SFTP_DIR/repos" /run/sshd
chmod 700 "$SFTP_DIR"
[[ -f $SFTP_DIR/host_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C dockwright-test-sshd -f "$SFTP_DIR/host_ed25519" </dev/null
[[ -f $SFTP_DIR/client_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C dockwright-tests -f "$SFTP_DIR/client_ed25519" </dev/null
cmp -s "$SFTP_DIR/client_ed25519.pub" "$SFTP_DIR/authorized_keys" 2>/dev/null || cp "$SFTP_DIR/client_ed25519.pub" "$SFTP_DIR/authorized_keys"

sftp_running() {
  local pid
  pid="$(cat "$SFTP_DIR/sshd.pid" 2>/dev/null)" || return 1
  [[ -n $pid && "$(cat "/proc/$pid/comm" 2>/dev/null)" == sshd ]] || return 1
  [[ -n "$(ss -Hltn "sport = :$(cat "$SFTP_DIR/port" 2>/dev/null)" 2>/dev/null)" ]]
}
sftp_config() {
  cat <<EOF
# the test sshd of Dockwright's backup tests (scripts/test-env.d/sftp.sh): loopback only, one key, sftp only
Port $1
ListenAddress 127.0.0.1
HostKey $SFTP_DIR/host_ed25519
PidFile $SFTP_DIR/sshd.pid
AuthorizedKeysFile $SFTP_DIR/authorized_keys
AllowUsers root
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitTTY no
Subsystem sftp internal-sftp
ForceCommand internal-sftp
EOF
}

sftp_port="$(cat "$SFTP_DIR/port" 2>/dev/null || true)"
if ! sftp_running || [[ "$(sftp_config "$sftp_port")" != "$(cat "$SFTP_DIR/sshd_config" 2>/dev/null)" ]]; then
  if [[ -f $SFTP_DIR/sshd.pid ]]; then
    old="$(cat "$SFTP_DIR/sshd.pid")"
    [[ "$(cat "/proc/$old/comm" 2>/dev/null)" == sshd ]] && kill "$old" 2>/dev/null && sleep 0.2
    rm -f "$SFTP_DIR/sshd.pid"
  fi
  # the port of the last start if it is still free, else a free one
  if [[ -z $sftp_port || -n "$(ss -Hltn "sport = :$sftp_port")" ]]; then
    for _ in $(seq 1 50); do
      sftp_port=$((20000 + RANDOM % 20000))
      [[ -z "$(ss -Hltn "sport = :$sftp_port")" ]] && break
    done
  fi
  sftp_config "$sftp_port" >"$SFTP_DIR/sshd_config"
  echo "$sftp_port" >"$SFTP_DIR/port"
  "$SFTP_SSHD" -t -f "$SFTP_DIR/sshd_config" || die "the test sshd's configuration is refused"
  "$SFTP_SSHD" -f "$SFTP_DIR/sshd_config" -E "$SFTP_DIR/sshd.log" || die "the test sshd does not start (log: $SFTP_DIR/sshd.log)"
  for _ in $(seq 1 50); do sftp_running && break; sleep 0.1; done
  sftp_running || die "the test sshd does not listen on 127.0.0.1:$sftp_port (log: $SFTP_DIR/sshd.log)"
  log "test sshd (sftp only) on 127.0.0.1:$sftp_port"
fi
EXTRA_ENV+=("SFTP_TEST_PORT=$sftp_port" "SFTP_TEST_USER=root" "SFTP_TEST_KEY=$SFTP_DIR/client_ed25519"
  "SFTP_TEST_HOST_KEY=$SFTP_DIR/host_ed25519.pub" "SFTP_TEST_ROOT=$SFTP_DIR/repos")
