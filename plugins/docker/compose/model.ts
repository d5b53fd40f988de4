// The compose model's types for secrets and configs: the top-level definitions and the services' references to them.

/** a top-level secret or config (compose-go calls both file objects) */
export interface NormalizedFileObject {
  kind: 'secret' | 'config';
  /** the key under the top-level `secrets` or `configs` */
  key: string;
  /** external: the name of the existing swarm secret or config (`name:`, else the key); otherwise `name:` or `<project>_<key>` */
  name: string;
  external: boolean;
  /** where the content comes from */
  source: 'file' | 'environment' | 'content' | 'external';
  /** file: the path as written in the compose file; environment: the variable's name; else null */
  from: string | null;
  /** the bytes, read when asked: a function, so a model that is serialized (an answer, a log line) never carries them; null when external, or when `environment` names a variable that is not set */
  content: (() => Buffer) | null;
  labels: Record<string, string>;
}

/** a service's use of a secret or config: a read-only file in its containers */
export interface FileReference {
  /** the key of the top-level secret or config */
  source: string;
  /** absolute path in the container: secrets default to /run/secrets/<source>, configs to /<source> */
  target: string;
  /** numeric owner of the file in the container; null: the file's owner on the host is kept (the user Dockwright runs as) */
  uid: string | null;
  gid: string | null;
  /** permission bits; 0o444 unless the file says otherwise */
  mode: number;
}
