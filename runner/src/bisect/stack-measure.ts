// Measuring a bisection step for real: a private stack with one handler per build (good,
// candidate, bad), and the ordinary run machinery for each look, in the bisection's run session.
// The stack is brought up again whenever the step's builds change (a handler's version is read at
// `stack up`), and the session takes it down when the bisection ends, whatever happened.
import type { Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { runPathInDataDir } from '../results/layout.ts';
import { criKind } from '../kinds/cri-kind.ts';
import { stopExitCode } from '../run/stop.ts';
import type { RunSession } from '../session/session.ts';
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
  log: (line: string) => void;
}

/** Measures `rounds` interleaved rounds of `builds` on the session's stack. */
export function stackMeasurer(
  session: RunSession,
  opts: StackMeasurerOptions,
): (builds: readonly BuiltCandidate[], rounds: number) => Promise<Measurement> {
  return async (builds, rounds) => {
    const config = lookConfig(builds, { ...opts, rounds });
    // fresh: a stack of this name left up by anyone else has someone else's builds.
    await session.stacks(
      [
        {
          name: opts.stack,
          fixHost: opts.fixHost,
          extraHandlers: config.stack.extraHandlers,
          subnet: config.stack.subnet,
          images: config.images,
          handlers: [],
        },
      ],
      { fresh: true },
    );
    const {
      results: [result],
      stop,
    } = await session.run(criKind(config), config, { place: (r) => runPathInDataDir(opts.dataDir, r) });
    if (!result) throw new Error('a CRI run gives one result document');
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
  };
}
