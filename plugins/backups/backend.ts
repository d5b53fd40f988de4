// Where a restic repository connects, under the outbound policy: each backend's hosts checked at save, and at run resolved once right before restic starts, sftp pinned to the checked address.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OutboundRefused, problem, type OutboundApi } from '../../sdk/index.ts';

/** an sftp repository as restic reads its URL: `sftp:user@host:/path` or `sftp://user@host:port//path` */
export interface SftpEndpoint { user: string | null; host: string; port: number }

/** the host restic's sftp backend would connect to; null when the URL is not an sftp one, throws when it is a broken one */
export function sftpEndpoint(url: string): SftpEndpoint | null {
  if (url.startsWith('sftp://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('not an sftp URL restic reads (sftp://user@host:port//path)');
    }
    return { user: parsed.username ? decodeURIComponent(parsed.username) : null, host: parsed.hostname, port: parsed.port ? Number(parsed.port) : 22 };
  }
  if (!url.startsWith('sftp:')) return null;
  // restic splits at the first colon, then the user from the host at the last @ before it
  const colon = url.indexOf(':', 5);
  if (colon < 0) throw new Error('an sftp URL names a folder after the host (sftp:user@host:/path)');
  const login = url.slice(5, colon);
  const at = login.lastIndexOf('@');
  return { user: at < 0 ? null : login.slice(0, at), host: at < 0 ? login : login.slice(at + 1), port: 22 };
}

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
};

/**
 * Every host a repository's backend connects to first, as far as its URL and environment say: the sftp host, the rest
 * server, the s3 endpoint, swift's auth URL; b2, azure and gs talk to their providers' fixed hosts. What a provider's
 * answers send restic to afterwards (a b2 download URL, swift's storage URL) is the provider's to choose.
 */
export function backendHosts(url: string, env: Record<string, string>): string[] {
  const scheme = url.slice(0, url.indexOf(':'));
  const rest = url.slice(scheme.length + 1);
  switch (scheme) {
    case 'sftp': return [sftpEndpoint(url)!.host];
    case 'rest': {
      const host = hostOf(rest);
      if (!host) throw new Error('a rest repository is rest:http(s)://host[:port]/path');
      return [host];
    }
    case 's3': {
      // s3:https://host/bucket, s3:http://host/bucket, s3://host/bucket or s3:host/bucket
      const host = /^https?:\/\//.test(rest) ? hostOf(rest) : hostOf(`https://${rest.replace(/^\/\//, '')}`);
      if (!host) throw new Error('an s3 repository is s3:host/bucket or s3:https://host/bucket');
      return [host];
    }
    case 'b2': return ['api.backblazeb2.com'];
    case 'gs': return ['oauth2.googleapis.com', 'storage.googleapis.com'];
    case 'azure': {
      const account = env.AZURE_ACCOUNT_NAME;
      if (!account || !/^[a-z0-9]{3,24}$/.test(account)) throw new Error('an azure repository needs AZURE_ACCOUNT_NAME (3 to 24 lowercase letters and digits) in repository.env');
      return [`${account}.blob.core.windows.net`];
    }
    case 'swift': {
      const urls = Object.entries(env).filter(([k]) => k === 'ST_AUTH' || /^OS_[A-Z_]*URL$/.test(k)).map(([, v]) => v);
      if (!urls.length) throw new Error('a swift repository needs OS_AUTH_URL (or ST_AUTH) in repository.env');
      return urls.map((u) => {
        const host = hostOf(u);
        if (!host) throw new Error(`${u} is not a URL`);
        return host;
      });
    }
    default: return [];
  }
}

