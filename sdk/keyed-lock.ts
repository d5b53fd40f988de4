// One operation per key at a time in this process (a keyed promise chain): what plugins use to serialize work per resource.
export type KeyedLock = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

export function keyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      // the map holds only chains still in use, so it does not grow with every stack ever touched
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
