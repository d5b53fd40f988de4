// Benchmark (not a test): loading and judging the costliest compose files (tests/fixtures/compose-worst.ts), parse and platform rules timed apart.
// Run with `npm run bench:compose-parse`; no database or engine needed (the port and registry rules are given an empty engine).
import { loadCompose } from '../../plugins/docker/compose/load.ts';
import { builtInRules, checkRules, dockerDefaultCapabilities, safeNetworkOptions, safeSecurityOptions, safeSysctls } from '../../plugins/stacks/rules.ts';
import { worstInputs } from '../../tests/fixtures/compose-worst.ts';

const rounds = Number(process.env.ROUNDS ?? 15);
const rules = builtInRules({
  allowedBindRoots: [], allowedCapabilities: dockerDefaultCapabilities, allowedSecurityOptions: safeSecurityOptions, allowedSysctls: safeSysctls,
  allowedNetworkDrivers: ['bridge', 'overlay'], allowedNetworkOptions: safeNetworkOptions, allowedVolumeDrivers: ['local'], allowedLoggingDrivers: ['json-file', 'local', 'none'],
  allowedRuntimes: ['runc'], allowedIpamDrivers: ['default'],
  portsInUse: async () => [],
  visibleStacks: async (_, stacks) => new Set(stacks),
  containerNamesHeld: async () => [],
  resourcesHeld: async () => [],
  reservedNetworks: async () => [],
  refusedImages: async () => [],
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => x.toFixed(1).padStart(7);
/** CPU time of this process: on a machine shared with other work, closer to the cost itself than wall time */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

console.log(`compose load (parse, interpolate, normalize) and platform rules; ${rounds} rounds after one warm-up, milliseconds (load average ${(await import('node:os')).loadavg()[0].toFixed(1)})`);
console.log(`${'size'.padStart(8)} ${'load p50'.padStart(8)} ${'max'.padStart(7)} ${'rules p50'.padStart(9)} ${'total max'.padStart(9)} ${'cpu p50'.padStart(7)}  input → outcome`);
for (const input of worstInputs()) {
  const loads: number[] = [];
  const judged: number[] = [];
  const totals: number[] = [];
  const cpu: number[] = [];
  let outcome = '';
  for (let round = 0; round <= rounds; round++) {
    const c0 = cpuMs();
    const t0 = performance.now();
    const loaded = loadCompose({ name: 'bench', compose: input.content, variables: input.variables ?? {} });
    const t1 = performance.now();
    try {
      const errors = await checkRules(rules, {}, { stack: 'bench', loaded, hasSource: false });
      outcome = errors.length ? `${errors.length} errors (${errors[0].rule}: ${errors[0].message.slice(0, 60)})` : 'accepted';
    } catch (err) {
      outcome = `refused: ${(err as { errors?: { message: string }[] }).errors?.[0]?.message ?? String(err)}`;
    }
    const t2 = performance.now();
    const c1 = cpuMs();
    if (round === 0) continue;
    cpu.push(c1 - c0);
    loads.push(t1 - t0);
    judged.push(t2 - t1);
    totals.push(t2 - t0);
  }
  console.log(`${String(input.content.length).padStart(8)} ${ms(median(loads))}  ${ms(Math.max(...loads))} ${ms(median(judged)).padStart(9)} ${ms(Math.max(...totals)).padStart(9)} ${ms(median(cpu))}  ${input.name} → ${outcome.slice(0, 110)}`);
}
