// Measuring a bisection step for real: a private stack with one handler per build (good,
// candidate, bad), and the ordinary run machinery for each look. The stack is brought up again
// whenever the step's builds change (a handler's version is read at `stack up`), and is down
// when the bisection ends, whatever happened.
import type { Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { writeResultFile } from '../results/io.ts';
import { runPathInDataDir } from '../results/layout.ts';
import { criKind } from '../kinds/cri-kind.ts';
import { runPipeline } from '../run/pipeline.ts';
import { stopExitCode } from '../run/stop.ts';
import { stackDown, stackUp } from '../stack/manager.ts';
import type { BuiltCandidate, Measurement } from './bisect.ts';
import { handlerNames, lookConfig, lookSamples, type LookConfigOptions } from './measure-plan.ts';

export interface StackMeasurerOptions {
  stack: string;
  kind: LookConfigOptions['kind'];
  benchmark: string;
  metric: string;
  warmup: number;
  /** Every look's result is written here (data layout), so nothing measured is lost. */
  dataDir: string;
  fixHost: boolean;
  base?: Config;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface StackMeasurer {
  measure(builds: readonly BuiltCandidate[], rounds: number): Promise<Measurement>;
  /** Takes the stack down (safe to call twice). */
  close(): Promise<void>;
}

export function createStackMeasurer(opts: StackMeasurerOptions): StackMeasurer {
  let upFor: string | null = null;
  const down = async (): Promise<void> => {
    if (upFor === null) return;
    upFor = null;
    await stackDown({ name: opts.stack, purge: false, log: opts.log });
  };
  return {
    async measure(builds, rounds) {
      const config = lookConfig(builds, { ...opts, rounds });
      const key = JSON.stringify(config.stack.extraHandlers);
      if (upFor !== key) {
        // Also when a stack of this name was left up: its handlers would be someone else's builds.
        upFor = null;
        await stackDown({ name: opts.stack, purge: false, log: opts.log });
        await stackUp({
          name: opts.stack,
          fixHost: opts.fixHost,
          extraHandlers: config.stack.extraHandlers,
          subnet: config.stack.subnet,
          images: config.images,
          log: opts.log,
        });
        upFor = key;
      }
      const {
        results: [result],
        stop,
      } = await runPipeline(criKind(config), {
        config,
        signal: opts.signal,
        onProgress: () => undefined,
        log: opts.log,
      });
      if (!result) throw new Error('a CRI run gives one result document');
      await writeResultFile(runPathInDataDir(opts.dataDir, result), result);
      if (stop)
        throw new RbError(
          'BISECT_STOPPED',
          `bisection stopped: run ${result.runId} ${stop.kind === 'signal' ? `interrupted by ${stop.signal}` : `lost its CRI endpoint (${stop.cause})`}; its partial result is in ${opts.dataDir}`,
          undefined,
          { exitCode: stopExitCode(stop) },
        );
      const { samples, note } = lookSamples(result, handlerNames(builds.length), opts.benchmark, opts.metric);
      if (note) opts.log(note);
      return { samples, runId: result.runId };
    },
    close: down,
  };
}
