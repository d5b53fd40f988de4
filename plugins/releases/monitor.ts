// The watch after an update: the updated services' containers must keep running, not restart and not turn unhealthy for the monitor window.
import type { DockerRuntime } from '../docker/api.ts';
import { runningContainers } from './running.ts';

const pollMs = 500;
const logLines = 20;

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal.aborted) { reject(signal.reason); return; }
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
});

export interface MonitorFailure { reason: string; container: string | null }

/**
 * null when every container of these services stayed up for `seconds` after it started (a replacement the runtime already
 * watched for update_config.monitor is not watched twice); else what went wrong first and in which container
 */
export async function watchServices(runtime: DockerRuntime, stack: string, services: readonly string[], seconds: number, signal: AbortSignal): Promise<MonitorFailure | null> {
  const first = await runningContainers(runtime, stack);
  const restarts = new Map<string, number>();
  let until = 0;
  for (;;) {
    const now = await runningContainers(runtime, stack);
    for (const service of services) {
      const ids = (now.get(service) ?? []).map((c) => c.id);
      if (!ids.length) return { reason: `${service} has no container any more`, container: first.get(service)?.[0]?.id ?? null };
      for (const id of ids) {
        const info = await runtime.docker.getContainer(id).inspect().catch(() => null);
        if (!info) return { reason: `a container of ${service} was removed`, container: null };
        const state = info.State;
        if (!restarts.has(id)) {
          restarts.set(id, info.RestartCount ?? 0);
          until = Math.max(until, (Date.parse(state.StartedAt) || Date.now()) + seconds * 1000);
        }
        if (state.Restarting || (info.RestartCount ?? 0) > restarts.get(id)!) return { reason: `a container of ${service} restarted (it had exited with code ${state.ExitCode})`, container: id };
        if (!state.Running) return { reason: `a container of ${service} exited with code ${state.ExitCode}`, container: id };
        if (state.Health?.Status === 'unhealthy') return { reason: `a container of ${service} turned unhealthy`, container: id };
      }
    }
    if (Date.now() >= until) return null;
    await sleep(Math.min(pollMs, until - Date.now()), signal);
  }
}

/** the container's last log lines (stdout and stderr), for the job's error */
export async function lastLines(runtime: DockerRuntime, id: string): Promise<string[]> {
  const raw = await runtime.docker.getContainer(id).logs({ stdout: true, stderr: true, tail: logLines, follow: false }).catch(() => null) as Buffer | null;
  if (!raw) return [];
  let text = '';
  // the engine multiplexes the two streams in frames (an 8-byte header each) unless the container has a TTY
  if (raw.length >= 8 && raw[0] <= 2 && raw[1] === 0 && raw[2] === 0 && raw[3] === 0) {
    for (let at = 0; at + 8 <= raw.length;) {
      const size = raw.readUInt32BE(at + 4);
      text += raw.subarray(at + 8, at + 8 + size).toString('utf8');
      at += 8 + size;
    }
  } else {
    text = raw.toString('utf8');
  }
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter(Boolean).slice(-logLines);
}