/** at save: 422 naming the policy (or the broken URL) before anything is stored; a name that does not resolve yet passes, the run checks again */
export async function checkBackend(outbound: OutboundApi, url: string, env: Record<string, string>): Promise<void> {
  let hosts: string[];
  try {
    hosts = backendHosts(url, env);
  } catch (err) {
    throw problem(422, `repository.url: ${(err as Error).message}`, { code: 'repository-refused', errors: [{ path: '/body/repository/url', message: (err as Error).message }] });
  }
  const endpoint = sftpEndpoint(url);
  if (endpoint?.user !== null && endpoint?.user !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/.test(endpoint.user)) {
    throw problem(422, 'repository.url: the sftp user holds characters ssh does not take in a user name', { code: 'repository-refused', errors: [{ path: '/body/repository/url', message: 'bad user name' }] });
  }
  for (const host of hosts) {
    await outbound.check(host).catch((err) => {
      if (err instanceof OutboundRefused) throw problem(422, err.message, { code: err.code, errors: [{ path: '/body/repository/url', message: err.reason }] });
      throw err;
    });
  }
}

/** what restic is started with to reach a repository, and what to remove afterwards */
export interface Connection { args: string[]; close(): Promise<void> }

/** arguments of restic's sftp.command, split by restic as a shell would: paths are quoted, never interpolated unchecked */
const quoted = (path: string) => {
  if (/["'\\\n]/.test(path)) throw new Error(`the folder ${path} holds a quote or a backslash: sftp repositories cannot be used with it`);
  return `"${path}"`;
};

/**
 * Right before restic starts: every host of the backend resolved and checked now (a refusal is thrown before anything
 * connects). An sftp repository is pinned: restic runs ssh with the checked address as HostName (the host key still
 * kept under the name), no ssh_config of the machine, this install's known_hosts (a new host's key is learned, a
 * changed one fails) and the repository's key, if it has one, in a file that lives as long as the command.
 * HTTP backends (rest, s3, …) are checked here and connect by themselves.
 */
export async function connect(outbound: OutboundApi, sshDir: string, repo: { url: string; env: Record<string, string>; sshKey?: string | null }): Promise<Connection> {
  if (repo.url.startsWith('/')) return { args: [], close: async () => undefined };
  const resolved = new Map<string, string>();
  for (const host of backendHosts(repo.url, repo.env)) resolved.set(host, (await outbound.resolve(host))[0].address);
  const endpoint = sftpEndpoint(repo.url);
  if (!endpoint) return { args: [], close: async () => undefined };
  await mkdir(sshDir, { recursive: true, mode: 0o700 });
  const alias = (endpoint.port === 22 ? endpoint.host : `[${endpoint.host}]:${endpoint.port}`).toLowerCase();
  const ssh = ['ssh', '-F', '/dev/null', '-o', `HostName=${resolved.get(endpoint.host)}`, '-o', `HostKeyAlias=${alias}`, '-p', String(endpoint.port),
    '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=accept-new', '-o', `'UserKnownHostsFile=${quoted(join(sshDir, 'known_hosts'))}'`,
    '-o', 'ConnectTimeout=20', '-o', 'ServerAliveInterval=30'];
  if (endpoint.user) ssh.push('-l', endpoint.user);
  let keyDir: string | null = null;
  if (repo.sshKey) {
    keyDir = join(sshDir, `key-${randomBytes(8).toString('hex')}`);
    await mkdir(keyDir, { mode: 0o700 });
    const keyFile = join(keyDir, 'id');
    await writeFile(keyFile, repo.sshKey.replace(/\r\n/g, '\n').trimEnd() + '\n', { mode: 0o600, flag: 'wx' });
    ssh.push('-o', 'IdentitiesOnly=yes', '-i', quoted(keyFile));
  }
  // the destination is a label only (HostName says where to connect): without brackets, which ssh does not take there
  ssh.push('-s', '--', endpoint.host.replace(/^\[(.*)\]$/, '$1'), 'sftp');
  const command = `sftp.command=${ssh.join(' ')}`;
  // restic reads -o as a CSV list: one field, quoted
  return {
    args: ['-o', `"${command.replace(/"/g, '""')}"`],
    close: async () => { if (keyDir) await rm(keyDir, { recursive: true, force: true }); },
  };
}
