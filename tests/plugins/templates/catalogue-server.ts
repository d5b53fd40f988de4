// A catalogue served over HTTPS on loopback for the template tests: a throwaway CA and a certificate for 127.0.0.1 made here, files served from a map the test changes.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface CatalogueServer {
  url: string;
  /** the CA that signed the server's certificate: what NODE_EXTRA_CA_CERTS names for the service */
  caFile: string;
  files: Map<string, string>;
  requests: string[];
  close(): Promise<void>;
}

export async function startCatalogueServer(files: Record<string, string>): Promise<CatalogueServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-catalogue-'));
  const run = promisify(execFile);
  const f = (n: string) => join(dir, n);
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'),
    '-days', '2', '-subj', '/CN=dockwright-test-catalogue-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('key.pem'), '-out', f('req.csr'), '-subj', '/CN=127.0.0.1']);
  await run('bash', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ${f('ext.cnf')}`]);
  await run('openssl', ['x509', '-req', '-in', f('req.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('cert.pem'), '-days', '2', '-extfile', f('ext.cnf')]);
  const map = new Map(Object.entries(files));
  const requests: string[] = [];
  const server = createServer({ key: readFileSync(f('key.pem')), cert: readFileSync(f('cert.pem')) }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
    requests.push(path);
    const body = map.get(path);
    if (body === undefined) { res.writeHead(404).end('not found'); return; }
    res.writeHead(200, { 'content-type': path.endsWith('.json') ? 'application/json' : 'text/plain' }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile: f('ca.pem'), files: map, requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
