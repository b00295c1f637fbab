import { describe, expect, test } from 'vitest';
import { hostClassOf } from '@runtime-bench/schemas';
import { buildIndex } from '../../src/lib/index-builder.ts';
import { comboLabel } from '../../src/lib/labels.ts';
import { isSynthetic } from '../../src/lib/site-index.ts';
import { benchmarkView } from '../../src/lib/views/benchmark.ts';
import { overview } from '../../src/lib/views/overview.ts';
import { runtimes, runtimeView } from '../../src/lib/views/runtime.ts';
import { versionSteps } from '../../src/lib/views/version-steps.ts';
import { slugify } from '../../src/lib/slug.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const older = makeRun('20261101T000000Z-00000001', '2026-11-01T00:00:00Z', [
  { oci: 'runc', ociVersion: '1.1.5', samples: spread(50) },
  { oci: 'crun', ociVersion: '1.8.7', samples: spread(40) },
]);
const newer = makeRun('20261102T000000Z-00000002', '2026-11-02T00:00:00Z', [
  { oci: 'runc', ociVersion: '1.1.12', samples: spread(60) },
  { oci: 'crun', ociVersion: '1.14.4', samples: spread(30) },
  { oci: 'youki', ociVersion: '0.3.3', status: 'unsupported', reason: 'no cgroup v1 support' },
]);
const otherHost = makeRun(
  '20261103T000000Z-00000003',
  '2026-11-03T00:00:00Z',
  [{ oci: 'runc', ociVersion: '1.2.0', samples: spread(20) }],
  { cpuModel: 'Other CPU', cpus: 8 },
);

describe('buildIndex', () => {
  const index = buildIndex(loaded(older, newer, otherHost));

  test('one observation per run × target × metric, including benchmarks without samples', () => {
    expect(index.observations).toHaveLength(2 + 3 + 1);
    const youki = index.observations.find((o) => o.ociName === 'youki')!;
    expect(youki).toMatchObject({ status: 'unsupported', reason: 'no cgroup v1 support', median: null });
  });

  test('host classes are derived with the shared rule, most runs first', () => {
    expect(index.hostClasses.map((h) => h.label)).toEqual([
      hostClassOf(older.host),
      hostClassOf(otherHost.host),
    ]);
    expect(index.hostClasses[0]!.id).toBe(slugify(hostClassOf(older.host)));
    expect(index.hostClasses[0]!.runs).toBe(2);
  });

  test('metrics carry unit, direction and a page slug', () => {
    expect(index.metrics).toEqual([
      expect.objectContaining({
        benchmark: 'operations.container.lifecycle',
        metric: 'CreateContainer',
        unit: 'ms',
        direction: 'lower',
        slug: 'operations.container.lifecycle/createcontainer',
      }),
    ]);
  });

  test('runtime names for the filters and the runtime pages', () => {
    expect(index.criNames).toEqual(['containerd']);
    expect(index.ociNames).toEqual(['crun', 'runc', 'youki']);
    expect(runtimes(index)).toHaveLength(4);
  });
});

