// The pod-level benchmarks against the CRI-level ones they stand beside, and the watch bookkeeping
// of kubernetes.scalability.N on plain pod objects.
import { describe, expect, test } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KUBERNETES_BENCHMARKS } from '../../../src/kubernetes/benchmarks.ts';
import { KUBERNETES_COUNTERPARTS, kubernetesCounterpart } from '../../../src/overhead/counterparts.ts';
import { seePod } from '../../../src/kubernetes/pod-scalability.ts';
import { BENCHMARKS } from '../../../src/suites/registry.ts';

describe('counterparts', () => {
  test('every pod-level benchmark has one, and every pair names metrics both definitions have', () => {
    const podNames = KUBERNETES_BENCHMARKS.map((b) => b.definition.name);
    expect(KUBERNETES_COUNTERPARTS.map((c) => c.upper).sort()).toEqual([...podNames].sort());
    for (const k of KUBERNETES_BENCHMARKS) {
      const c = kubernetesCounterpart(k.definition.name)!;
      const cri = BENCHMARKS.find((b) => b.definition.name === c.cri);
      expect(cri, c.cri).toBeDefined();
      const podMetrics = new Set(k.definition.metrics.map((m) => m.name));
      const criMetrics = new Map(cri!.definition.metrics.map((m) => [m.name, m]));
      expect(c.metrics.length).toBeGreaterThan(0);
      for (const pair of c.metrics) {
        expect(podMetrics.has(pair.upper), `${k.definition.name}: ${pair.upper}`).toBe(true);
        expect(criMetrics.has(pair.cri), `${c.cri}: ${pair.cri}`).toBe(true);
        // a pair compares like with like: same unit and direction
        const pod = k.definition.metrics.find((m) => m.name === pair.upper)!;
        expect([pod.unit, pod.direction]).toEqual([
          criMetrics.get(pair.cri)!.unit,
          criMetrics.get(pair.cri)!.direction,
        ]);
      }
    }
    expect(kubernetesCounterpart('performance.cpu')).toBeUndefined();
  });

  test("the sysbench and scalability pods report exactly their counterparts' metrics", () => {
    for (const k of KUBERNETES_BENCHMARKS.filter((b) => b.definition.name !== 'kubernetes.pod-startup')) {
      const cri = BENCHMARKS.find(
        (b) => b.definition.name === kubernetesCounterpart(k.definition.name)!.cri,
      )!;
      expect(k.definition.metrics).toEqual(cri.definition.metrics);
    }
  });
});

describe('seePod', () => {
  const pod = (status: V1Pod['status']): V1Pod => ({ metadata: { name: 'p' }, status });
  const running = pod({
    phase: 'Running',
    containerStatuses: [
      { name: 'bench', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
    ],
  });
  const waiting = (reason: string) =>
    pod({
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'bench',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason } },
        },
      ],
    });

  test('started at the first event showing a running container; gone at DELETED', () => {
    const seen = {};
    seePod(seen, 'ADDED', pod({ phase: 'Pending' }), 1);
    seePod(seen, 'MODIFIED', waiting('ContainerCreating'), 2);
    seePod(seen, 'MODIFIED', running, 3);
    seePod(seen, 'MODIFIED', running, 4);
    seePod(seen, 'DELETED', running, 9);
    expect(seen).toEqual({ started: 3, gone: 9 });
  });

  test('a container that cannot be created is stuck, with the reason', () => {
    const seen: { stuck?: string } = {};
    seePod(seen, 'MODIFIED', waiting('ErrImageNeverPull'), 2);
    expect(seen.stuck).toMatch(/^ErrImageNeverPull/);
  });
});
