// A git server over SSH on loopback for the tests: Debian's sshd in the foreground with its own host key, public-key logins as root only for the keys the test authorizes (restricted: no pty, no forwarding), git-upload-pack run by the login.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SshGitServer {
  port: number;
  /** ssh://root@127.0.0.1:<port><path> for a repository at this absolute path */
  url(path: string): string;
  /** from now on, logins with exactly these public keys are accepted (an empty list: none) */
  authorize(publicKeys: string[]): void;
  /** what sshd logged (each accepted or refused login) */
  log(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true); });
  socket.on('error', () => resolve(false));
});

export async function startSshGitServer(): Promise<SshGitServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-git-sshd-'));
  const hostKey = join(dir, 'host_ed25519');
  const authorized = join(dir, 'authorized_keys');
  await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'dockwright-test-git-sshd', '-f', hostKey]);
  writeFileSync(authorized, '', { mode: 0o600 });
  const port = await freePort();
  writeFileSync(join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${hostKey}`, `PidFile ${join(dir, 'sshd.pid')}`, `AuthorizedKeysFile ${authorized}`,
    'AllowUsers root', 'PermitRootLogin prohibit-password', 'PubkeyAuthentication yes', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
    'UsePAM no', 'StrictModes no', 'AllowTcpForwarding no', 'AllowAgentForwarding no', 'X11Forwarding no', 'PermitTTY no', 'LogLevel VERBOSE', '',
  ].join('\n'));
  let output = '';
  const child: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    if (child.exitCode !== null) throw new Error(`the test sshd did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: (path) => `ssh://root@127.0.0.1:${port}${path}`,
    authorize(publicKeys) {
      writeFileSync(authorized, publicKeys.map((k) => `restrict ${k.trim()}\n`).join(''), { mode: 0o600 });
    },
    log: () => output,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
