// Where the templates plugin keeps which stack came from which template (provenance, input names, the base compose file).
import type { Db } from '../../sdk/index.ts';

export interface Provenance {
  stack: string;
  source: string;
  id: string;
  version: string;
  /** the names of the inputs; their values are the stack's variables */
  variables: string[];
  /** the inputs no answer shows (generated or typed secret) */
  hidden: string[];
  /** the template's compose file as deployed: the base of a three-way update */
  base: string;
}

type Row = { stack: string; source: string; template_id: string; version: string; variables: string[]; hidden: string[]; base: string };
const fromRow = (r: Row): Provenance => ({ stack: r.stack, source: r.source, id: r.template_id, version: r.version, variables: r.variables, hidden: r.hidden, base: r.base });

export class ProvenanceStore {
  constructor(private readonly db: Db) {}

  async get(stack: string): Promise<Provenance | null> {
    const { rows } = await this.db.query<Row>('SELECT * FROM template_stacks WHERE stack = $1', [stack]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async hidden(stack: string): Promise<string[]> {
    const { rows } = await this.db.query<{ hidden: string[] }>('SELECT hidden FROM template_stacks WHERE stack = $1', [stack]);
    return rows[0]?.hidden ?? [];
  }

  async put(tx: Db, p: Provenance): Promise<void> {
    await tx.query(
      `INSERT INTO template_stacks (stack, source, template_id, version, variables, hidden, base) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (stack) DO UPDATE SET source = $2, template_id = $3, version = $4, variables = $5, hidden = $6, base = $7`,
      [p.stack, p.source, p.id, p.version, p.variables, p.hidden, p.base]);
  }

  async remove(tx: Db, stack: string): Promise<void> {
    await tx.query('DELETE FROM template_stacks WHERE stack = $1', [stack]);
  }
}
