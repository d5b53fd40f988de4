// The edge's options as the controller and the pusher read them: ports, Caddy, timings, and the live redirect settings.

export interface EdgeOptions {
  httpPort: number;
  httpsPort: number;
  caddy: string;
  adminAddress?: string;
  accessLog: { rollSizeMb: number; rollKeep: number; rollKeepDays: number };
  restartDelayMs: number;
  restartMaxDelayMs: number;
  stableAfterMs: number;
  startTimeoutMs: number;
  adminTimeoutMs: number;
  watchIntervalMs: number;
  pollIntervalMs: number;
  resyncIntervalMs: number;
  leaderRetryMs: number;
  migrateQueuedConnections: boolean;
  drainMs: number;
  httpsRedirect: boolean;
  httpsRedirectExcept: string[];
}

/** the redirect options as they are now (live settings): read at every push */
export type RedirectOptions = () => Pick<EdgeOptions, 'httpsRedirect' | 'httpsRedirectExcept'>;
