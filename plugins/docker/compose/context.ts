// What the loader knows while it reads one service: the project, its source tree and variables, the top-level networks, volumes, secrets and configs, and where problems go.
import type { Issues } from './issues.ts';
import type { NormalizedFileObject, NormalizedNetwork, NormalizedVolume } from './model.ts';

export interface ServiceContext {
  project: string;
  workdir?: string;
  variables: Record<string, string>;
  networks: Map<string, NormalizedNetwork>;
  volumes: Map<string, NormalizedVolume>;
  usedNetworks: Set<string>;
  usedVolumes: Set<string>;
  /** the top-level secrets and configs (null: declared, but unusable) */
  secrets: ReadonlyMap<string, NormalizedFileObject | null>;
  configs: ReadonlyMap<string, NormalizedFileObject | null>;
  issues: Issues;
}
