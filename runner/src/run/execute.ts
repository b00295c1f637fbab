import { rm } from 'node:fs/promises';
import {
  RESULT_SCHEMA_VERSION,
  type Component,
  type Config,
  type HostFix,
  type RunResult,
} from '@runtime-bench/schemas';
import { readHostFingerprint } from '../host/fingerprint.ts';
import { assembleBenchmarkResult, configHash, newRunId } from '../results/assemble.ts';
import { runLabel } from '../suites/pods.ts';
import { selectBenchmarks } from '../suites/registry.ts';
import { toolRecord } from '../version.ts';
import { watchEndpoint } from './liveness.ts';
import { orchestrate, type ProgressEvent } from './orchestrate.ts';
import { prepareEndpoints } from './targets.ts';

export interface ExecuteOptions {
  config: Config;
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  log: (line: string) => void;
  now?: () => Date;
}

function uniqueComponents(components: Component[]): Component[] {
  const seen = new Map<string, Component>();
  for (const c of components) seen.set(`${c.role}\u0000${c.name}\u0000${c.version}\u0000${c.path ?? ''}`, c);
  return [...seen.values()];
}

function uniqueFixes(fixes: HostFix[]): HostFix[] {
  return [...new Map(fixes.map((f) => [f.id, f])).values()];
}

/** Why a run stopped before its end: a signal, or a CRI endpoint that died under it. */
export type StopCause = { kind: 'signal'; signal: string } | { kind: 'endpoint-dead'; cause: string };

/** The abort reason the liveness watch gives the run's signal. */
class EndpointDead {
  readonly cause: string;
  constructor(cause: string) {
    this.cause = cause;
  }
}

function stopCause(signal: AbortSignal): StopCause | null {
  if (!signal.aborted) return null;
  const reason: unknown = signal.reason;
  if (reason instanceof EndpointDead) return { kind: 'endpoint-dead', cause: reason.cause };
  return { kind: 'signal', signal: typeof reason === 'string' ? reason : 'a signal' };
}

/** The result's incompleteReason for a stop cause. */
export function describeStop(stop: StopCause): string {
  return stop.kind === 'signal' ? `interrupted by ${stop.signal}` : `CRI endpoint died: ${stop.cause}`;
}

export interface RunOutcome {
  result: RunResult;
  /** Null when the run went to its end. */
  stop: StopCause | null;
}

/**
 * One benchmark run from a validated config to a complete (or, after a signal or a dead CRI
 * endpoint, incomplete) result document. Every pod it created is gone when it returns, whatever
 * happened — except on an endpoint that died, whose pods only `stack down` can remove.
 */
export async function executeRun(opts: ExecuteOptions): Promise<RunOutcome> {
  const now = opts.now ?? (() => new Date());
  const started = now();
  const runId = newRunId(started);
  const benchmarks = selectBenchmarks(opts.config.benchmarks, opts.config.skip);
  const prepared = await prepareEndpoints(opts.config, runId);
  const died = new AbortController();
  const signal = AbortSignal.any([opts.signal, died.signal]);
  const watches = prepared.map((e) =>
    watchEndpoint(e.client, e.socket, e.stack?.pid ?? null, (cause) => {
      if (!signal.aborted) opts.log(`runtime-bench: ${cause}: stopping the run, writing a partial result`);
      died.abort(new EndpointDead(cause));
    }),
  );
  const endpoints = prepared.map((e, i) => ({ ...e, client: watches[i]!.client }));
  let cleanupProblems: string[] = [];
  try {
    const { slots, trackers } = await orchestrate({
      config: opts.config,
      benchmarks,
      endpoints,
      runId,
      signal,
      onProgress: opts.onProgress,
      beforeRecordingFailure: (endpoint) => watches[endpoints.indexOf(endpoint)]!.settle(),
    });
    for (const w of watches) w.stop();
    for (const [i, [endpoint, tracker]] of [...trackers].entries()) {
      const dead = watches[i]!.cause;
      if (dead) {
        // Nothing answers there any more: the stack's own teardown removes what is left.
        if (tracker.livePods.length > 0)
          cleanupProblems.push(
            `${tracker.livePods.length} pod(s) on ${endpoint.socket} not removed (${dead}); \`runtime-bench stack down\` removes them`,
          );
        continue;
      }
      cleanupProblems = cleanupProblems.concat(await tracker.cleanup(endpoint.client, runLabel(runId)));
    }
    for (const p of cleanupProblems) opts.log(`cleanup: ${p}`);
    const host = await readHostFingerprint(uniqueFixes(endpoints.flatMap((e) => e.hostFixes)));
    const stop = stopCause(signal);
    const result: RunResult = {
      schemaVersion: RESULT_SCHEMA_VERSION,
      runId,
      status: stop ? 'incomplete' : 'complete',
      ...(stop ? { incompleteReason: describeStop(stop) } : {}),
      startedAt: started.toISOString(),
      finishedAt: now().toISOString(),
      tool: toolRecord(),
      host,
      components: uniqueComponents(endpoints.flatMap((e) => e.components)),
      config: opts.config,
      configHash: configHash(opts.config),
      targets: endpoints.flatMap((e) => e.targets.map((t) => t.record)),
      benchmarks: benchmarks.map((b) => b.definition),
      results: slots.map((s) =>
        assembleBenchmarkResult(
          s.accumulator,
          s.targetId,
          s.benchmark.parameters(opts.config) as Record<string, unknown>,
          opts.config.errorThreshold,
        ),
      ),
    };
    return { result, stop };
  } finally {
    for (const w of watches) w.stop();
    for (const e of prepared) {
      e.client.close();
      if (cleanupProblems.length === 0) await rm(e.logDir, { recursive: true, force: true });
    }
  }
}
