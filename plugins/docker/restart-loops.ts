// Container alerts from the engine's events: exits, starts, restart loops and their end (steady), health changes of this installation's containers.
import type { ContainerInfo } from 'dockerode';
import { bareName, isOurs, label, servingRole } from './labels.ts';
import type { ContainerEvent } from './live-table.ts';

export interface ContainerAlertOptions {
  /** told container.exited, .started, .restarting, .steady, .healthy and .unhealthy (the kernel's event bus) */
  emit(name: string, payload: Record<string, unknown>): void;
  /** whose containers are reported */
  installation: string;
  /** this many starts of one container within restartLoopWindowMs is a restart loop */
  restartLoopCount?: number;
  restartLoopWindowMs?: number;
  /** a container reported as restarting that then stays running this long is reported steady */
  steadyAfterMs?: number;
}

export class ContainerAlerts {
  readonly #opts: ContainerAlertOptions;
  readonly #loopCount: number;
  readonly #loopWindowMs: number;
  readonly #steadyAfterMs: number;
  /** containers a kill was sent to: their next death is expected (a stop), not worth an alert */
  readonly #killed = new Set<string>();
  /** when each container started within the loop window */
  readonly #starts = new Map<string, number[]>();
  /** containers reported as restarting, with the timer that reports them steady once they stay up (cleared by their next death) */
  readonly #looping = new Map<string, NodeJS.Timeout | undefined>();

  constructor(opts: ContainerAlertOptions) {
    this.#opts = opts;
    this.#loopCount = opts.restartLoopCount ?? 5;
    this.#loopWindowMs = opts.restartLoopWindowMs ?? 300_000;
    this.#steadyAfterMs = opts.steadyAfterMs ?? 60_000;
  }

  /** an event of the stream; `known`: the container's entry in the live table before the event, for its labels and name */
  observe({ id, action, detail, attrs }: ContainerEvent, known: ContainerInfo | undefined): void {
    const labels = known?.Labels ?? attrs;
    if (!isOurs(labels, this.#opts.installation)) return;
    const who = { stack: labels[label.project], service: labels[label.service] ?? null, container: attrs.name ?? bareName(known?.Names ?? []), id };
    const emit = this.#opts.emit;
    if (action === 'kill') {
      this.#killed.add(id);
    } else if (action === 'die') {
      this.#cancelSteady(id);
      // a start-first successor that died before it took over, or an old container set aside, serves nobody: its deploy's job says what happened
      const expected = this.#killed.delete(id) || servingRole(who.container) !== 'serving';
      if (!expected && attrs.exitCode !== undefined && attrs.exitCode !== '0') emit('container.exited', { ...who, exitCode: Number(attrs.exitCode) });
    } else if (action === 'start' || action === 'restart') {
      const now = Date.now();
      const recent = [...(this.#starts.get(id) ?? []), now].filter((t) => now - t < this.#loopWindowMs);
      this.#starts.set(id, recent);
      emit('container.started', who);
      if (recent.length >= this.#loopCount) {
        emit('container.restarting', { ...who, restarts: recent.length });
        if (!this.#looping.has(id)) this.#looping.set(id, undefined);
      }
      if (this.#looping.has(id)) this.#awaitSteady(id, who);
    } else if (action === 'health_status' && (detail === 'healthy' || detail === 'unhealthy')) {
      emit(`container.${detail}`, who);
    } else if (action === 'destroy') {
      this.#cancelSteady(id);
      this.#looping.delete(id);
      this.#killed.delete(id);
      this.#starts.delete(id);
    }
  }

  /** no timer left behind */
  stop(): void {
    for (const timer of this.#looping.values()) clearTimeout(timer);
    this.#looping.clear();
  }

  /** a looping container that stays up steadyAfterMs from now is reported steady, and its loop is over */
  #awaitSteady(id: string, who: Record<string, unknown>): void {
    this.#cancelSteady(id);
    const steady = setTimeout(() => {
      this.#looping.delete(id);
      this.#starts.delete(id);
      this.#opts.emit('container.steady', { ...who, upForMs: this.#steadyAfterMs });
    }, this.#steadyAfterMs);
    steady.unref();
    this.#looping.set(id, steady);
  }

  /** a looping container died (or is gone): it is not steady yet */
  #cancelSteady(id: string): void {
    if (!this.#looping.has(id)) return;
    clearTimeout(this.#looping.get(id));
    this.#looping.set(id, undefined);
  }
}
