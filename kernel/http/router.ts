// Finding a request's route: exact paths in a map, `:param` paths by segments, both looked up per method without allocating for a miss.
export interface Found<H> { handler: H; params: Record<string, string> }

interface Pattern<H> { segments: string[]; names: (string | null)[]; handler: H }

/** the params of every exact path: one frozen object, not one per request */
export const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** one trailing slash is forgiven (`/api/v1/me/` is `/api/v1/me`), as it always was */
function normal(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export class Router<H> {
  private readonly exact = new Map<string, H>();
  private readonly patterns = new Map<string, Pattern<H>[]>();

  add(method: string, path: string, handler: H): void {
    const segments = normal(path).split('/');
    const names = segments.map((s) => (s.startsWith(':') ? s.slice(1) : null));
    if (names.every((n) => n === null)) {
      if (!this.exact.has(`${method} ${normal(path)}`)) this.exact.set(`${method} ${normal(path)}`, handler);
      return;
    }
    const list = this.patterns.get(method) ?? [];
    list.push({ segments, names, handler });
    this.patterns.set(method, list);
  }

  find(method: string, rawPath: string): Found<H> | null {
    const path = normal(rawPath);
    const handler = this.exact.get(`${method} ${path}`);
    if (handler !== undefined) return { handler, params: noParams };
    const list = this.patterns.get(method);
    if (!list) return null;
    const parts = path.split('/');
    for (const p of list) {
      if (p.segments.length !== parts.length) continue;
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) ok = p.names[i] !== null ? parts[i] !== '' : p.segments[i] === parts[i];
      if (!ok) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < parts.length; i++) if (p.names[i] !== null) params[p.names[i]!] = parts[i];
      return { handler: p.handler, params };
    }
    return null;
  }
}
