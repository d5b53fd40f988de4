// What a lost database looks like: the errors of a connection that ended or could not be made, told apart from a statement that failed.

/**
 * Whether an error says the database is out of reach (a restart, a failover, a reaper ending connections, a server
 * that does not answer) rather than that a statement failed: such a request may succeed when retried.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // connection exception (08…), admin or crash shutdown and "cannot connect now" (57P01–57P03), too many connections
    if (/^08|^57P0[123]$|^53300$/.test(code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) return true;
    // the embedded server's socket is gone while it starts again
    if (code === 'ENOENT' && typeof message === 'string' && message.includes('.s.PGSQL')) return true;
  }
  return typeof message === 'string'
    && /^Connection terminated|not queryable|timeout exceeded when trying to connect/.test(message);
}
