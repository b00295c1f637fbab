// kubernetes.scalability.N: N pods per RuntimeClass on one node, started and then deleted, once one
// after the other (serial) and once with up to `concurrency` in flight (parallel) — the parameters,
// metrics and summaries of scalability.runtime.N (config.parameters['scalability.runtime']), here
// through the apiserver, scheduler and kubelet. A pod is started when the watch first shows its
// container running, and destroyed when the watch shows it DELETED (the kubelet has stopped and
// removed it and the apiserver has let go of it). All times are on the runner's monotonic clock
// from just before the create (resp. delete) call, so each includes the watch's delivery, alike for
// every RuntimeClass. Without CRI container events the kubelet's 1 s PLEG relist quantises them.
import { performance } from 'node:perf_hooks';
import type { V1Pod } from '@kubernetes/client-node';
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import {
  SCALABILITY_COUNTS,
  eachMode,
  firstRejection,
  modeValues,
  pool,
  scalabilityDefinition,
  type Mode,
} from '../suites/scalability.ts';
import { endsOnTerm, until } from './cluster-api.ts';
import { podStuck } from './nodes.ts';
import type { KubernetesBenchmark, PodContext } from './pod-benchmark.ts';
import { InterruptedError } from '../errors.ts';

const BATCH_LABEL = 'runtime-bench/batch';

/** What the watch has shown of one pod of the batch. */
interface PodSeen {
  created?: number;
  started?: number;
  gone?: number;
  stuck?: string;
}

/** Updates what was seen of a pod from one watch event. */
export function seePod(seen: PodSeen, type: string, pod: V1Pod, at: number): void {
  if (type === 'DELETED') {
    seen.gone ??= at;
    return;
  }
  if (seen.started === undefined && (pod.status?.containerStatuses ?? []).some((c) => c.state?.running))
    seen.started = at;
  if (seen.started === undefined) seen.stuck ??= podStuck(pod) ?? undefined;
}

function definition(n: number): BenchmarkDefinition {
  const cri = scalabilityDefinition(n);
  return {
    ...cri,
    name: `kubernetes.scalability.${n}`,
    description: `${n} pods per RuntimeClass on one node with one long-running container each (parameters of scalability.runtime): all created until the watch shows each container running, then all deleted until the watch shows each gone — once one after the other (serial) and once with up to \`concurrency\` in flight (parallel). The metrics of scalability.runtime.${n}, through the apiserver, scheduler and kubelet.`,
    origin: ['touchstone', 'KIIT'],
  };
}

async function runMode(ctx: PodContext, n: number, mode: Mode) {
  const { cluster, node, runtimeClass, signal } = ctx;
  const params = ctx.config.parameters['scalability.runtime'];
  const limit = mode === 'serial' ? 1 : params.concurrency;
  const timeoutMs = cluster.target.podTimeoutSeconds * 1000;
  const batch = cluster.batchLabel();
  const names = Array.from({ length: n }, () => cluster.podName(`scale${n}`, runtimeClass));
  const seen = new Map<string, PodSeen>(names.map((name) => [name, {}]));
  const watch = await cluster.watchPods({ labelSelector: `${BATCH_LABEL}=${batch}` }, (type, pod, at) => {
    const s = seen.get(pod.metadata?.name ?? '');
    if (s) seePod(s, type, pod, at);
  });
  const requested = new Set<string>();
  try {
    const t0 = performance.now();
    const starts = await pool(names, limit, async (name) => {
      if (signal.aborted) throw new InterruptedError();
      const s = seen.get(name)!;
      s.created = performance.now();
      await cluster.createPod(
        cluster.podBody(name, node, runtimeClass, endsOnTerm(params.command), { [BATCH_LABEL]: batch }),
      );
      await until(
        () => s.started !== undefined || s.stuck !== undefined,
        timeoutMs,
        signal,
        `pod ${name} started`,
      );
      if (s.stuck !== undefined) throw new Error(`pod ${name}: ${s.stuck}`);
      return s.started! - s.created;
    });
    const startAll = (Math.max(...names.map((name) => seen.get(name)!.started ?? t0)) - t0) / 1000;
    const startFailure = firstRejection(starts);
    const t1 = performance.now();
    const destroys = await pool(names, limit, async (name) => {
      if (signal.aborted) throw new InterruptedError();
      requested.add(name);
      await cluster.requestDeletion(name);
      const s = seen.get(name)!;
      await until(() => s.gone !== undefined, timeoutMs, signal, `pod ${name} gone`);
    });
    const destroyAll = (Math.max(...names.map((name) => seen.get(name)!.gone ?? t1)) - t1) / 1000;
    const destroyFailure = firstRejection(destroys);
    return modeValues(mode, n, {
      startAll,
      destroyAll,
      latencies: starts.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
      startFailure,
      destroyFailure,
    });
  } finally {
    watch.abort();
    // After a failure or a signal: whatever of the batch is left goes, so the next mode (or the
    // next class) has the node alone; the namespace's deletion at the end is the last net.
    for (const name of names)
      if (!requested.has(name) || seen.get(name)!.gone === undefined)
        await cluster.deletePod(name).catch(() => undefined);
  }
}

export const podScalabilityBenchmarks: KubernetesBenchmark[] = SCALABILITY_COUNTS.map((n) => ({
  definition: definition(n),
  parameters: (config) => config.parameters['scalability.runtime'],
  iterate: (ctx) =>
    eachMode(ctx.config.parameters['scalability.runtime'].modes, (mode) => runMode(ctx, n, mode)),
}));
