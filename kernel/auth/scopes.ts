// The scope catalogue: every scope a plugin declared, the least role that may hold it, and effective-scope arithmetic.
import { compareText, type Role, type ScopeDef } from '../../sdk/index.ts';

const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export class ScopeCatalogue {
  private readonly scopes = new Map<string, ScopeDef & { owner: string }>();

  define(owner: string, defs: Record<string, ScopeDef>): void {
    for (const [name, def] of Object.entries(defs)) {
      if (!/^([a-z][a-z0-9-]*:[a-z][a-z0-9-]*|admin)$/.test(name)) throw new Error(`${owner}: scope "${name}" must look like <area>:<action>`);
      const existing = this.scopes.get(name);
      if (existing) throw new Error(`${owner}: scope "${name}" is already defined by ${existing.owner}`);
      this.scopes.set(name, { ...def, owner });
    }
  }

  has(name: string): boolean {
    return this.scopes.has(name);
  }

  list(): { name: string; description: string; role: Role }[] {
    return [...this.scopes].map(([name, d]) => ({ name, description: d.description, role: d.role })).sort((a, b) => compareText(a.name, b.name));
  }

  /** token scopes (with `*` expanded) limited to what the owner's role may hold. */
  effective(tokenScopes: readonly string[], role: Role): string[] {
    const wanted = tokenScopes.includes('*') ? [...this.scopes.keys()] : tokenScopes;
    return wanted.filter((s) => {
      const def = this.scopes.get(s);
      return def !== undefined && rank[role] >= rank[def.role];
    });
  }

  /** the names in `requested` that are neither `*` nor a known scope. */
  unknown(requested: readonly string[]): string[] {
    return requested.filter((s) => s !== '*' && !this.scopes.has(s));
  }
}
