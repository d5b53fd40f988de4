// The shapes of the platform rules: a rule, what it judges, what it reports, and what the stacks plugin tells it about the engine.
import type { Principal } from '../../../sdk/index.ts';
import type { LoadedCompose } from '../../docker/types.ts';

export interface RuleIssue { path: string; message: string }
export interface RuleInput {
  stack: string;
  loaded: LoadedCompose;
  /** the stack has a source tree (build contexts and relative bind mounts are allowed) */
  hasSource: boolean;
  /** that tree, when the compose file came from it (relative bind mounts resolve inside it) */
  workdir?: string;
  /** who asks (absent in jobs): a message names only resources this caller may see */
  principal?: Principal;
}
export interface PlatformRule {
  id: string;
  description: string;
  /** false: off unless an admin switches it on (`rules: { "<id>": true }`); on by default */
  enabled?: boolean;
  check(input: RuleInput): RuleIssue[] | Promise<RuleIssue[]>;
  /** judged again by every deploy of a saved file, not only at the save: what it looks at (the engine's networks, the names of other stacks' resources) may have changed since */
  atDeploy?: boolean;
  /** what is ignored when an admin switches the rule off: said as warnings (validate's and the deploy's), never dropped silently */
  whenOff?(input: RuleInput): RuleIssue[];
}
export interface RuleError extends RuleIssue { rule: string }

export interface RuleOptions {
  allowedBindRoots: readonly string[];
  /** what cap_add may add (Docker's default set by default: adding those again grants nothing) */
  allowedCapabilities: readonly string[];
  allowedNetworkDrivers: readonly string[];
  /** network driver_opts that cannot reach outside the stack's own network */
  allowedNetworkOptions: readonly string[];
  allowedVolumeDrivers: readonly string[];
  allowedLoggingDrivers: readonly string[];
  /** security_opt values, exactly as written */
  allowedSecurityOptions: readonly string[];
  /** sysctls by name */
  allowedSysctls: readonly string[];
  /** container runtimes (runtime:) by the engine's name for them */
  allowedRuntimes: readonly string[];
  /** IPAM drivers of the stack's own networks */
  allowedIpamDrivers: readonly string[];
  /** who holds these container names on the engine: a stack of this installation (never this one), another installation, or nobody Dockwright knows (null when the engine cannot say) */
  containerNamesHeld(stack: string, names: readonly string[]): Promise<{ name: string; holder: 'stack' | 'installation' | 'outside' }[] | null>;
  /** which of these volume or network names are held on the engine by another stack of this installation or by another installation (null when the engine cannot say) */
  resourcesHeld(stack: string, kind: 'volume' | 'network', names: readonly string[]): Promise<{ name: string; holder: 'stack' | 'installation' }[] | null>;
  /** which of these network names the engine resolves (by name, id or id prefix) to the edge's network or one of Docker's own (null when the engine cannot say) */
  reservedNetworks(names: readonly string[]): Promise<{ name: string; network: string; reserved: 'edge' | 'docker' }[] | null>;
  /** host ports published by other stacks' containers (null when the engine cannot say) */
  portsInUse(stack: string): Promise<{ project: string | null; hostPort: number; protocol: string }[] | null>;
  /** the stacks among these the caller may see: a message names no other */
  visibleStacks(principal: Principal | undefined, stacks: readonly string[]): Promise<Set<string>>;
  /** images the engine would fetch from a registry the outbound policy refuses (null when the engine cannot say what it has) */
  refusedImages(loaded: LoadedCompose): Promise<RuleIssue[] | null>;
}
