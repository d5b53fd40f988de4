// Small async helpers of the docker plugin: a concurrency limit and an abortable sleep.
import PQueue from 'p-queue';

/** runs at most `n` of the given functions at a time (a p-queue of that width) */
export function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  const queue = new PQueue({ concurrency: n });
  return (fn) => queue.add(fn, { throwOnTimeout: true });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
