// Platform rules for compose files: each rule reports its own errors, with the path in the user's file; admins switch rules off per install.
import { problem } from '../../sdk/index.ts';
import { imageRules } from './rules/images.ts';
import { networkRules } from './rules/networks.ts';
import { securityRules } from './rules/security.ts';
import { sharedResourceRules } from './rules/shared-resources.ts';
import type { PlatformRule, RuleError, RuleInput, RuleOptions } from './rules/types.ts';
import { volumeRules } from './rules/volumes.ts';

export type { PlatformRule, RuleError, RuleInput, RuleIssue, RuleOptions } from './rules/types.ts';

/** Linux capabilities Docker grants every container unless dropped */
export const dockerDefaultCapabilities = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];
/**
 * The sysctls Kubernetes calls safe, and the ones the kernel keeps per network or IPC namespace (the engine refuses
 * those with the host's network or IPC namespace): a name ending in `*` allows those starting with what precedes it.
 */
export const safeSysctls = [
  'kernel.shm_rmid_forced', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.sem', 'fs.mqueue.*', 'net.*',
];
/** options that only restrict what a container may do */
export const safeSecurityOptions = ['no-new-privileges', 'no-new-privileges:true', 'no-new-privileges=true', 'no-new-privileges:false', 'no-new-privileges=false'];
export const safeNetworkOptions = [
  'com.docker.network.enable_ipv6', 'com.docker.network.bridge.enable_icc', 'com.docker.network.bridge.host_binding_ipv4', 'com.docker.network.driver.mtu', 'com.docker.network.container_iface_prefix', 'encrypted',
];

const composeValid: PlatformRule = {
  id: 'compose-valid', description: 'valid YAML that follows the Compose Specification',
  check: ({ loaded }) => loaded.errors.filter((e) => !e.limit).map(({ path, message }) => ({ path, message })),
};

/** the order rules run and report in (a file breaking several rules lists their errors in this order) */
const ruleOrder = [
  'compose-valid',
  'image-required',
  'no-privileged',
  'supported-build-options',
  'no-host-network',
  'no-edge-network',
  'no-docker-networks',
  'no-host-pid',
  'no-dangerous-capabilities',
  'allowed-security-options',
  'allowed-sysctls',
  'allowed-logging-drivers',
  'no-devices',
  'no-cgroup-parent',
  'no-oom-protection',
  'allowed-runtimes',
  'no-docker-socket',
  'allowed-bind-mounts',
  'no-host-volume-options',
  'allowed-volume-drivers',
  'allowed-network-drivers',
  'allowed-network-options',
  'stack-owned-resources',
  'no-external-resources',
  'own-resource-names',
  'allowed-ipam-drivers',
  'volumes-from-own-stack',
  'no-container-name',
  'container-name-available',
  'outbound-registry',
  'ports-available',
];

/** every rule of the platform, by topic in rules/, in ruleOrder */
export function builtInRules(opts: RuleOptions): PlatformRule[] {
  const byId = new Map([composeValid, ...imageRules(opts), ...securityRules(opts), ...networkRules(opts), ...volumeRules(opts), ...sharedResourceRules(opts)].map((r) => [r.id, r]));
  if (byId.size !== ruleOrder.length) throw new Error('every built-in rule has its place in ruleOrder');
  return ruleOrder.map((id) => byId.get(id)!);
}

/** a rule broken a thousand times is told about its first ones: at most 100 errors, the last saying how many more */
const shownPerRule = 100;

/**
 * runs every enabled rule; the errors name their rule. A file past one of the loader's limits was not (fully) read:
 * it is refused at once with a 422 problem, validate too, since no rule can judge what was never looked at.
 */
export async function checkRules(rules: readonly PlatformRule[], switches: Readonly<Record<string, boolean>>, input: RuleInput): Promise<RuleError[]> {
  const limits = input.loaded.errors.filter((e) => e.limit);
  if (limits.length) {
    throw problem(422, `the compose file is refused before the platform rules: ${limits.map((e) => e.message).join('; ')}`, {
      code: 'compose-refused', errors: limits.map((e) => ({ rule: 'compose-limits', path: e.path, message: e.message })),
    });
  }
  const active = rules.filter((r) => switches[r.id] ?? r.enabled !== false);
  for (const r of rules) {
    if (active.includes(r) || !r.whenOff) continue;
    const warnings = input.loaded.warnings;
    for (const w of r.whenOff(input)) if (!warnings.some((x) => x.path === w.path && x.message === w.message)) warnings.push(w);
  }
  const results = await Promise.all(active.map(async (r) => {
    const found = await r.check(input);
    if (found.length <= shownPerRule) return found.map((issue) => ({ rule: r.id, ...issue }));
    const shown: RuleError[] = found.slice(0, shownPerRule - 1).map((issue) => ({ rule: r.id, ...issue }));
    return [...shown, { rule: r.id, path: '', message: `… and ${found.length - shown.length} more` }];
  }));
  // a file that does not parse has nothing further worth reporting
  const invalid = results[active.findIndex((r) => r.id === 'compose-valid')] ?? [];
  return invalid.length && !input.loaded.raw.services ? invalid : results.flat();
}
