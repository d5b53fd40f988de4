// In-process events (deploy failed, container died, …): listeners run after the emitter's work, and a failing listener is logged, never thrown back.
import type { EventsApi, Logger } from '../../sdk/index.ts';

export function createEvents(log: Logger): EventsApi {
  const listeners = new Map<string, ((payload: Record<string, unknown>) => void | Promise<void>)[]>();
  return {
    emit(name, payload) {
      for (const listener of listeners.get(name) ?? []) {
        queueMicrotask(() => {
          Promise.resolve().then(() => listener(payload)).catch((err) => log.error({ err, event: name }, 'event listener failed'));
        });
      }
    },
    on(name, listener) {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
    },
  };
}
