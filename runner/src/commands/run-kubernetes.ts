// `run` with a kubernetes target (the cluster mode): one result file per node.
import type { Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { sanitizeTerminal } from '../format/escape.ts';
import { executeKubernetesRun } from '../kubernetes/execute.ts';
import { writeResultFile, serializeResult } from '../results/io.ts';
import { runPathInDataDir } from '../results/layout.ts';
import { endOfRunReport } from '../run/report.ts';

interface RunOpts {
  out?: string;
  dataDir?: string;
  json?: boolean;
  table?: boolean;
}

/** `--out r.json` with several nodes: r.<node>.json each. */
export function outPathFor(out: string, node: string, nodes: number): string {
  if (nodes === 1) return out;
  return /\.json$/.test(out) ? out.replace(/\.json$/, `.${node}.json`) : `${out}.${node}.json`;
}

export async function runKubernetes(config: Config, opts: RunOpts, where: string): Promise<void> {
  const index = config.targets.findIndex((t) => t.kind === 'kubernetes');
  const target = config.targets[index];
  if (!target || target.kind !== 'kubernetes') return;
  if (config.targets.length > 1)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: targets: a kubernetes target runs alone (found ${config.targets.length} targets)`,
      'put the kubernetes target in a config of its own; compare its results with the CRI-level runs by `runtime-bench compare`',
    );
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) return;
    process.stderr.write(
      `\nruntime-bench: ${signal}: stopping, deleting the run's pods, namespace and RuntimeClasses\n`,
    );
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { results, stop } = await executeKubernetesRun({
      config,
      target,
      index,
      signal: controller.signal,
      onProgress: (e) => {
        if (opts.json || !e.outcome) return;
        const what = sanitizeTerminal(
          `${e.target}  ${e.benchmark}  run ${e.repetition}/${e.repetitions}${e.warmup ? ' (warm-up)' : ''}`,
        );
        process.stderr.write(
          e.outcome.failure ? `${what}: error: ${sanitizeTerminal(e.outcome.failure)}\n` : `${what}: ok\n`,
        );
      },
      log: (line) => process.stderr.write(`${sanitizeTerminal(line, { multiline: true })}\n`),
    });
    const paths: string[] = [];
    for (const result of results) {
      const node = result.targets[0]?.kubernetes?.node ?? result.host.hostname;
      const path = opts.out
        ? outPathFor(opts.out, node, results.length)
        : runPathInDataDir(opts.dataDir!, result);
      await writeResultFile(path, result);
      paths.push(path);
      if (opts.json) process.stdout.write(serializeResult(result));
      else {
        console.log(sanitizeTerminal(`node ${node}:`));
        for (const line of endOfRunReport(result, path, opts)) console.log(line);
        console.log(
          sanitizeTerminal(`result ${result.runId} (${result.status}) written to ${path}`, {
            multiline: true,
          }),
        );
      }
    }
    if (stop?.kind === 'signal')
      throw new RbError(
        'INTERRUPTED',
        `run interrupted by ${stop.signal}; partial result(s) written to ${paths.join(', ')}`,
        undefined,
        {
          exitCode: stop.signal === 'SIGTERM' ? 143 : 130,
        },
      );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
