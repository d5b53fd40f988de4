// V8 told to favour memory while the service answers no request, and speed while it does.
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';

/** idle: no request began during a whole tick */
const tickMs = 1000;

/**
 * While idle, V8 favours memory (--optimize-for-size): its memory reducer gives back what a burst of work used within
 * seconds of the burst, whatever the rate the burst ended at (else a busy end puts that off by another 8 s), and its
 * heap grows by less. The first request after idling switches back to speed: left on under load, that flag cut
 * bench:kernel's requests per second by about a third. Node started with --no-optimize-for-size favours speed throughout.
 */
export function favourMemoryWhenIdle(server: Server): void {
  if (process.execArgv.includes('--no-optimize-for-size')) return;
  let requests = 0;
  let seen = 0;
  let idle = true;
  setFlagsFromString('--optimize-for-size');
  server.on('request', () => {
    requests++;
    if (!idle) return;
    idle = false;
    setFlagsFromString('--no-optimize-for-size');
  });
  setInterval(() => {
    if (!idle && requests === seen) {
      idle = true;
      setFlagsFromString('--optimize-for-size');
    }
    seen = requests;
  }, tickMs).unref();
}
