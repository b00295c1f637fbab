// The Kubernetes view (pod-level beside CRI-level) and the kubernetes targets in the digest, from
// small hand-made runs; every expected median, difference and ratio is worked out here by hand.
import { describe, expect, test } from 'vitest';
import { RunResultSchema, type RunResult, type Target } from '@runtime-bench/schemas';
import { summarize } from '@runtime-bench/runner/stats';
import { KUBERNETES_COUNTERPARTS } from '@runtime-bench/runner/overhead';
import { sampleRunResult } from '../../../schemas/test/sample.ts';
import { compareRunRef } from '../../src/lib/compare-data.ts';
import { runPageHtml } from '../../src/lib/run-page.ts';
import { buildIndex } from '../../src/lib/index-builder.ts';
import { comboLabel } from '../../src/lib/labels.ts';
import { kubernetesOverhead } from '../../src/lib/views/kubernetes.ts';
import { convertUnit, type Side } from '../../src/lib/views/overhead.ts';
import { loaded } from './fixtures.ts';

/** target id → benchmark → metric → samples (ms), or a status without samples */
type Results = Record<
  string,
  Record<string, Record<string, number[]> | { status: 'failed'; reason: string }>
>;

function run(
  runId: string,
  startedAt: string,
  targets: Target[],
  results: Results,
  host: Partial<RunResult['host']> = {},
): RunResult {
  const base = sampleRunResult();
  const benchmarks = new Map<string, Set<string>>();
  for (const byBench of Object.values(results))
    for (const [b, ms] of Object.entries(byBench)) {
      const set = benchmarks.get(b) ?? new Set<string>();
      if (!('status' in ms)) for (const m of Object.keys(ms)) set.add(m);
      else set.add('create-and-run');
      benchmarks.set(b, set);
    }
  // As the runner writes it: a failed benchmark × target makes the run partial.
  const failed = Object.values(results).some((byBench) =>
    Object.values(byBench).some((ms) => 'status' in ms),
  );
  return RunResultSchema.parse({
    ...base,
    status: failed ? 'partial' : 'complete',
    runId,
    startedAt,
    finishedAt: startedAt,
    host: { ...base.host, ...host },
    targets,
    benchmarks: [...benchmarks].map(([name, metrics]) => ({
      name,
      description: name,
      origin: [],
      metrics: [...metrics].map((m) => ({ name: m, unit: 'ms', direction: 'lower', description: m })),
    })),
    results: Object.entries(results).flatMap(([target, byBench]) =>
      Object.entries(byBench).map(([benchmark, ms]) =>
        'status' in ms
          ? { benchmark, target, ...ms, parameters: {}, attempts: 0, failedAttempts: 0, metrics: [] }
          : {
              benchmark,
              target,
              status: 'ok',
              parameters: {},
              attempts: Object.values(ms)[0]!.length,
              failedAttempts: 0,
              metrics: Object.entries(ms).map(([name, samples]) => ({
                name,
                unit: 'ms',
                direction: 'lower',
                samples,
                errors: { count: 0, messages: [] },
                summary: summarize(samples),
              })),
            },
      ),
    ),
  });
}

const criTarget = (cri: string, handler: string): Target => ({
  id: `${cri}/${handler}`,
  cri: { name: cri, version: '2.1.4', apiVersion: 'v1', endpoint: `unix:///run/${cri}.sock` },
  handler,
  oci: { name: handler, version: '1.3.6', path: null },
  transport: 'grpc',
});

const podTarget = (node: string, runtimeClass: string, handler: string): Target => ({
  id: `lab/${runtimeClass}`,
  cri: { name: 'containerd', version: '2.1.4', apiVersion: 'v1', endpoint: `kubernetes://${node}` },
  handler,
  oci: { name: handler, version: 'unknown', path: null },
  transport: 'kubernetes',
  kubernetes: {
    node,
    runtimeClass,
    kubeletVersion: 'v1.34.4',
    containerRuntimeVersion: 'containerd://2.1.4',
  },
});

const OTHER_HOST = { cpuModel: 'Other CPU', cpus: 8 };
const LIFECYCLE = 'operations.container.lifecycle';
const STARTUP = 'kubernetes.pod-startup';

