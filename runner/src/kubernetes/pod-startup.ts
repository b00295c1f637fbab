// kubernetes.pod-startup: one pod per repetition per node × RuntimeClass, pinned to the node by
// its kubernetes.io/hostname label, timed from the create call through the watch.
//
// Definitions. Every phase is the first moment the watch delivers a pod object showing it, on the
// runner's monotonic clock from just before the create call (so each includes the apiserver's
// watch latency, alike for every RuntimeClass):
// - scheduled: spec.nodeName set;
// - started: a container in state running;
// - ready: condition Ready True. This is the Kubernetes pod-startup SLI (creation → all containers
//   started and observed by the watch, for stateless pods with no image pull; SLO p99 ≤ 5 s per
//   cluster-day, as clusterloader2 measures it). The kubelet reports status after its PLEG relist
//   (every 1 s without CRI container events), so `started` and `ready` are quantised to ~1 s there;
// - cri: the sum of the kubelet's own run_podsandbox + create_container + start_container time for
//   this pod (kubelet_runtime_operations_duration_seconds, scraped before and after; pods run one at
//   a time, so the difference is this pod's);
// - kubelet-share: started − scheduled − cri: node-side time not spent in those CRI calls (volume
//   set-up, status sync, PLEG delay, watch delivery).
import { performance } from 'node:perf_hooks';
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import type { IterationOutcome } from '../suites/types.ts';
import { endsOnTerm, until } from './cluster-api.ts';
import { criMillisBetween, observePod, podStuck, type PodPhaseTimes } from './nodes.ts';
import type { KubernetesBenchmark, PodContext } from './pod-benchmark.ts';

export const POD_STARTUP: BenchmarkDefinition = {
  name: 'kubernetes.pod-startup',
  description:
    "Pod start through the kubelet per RuntimeClass: creation → scheduled → container started → Ready from watch events, the kubelet's CRI time for the pod (run_podsandbox + create_container + start_container) and the kubelet's share (started − scheduled − CRI). Ready is the Kubernetes pod-startup SLI.",
  origin: ['Kubernetes pod-startup SLO (clusterloader2)', 'kube-burner podLatency', 'KIIT'],
  metrics: [
    { name: 'scheduled', unit: 'ms', direction: 'lower', description: 'create call → spec.nodeName seen' },
    {
      name: 'started',
      unit: 'ms',
      direction: 'lower',
      description: 'create call → a container running seen',
    },
    { name: 'ready', unit: 'ms', direction: 'lower', description: 'create call → Ready seen (the SLI)' },
    {
      name: 'cri',
      unit: 'ms',
      direction: 'lower',
      description: "the kubelet's run_podsandbox + create_container + start_container time for the pod",
    },
    {
      name: 'kubelet-share',
      unit: 'ms',
      direction: 'lower',
      description: 'started − scheduled − cri: node-side time outside those CRI calls',
    },
  ],
};

/** Metric values of one pod start from its phase times and CRI milliseconds (pure). */
export function podStartupValues(
  times: { created: number; scheduled: number; started: number; ready: number },
  criMs: number | null,
): { values: Record<string, number>; errors: Record<string, string> } {
  const values: Record<string, number> = {
    scheduled: times.scheduled - times.created,
    started: times.started - times.created,
    ready: times.ready - times.created,
  };
  const errors: Record<string, string> = {};
  if (criMs === null) {
    errors.cri = 'the kubelet exposes no kubelet_runtime_operations_duration_seconds';
    errors['kubelet-share'] = errors.cri;
  } else {
    values.cri = criMs;
    const share = times.started - times.scheduled - criMs;
    // Watch delivery can make the observed start-to-running shorter than the CRI calls took.
    if (share >= 0) values['kubelet-share'] = share;
    else errors['kubelet-share'] = 'CRI time exceeds the observed scheduled → started interval (watch delay)';
  }
  return { values, errors };
}

/** One measured pod start: created, watched to Ready, deleted and waited for. */
async function measurePodStartup({
  cluster,
  node,
  runtimeClass,
  signal,
}: PodContext): Promise<IterationOutcome> {
  const name = cluster.podName('start', runtimeClass);
  const before = await cluster.kubeletSums(node);
  const times: PodPhaseTimes = { created: 0 };
  let stuck: string | null = null;
  const ctrl = await cluster.watchPods({ fieldSelector: `metadata.name=${name}` }, (type, pod, at) => {
    if (type === 'DELETED' || times.created === 0) return;
    observePod(times, pod, at);
    stuck ??= podStuck(pod);
  });
  try {
    times.created = performance.now();
    await cluster.createPod(cluster.podBody(name, node, runtimeClass, endsOnTerm(['/bin/sleep', '3600'])));
    try {
      await until(
        () => times.ready !== undefined || stuck !== null,
        cluster.target.podTimeoutSeconds * 1000,
        signal,
        `pod ${name} Ready`,
      );
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      return { values: {}, errors: {}, failure: errorMessage(error) };
    }
    if (stuck !== null || times.ready === undefined)
      return { values: {}, errors: {}, failure: `pod ${name}: ${stuck ?? 'not Ready'}` };
    const after = await cluster.kubeletSums(node);
    const { values, errors } = podStartupValues(
      { created: times.created, scheduled: times.scheduled!, started: times.started!, ready: times.ready },
      before && after ? criMillisBetween(before, after) : null,
    );
    return { values, errors };
  } finally {
    ctrl.abort();
    await cluster.deletePod(name);
  }
}

export const podStartupBenchmark: KubernetesBenchmark = {
  definition: POD_STARTUP,
  iterate: measurePodStartup,
};
