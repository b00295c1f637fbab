import type { Command } from 'commander';
import type { Config, RunResult } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { loadConfig } from '../config/load.ts';
import { executeRun } from '../run/execute.ts';
import { BENCHMARKS, selectBenchmarks } from '../suites/registry.ts';
import { problemLines, summaryTable } from '../run/report.ts';
import type { ProgressEvent } from '../run/orchestrate.ts';
import { writeResultFile, serializeResult } from '../results/io.ts';
import { runPathInDataDir } from '../results/layout.ts';
import { runKubernetes } from './run-kubernetes.ts';

/** Exit status of a run stopped because its CRI endpoint died (sysexits' EX_UNAVAILABLE). */
export const EXIT_ENDPOINT_DEAD = 69;
import { sanitizeTerminal } from '../format/escape.ts';

interface RunOpts {
  config: string;
  out?: string;
  dataDir?: string;
  json?: boolean;
}

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
    .description('run the configured benchmarks and write one result JSON')
    .requiredOption('--config <file>', 'runtime-bench YAML config')
    .option('--out <file>', 'result file to write')
    .option('--data-dir <dir>', 'write the result into <dir>/runs/<yyyy>/<mm>/<dd>/<run-id>.json instead')
    .option('--json', 'quiet mode for machines: no progress or table; print the result JSON on stdout')
    .action(async (opts: RunOpts) => {
      if (!opts.out && !opts.dataDir)
        throw new RbError(
          'USAGE_RUN_OUTPUT',
          'run needs --out FILE or --data-dir DIR',
          'e.g. --out /tmp/result.json',
        );
      if (opts.out && opts.dataDir)
        throw new RbError('USAGE_RUN_OUTPUT', 'give either --out or --data-dir, not both');
      const config = await loadConfig(opts.config);
      if (config.targets.some((t) => t.kind === 'kubernetes')) {
        await runKubernetes(config, opts, opts.config);
        return;
      }
      await runAndWrite(config, opts, opts.config);
    });
}

/**
 * Runs a CRI config to its result file (--out or --data-dir) with progress, signal handling and
 * the summary table: `run` and `sweep` both end here, so a sweep is an ordinary run.
 */
export async function runAndWrite(
  config: Config,
  opts: { out?: string | undefined; dataDir?: string | undefined; json?: boolean | undefined },
  configPath: string,
): Promise<RunResult> {
  // The selection is checked before anything starts, so its errors can name the file.
  selectBenchmarks(
    config.benchmarks,
    config.skip,
    BENCHMARKS,
    configPath,
    Object.keys(config.runsPerBenchmark),
  );
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
    const { result, stop } = await executeRun({
      config,
      signal: controller.signal,
      onProgress: opts.json ? () => undefined : progressPrinter(tty),
      log: (line) =>
        process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${sanitizeTerminal(line, { multiline: true })}\n`),
    });
    if (tty) process.stderr.write('\r\x1b[2K');
    const path = opts.out ?? runPathInDataDir(opts.dataDir!, result);
    await writeResultFile(path, result);
    if (opts.json) {
      process.stdout.write(serializeResult(result));
    } else {
      console.log(summaryTable(result));
      for (const line of problemLines(result)) console.log(line);
      console.log(
        sanitizeTerminal(`\nresult ${result.runId} (${result.status}) written to ${path}`, {
          multiline: true,
        }),
      );
    }
    if (stop?.kind === 'endpoint-dead')
      throw new RbError(
        'ENDPOINT_DEAD',
        `run stopped: ${stop.cause}; partial result written to ${path}`,
        'restart the runtime (for a local stack: `runtime-bench stack down`, then `stack up`) and run again',
        { exitCode: EXIT_ENDPOINT_DEAD },
      );
    if (stop?.kind === 'signal')
      throw new RbError(
        'INTERRUPTED',
        `run interrupted by ${stop.signal}; partial result written to ${path}`,
        undefined,
        { exitCode: stop.signal === 'SIGTERM' ? 143 : 130 },
      );
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
