// A git server over HTTPS on loopback for the tests: Debian's `git http-backend` (smart HTTP) behind node:https, with a certificate of its own (the test's CA), and basic auth on the repositories under private/.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface HttpsGitServer {
  port: number;
  /** the server's self-signed certificate: the authority a client must trust (NODE_EXTRA_CA_CERTS) */
  caFile: string;
  /** every request: method, path and the user it authenticated as ('' for none) */
  requests: { method: string; path: string; user: string }[];
  close(): Promise<void>;
}

/** serves the bare repositories under `root` at https://127.0.0.1:<port>/<path>; those under private/ only to `user`:`password` */
export async function startHttpsGitServer(root: string, auth: { user: string; password: string }): Promise<HttpsGitServer> {
  const certDir = mkdtempSync(join(tmpdir(), 'dw-git-https-'));
  const [key, cert] = [join(certDir, 'key.pem'), join(certDir, 'cert.pem')];
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '2', '-subj', '/CN=dockwright-test-git', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE']);
  const requests: HttpsGitServer['requests'] = [];
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const given = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [user, password] = given ? Buffer.from(given, 'base64').toString().split(':') : ['', ''];
    requests.push({ method: req.method ?? '', path: url.pathname, user });
    if (url.pathname.startsWith('/private/') && (user !== auth.user || password !== auth.password)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: req.method, PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '', HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''), REMOTE_USER: user, REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let body = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (body) { res.write(chunk); return; }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      body = true;
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => { if (!body) res.writeHead(500); res.end(); });
    cgi.on('error', () => { res.destroy(); });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port, caFile: cert, requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