// CRI-level: an older and a newer containerd/runc run of the host class (the newer one counts),
// a CRI-O runc run (another CRI runtime: never paired with containerd's pods), a runc run of
// another host class, and a runsc run whose lifecycle benchmark failed.
const criOld = run('20261101T000000Z-00000001', '2026-11-01T00:00:00Z', [criTarget('containerd', 'runc')], {
  'containerd/runc': { [LIFECYCLE]: { 'create-and-run': [10, 12, 11] } },
});
const criNew = run(
  '20261102T000000Z-00000002',
  '2026-11-02T00:00:00Z',
  [criTarget('containerd', 'runc'), criTarget('containerd', 'runsc')],
  {
    'containerd/runc': { [LIFECYCLE]: { 'create-and-run': [20, 22, 21, 23] } },
    'containerd/runsc': { [LIFECYCLE]: { status: 'failed', reason: 'sandbox died' } },
  },
);
const crio = run('20261103T000000Z-00000003', '2026-11-03T00:00:00Z', [criTarget('cri-o', 'runc')], {
  'cri-o/runc': { [LIFECYCLE]: { 'create-and-run': [100, 100, 100] } },
});
const otherHost = run(
  '20261104T000000Z-00000004',
  '2026-11-04T00:00:00Z',
  [criTarget('containerd', 'runc')],
  { 'containerd/runc': { [LIFECYCLE]: { 'create-and-run': [5, 5, 5] } } },
  OTHER_HOST,
);
// Pod-level: an older cluster run (ignored), then the newest one with two nodes of the class,
// each its own file with the same start time (pooled).
const podsOld = run(
  '20261105T000000Z-00000005',
  '2026-11-05T00:00:00Z',
  [podTarget('node-1', 'runc', 'runc')],
  {
    'lab/runc': {
      [STARTUP]: { cri: [500, 500, 500], started: [9000, 9000, 9000], 'kubelet-share': [7000, 7000] },
    },
  },
);
const node1 = run(
  '20261106T000000Z-00000006',
  '2026-11-06T00:00:00Z',
  [
    podTarget('node-1', 'runc', 'runc'),
    podTarget('node-1', 'kata', 'kata'),
    podTarget('node-1', 'gvisor', 'runsc'),
  ],
  {
    'lab/runc': {
      [STARTUP]: { cri: [30, 34, 32], started: [1000, 1100, 1050], 'kubelet-share': [800, 820, 810] },
    },
    'lab/kata': {
      [STARTUP]: { cri: [300, 310, 305], started: [2000, 2100, 2050], 'kubelet-share': [900, 950] },
    },
    'lab/gvisor': { [STARTUP]: { cri: [90, 91, 92], started: [1200, 1300, 1250] } },
  },
  { hostname: 'node-1' },
);
const node2 = run(
  '20261106T000000Z-00000007',
  '2026-11-06T00:00:00Z',
  [podTarget('node-2', 'runc', 'runc')],
  { 'lab/runc': { [STARTUP]: { cri: [31, 35], started: [990, 1010], 'kubelet-share': [790, 805] } } },
  { hostname: 'node-2' },
);

const value = (side: Side) => {
  if (side.kind !== 'value') throw new Error(`expected a value, got: ${side.why}`);
  return side;
};

