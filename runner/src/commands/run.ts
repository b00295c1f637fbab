import type { Command } from 'commander';
import type { Config, RunResult } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { sanitizeTerminal } from '../format/escape.ts';
import type { ProgressEvent } from '../run/orchestrate.ts';
import { stopExitCode } from '../run/stop.ts';
import { formatTimeLeft, timeLeftTracker } from '../run/time-left.ts';
import type { RunSession, RunSessionOptions } from '../session/session.ts';

export { EXIT_ENDPOINT_DEAD } from '../run/stop.ts';

interface RunOpts {
  config: string;
  out?: string;
  dataDir?: string;
  json?: boolean;
  table?: boolean;
}

/** `--out r.json` with several result documents (a cluster's nodes): r.<node>.json each. */
export function outPathFor(out: string, node: string, nodes: number): string {
  if (nodes === 1) return out;
  return /\.json$/.test(out) ? out.replace(/\.json$/, `.${node}.json`) : `${out}.${node}.json`;
}

/** The node a cluster-mode result ran on, or null for a CRI-level result. */
const nodeOf = (result: RunResult): string | null => result.targets[0]?.kubernetes?.node ?? null;

/**
 * How progress is shown: a live line with the time left on a terminal; in GitHub Actions one line
 * per stage (a log there is read afterwards, not watched); elsewhere (CI logs, tests that wait for
 * "run 1/50: ok") one line per repetition.
 */
export type ProgressMode = 'tty' | 'stages' | 'lines';

export function progressModeOf(tty: boolean, env: NodeJS.ProcessEnv): ProgressMode {
  if (tty) return 'tty';
  return env.GITHUB_ACTIONS === 'true' ? 'stages' : 'lines';
}

export function progressPrinter(
  mode: ProgressMode,
  write: (text: string) => void = (text) => process.stderr.write(text),
  now: () => number = () => performance.now(),
): (e: ProgressEvent) => void {
  const left = timeLeftTracker();
  return (e) => {
    left.observe(e, now());
    const ms = left.leftMs();
    const eta = ms === null ? '' : `  ${formatTimeLeft(ms)}`;
    // Target ids come from the config: never let them drive the terminal.
    const what = sanitizeTerminal(
      `${e.target}  ${e.benchmark}  run ${e.repetition}/${e.repetitions}${e.warmup ? ' (warm-up)' : ''}`,
    );
    if (mode === 'stages') {
      if (!e.outcome && e.stageDone === 0)
        write(sanitizeTerminal(`${e.stage}: ${e.stageTotal} repetitions${eta}`) + '\n');
      if (e.outcome?.failure) write(`${what}: error: ${sanitizeTerminal(e.outcome.failure)}\n`);
      if (e.outcome && e.stageDone === e.stageTotal)
        write(sanitizeTerminal(`${e.stage}: done${e.done < e.total ? eta : ''}`) + '\n');
      return;
    }
    const tty = mode === 'tty';
    if (!e.outcome) {
      if (tty) write(`\r\x1b[2K${what}${eta}`);
      return;
    }
    if (e.outcome.failure)
      write(`${tty ? '\r\x1b[2K' : ''}${what}: error: ${sanitizeTerminal(e.outcome.failure)}\n`);
    else if (!tty) write(`${what}: ok\n`);
  };
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .requiredOption('--config <file>', 'runtime-bench YAML config')
    .option('--out <file>', 'result file to write')
    .option('--data-dir <dir>', 'write the result into <dir>/runs/<yyyy>/<mm>/<dd>/<run-id>.json instead')
    .option('--json', 'quiet mode for machines: no progress or table; print the result JSON on stdout')
    .option('--table', 'print the full table (every benchmark × target × metric) before the verdict')
    .action(async (opts: RunOpts) => {
      // Loaded when the command runs, not when the CLI starts (see commands/index.ts).
      const { loadConfig } = await import('../config/load.ts');
      if (!opts.out && !opts.dataDir)
        throw new RbError(
          'USAGE_RUN_OUTPUT',
          'run needs --out FILE or --data-dir DIR',
          'e.g. --out /tmp/result.json',
        );
      if (opts.out && opts.dataDir)
        throw new RbError('USAGE_RUN_OUTPUT', 'give either --out or --data-dir, not both');
      const config = await loadConfig(opts.config);
      const results = await runAndWrite(config, opts, opts.config);
      // After the result is written and reported: a failed benchmark fails the command.
      (await import('../results/failures.ts')).throwIfBenchmarksFailed(results);
    });
}

