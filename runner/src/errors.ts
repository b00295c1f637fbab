/**
 * Errors a user can act on: a stable code, a message that names the input, and a hint that says
 * the fix. The CLI prints these without a stack trace; anything else is a bug and keeps its trace.
 */
export class RbError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  /** Process exit code the CLI uses for this error (default: 2 for usage/config errors, 1 otherwise). */
  readonly cliExitCode: number | undefined;

  constructor(
    code: string,
    message: string,
    hint?: string,
    options?: { cause?: unknown; exitCode?: number },
  ) {
    super(message, options);
    this.name = 'RbError';
    this.code = code;
    this.hint = hint;
    this.cliExitCode = options?.exitCode;
  }
}

/** A child process that failed: the command, its arguments, exit code and the tail of stderr. */
export class CommandError extends RbError {
  readonly command: string;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(
    command: string,
    args: readonly string[],
    exitCode: number | null,
    stderr: string,
    signal?: string | null,
  ) {
    const tail = stderr.trim().split('\n').slice(-5).join('\n');
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    super('COMMAND_FAILED', `${command} ${args.join(' ')} ${how}${tail ? `:\n${tail}` : ''}`);
    this.name = 'CommandError';
    this.command = command;
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
