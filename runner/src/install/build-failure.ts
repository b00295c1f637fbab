// A build from source that ran and failed, with the record of what it ran (the recipe's commands,
// the Go, the rules), so whoever asked for it (a bisection's report) can say what was tried.
import type { ComponentBuild } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';

export class BuildFailedError extends RbError {
  /** The build record as far as it went: builtAt is when it failed. */
  readonly attempt: ComponentBuild;

  constructor(attempt: ComponentBuild, cause: unknown) {
    // The failure's own code, message and hint: callers see what they saw before.
    const known = cause instanceof RbError ? cause : null;
    super(known?.code ?? 'INSTALL_BUILD', errorMessage(cause), known?.hint, {
      cause,
      exitCode: known?.cliExitCode,
    });
    this.name = 'BuildFailedError';
    this.attempt = attempt;
  }
}
