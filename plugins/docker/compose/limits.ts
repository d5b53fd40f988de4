// The bounds of one compose load: every way a few bytes of YAML can multiply into work or memory has a named limit, checked before the work is done.

/**
 * Generous for real projects, small enough that loading the worst file that fits stays a matter of milliseconds
 * (scripts/bench/compose-parse.ts measures it). A file beyond one of them is refused as a whole, naming the limit.
 */
export const composeLimits = Object.freeze({
  /** characters of compose text (the API's content limit; files from a source tree are held to it too): ten times the largest real-world files */
  maxLength: 256 * 1024,
  /** nesting of YAML collections, in the text and again once aliases are expanded */
  maxDepth: 64,
  /** YAML alias nodes (`*name`) in the file */
  maxAliases: 1_000,
  /** keys copied by YAML merges (`<<: *name`), each member of a merge list counting one */
  maxMergeKeys: 10_000,
  /** values (maps, lists and scalars) once aliases and merges are expanded */
  maxNodes: 50_000,
  /** characters of all strings once aliases are expanded and variables interpolated (32 variables of 64 KiB) */
  maxText: 2 * 1024 * 1024,
  /** nesting of `${…}` inside a default or alternative value */
  maxInterpolationDepth: 32,
  services: 1_000,
  networks: 100,
  volumes: 1_000,
  /** top-level secrets and configs together, and the bytes read from the source tree's files for them */
  secretsAndConfigs: 1_000,
  secretFileBytes: 8 * 1024 * 1024,
  /** containers of the whole file: the replicas of all services */
  containers: 2_000,
  /** port bindings of the whole file once ranges ("8000-8099") are expanded */
  ports: 10_000,
  /** volumes and tmpfs mounts of the whole file */
  mounts: 5_000,
  /** variables of one service's environment (env_file and environment together) */
  environmentPerService: 1_000,
  /** labels of one service, network or volume */
  labelsPerObject: 1_000,
  /** env_file entries of the whole file, and the bytes read from them */
  envFiles: 100,
  envFileBytes: 1024 * 1024,
  /** other compose files of the source tree read through `extends` and `include` (each held to maxLength) */
  files: 50,
  /** services in one chain of `extends` */
  extendsDepth: 32,
});

export type ComposeLimit = keyof typeof composeLimits;

/** the one error that stops a load (thrown by Issues, caught by loadCompose): a limit was passed at `path` */
export class LimitExceeded extends Error {
  constructor(readonly limit: ComposeLimit, readonly path: string, message: string) {
    super(message);
  }
}
