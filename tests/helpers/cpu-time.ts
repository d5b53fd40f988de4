// Timing a call by the CPU this process spends on it: on a test machine shared with other work, wall time measures the machine, CPU time measures the code.
import { cpus, loadavg } from 'node:os';

export async function cpuTimed<T>(run: () => Promise<T>): Promise<T & { cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const used = process.cpuUsage(cpu);
  return Object.assign(result as object, { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started }) as T & { cpuMs: number; wallMs: number };
}

/** how many times over the machine's cores are booked (at least 1): a wall-clock bound is stretched by it */
export const contention = (): number => Math.max(1, loadavg()[0] / cpus().length);
