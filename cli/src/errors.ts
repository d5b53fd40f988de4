// The outcomes dw ends with (SPEC: 0 success, 1 the action failed, 2 usage or a refused request, 3 timed out) and the error that carries one.
export const exitCodes = { ok: 0, failed: 1, refused: 2, timedOut: 3 } as const;
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** an ending with a message for the user, what to do next, and the exit code */
export class CliError extends Error {
  constructor(message: string, readonly code: ExitCode = exitCodes.refused, readonly hint?: string, readonly details?: unknown) {
    super(message);
  }
}

export const usageError = (message: string, hint = 'run `dw help` for the verbs and their options') => new CliError(message, exitCodes.refused, hint);