describe('overview', () => {
  const [main, second] = overview(buildIndex(loaded(older, newer, otherHost)));

  test('columns are the newest run of each combination, with versions', () => {
    expect(main!.columns.map((c) => [c.combo, c.ociVersion, c.run.runId])).toEqual([
      ['containerd/crun', '1.14.4', newer.runId],
      ['containerd/runc', '1.1.12', newer.runId],
      ['containerd/youki', '0.3.3', newer.runId],
    ]);
    expect(comboLabel(main!.columns[0]!)).toBe('containerd 1.7.2 · crun 1.14.4');
    expect(second!.columns.map((c) => c.combo)).toEqual(['containerd/runc']);
  });

  test('cells hold the median of the newest run, the best is marked and a clear gap is significant', () => {
    const row = main!.families[0]!.rows[0]!;
    const [crun, runc, youki] = row.cells;
    expect(crun).toMatchObject({ kind: 'value', median: 30, n: 10, verdict: { kind: 'best', tied: 0 } });
    expect(runc).toMatchObject({ kind: 'value', median: 60, verdict: { kind: 'worse' } });
    expect(youki).toEqual({ kind: 'status', status: 'unsupported', reason: 'no cgroup v1 support' });
  });

  test('a host class with a single combination has a best but nothing to test', () => {
    expect(second!.families[0]!.rows[0]!.cells[0]).toMatchObject({ verdict: { kind: 'best', tied: 0 } });
  });

  test('an invalid benchmark shows its samples but does not compete', () => {
    const invalid = makeRun('20261104T000000Z-00000004', '2026-11-04T00:00:00Z', [
      { oci: 'runc', ociVersion: '1.1.12', samples: spread(10), status: 'invalid', reason: 'error rate 0.5' },
      { oci: 'crun', ociVersion: '1.14.4', samples: spread(30) },
    ]);
    const [m] = overview(buildIndex(loaded(invalid)));
    const [crun, runc] = m!.families[0]!.rows[0]!.cells;
    expect(crun).toMatchObject({ verdict: { kind: 'best' } });
    expect(runc).toMatchObject({
      kind: 'value',
      status: 'invalid',
      median: 10,
      verdict: { kind: 'untested' },
    });
  });

  test('no runs, no matrices', () => {
    expect(overview(buildIndex([]))).toEqual([]);
  });
});

describe('benchmarkView', () => {
  const index = buildIndex(loaded(older, newer, otherHost));
  const view = benchmarkView(index, index.metrics[0]!);

  test('version trend: x in semver order, pooled medians per version', () => {
    const runc = view.versionCharts.find((c) => c.kind === 'oci' && c.runtime === 'runc')!;
    expect(runc.versions).toEqual(['1.1.5', '1.1.12', '1.2.0']);
    const mainSeries = runc.series.find((s) => s.hostClassId === index.hostClasses[0]!.id)!;
    expect(mainSeries.points.map((p) => [p.version, p.median, p.n, p.runs])).toEqual([
      ['1.1.5', 50, 10, 1],
      ['1.1.12', 60, 10, 1],
    ]);
    // n = 10: the interval is x(2)..x(9) of the samples
    const sorted = [...spread(50)].sort((a, b) => a - b);
    expect(mainSeries.points[0]).toMatchObject({ lower: sorted[1], upper: sorted[8] });
  });

  test('CRI charts have one line per OCI runtime version: trends only across matched partner versions', () => {
    const containerd = view.versionCharts.find((c) => c.kind === 'cri')!;
    expect(containerd.versions).toEqual(['1.7.2']);
    expect(new Set(containerd.series.map((s) => s.partner))).toEqual(
      new Set(['runc 1.1.5', 'runc 1.1.12', 'runc 1.2.0', 'crun 1.8.7', 'crun 1.14.4']),
    );
  });

  test('time trend: one point per run, in time order', () => {
    const runc = view.timeSeries.find(
      (s) => s.combo === 'containerd/runc' && s.hostClassId === index.hostClasses[0]!.id,
    )!;
    expect(runc.points.map((p) => [p.runId, p.median])).toEqual([
      [older.runId, 50],
      [newer.runId, 60],
    ]);
    expect(runc.omitted).toBe(0);
  });

  test('distribution: the newest observation per combination, including a failure', () => {
    const main = view.distributions.filter((d) => d.hostClassId === index.hostClasses[0]!.id);
    expect(main.map((d) => [d.combo, d.status, d.median])).toEqual([
      ['containerd/crun', 'ok', 30],
      ['containerd/runc', 'ok', 60],
      ['containerd/youki', 'unsupported', null],
    ]);
    expect(main[1]!.samples).toEqual(spread(60));
    expect(main[1]!.min).toBe(Math.min(...spread(60)));
  });
});

