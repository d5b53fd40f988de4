// Carrying out one run in the engine: `exec` in the service's running container, or `run` in a one-off container of it; output kept, the timeout and a stop ending every process the run started.
import { randomBytes } from 'node:crypto';
import { PassThrough, type Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { HeadTail } from './output.ts';

/** the environment variable that marks a run's processes (and what they start) for the kill */
export const markerName = 'DOCKWRIGHT_TASK_RUN';
/** the label of a one-off container, with its run's id */
export const runLabel = 'dockwright.task-run';

export interface Execution {
  docker: Dockerode;
  /** the service's container: exec runs in it, run copies its image, environment, networks and volumes */
  container: Dockerode.ContainerInspectInfo;
  mode: 'exec' | 'run';
  command: string[] | string;
  runId: string;
  installationId: string;
  timeoutMs: number;
  graceMs: number;
  /** each chunk of output as it comes (the job's live log) */
  onOutput(chunk: Buffer): void;
  /** resolves when the run is to stop (a replacing run, the job canceled): the reason */
  stop: Promise<string>;
}

export interface Outcome {
  exitCode: number | null; timedOut: boolean; stopped: string | null; output: string;
  /** what went wrong ending it early (its processes may still run) */
  note?: string;
}

const argv = (command: string[] | string) => (typeof command === 'string' ? ['sh', '-c', command] : command);

/** every process carrying the marker signalled, through a second exec (busybox applets are enough) */
const killScript = `sig=$1; mark="${markerName}=$2"; n=0
for d in /proc/[0-9]*; do
  p=\${d#/proc/}
  [ "$p" = "$$" ] && continue
  if tr '\\0' '\\n' < "$d/environ" 2>/dev/null | grep -qxF "$mark"; then kill "-$sig" "$p" 2>/dev/null && n=$((n+1)); fi
done
echo "$n"`;

async function signalMarked(docker: Dockerode, containerId: string, marker: string, signal: 'TERM' | 'KILL'): Promise<void> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: ['sh', '-c', killScript, 'sh', signal, marker], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true }) as unknown as Duplex;
  stream.resume();
  await new Promise<void>((resolve) => { stream.once('end', resolve); stream.once('close', resolve); stream.once('error', () => resolve()); });
}

/** how the run ends early: the timeout, or a stop asked for */
function ending(x: Execution): { promise: Promise<{ timedOut: boolean; stopped: string | null }>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<{ timedOut: boolean; stopped: string | null }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true, stopped: null }), x.timeoutMs);
    void x.stop.then((reason) => resolve({ timedOut: false, stopped: reason }));
  });
  return { promise, clear: () => clearTimeout(timer) };
}

async function collect(stream: NodeJS.ReadableStream, docker: Dockerode, x: Execution, kept: HeadTail): Promise<void> {
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => { kept.add(chunk); x.onOutput(chunk); });
  docker.modem.demuxStream(stream, out, out);
  await new Promise<void>((resolve) => { stream.once('end', resolve); stream.once('close', resolve); stream.once('error', () => resolve()); });
}

/** `exec`: the command in the running container, its processes marked; the timeout or a stop sends TERM to them all, KILL after the grace */
async function runExec(x: Execution): Promise<Outcome> {
  const kept = new HeadTail();
  const marker = randomBytes(12).toString('hex');
  const exec = await x.docker.getContainer(x.container.Id).exec({ Cmd: argv(x.command), AttachStdout: true, AttachStderr: true, Env: [`${markerName}=${marker}`] });
  const stream = await exec.start({ hijack: true }) as unknown as Duplex;
  const done = collect(stream, x.docker, x, kept);
  const end = ending(x);
  const early = await Promise.race([done.then(() => null), end.promise]);
  end.clear();
  let note: string | undefined;
  const signal = (sig: 'TERM' | 'KILL') => signalMarked(x.docker, x.container.Id, marker, sig).catch((err: Error) => {
    note = `its processes could not be signalled (the container needs sh, tr and grep for that): ${err.message}`;
  });
  if (early) {
    await signal('TERM');
    const gone = await Promise.race([done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), x.graceMs))]);
    if (!gone) await signal('KILL');
    await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
    stream.destroy();
  }
  let exitCode: number | null = null;
  for (let i = 0; i < 40; i++) {
    const state = await exec.inspect().catch(() => null);
    if (!state || !state.Running) { exitCode = state?.ExitCode ?? null; break; }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { exitCode, timedOut: early?.timedOut ?? false, stopped: early?.stopped ?? null, output: kept.text(), ...(note ? { note } : {}) };
}

/** `run`: a one-off container of the service (its image as deployed, environment, networks and volumes; no ports, no hostname), removed afterwards */
async function runOneOff(x: Execution): Promise<Outcome> {
  const kept = new HeadTail();
  const c = x.container;
  const networks = Object.keys(c.NetworkSettings?.Networks ?? {});
  const [first, ...others] = networks;
  const created = await x.docker.createContainer({
    name: `dw-task-${x.runId}`,
    Image: c.Image,
    Entrypoint: c.Config.Entrypoint ?? undefined,
    Cmd: argv(x.command),
    Env: [...(c.Config.Env ?? []), `${markerName}=${x.runId}`],
    WorkingDir: c.Config.WorkingDir || undefined,
    User: c.Config.User || undefined,
    Labels: { [runLabel]: x.runId, 'dockwright.installation': x.installationId },
    HostConfig: {
      Binds: c.HostConfig.Binds ?? undefined,
      Mounts: (c.HostConfig as { Mounts?: Dockerode.MountSettings[] }).Mounts ?? undefined,
      NetworkMode: first ?? 'none',
    },
  });
  try {
    for (const net of others) await x.docker.getNetwork(net).connect({ Container: created.id });
    const stream = await created.attach({ stream: true, stdout: true, stderr: true });
    const done = collect(stream, x.docker, x, kept);
    await created.start();
    const end = ending(x);
    const early = await Promise.race([created.wait().then(() => null), end.promise]);
    end.clear();
    // docker stop: TERM to the first process, KILL after the grace, which ends every process of the container
    if (early) await created.stop({ t: Math.ceil(x.graceMs / 1000) }).catch(() => undefined);
    const { StatusCode } = await created.wait();
    await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    return { exitCode: StatusCode, timedOut: early?.timedOut ?? false, stopped: early?.stopped ?? null, output: kept.text() };
  } finally {
    await created.remove({ force: true, v: false }).catch(() => undefined);
  }
}

export function execute(x: Execution): Promise<Outcome> {
  return x.mode === 'exec' ? runExec(x) : runOneOff(x);
}
