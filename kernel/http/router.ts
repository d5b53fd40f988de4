// Finding a request's route: exact paths in a map (no allocation, and they win over patterns), `:param` paths through polka's router.
import polka from 'polka';

/** polka's shape of a match: what `find` returns to its request handler */
export interface Found<H> { handlers: H; params: Record<string, string> }

/** the params of every exact path: one frozen object, not one per request */
export const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** one trailing slash is forgiven (`/api/v1/me/` is `/api/v1/me`), as it always was */
function normal(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export class Router<H> {
  private readonly exact = new Map<string, H>();
  /** the design card's router: polka (its Trouter) matches the paths with parameters */
  private readonly patterns = polka();

  add(method: string, path: string, handler: H): void {
    const key = `${method} ${normal(path)}`;
    if (!path.includes('/:')) {
      if (!this.exact.has(key)) this.exact.set(key, handler);
      return;
    }
    this.patterns.add(method as never, normal(path), handler as never);
  }

  find(method: string, rawPath: string): Found<H> | null {
    const path = normal(rawPath);
    const handlers = this.exact.get(`${method} ${path}`);
    if (handlers !== undefined) return { handlers, params: noParams };
    const found = this.patterns.find(method as never, path) as false | { params: Record<string, string>; handlers: [H] };
    if (!found) return null;
    // a parameter is never empty: `/stacks//deploy` names no stack
    for (const k in found.params) if (found.params[k] === '') return null;
    return { handlers: found.handlers[0], params: found.params };
  }
}
