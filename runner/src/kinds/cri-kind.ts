// The CRI target kind: local stacks and CRI endpoints, each benchmark's iteration given a CRI
// client, with a liveness watch per endpoint that stops the run (EndpointDead) when its daemon
// dies. Every pod it created is gone when the run ends, whatever happened — except on an endpoint
// that died, whose pods only `stack down` can remove.
import { rm } from 'node:fs/promises';
import type { Config, HostFix } from '@runtime-bench/schemas';
import { readHostFingerprint } from '../host/fingerprint.ts';
import type { RunPreview } from '../results/journal.ts';
import { runLabel } from '../suites/pods.ts';
import { BENCHMARKS, selectBenchmarks } from '../suites/registry.ts';
import { ResourceTracker } from '../suites/tracker.ts';
import type { Benchmark } from '../suites/types.ts';
import { watchEndpoint } from './liveness.ts';
import { newSlot, type Slot } from '../run/orchestrate.ts';
import type { PreparedRun, RunContext, TargetKind } from '../run/pipeline.ts';
import { EndpointDead } from '../run/stop.ts';
import { planCriSlots } from './slot-plan.ts';
import { prepareEndpoints, type PreparedEndpoint } from './targets.ts';

function uniqueFixes(fixes: HostFix[]): HostFix[] {
  return [...new Map(fixes.map((f) => [f.id, f])).values()];
}

/** The CRI-level benchmarks the config selects; `file` names the config in a bad selection's error. */
export function criKind(config: Config, file = 'config'): TargetKind {
  // The selection is checked before anything starts, so its errors can name the file.
  const benchmarks = selectBenchmarks(
    config.benchmarks,
    config.skip,
    BENCHMARKS,
    file,
    Object.keys(config.runsPerBenchmark),
  );
  return { prepare: (ctx) => prepareCriRun(ctx, benchmarks) };
}

/**
 * The slots of every benchmark × endpoint × handler, in run order; a benchmark that runs no
 * container once per endpoint (kinds/slot-plan.ts).
 */
function criSlots(
  ctx: RunContext,
  benchmarks: readonly Benchmark<never>[],
  endpoints: readonly PreparedEndpoint[],
  trackers: ReadonlyMap<PreparedEndpoint, ResourceTracker>,
  signal: AbortSignal,
): { slot: Slot; endpoint: PreparedEndpoint }[] {
  const { config, runId } = ctx;
  return planCriSlots(benchmarks, endpoints).map(({ benchmark, endpoint, target: { resolved } }) => {
    const params = benchmark.parameters(config);
    const context = {
      cri: endpoint.client,
      target: resolved,
      images: config.images,
      runId,
      logDir: endpoint.logDir,
      tracker: trackers.get(endpoint)!,
      signal,
      callTimeoutSeconds: config.callTimeoutSeconds,
      stack: endpoint.stack,
    };
    const slot = newSlot(benchmark.definition, resolved.id, params as Record<string, unknown>, (iteration) =>
      benchmark.iterate(context, params, iteration),
    );
    return { slot, endpoint };
  });
}

async function prepareCriRun(ctx: RunContext, benchmarks: readonly Benchmark<never>[]): Promise<PreparedRun> {
  const { config, runId, log } = ctx;
  const prepared = await prepareEndpoints(config, runId);
  const died = new AbortController();
  const signal = AbortSignal.any([ctx.signal, died.signal]);
  const watches = prepared.map((e) =>
    watchEndpoint(e.client, e.socket, e.stack?.pid ?? null, (cause) => {
      if (!signal.aborted) log(`runtime-bench: ${cause}: stopping the run, writing a partial result`);
      died.abort(new EndpointDead(cause));
    }),
  );
  const endpoints = prepared.map((e, i) => ({ ...e, client: watches[i]!.client }));
  const trackers = new Map(endpoints.map((e) => [e, new ResourceTracker()] as const));
  const slots = criSlots(ctx, benchmarks, endpoints, trackers, signal);
  const endpointOf = new Map(slots.map(({ slot, endpoint }) => [slot, endpoint]));
  let cleanupProblems: string[] = [];
  // Where the run is and what it measures: before the loop for the journal, after it for the result.
  // Read once: the journal's preview and the result describe the same endpoints and host.
  let described: Promise<RunPreview> | null = null;
  const describe = (): Promise<RunPreview> =>
    (described ??= readHostFingerprint(uniqueFixes(endpoints.flatMap((e) => e.hostFixes))).then((host) => ({
      host,
      components: endpoints.flatMap((e) => e.components),
      targets: endpoints.flatMap((e) => e.targets.map((t) => t.record)),
      benchmarks: benchmarks.map((b) => b.definition),
    })));
  return {
    slots: slots.map((s) => s.slot),
    signal,
    beforeRecordingFailure: (slot) => watches[endpoints.indexOf(endpointOf.get(slot)!)]!.settle(),
    preview: describe,
    async finish() {
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
      for (const p of cleanupProblems) log(`cleanup: ${p}`);
      return [{ ...(await describe()), slots: slots.map((s) => s.slot) }];
    },
    async close() {
      for (const w of watches) w.stop();
      for (const e of prepared) {
        e.client.close();
        // The pods' logs stay for a look when a pod could not be removed.
        if (cleanupProblems.length === 0) await rm(e.logDir, { recursive: true, force: true });
      }
    },
  };
}
