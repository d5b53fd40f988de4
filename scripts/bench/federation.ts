// Benchmark (not a test): a CI token exchanged for a Dockwright token (RFC 8693) with the issuer's JWKS cached; an OIDC portal sign-in's round trip against a local provider.
// Run with `npm run bench:federation` (it reads .test-env). No traffic leaves the machine: the issuer and the provider are loopback servers of this process.
import { call, startServer } from '../../tests/helpers/harness.ts';
import { exchangeForm, startIssuer } from '../../tests/helpers/oidc-issuer.ts';
import { driveSignIn, startScriptedProvider } from '../../tests/helpers/oidc-scripted.ts';
import { median, standalone, type Bench } from './common.ts';

export const federationBench: Bench = async () => {
  const samples = Number(process.env.BENCH_SAMPLES ?? 300);
  const issuer = await startIssuer();
  const s = await startServer({ config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false }, rateLimit: { perMinute: 1_000_000 } } });
  try {
    const made = await s.api('POST', '/api/v1/auth/federation', { body: { issuer: issuer.url, audience: 'dockwright', subject: 'repo:acme/shop:ref:refs/heads/*', claims: { repository_owner: 'acme' }, scopes: ['jobs:read'] } });
    if (made.status !== 201) throw new Error(made.text);
    // signed beforehand: the figure is the service's work, not the issuer's
    const tokens = await Promise.all(Array.from({ length: samples + 20 }, () => issuer.sign()));
    const times: number[] = [];
    for (const [i, jwt] of tokens.entries()) {
      const t0 = performance.now();
      const res = await call(s.url, 'POST', '/api/v1/auth/token', { raw: exchangeForm(jwt), headers: { 'content-type': 'application/x-www-form-urlencoded' }, unchecked: true });
      const t1 = performance.now();
      if (res.status !== 200) throw new Error(`exchange ${i}: ${res.status} ${res.text}`);
      if (i >= 20) times.push(t1 - t0);
    }
    if (issuer.jwksFetches !== 1) throw new Error(`the JWKS was fetched ${issuer.jwksFetches} times, not once`);
    times.sort((a, b) => a - b);
    const signIns = await signInTimes(s, Math.min(100, samples));
    return [
      { figure: 'token exchange p50 (JWKS cached)', value: median(times), unit: 'ms', target: { below: 10 }, note: `${samples} exchanges, p99 ${times[Math.floor(times.length * 0.99)].toFixed(1)} ms` },
      { figure: 'OIDC sign-in round trip p50', value: median(signIns), unit: 'ms', target: { below: 100 }, note: 'begin, provider redirect, callback (code exchanged, ID token checked, session)' },
    ];
  } finally {
    await s.close();
    await issuer.close();
  }
};

/** the whole redirect sign-in against a scripted provider on loopback, its discovery and keys cached after the first */
async function signInTimes(s: Awaited<ReturnType<typeof startServer>>, samples: number): Promise<number[]> {
  const idp = await startScriptedProvider();
  try {
    const settings = await s.api('GET', '/api/v1/settings');
    const provider = { name: 'bench', issuer: idp.issuer, clientId: idp.clientId, clientSecret: 'bench secret', mappings: [{ group: 'ops', role: 'operator' }] };
    const set = await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [provider] }, headers: { 'if-match': `"${settings.body.revision}"` } });
    if (set.status !== 200) throw new Error(set.text);
    const times: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      const t0 = performance.now();
      const done = await driveSignIn(s.url, 'bench');
      const t1 = performance.now();
      if (done.location !== '/') throw new Error(`sign-in ${i}: ${done.location}`);
      if (i >= 5) times.push(t1 - t0);
    }
    return times;
  } finally {
    await idp.close();
  }
}

await standalone(import.meta.url, federationBench);
