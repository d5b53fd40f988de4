// A write refused because the resource changed since dw read it (412, or a re-read that differs): a conflict error that says nothing was overwritten.
import { RequestRefused } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';

export function conflict(kind: string, name: string, what: string): CliError {
  return new CliError(`conflict: ${kind} ${name} changed on the server since dw read it (${what}); dw wrote nothing over it`, exitCodes.refused,
    'run `dw plan` again to see the server\'s change, then apply again');
}

/** runs a write; a 412 (stale If-Match) becomes a conflict error */
export async function guarded<T>(kind: string, name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof RequestRefused && err.status === 412) throw conflict(kind, name, err.problem.currentRevision !== undefined ? `now revision ${err.problem.currentRevision}` : (err.problem.detail ?? 'If-Match refused'));
    throw err;
  }
}