describe('kubernetesOverhead', () => {
  const index = buildIndex(loaded(criOld, criNew, crio, otherHost, podsOld, node1, node2));
  const groups = kubernetesOverhead(index);
  const group = (runtimeClass: string) => groups.find((g) => g.runtimeClass === runtimeClass)!;

  test('one group per node class × CRI runtime × RuntimeClass with pod-level results', () => {
    expect(groups.map((g) => [g.criName, g.handler, g.runtimeClass])).toEqual([
      ['containerd', 'kata', 'kata'],
      ['containerd', 'runc', 'runc'],
      ['containerd', 'runsc', 'gvisor'],
    ]);
    expect(new Set(groups.map((g) => g.host.label)).size).toBe(1);
    expect(group('runc').nodes).toEqual(['node-1', 'node-2']);
    expect(group('runc').kubeletVersions).toEqual(['v1.34.4']);
  });

  test('pairs follow the runner KUBERNETES_COUNTERPARTS table, for the pod benchmarks that ran', () => {
    const startup = KUBERNETES_COUNTERPARTS.find((c) => c.upper === STARTUP)!;
    expect(
      group('runc').rows.map((r) => [r.counterpart.upper, r.upperMetric, r.counterpart.cri, r.criMetric]),
    ).toEqual(startup.metrics.map((m) => [STARTUP, m.upper, startup.cri, m.cri]));
  });

  test('pod side pools the newest cluster run; CRI side is the newest containerd/runc run of the class', () => {
    const g = group('runc');
    const cri = g.rows.find((r) => r.upperMetric === 'cri')!;
    // pod: 30 34 32 (node-1) + 31 35 (node-2) → 30 31 32 34 35 → 32; CRI: 20 21 22 23 → 21.5
    expect(value(cri.upperSide).median).toBe(32);
    expect(value(cri.upperSide).n).toBe(5);
    expect(value(cri.upperSide).runs.map((r) => r.runId)).toEqual([node1.runId, node2.runId]);
    expect(value(cri.criSide).median).toBe(21.5);
    expect(value(cri.criSide).runs.map((r) => r.runId)).toEqual([criNew.runId]);
    expect(cri.difference).toBeCloseTo(10.5, 12);
    expect(cri.ratio).toBeCloseTo(32 / 21.5, 12);
    // the interval now comes with it: every resampled pod median lies in [30, 35] and every CRI
    // median in [20, 23], so its bounds lie in [30 − 23, 35 − 20] = [7, 15], around 10.5
    expect(cri.lower).toBeGreaterThanOrEqual(7);
    expect(cri.lower).toBeLessThan(10.5);
    expect(cri.upper).toBeGreaterThan(10.5);
    expect(cri.upper).toBeLessThanOrEqual(15);
    const started = g.rows.find((r) => r.upperMetric === 'started')!;
    // 990 1000 1010 1050 1100 → 1010
    expect(value(started.upperSide).median).toBe(1010);
    expect(started.difference).toBeCloseTo(1010 - 21.5, 12);
    // kubelet-share: 790 800 805 810 820 → 805
    expect(value(g.kubeletShare).median).toBe(805);
    expect(g.noCriLevel).toBeNull();
  });

  test('no CRI-level run of the handler on this host class is said plainly', () => {
    const g = group('kata');
    expect(g.noCriLevel).toMatch(/No CRI-level run .* containerd with handler kata on this host class/);
    for (const r of g.rows) {
      expect(r.criSide).toEqual({
        kind: 'missing',
        why: 'No CRI-level run of containerd with handler kata on this host class.',
      });
      expect(r.difference).toBeNull();
      expect(r.ratio).toBeNull();
      expect([r.lower, r.upper]).toEqual([null, null]);
    }
    // kubelet-share 900 950 → 925
    expect(value(g.kubeletShare).median).toBe(925);
  });

  test('a CRI-level run without samples of the counterpart gives its status; a missing pod metric says so', () => {
    const g = group('gvisor');
    expect(g.noCriLevel).toBeNull();
    const cri = g.rows.find((r) => r.upperMetric === 'cri')!;
    expect(value(cri.upperSide).median).toBe(91);
    expect(cri.criSide.kind).toBe('missing');
    expect((cri.criSide as { why: string }).why).toContain('latest status "failed": sandbox died');
    expect(g.kubeletShare.kind).toBe('missing');
  });

  test('the CRI side is one target: the CRI version the nodes report if measured, never two endpoints pooled', () => {
    const endpoint = (label: string, version: string): Target => ({
      ...criTarget('containerd', 'runc'),
      id: `${label}/runc`,
      cri: { name: 'containerd', version, apiVersion: 'v1', endpoint: `unix:///run/${label}.sock` },
    });
    // one run with two containerd endpoints, both with a runc handler; the 2.1.4 one comes first
    const twoEndpoints = run(
      '20261102T000000Z-00000009',
      '2026-11-02T00:00:00Z',
      [endpoint('containerd-2.1', '2.1.4'), endpoint('containerd-1.6', '1.6.20')],
      {
        'containerd-2.1/runc': { [LIFECYCLE]: { 'create-and-run': [40, 42, 41] } },
        'containerd-1.6/runc': { [LIFECYCLE]: { 'create-and-run': [60, 62, 61] } },
      },
    );
    const pods = (version: string) =>
      run(
        '20261106T000000Z-0000000a',
        '2026-11-06T00:00:00Z',
        [
          {
            ...podTarget('node-1', 'runc', 'runc'),
            cri: { name: 'containerd', version, apiVersion: 'v1', endpoint: 'kubernetes://node-1' },
          },
        ],
        { 'lab/runc': { [STARTUP]: { cri: [30, 31, 32], started: [1000, 1001, 1002] } } },
      );
    const criSideOf = (podRun: RunResult) =>
      value(
        kubernetesOverhead(buildIndex(loaded(twoEndpoints, podRun)))[0]!.rows.find(
          (r) => r.upperMetric === 'cri',
        )!.criSide,
      );
    // the nodes report containerd 2.1.4: its endpoint, median 41, not the pool of both (50.5)
    expect(criSideOf(pods('2.1.4')).median).toBe(41);
    expect(criSideOf(pods('2.1.4')).target).toBe('containerd 2.1.4 · runc 1.3.6');
    // the nodes report 1.6.20: that endpoint, median 61
    expect(criSideOf(pods('1.6.20')).median).toBe(61);
    // a version no CRI-level run measured: one endpoint (the run's later target), not both pooled
    const other = criSideOf(pods('2.2.0'));
    expect(other.n).toBe(3);
    expect(other.median).toBe(61);
  });

  test('no kubernetes targets: no groups', () => {
    expect(kubernetesOverhead(buildIndex(loaded(criOld, criNew)))).toEqual([]);
  });

  test('time units convert, others do not', () => {
    expect(convertUnit(1500, 'us', 'ms')).toBeCloseTo(1.5, 12);
    expect(convertUnit(2, 's', 'ms')).toBe(2000);
    expect(convertUnit(3, 'ms', 'ms')).toBe(3);
    expect(convertUnit(3, 'bytes', 'ms')).toBeNull();
  });
});

