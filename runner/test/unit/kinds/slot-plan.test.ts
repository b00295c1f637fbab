import { describe, expect, test } from 'vitest';
import { planCriSlots } from '../../../src/kinds/slot-plan.ts';
import { BENCHMARKS } from '../../../src/suites/registry.ts';

// Two endpoints (two stacks) with two and three handlers.
const endpoints = [
  { name: 'containerd', targets: ['containerd/runc', 'containerd/crun'] },
  { name: 'cri-o', targets: ['cri-o/crun', 'cri-o/runc', 'cri-o/youki'] },
];
const pairs = (slots: readonly { benchmark: { name: string }; target: string }[]): string[] =>
  slots.map((s) => `${s.benchmark.name} @ ${s.target}`);

interface Named {
  name: string;
  scope?: 'endpoint';
}
const latency: Named = { name: 'startup.latency' };
const pull: Named = { name: 'image.pull', scope: 'endpoint' };
const podStart: Named = { name: 'image.pod-start' };

describe('planCriSlots', () => {
  test('a benchmark that runs containers gets every handler of every endpoint', () => {
    const slots = planCriSlots([latency], endpoints);
    expect(pairs(slots)).toEqual([
      'startup.latency @ containerd/runc',
      'startup.latency @ containerd/crun',
      'startup.latency @ cri-o/crun',
      'startup.latency @ cri-o/runc',
      'startup.latency @ cri-o/youki',
    ]);
    expect(slots.map((s) => s.endpoint.name)).toEqual([
      'containerd',
      'containerd',
      'cri-o',
      'cri-o',
      'cri-o',
    ]);
  });

  test('an endpoint-scoped benchmark gets one slot per endpoint, on its first handler', () => {
    const slots = planCriSlots([pull], endpoints);
    expect(pairs(slots)).toEqual(['image.pull @ containerd/runc', 'image.pull @ cri-o/crun']);
    expect(slots.map((s) => s.endpoint.name)).toEqual(['containerd', 'cri-o']);
  });

  test('run order: benchmarks first, then endpoints, then handlers', () => {
    const slots = planCriSlots([pull, podStart], [endpoints[0]!]);
    expect(pairs(slots)).toEqual([
      'image.pull @ containerd/runc',
      'image.pod-start @ containerd/runc',
      'image.pod-start @ containerd/crun',
    ]);
  });

  test('an endpoint without handlers gets no slot', () => {
    expect(planCriSlots([{ scope: 'endpoint' as const }, {}], [{ targets: [] }])).toEqual([]);
  });
});

describe('endpoint scope in the registry', () => {
  // Every other benchmark starts a pod sandbox with the target's handler; these two only pull.
  test('the image pulls are measured once per endpoint, the cold-image pod start per handler', () => {
    const scoped = BENCHMARKS.filter((b) => b.scope === 'endpoint').map((b) => b.definition.name);
    expect(scoped).toEqual(['image.pull', 'image.concurrent-pulls']);
    for (const b of BENCHMARKS.filter((x) => x.scope === 'endpoint'))
      expect(b.definition.description).toMatch(/once per CRI endpoint/);
  });
});
