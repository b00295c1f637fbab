// Every exit status the CLI gives, in one table: cli.ts maps errors to them, the commands that end
// with a status of their own name it from here, and `--help` prints the table.

export interface ExitCode {
  code: number;
  meaning: string;
}

export const EXIT = {
  ok: { code: 0, meaning: 'success (`run`: the result is complete and every benchmark measured)' },
  error: {
    code: 1,
    meaning: 'an error the message explains (a command failed, `check --fail-on-regression` found one)',
  },
  usage: {
    code: 2,
    meaning: 'bad usage, flag, config, result or data file: the message names it and the fix',
  },
  benchmarkFailed: {
    code: 3,
    meaning:
      '`run`/`sweep`: a benchmark failed or was invalid (error rate above its threshold); the result is still written',
  },
  hostNotReady: { code: 4, meaning: '`doctor`: a check failed; each FAIL line says the fix' },
  endpointDead: {
    code: 69,
    meaning: '`run` stopped because its CRI endpoint died: the partial result is written as incomplete',
  },
  internal: { code: 70, meaning: 'an internal error (a bug: please report it with the trace printed)' },
  interrupted: {
    code: 130,
    meaning: 'interrupted by SIGINT (a run writes its partial result as incomplete)',
  },
  terminated: { code: 143, meaning: 'stopped by SIGTERM (a run writes its partial result as incomplete)' },
} as const satisfies Record<string, ExitCode>;

/** The exit-code table as `--help` prints it. */
export function exitCodesHelp(): string {
  const rows = Object.values(EXIT).map((e) => `  ${String(e.code).padStart(3)}  ${e.meaning}`);
  return `\nExit codes:\n${rows.join('\n')}`;
}
