// Helpers of the certificates tests: certificates made on the spot, a server with the edge and certificates, and a real pebble + bind9 per test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { eventually, startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { freePort } from '../docker/helpers.ts';

export { freePort };
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const toPem = (der: ArrayBuffer, label: string) => `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;

export interface Made { certificate: string; key: string; keys: CryptoKeyPair; name: string }

/** a certificate (a CA when `ca`), self-signed or signed by `issuer`; dates default to now-1h … now+90d */
export async function makeCert(o: { cn: string; domains?: string[]; ips?: string[]; issuer?: Made; ca?: boolean; notBefore?: Date; notAfter?: Date }): Promise<Made> {
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as CryptoKeyPair;
  const name = `CN=${o.cn}`;
  const san = [...(o.domains ?? []).map((value) => ({ type: 'dns' as const, value })), ...(o.ips ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const extensions = [
    new x509.BasicConstraintsExtension(Boolean(o.ca), undefined, true),
    ...(san.length ? [new x509.SubjectAlternativeNameExtension(san)] : []),
    ...(o.ca ? [new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)] : []),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '1'),
    subject: name, issuer: o.issuer?.name ?? name,
    notBefore: o.notBefore ?? new Date(Date.now() - 3_600_000), notAfter: o.notAfter ?? new Date(Date.now() + 90 * 86_400_000),
    signingAlgorithm: alg, publicKey: keys.publicKey, signingKey: o.issuer?.keys.privateKey ?? keys.privateKey, extensions,
  });
  return { certificate: cert.toString('pem') + '\n', key: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'), keys, name };
}

export interface CertServer extends TestServer { httpPort: number; httpsPort: number }

/** docker, stacks, the edge (on free ports, with `edge` options added), the edge-client test plugin (routes), certificates with these options, and `extra` plugins */
export async function startCertServer(o: { certificates?: Record<string, unknown>; edge?: Record<string, unknown>; extra?: Record<string, unknown>; httpPort?: number } & Omit<StartOptions, 'plugins'> = {}): Promise<CertServer> {
  const { certificates = {}, edge = {}, extra = {}, httpPort: fixedHttp, ...rest } = o;
  const httpPort = fixedHttp ?? await freePort();
  const httpsPort = await freePort();
  const s = await startServer({
    ...rest,
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      docker: { options: { reconcile: false } },
      stacks: {},
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000, ...edge } },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
      certificates: { options: { sweepIntervalMs: 3_600_000, pollMinMs: 50, pollMaxMs: 500, pollAttempts: 40, dnsPropagationMs: 0, ...certificates } },
      ...extra,
    },
  });
  return Object.assign(s, { httpPort, httpsPort });
}

/** routes these hostnames to a static directory (owner `site:<owner>`) */
export async function routeHosts(s: TestServer, owner: string, hostnames: string[]): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'dw-cert-site-'));
  writeFileSync(join(root, 'index.html'), `hello from ${owner}\n`);
  const r = await s.api('PUT', `/api/v1/edge-client/routes/site:${owner}`, { body: { routes: hostnames.map((hostname) => ({ kind: 'static', hostname, root })) } });
  if (r.status !== 200) throw new Error(`routes refused: ${r.text}`);
}

/** the TLS handshake of the edge for this SNI (trusting `ca`): the serial it serves, or the error */
export function servedSerial(port: number, host: string, ca: string): Promise<{ serial: string; status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpsRequest({ host: '127.0.0.1', port, servername: host, headers: { host }, path: '/', ca, agent: false, timeout: 5000 }, (res) => {
      const serial = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().serialNumber.toLowerCase();
      res.resume();
      res.on('end', () => resolve({ serial, status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ error: err.message }));
    req.end();
  });
}

export const stripZeros = (serial: string) => serial.toLowerCase().replace(/^0+/, '');

export async function waitJob(s: TestServer, jobId: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const r = await s.api('GET', `/api/v1/jobs/${jobId}/wait?timeout=5`);
    return r.body?.done ? r.body : null;
  }, timeoutMs, `job ${jobId}`);
}

// ------------------------------------------------------------------ pebble + bind9

export const zone = 'dwtest.test';

export interface AcmeEnv {
  directoryUrl: string;
  /** the CA of pebble's own HTTPS listener (for caFile) */
  caFile: string;
  rfc2136: { server: string; zone: string; keyName: string; keyAlgorithm: string; keySecret: string };
  dnsPort: number;
  /** pebble's current root, from its management port */
  root(): Promise<string>;
  stop(): Promise<void>;
}

function started(child: ChildProcess, what: string, ready: () => Promise<boolean>): Promise<void> {
  let output = '';
  child.stdout?.on('data', (c) => { output += c; });
  child.stderr?.on('data', (c) => { output += c; });
  return Promise.race([
    eventually(ready, 20_000, `${what} to start`, 50).then(() => undefined),
    new Promise<void>((_, reject) => child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${output.slice(-2000)}`)))),
  ]);
}

function insecureGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A bind9 serving `dwtest.test` (every name under `ok.dwtest.test` → 127.0.0.1; `bad.dwtest.test` names do not exist)
 * with RFC 2136 updates signed by a TSIG key, and a pebble validating HTTP-01 on `httpPort` and asking that bind9
 * (requiring External Account Binding with this key when `eab` is given).
 */
export async function startAcmeEnv(o: { httpPort: number; eab?: { kid: string; hmacKey: string } }): Promise<AcmeEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-acme-'));
  const dnsPort = await freePort();
  const keySecret = randomBytes(32).toString('base64');
  writeFileSync(join(dir, `${zone}.zone`), `$TTL 5
@ IN SOA ns.${zone}. admin.${zone}. 1 60 60 600 5
@ IN NS ns.${zone}.
ns IN A 127.0.0.1
*.ok IN A 127.0.0.1
`);
  writeFileSync(join(dir, 'named.conf'), `options {
  directory "${dir}";
  listen-on port ${dnsPort} { 127.0.0.1; };
  listen-on-v6 { none; };
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  recursion no;
  dnssec-validation no;
  notify no;
};
controls { };
key "dw-test" { algorithm hmac-sha256; secret "${keySecret}"; };
zone "${zone}" { type primary; file "${dir}/${zone}.zone"; allow-update { key "dw-test"; }; };
`);
  const named = spawn(process.env.NAMED_BIN ?? 'named', ['-g', '-c', join(dir, 'named.conf'), '-n', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { Resolver } = await import('node:dns/promises');
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  await started(named, 'named', async () => (await resolver.resolve4(`probe.ok.${zone}`).catch((): string[] => [])).includes('127.0.0.1'));

  const tls = await makeCert({ cn: 'pebble', domains: ['localhost'], ips: ['127.0.0.1'] });
  writeFileSync(join(dir, 'pebble-cert.pem'), tls.certificate);
  writeFileSync(join(dir, 'pebble-key.pem'), tls.key);
  const [listen, management, tlsPort] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${listen}`, managementListenAddress: `127.0.0.1:${management}`,
      certificate: join(dir, 'pebble-cert.pem'), privateKey: join(dir, 'pebble-key.pem'),
      httpPort: o.httpPort, tlsPort, ocspResponderURL: '', externalAccountBindingRequired: Boolean(o.eab),
      ...(o.eab ? { externalAccountMACKeys: { [o.eab.kid]: o.eab.hmacKey } } : {}),
    },
  }));
  const pebble = spawn(process.env.PEBBLE_BIN ?? 'pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], {
    stdio: ['ignore', 'pipe', 'pipe'], cwd: dir,
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
  });
  const directoryUrl = `https://127.0.0.1:${listen}/dir`;
  await started(pebble, 'pebble', async () => (await insecureGet(directoryUrl, tls.certificate).catch(() => ({ status: 0 }))).status === 200);
  const stop = (child: ChildProcess) => new Promise<void>((r) => { if (child.exitCode !== null) return r(); child.once('exit', () => r()); child.kill('SIGTERM'); });
  return {
    directoryUrl, caFile: join(dir, 'pebble-cert.pem'), dnsPort,
    rfc2136: { server: `127.0.0.1:${dnsPort}`, zone, keyName: 'dw-test', keyAlgorithm: 'hmac-sha256', keySecret },
    async root() { return (await insecureGet(`https://127.0.0.1:${management}/roots/0`, tls.certificate)).body; },
    async stop() {
      await Promise.all([stop(pebble), stop(named)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
