import type { z } from 'zod';
// The issues module alone: every command loads this file, and the whole schema graph is not cheap.
import { describeIssues } from '@runtime-bench/schemas/issues';

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

/** Thrown inside an iteration when the run was interrupted; never recorded as a runtime error. */
export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'InterruptedError';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How a failed parse is reported: the error code, an optional first line, and the fix. */
export interface FriendlyParseError {
  code: string;
  /** A line before the field lines, e.g. "invalid config". */
  title?: string;
  hint?: string;
}

/**
 * Parses `value` with `schema`, or throws an RbError with one line per problem, each naming
 * `where` and the field (`<where>: <field>: <problem>`). The one path from a zod schema to a
 * user-facing error (Astro Starlight's parseWithFriendlyErrors), so every input reads the same.
 */
export function parseWithFriendlyErrors<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
  error: FriendlyParseError,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = describeIssues(parsed.error, where);
  throw new RbError(error.code, [...(error.title ? [error.title] : []), ...lines].join('\n'), error.hint);
}
