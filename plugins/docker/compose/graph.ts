// The cycle search of the compose loader (depends_on between services, extends between services of the project's files), written once.

/**
 * Every cycle reachable from `roots` through `next`, each once, as the path that comes back to its first node
 * (`a → b → a`). Depth-first with an explicit stack: a chain of a thousand nodes is no deeper for the call stack than one.
 * `next` is asked once per node.
 */
export function cycles(roots: Iterable<string>, next: (node: string) => readonly string[]): string[][] {
  const state = new Map<string, 'visiting' | 'done'>();
  const edges = new Map<string, readonly string[]>();
  const found: string[][] = [];
  const reported = new Set<string>();
  const chain: string[] = [];
  const stack: { node: string; next: number }[] = [];
  const enter = (node: string) => {
    state.set(node, 'visiting');
    edges.set(node, next(node));
    chain.push(node);
    stack.push({ node, next: 0 });
  };
  for (const root of roots) {
    if (state.has(root)) continue;
    enter(root);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const to = edges.get(top.node)![top.next++];
      if (to === undefined) {
        state.set(top.node, 'done');
        stack.pop();
        chain.pop();
      } else if (state.get(to) === 'visiting') {
        const cycle = [...chain.slice(chain.lastIndexOf(to)), to];
        const key = [...new Set(cycle)].sort().join('\u0000');
        if (!reported.has(key)) {
          reported.add(key);
          found.push(cycle);
        }
      } else if (!state.has(to)) {
        enter(to);
      }
    }
  }
  return found;
}
