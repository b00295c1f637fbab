import type { Command } from 'commander';
import type { Config, RunResult } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { sanitizeTerminal } from '../format/escape.ts';
import type { ProgressEvent } from '../run/orchestrate.ts';
import { stopExitCode } from '../run/stop.ts';

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

function progressPrinter(tty: boolean): (e: ProgressEvent) => void {
  return (e) => {
    // Target ids come from the config: never let them drive the terminal.
    const what = sanitizeTerminal(
      `${e.target}  ${e.benchmark}  run ${e.repetition}/${e.repetitions}${e.warmup ? ' (warm-up)' : ''}`,
    );
    if (!e.outcome) {
      if (tty) process.stderr.write(`\r\x1b[2K${what}`);
      return;
    }
    if (e.outcome.failure)
      process.stderr.write(
        `${tty ? '\r\x1b[2K' : ''}${what}: error: ${sanitizeTerminal(e.outcome.failure)}\n`,
      );
    else if (!tty) process.stderr.write(`${what}: ok\n`);
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

/**
 * Runs a config through the pipeline of its target kind to its result file(s) (--out or
 * --data-dir), with progress, signal handling and the end-of-run report: `run` and `sweep` both
 * end here, so a sweep is an ordinary run.
 */
export async function runAndWrite(
  config: Config,
  opts: RunOpts | Omit<RunOpts, 'config'>,
  configPath: string,
): Promise<RunResult[]> {
  // Loaded when a run starts, not when the CLI starts (see commands/index.ts).
  const [{ targetKindOf }, { runPipeline }, { endOfRunReport }, io, { runPathInDataDir }] = await Promise.all(
    [
      import('../run/kinds.ts'),
      import('../run/pipeline.ts'),
      import('../run/report.ts'),
      import('../results/io.ts'),
      import('../results/layout.ts'),
    ],
  );
  const kind = targetKindOf(config, configPath);
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.stderr.write(`\nruntime-bench: ${signal} again: still cleaning up, please wait\n`);
      return;
    }
    process.stderr.write(
      `\nruntime-bench: ${signal}: stopping after the current call, cleaning up, writing a partial result\n`,
    );
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const tty = !opts.json && Boolean(process.stderr.isTTY);
    const { results, stop } = await runPipeline(kind, {
      config,
      signal: controller.signal,
      onProgress: opts.json ? () => undefined : progressPrinter(tty),
      log: (line) =>
        process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${sanitizeTerminal(line, { multiline: true })}\n`),
    });
    if (tty) process.stderr.write('\r\x1b[2K');
    const paths: string[] = [];
    for (const result of results) {
      const node = nodeOf(result);
      const path = opts.out
        ? outPathFor(opts.out, node ?? result.host.hostname, results.length)
        : runPathInDataDir(opts.dataDir!, result);
      await io.writeResultFile(path, result);
      paths.push(path);
      if (opts.json) {
        process.stdout.write(io.serializeResult(result));
        continue;
      }
      if (node !== null) console.log(sanitizeTerminal(`node ${node}:`));
      for (const line of endOfRunReport(result, path, opts)) console.log(line);
      console.log(
        sanitizeTerminal(`\nresult ${result.runId} (${result.status}) written to ${path}`, {
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
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
