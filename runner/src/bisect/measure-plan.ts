// What one bisection look runs and reads back, as pure functions: the config of the interleaved
// run (one stack handler per build: good, candidate, bad) and the metric's samples per handler,
// aligned by repetition.
import { ConfigSchema, type Config, type RunResult } from '@runtime-bench/schemas';
import type { BuiltCandidate } from './bisect.ts';

/** Handler names of the builds of one step, in measuring order. */
export function handlerNames(count: number): string[] {
  if (count === 2) return ['bisect-good', 'bisect-bad'];
  if (count === 3) return ['bisect-good', 'bisect-cand', 'bisect-bad'];
  throw new RangeError(`bisect: a step measures 2 or 3 builds, not ${count}`);
}

export interface LookConfigOptions {
  stack: string;
  kind: 'runc' | 'crun' | 'youki' | 'runsc';
  benchmark: string;
  rounds: number;
  warmup: number;
  /** The user's config, whose parameters, images and timeouts the look keeps (targets, benchmarks, runs are the look's). */
  base?: Config;
}

/** The stack's extra handlers for these builds. */
export function lookHandlers(
  builds: readonly BuiltCandidate[],
  kind: LookConfigOptions['kind'],
): Config['stack']['extraHandlers'] {
  const names = handlerNames(builds.length);
  return builds.map((b, i) => ({ name: names[i]!, binary: b.binary, kind }));
}

/**
 * The config of one look: one target on the bisect stack with the step's handlers, only the
 * bisected benchmark, `rounds` repetitions interleaved (good, candidate, bad, good, …).
 */
export function lookConfig(builds: readonly BuiltCandidate[], opts: LookConfigOptions): Config {
  const base = opts.base ?? ConfigSchema.parse({});
  return ConfigSchema.parse({
    ...base,
    name: `bisect-${opts.benchmark}`,
    targets: [{ stack: opts.stack, handlers: handlerNames(builds.length) }],
    benchmarks: [opts.benchmark],
    skip: [],
    runs: opts.rounds,
    runsPerBenchmark: {},
    warmup: opts.warmup,
    stack: { ...base.stack, extraHandlers: lookHandlers(builds, opts.kind) },
  });
}

/**
 * The metric's samples of each handler, in handler order. Repetitions are interleaved, so sample
 * i of every handler comes from round i — unless a repetition failed somewhere: then the rounds
 * cannot be paired by position, and the look keeps the first min(n) of each (the shift is at most
 * the number of failures; the verdict's test stays valid, only less drift cancels) and says so.
 */
export function lookSamples(
  result: RunResult,
  handlers: readonly string[],
  benchmark: string,
  metric: string,
): { samples: number[][]; note: string | null } {
  const samples = handlers.map((h) => {
    const target = result.targets.find((t) => t.handler === h);
    if (!target) throw new Error(`bisect: the run has no target with handler ${h}`);
    const r = result.results.find((x) => x.target === target.id && x.benchmark === benchmark);
    if (!r) throw new Error(`bisect: the run has no ${benchmark} result for ${target.id}`);
    const m = r.metrics.find((x) => x.name === metric);
    if (!m) throw new Error(`bisect: ${benchmark} has no metric ${metric} for ${target.id}`);
    return m.samples;
  });
  const n = Math.min(...samples.map((s) => s.length));
  const unequal = samples.some((s) => s.length !== n);
  return {
    samples: samples.map((s) => s.slice(0, n)),
    note: unequal
      ? `run ${result.runId}: failed repetitions (${samples.map((s, i) => `${handlers[i]} ${s.length}`).join(', ')}): rounds paired by position, ${n} kept`
      : null,
  };
}