/** The CLI's session options: stack and run lines on stderr (clearing a TTY's progress line first). */
export function cliSession(tty: boolean, extra: Partial<RunSessionOptions> = {}): RunSessionOptions {
  return {
    log: (line) =>
      process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${sanitizeTerminal(line, { multiline: true })}\n`),
    say: (line) => process.stderr.write(`\nruntime-bench: ${line}\n`),
    ...extra,
  };
}

/**
 * Runs a config through the pipeline of its target kind to its result file(s) (--out or
 * --data-dir), with progress and the end-of-run report, in a session of its own.
 */
export async function runAndWrite(
  config: Config,
  opts: RunOpts | Omit<RunOpts, 'config'>,
  configPath: string,
): Promise<RunResult[]> {
  const { withRunSession } = await import('../session/session.ts');
  const tty = !opts.json && Boolean(process.stderr.isTTY);
  return withRunSession(cliSession(tty), (session) => runAndReport(session, config, opts, configPath));
}

/**
 * One run of `config` in `session`: progress, result file(s), the end-of-run report; a run that
 * stopped (signal, dead endpoint) throws after its partial results are written. `run` and `sweep`
 * both end here, so a sweep is an ordinary run.
 */
export async function runAndReport(
  session: RunSession,
  config: Config,
  opts: RunOpts | Omit<RunOpts, 'config'>,
  configPath: string,
): Promise<RunResult[]> {
  // Loaded when a run starts, not when the CLI starts (see commands/index.ts).
  const [{ targetKindOf }, { endOfRunReport, runStatusLine }, io, { runPathInDataDir }] = await Promise.all([
    import('../kinds/registry.ts'),
    import('../run/report.ts'),
    import('../results/io.ts'),
    import('../results/layout.ts'),
  ]);
  const kind = targetKindOf(config, configPath);
  const tty = !opts.json && Boolean(process.stderr.isTTY);
  const { results, paths, stop } = await session.run(kind, config, {
    place: (result, _i, count) =>
      opts.out
        ? outPathFor(opts.out, nodeOf(result) ?? result.host.hostname, count)
        : runPathInDataDir(opts.dataDir!, result),
    onProgress: opts.json ? () => undefined : progressPrinter(progressModeOf(tty, process.env)),
    log: cliSession(tty).log,
  });
  if (tty) process.stderr.write('\r\x1b[2K');
  for (const [i, result] of results.entries()) {
    const path = paths[i]!;
    if (opts.json) {
      process.stdout.write(io.serializeResult(result));
      continue;
    }
    const node = nodeOf(result);
    if (node !== null) console.log(sanitizeTerminal(`node ${node}:`));
    for (const line of endOfRunReport(result, path, opts)) console.log(line);
    console.log(
      sanitizeTerminal(`\nresult ${result.runId} (${runStatusLine(result)}) written to ${path}`, {
        multiline: true,
      }),
    );
  }
  const written = `partial result${paths.length > 1 ? 's' : ''} written to ${paths.join(', ')}`;
  if (stop?.kind === 'endpoint-dead')
    throw new RbError(
      'ENDPOINT_DEAD',
      `run stopped: ${stop.cause}; ${written}`,
      'restart the runtime (for a local stack: `runtime-bench stack down`, then `stack up`) and run again',
      { exitCode: stopExitCode(stop) },
    );
  if (stop?.kind === 'signal')
    throw new RbError('INTERRUPTED', `run interrupted by ${stop.signal}; ${written}`, undefined, {
      exitCode: stopExitCode(stop),
    });
  return results;
}
