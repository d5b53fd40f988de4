// The ownership labels that mark what a project created, and the names Dockwright gives containers.
export const label = {
  managed: 'dockwright.managed',
  project: 'dockwright.project',
  service: 'dockwright.service',
  number: 'dockwright.number',
  configHash: 'dockwright.config-hash',
} as const;

export const labelsFor = {
  project: (project: string): Record<string, string> => ({ [label.managed]: 'true', [label.project]: project }),
  container: (project: string, service: string, number: number, hash: string): Record<string, string> => ({
    [label.managed]: 'true', [label.project]: project, [label.service]: service, [label.number]: String(number), [label.configHash]: hash,
  }),
};

/** label filters for listContainers/listNetworks/listVolumes */
export const filterFor = {
  managed: (): { label: string[] } => ({ label: [`${label.managed}=true`] }),
  project: (project: string): { label: string[] } => ({ label: [`${label.managed}=true`, `${label.project}=${project}`] }),
};

export function containerName(project: string, service: string, number: number, explicit: string | null): string {
  return explicit ?? `${project}-${service}-${number}`;
}

// A container being replaced is stopped and set aside under this name until its successor runs; a crash in between leaves it for reconcile.
const replacedMark = /-dwold-[0-9a-f]{12}$/;
export const replacedName = (name: string, id: string): string => `${name}-dwold-${id.slice(0, 12)}`;
export const isReplacedName = (name: string): boolean => replacedMark.test(name);
export const originalName = (name: string): string => name.replace(replacedMark, '');

/** docker list entries name containers "/name" */
export const bareName = (names: readonly string[] | undefined): string => (names?.[0] ?? '').replace(/^\//, '');
