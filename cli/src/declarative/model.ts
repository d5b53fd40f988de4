// The declarative format's shapes: a document (kind, name, spec, protected), a planned change, and what each kind provides to plan, apply, prune and export.
import type { Client } from '../client.ts';

export const kinds = ['stack', 'site', 'backup', 'alert-channel'] as const;
export type Kind = (typeof kinds)[number];

export interface Declared {
  kind: Kind;
  name: string;
  /** what the file wants; undefined for a protected entry that only says "leave it alone" */
  spec?: Record<string, unknown>;
  protected: boolean;
  /** the file it came from (references and composeFile are relative to its folder) */
  file: string;
}

export interface Change {
  kind: Kind;
  name: string;
  action: 'create' | 'update' | 'delete';
  fields: string[];
  /** performs it with If-Match on the state the plan read: a concurrent change is a conflict, never overwritten */
  apply(): Promise<void>;
}

export interface Listed { name: string; [key: string]: unknown }

export interface KindHandler {
  kind: Kind;
  /** the keys a spec may have */
  fields: readonly string[];
  /** what the server has, by name, with what plan and a delete need (one request where the API allows) */
  list(client: Client): Promise<Map<string, Listed>>;
  /** the change that makes the server match the declaration, or null */
  plan(client: Client, declared: Declared, resolve: Resolver, current: Listed | undefined): Promise<Change | null>;
  /** the delete of a resource no file declares (prune) */
  remove(client: Client, listed: Listed): Change;
  /** the declaration of a resource as the server has it (secrets as declared names without values) */
  export(client: Client, name: string): Promise<{ kind: Kind; name: string; spec: Record<string, unknown> }>;
}

/** turns a declared value (a literal, ${env:NAME}, ${file:path}) into the value to write; null/undefined stays (keep the server's) */
export type Resolver = (value: unknown, where: string) => string | null;
