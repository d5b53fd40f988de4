// What the benchmarks share: the test machine's environment (.test-env) and one load run with autocannon.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { root } from '../../tests/helpers/harness.ts';

/** reads .test-env (written by scripts/test-env.sh) into process.env */
export function loadTestEnv(): void {
  for (const line of readFileSync(join(root, '.test-env'), 'utf8').split('\n')) {
    const m = /^export (\w+)=(.*)$/.exec(line);
    if (m) process.env[m[1]] ??= m[2];
  }
}

export async function load(url: string, headers: Record<string, string>, seconds = 10, connections = 32) {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}