describe('kubernetes targets wherever runs are listed', () => {
  test('the digest keeps transport and node × RuntimeClass; labels name them', () => {
    const index = buildIndex(loaded(criNew, node1));
    const pod = index.runTargets.find((t) => t.kubernetes?.runtimeClass === 'gvisor')!;
    expect(pod.transport).toBe('kubernetes');
    expect(pod.kubernetes).toEqual({ node: 'node-1', runtimeClass: 'gvisor', kubeletVersion: 'v1.34.4' });
    expect(comboLabel(pod)).toBe(
      'node-1 × RuntimeClass gvisor (handler runsc) · kubelet v1.34.4 · containerd 2.1.4',
    );
    const cri = index.runTargets.find((t) => t.combo === 'containerd/runc')!;
    expect(cri.transport).toBe('grpc');
    expect(cri.kubernetes).toBeNull();
    expect(comboLabel(cri)).toBe('containerd 2.1.4 · runc 1.3.6');
    expect(compareRunRef(node1, 'x.json').targets[0]).toEqual([
      'lab/runc',
      'node-1 × RuntimeClass runc (handler runc) · kubelet v1.34.4 · containerd 2.1.4',
    ]);
  });

  test('the run page shows node × RuntimeClass, kubelet and transport of each pod-level target', () => {
    const html = runPageHtml(node1, 'runs/x.json', (p) => `/${p}`);
    expect(html).toContain('<th>Node × RuntimeClass</th><th>Kubelet</th><th>Node runtime</th>');
    expect(html).toContain('<td>node-1 × gvisor</td><td>v1.34.4</td><td>containerd://2.1.4</td>');
    expect(html).toContain('<td>kubernetes</td>');
    expect(runPageHtml(criNew, 'runs/y.json', (p) => `/${p}`)).not.toContain('Node × RuntimeClass');
  });
});
