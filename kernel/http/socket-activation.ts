// A listening socket handed over by systemd (socket activation, as sd_listen_fds reads it): the first passed descriptor, when LISTEN_PID names this process.

/** systemd passes its sockets from this descriptor on */
const firstPassedFd = 3;

/**
 * The socket to listen on that systemd handed over, or null. Taken once: the variables are removed, as
 * sd_listen_fds(unset_environment) does, so that no child (git, Caddy, restic…) takes the socket for its own.
 */
export function handedOverSocket(env: NodeJS.ProcessEnv = process.env, pid = process.pid): { fd: number } | null {
  const count = Number(env.LISTEN_FDS);
  if (Number(env.LISTEN_PID) !== pid || !Number.isInteger(count) || count < 1) return null;
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  return { fd: firstPassedFd };
}
