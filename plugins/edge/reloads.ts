// Reloads that keep every connection: Caddy gives each configuration its own SO_REUSEPORT listener, and Linux resets the connections still queued on the one that closes unless net.ipv4.tcp_migrate_req hands them over.
import { readFileSync, writeFileSync } from 'node:fs';

const migrateRequestsPath = '/proc/sys/net/ipv4/tcp_migrate_req';

export interface ReloadSafety {
  /** on: queued connections move to the new listener; off: a reload can reset a few; unsupported: no such setting (not Linux, or a kernel before 5.14) */
  state: 'on' | 'off' | 'unsupported';
  /** what Dockwright did about it, or what the admin can do */
  note: string | null;
}

const risk = 'each edge reload can reset a few connections being accepted at that moment';
const howTo = 'set net.ipv4.tcp_migrate_req=1 (sysctl -w, and a file in /etc/sysctl.d to keep it)';

/** reads the setting and, when `turnOn`, switches it on (it needs root and a network namespace of one's own or the host's) */
export function ensureRequestMigration(turnOn: boolean, path = migrateRequestsPath): ReloadSafety {
  let value: string;
  try {
    value = readFileSync(path, 'utf8').trim();
  } catch {
    return { state: 'unsupported', note: null };
  }
  if (value === '1') return { state: 'on', note: null };
  if (!turnOn) return { state: 'off', note: `${risk}: ${howTo}` };
  try {
    writeFileSync(path, '1\n');
    return { state: 'on', note: 'Dockwright switched on net.ipv4.tcp_migrate_req so that edge reloads hand queued connections to the new listener instead of resetting them' };
  } catch (err) {
    return { state: 'off', note: `${risk} (switching on net.ipv4.tcp_migrate_req failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): ${howTo}` };
  }
}