describe('runtimeView', () => {
  const index = buildIndex(loaded(older, newer, otherHost));

  test('an OCI runtime lists its versions and one row per host class and partner', () => {
    const view = runtimeView(index, 'oci', 'runc');
    expect(view.versions.map((v) => [v.version, v.runs])).toEqual([
      ['1.1.5', 1],
      ['1.1.12', 1],
      ['1.2.0', 1],
    ]);
    const family = view.families[0]!;
    expect(family.versions).toEqual(['1.1.5', '1.1.12', '1.2.0']);
    const main = family.rows.find((r) => r.hostClassId === index.hostClasses[0]!.id)!;
    expect(main.cells.map((c) => c?.median ?? null)).toEqual([50, 60, null]);
    // 50 → 60 ms, but in two separate runs: listed as such, with no change
    const steps = versionSteps(index, view);
    expect(steps.sideBySide).toEqual([]);
    const separate = steps.separate.filter((s) => s.hostClassId === main.hostClassId);
    expect(separate.map((s) => [s.from.version, s.to.version, s.basis])).toEqual([
      ['1.1.5', '1.1.12', 'separate runs'],
    ]);
  });

  test('a change between versions comes from the run that measured both side by side', () => {
    // one run with runc 1.1.5 and 1.2.0 beside each other (a sweep), and a later run of 1.2.0 alone
    const sweep = makeRun('20261104T000000Z-00000004', '2026-11-04T00:00:00Z', [
      { oci: 'runc', ociVersion: '1.1.5', samples: spread(100, 40) },
      { oci: 'other', ociVersion: '1.2.0', samples: spread(105, 40) },
    ]);
    const second = sweep.targets[1]!;
    second.id = 'containerd/runc-1.2.0';
    second.oci.name = 'runc';
    second.handler = 'runc';
    sweep.results[1]!.target = second.id;
    const alone = makeRun('20261105T000000Z-00000005', '2026-11-05T00:00:00Z', [
      { oci: 'runc', ociVersion: '1.2.0', samples: spread(300, 40) },
    ]);
    const idx = buildIndex(loaded(sweep, alone));
    const steps = versionSteps(idx, runtimeView(idx, 'oci', 'runc'));
    expect(steps.separate).toEqual([]);
    expect(steps.sideBySide).toHaveLength(1);
    const [step] = steps.sideBySide;
    // the sweep's medians, not the pool with the later run of 1.2.0 at 300 ms
    expect(step).toMatchObject({
      from: '1.1.5',
      to: '1.2.0',
      run: { runId: sweep.runId },
      before: 'containerd/runc',
    });
    expect(step!.change).toBeCloseTo(105 / 100 - 1, 12);
    expect(step!.lower).toBeLessThanOrEqual(step!.change);
    expect(step!.upper).toBeGreaterThanOrEqual(step!.change);
  });

  test('a version that failed in a sweep is stepped over: its neighbours were still measured together', () => {
    const sweep = makeRun('20261106T000000Z-00000006', '2026-11-06T00:00:00Z', [
      { oci: 'runc', ociVersion: '1.1.5', samples: spread(100, 20) },
      { oci: 'b', ociVersion: '1.1.10', status: 'failed', reason: 'every attempt failed' },
      { oci: 'c', ociVersion: '1.2.0', samples: spread(90, 20) },
    ]);
    sweep.targets.forEach((t, i) => {
      if (i === 0) return;
      t.id = `containerd/runc-${t.oci.version}`;
      t.oci.name = 'runc';
      t.handler = t.id.split('/')[1]!;
      sweep.results[i]!.target = t.id;
    });
    const idx = buildIndex(loaded(sweep));
    const steps = versionSteps(idx, runtimeView(idx, 'oci', 'runc'));
    expect(steps.sideBySide.map((s) => [s.from, s.to, s.run.runId])).toEqual([
      ['1.1.5', '1.2.0', sweep.runId],
    ]);
    expect(steps.sideBySide[0]!.change).toBeCloseTo(90 / 100 - 1, 12);
    expect(steps.separate).toEqual([]);
  });

  test('a runtime without samples still has its versions listed', () => {
    const view = runtimeView(index, 'oci', 'youki');
    expect(view.versions.map((v) => v.version)).toEqual(['0.3.3']);
    expect(view.families).toEqual([]);
  });
});

test('synthetic runs are recognised by tool version or host name', () => {
  expect(isSynthetic(older)).toBe(false);
  expect(isSynthetic({ ...older, tool: { ...older.tool, version: 'synthetic' } })).toBe(true);
  expect(isSynthetic({ ...older, host: { ...older.host, hostname: 'synthetic-host-0' } })).toBe(true);
});
