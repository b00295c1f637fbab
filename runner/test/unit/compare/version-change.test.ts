// The side-by-side version-change verdicts of `check`: which targets pair up, and each metric's
// change, interval and verdict. Expectations are computed here from the samples (the
// Hodges–Lehmann estimate by brute force over the Walsh averages) and from the targets' versions
// (ordered by their numeric parts), not by the code under test.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import { RunResultSchema } from '@runtime-bench/schemas';
import { decideVersionChanges, VERSION_CHANGE_DEFAULTS } from '../../../src/compare/version-change.ts';
import { versionPairs } from '../../../src/compare/version-pairs.ts';
import { lifecycleMetrics, LIFECYCLE, night, syntheticRun } from './synthetic.ts';

const SWEEP = new URL('../../../../data/runs/2026/11/26/20261126T220117Z-c1b5a8b7.json', import.meta.url);
const sweep = (): RunResult => RunResultSchema.parse(JSON.parse(readFileSync(SWEEP, 'utf8')));

const numericParts = (v: string) => v.split('.').map(Number);
const byVersion = (x: string, y: string) => {
  const [a, b] = [numericParts(x), numericParts(y)];
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/** Median of the Walsh averages of ln(b/a), as exp − 1: the paired change, by brute force. */
function pairedChange(a: readonly number[], b: readonly number[]): number {
  const d = a.map((x, k) => Math.log(b[k]! / x));
  const walsh: number[] = [];
  for (let i = 0; i < d.length; i++) for (let j = i; j < d.length; j++) walsh.push((d[i]! + d[j]!) / 2);
  walsh.sort((x, y) => x - y);
  const mid = walsh.length / 2;
  const median = walsh.length % 2 ? walsh[Math.floor(mid)]! : (walsh[mid - 1]! + walsh[mid]!) / 2;
  return Math.exp(median) - 1;
}

const options = { ...VERSION_CHANGE_DEFAULTS, threshold: 0.05, thresholds: {} };

describe('versionPairs', () => {
  it('pairs each runc release of the sweep with the next one, in version order', () => {
    const run = sweep();
    const versions = run.targets.map((t) => t.oci.version).sort(byVersion);
    const pairs = versionPairs(run);
    expect(pairs.map((p) => [p.from, p.to])).toEqual(versions.slice(1).map((v, i) => [versions[i], v]));
    for (const p of pairs) {
      expect(p.component).toBe('oci');
      expect(p.a.oci.version).toBe(p.from);
      expect(p.b.oci.version).toBe(p.to);
    }
  });

  it('pairs containerd versions (one stack each) and finds an A/A pair of one version built twice', () => {
    const base = syntheticRun({ seed: 1, startedAt: night(1), targets: [{ id: 'x', oci: 'runc' }] });
    const target = (id: string, cri: string, oci: string, ociVersion: string) => ({
      ...base.targets[0]!,
      id,
      cri: { ...base.targets[0]!.cri, version: cri },
      oci: { ...base.targets[0]!.oci, name: oci, version: ociVersion },
      handler: oci,
    });
    const pairs = versionPairs({
      targets: [
        target('c2.1/runc', '2.1.9', 'runc', '1.3.0'),
        target('c1.7/runc', '1.7.35', 'runc', '1.3.0'),
        target('c2.2/runc', '2.2.9', 'runc', '1.3.0'),
        target('c2.2/crun-a', '2.2.9', 'crun', '1.21'),
        target('c2.2/crun-b', '2.2.9', 'crun', '1.21'),
      ],
    });
    expect(pairs.map((p) => [p.component, p.a.id, p.b.id])).toEqual([
      ['cri', 'c1.7/runc', 'c2.1/runc'],
      ['cri', 'c2.1/runc', 'c2.2/runc'],
      ['none', 'c2.2/crun-a', 'c2.2/crun-b'],
    ]);
  });

  it('puts a target in pairs of two components: the runc step on one containerd and the containerd step under one runc', () => {
    const base = syntheticRun({ seed: 1, startedAt: night(1), targets: [{ id: 'x', oci: 'runc' }] });
    const target = (id: string, cri: string, ociVersion: string) => ({
      ...base.targets[0]!,
      id,
      cri: { ...base.targets[0]!.cri, version: cri },
      oci: { ...base.targets[0]!.oci, version: ociVersion },
    });
    const pairs = versionPairs({
      targets: [
        target('old/runc-1.1.5', '1.6.20', '1.1.5'),
        target('new/runc-1.1.5', '2.1.9', '1.1.5'),
        target('new/runc-1.3.6', '2.1.9', '1.3.6'),
      ],
    });
    expect(pairs.map((p) => [p.component, p.from, p.to, p.a.id, p.b.id])).toEqual([
      ['oci', '1.1.5', '1.3.6', 'new/runc-1.1.5', 'new/runc-1.3.6'],
      ['cri', '1.6.20', '2.1.9', 'old/runc-1.1.5', 'new/runc-1.1.5'],
    ]);
  });
});

describe('decideVersionChanges on the real runc sweep', () => {
  const run = sweep();
  const reports = decideVersionChanges({ run, file: 'sweep.json' }, [], options);

  it('gives every metric the paired change of its samples and a verdict its interval supports', () => {
    const pair = reports.find((r) => r.from === '1.1.14' && r.to === '1.2.0')!;
    expect(pair.declared).toBe(false);
    const start = pair.decision!.metrics.find((m) => m.metric === `${LIFECYCLE}:StartContainer`)!;
    const samples = (target: string) =>
      run.results
        .find((r) => r.target === target && r.benchmark === LIFECYCLE)!
        .metrics.find((m) => m.name === 'StartContainer')!.samples;
    expect(start.design).toBe('paired');
    expect(start.change).toBeCloseTo(pairedChange(samples(pair.before), samples(pair.after)), 10);
    for (const r of reports)
      for (const m of r.decision!.metrics) {
        expect(m.lower).toBeLessThanOrEqual(m.change);
        expect(m.upper).toBeGreaterThanOrEqual(m.change);
        const bad =
          m.direction === 'lower' ? m.lower > 0 && m.change >= 0.05 : m.upper < 0 && m.change <= -0.05;
        const good =
          m.direction === 'lower' ? m.upper < 0 && m.change <= -0.05 : m.lower > 0 && m.change >= 0.05;
        const inside = m.lower > -0.05 && m.upper < 0.05;
        expect(m.verdict).toBe(bad ? 'regression' : good ? 'improvement' : inside ? 'same' : 'unclear');
      }
    // The sweep kept a fixed order within its rounds, and the report says so.
    expect(pair.notes.join(' ')).toMatch(/fixed order/);
  });

  it('is decided on its own run: a pair only found is never pooled with an earlier run of the same versions', () => {
    const earlier = { ...run, runId: '20261125T220117Z-c1b5a8b7', startedAt: '2026-11-25T22:01:17.000Z' };
    const [first] = decideVersionChanges(
      { run, file: 'now.json' },
      [{ run: earlier, file: 'then.json' }],
      options,
    );
    expect(first!.runIds).toEqual([run.runId]);
    expect(first!.decision!.look).toBe(1);
  });
});

describe('a declared version change', () => {
  const metrics = lifecycleMetrics(0.05);
  const declaredRun = (effect: number, seed: number): RunResult => {
    const run = syntheticRun({
      seed,
      startedAt: night(5),
      n: 200,
      metrics,
      targets: [
        { id: 'nightly/runc-latest', oci: 'runc', version: '1.4.4', effect: { StartContainer: effect } },
        { id: 'nightly/runc-1.4.3', oci: 'runc', version: '1.4.3' },
        { id: 'nightly/runc-1.2.6', oci: 'runc', version: '1.2.6' },
      ],
    });
    return {
      ...run,
      config: {
        ...run.config,
        roundOrder: 'shuffled',
        versionChanges: [{ before: 'nightly/runc-1.4.3', after: 'nightly/runc-latest' }],
      },
    };
  };

  it('is the only pair decided (the pinned reference is not a version change) and finds a +30 % step', () => {
    const reports = decideVersionChanges({ run: declaredRun(1.3, 7), file: 'n.json' }, [], options);
    expect(reports.map((r) => [r.declared, r.from, r.to, r.before, r.after])).toEqual([
      [true, '1.4.3', '1.4.4', 'nightly/runc-1.4.3', 'nightly/runc-latest'],
    ]);
    const start = reports[0]!.decision!.metrics.find((m) => m.metric.endsWith(':StartContainer'))!;
    expect(start.verdict).toBe('regression');
    expect(start.lower).toBeGreaterThan(0.2);
    expect(reports[0]!.notes).toEqual([]);
  });

  it('pools the earlier nights that declared the same pair as its earlier looks', () => {
    const earlier = declaredRun(1.3, 9);
    const older = {
      ...earlier,
      runId: '20261103T030000Z-00000009',
      startedAt: night(3),
      finishedAt: night(3).replace('03:00', '03:01'),
    };
    const tonight = declaredRun(1.3, 7);
    const reports = decideVersionChanges(
      { run: tonight, file: 'n.json' },
      [{ run: older, file: 'o.json' }],
      options,
    );
    expect(reports[0]!.runIds).toEqual([older.runId, tonight.runId]);
    expect(reports[0]!.decision!.look).toBe(2);
    expect(reports[0]!.decision!.metrics[0]!.n.a).toBe(400);
  });

  it('names two commits that report one version by their builds, and an undeclared pair of them A/A', () => {
    const commits = (declare: boolean): RunResult => {
      const run = syntheticRun({
        seed: 3,
        startedAt: night(5),
        n: 50,
        metrics,
        targets: [
          { id: 'c/runc-1.1.14-g2655e7c5a859', oci: 'runc', version: '1.1.14' },
          { id: 'c/runc-1.1.14-g614ce12f0e97', oci: 'runc', version: '1.1.14' },
        ],
      });
      const handlers = ['runc-1.1.14-g2655e7c5a859', 'runc-1.1.14-g614ce12f0e97'];
      return {
        ...run,
        targets: run.targets.map((t, i) => ({ ...t, handler: handlers[i]! })),
        config: {
          ...run.config,
          roundOrder: 'shuffled',
          ...(declare
            ? {
                versionChanges: [
                  { before: 'c/runc-1.1.14-g2655e7c5a859', after: 'c/runc-1.1.14-g614ce12f0e97' },
                ],
              }
            : {}),
        },
      };
    };
    const [declared] = decideVersionChanges({ run: commits(true), file: 'c.json' }, [], options);
    expect(declared!.label).toBe('runc 1.1.14: runc-1.1.14-g2655e7c5a859 → runc-1.1.14-g614ce12f0e97');
    const [found] = decideVersionChanges({ run: commits(false), file: 'c.json' }, [], options);
    expect(found!.label).toBe('runc 1.1.14 twice (A/A)');
  });

  it('is refused by the result schema when it names a target the run does not have', () => {
    const run = declaredRun(1, 8);
    const bad = {
      ...run,
      config: { ...run.config, versionChanges: [{ before: 'nightly/runc-9', after: 'nightly/runc-latest' }] },
    };
    const parsed = RunResultSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['config', 'versionChanges', 0, 'before']);
  });
});
