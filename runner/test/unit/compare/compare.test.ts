import { describe, expect, test } from 'vitest';
import { compareRuns, type CompareRow, type MetricRow } from '../../../src/compare/index.ts';
import { CPU, CRUN, LIFECYCLE, night, RUNC, syntheticRun } from './synthetic.ts';

const fast = { resamples: 2000 };

function metric(rows: CompareRow[], name: string): MetricRow {
  const row = rows.find((r): r is MetricRow => r.kind === 'metric' && r.metric === name);
  if (!row) throw new Error(`no row ${name}`);
  return row;
}

describe('compare two targets of one run', () => {
  const run = syntheticRun({
    seed: 3,
    startedAt: night(1),
    n: 20,
    targets: [RUNC, { ...CRUN, effect: { StartContainer: 0.8, events: 1.0 } }],
  });
  const report = compareRuns(
    { run, label: 'run.json', target: 'containerd/runc' },
    { run, label: 'run.json', target: 'containerd/crun' },
    fast,
  );

  test('a 20 % faster StartContainer is "better"; unchanged metrics are not significant', () => {
    expect(report.rows.map((r) => `${r.kind === 'metric' ? r.metric : r.kind}:${r.verdict}`)).toEqual([
      'CreateContainer:no significant difference',
      'StartContainer:better',
      'StopContainer:no significant difference',
      'events:no significant difference',
    ]);
    const row = metric(report.rows, 'StartContainer');
    expect(row.ratio!).toBeGreaterThan(0.72);
    expect(row.ratio!).toBeLessThan(0.88);
    expect(row.ratioLower!).toBeLessThan(row.ratio!);
    expect(row.ratioUpper!).toBeLessThan(1);
    expect(row.cliffsDelta!).toBeLessThan(-0.5);
    expect(row.test).toBe('Mann-Whitney U (exact)');
    expect(row.baseline.n).toBe(20);
  });

  test('p-values are Holm-adjusted over all tests of the report', () => {
    const p = report.rows.map((r) => (r.kind === 'status' ? null : r.pValue));
    expect(p.every((v) => v !== null)).toBe(true);
    const adjusted = report.rows.map((r) => r.adjustedP!);
    // Holm's step-down written out here, not by stats/multiple.ts: the i-th smallest of m
    // p-values times (m − i), then the running maximum in that order, capped at 1.
    const order = p.map((v, i) => ({ v: v!, i })).sort((a, b) => a.v - b.v);
    const expected = new Array<number>(p.length);
    let running = 0;
    order.forEach(({ v, i }, rank) => {
      running = Math.max(running, Math.min(1, (p.length - rank) * v));
      expected[i] = running;
    });
    adjusted.forEach((a, i) => expect(a).toBeCloseTo(expected[i]!, 12));
    expect(report.rows.length).toBeGreaterThan(1);
  });

  test('no note about different runs for one run', () => {
    expect(report.notes).toEqual([]);
    expect(report.baseline.targets).toEqual([
      { id: 'containerd/runc', cri: 'containerd 1.6.20', oci: 'runc 1.1.5' },
    ]);
  });
});

describe('compare two runs', () => {
  const a = syntheticRun({ seed: 4, startedAt: night(1), targets: [RUNC, CRUN] });
  test('targets pair by id; direction decides better / worse', () => {
    const b = syntheticRun({
      seed: 5,
      startedAt: night(2),
      targets: [{ ...RUNC, effect: { events: 0.8, StopContainer: 1.5 } }, CRUN],
    });
    const report = compareRuns({ run: a, label: 'a' }, { run: b, label: 'b' }, fast);
    const flagged = report.rows
      .filter((r) => r.verdict !== 'no significant difference')
      .map((r) => `${r.candidateTarget}:${r.kind === 'metric' ? r.metric : r.kind}:${r.verdict}`);
    expect(flagged).toEqual(['containerd/runc:StopContainer:worse', 'containerd/runc:events:worse']);
    expect(report.notes.join()).toMatch(/different runs/);
  });

  test('keys on one side only are listed, not compared', () => {
    const b = syntheticRun({ seed: 6, startedAt: night(2), targets: [RUNC] });
    const report = compareRuns({ run: a, label: 'a' }, { run: b, label: 'b' }, fast);
    expect(report.onlyInBaseline).toEqual([`${LIFECYCLE} · containerd/crun`, `${CPU} · containerd/crun`]);
    expect(report.rows.every((r) => r.baselineTarget === 'containerd/runc')).toBe(true);
  });

  test('a target renamed since the baseline is paired with its former id when the caller says so', () => {
    const b = syntheticRun({ seed: 6, startedAt: night(2), targets: [RUNC] });
    const renamed = {
      ...b,
      targets: b.targets.map((t) => ({ ...t, id: 'containerd-1.6/runc' })),
      results: b.results.map((r) => ({ ...r, target: 'containerd-1.6/runc' })),
    };
    const byId = compareRuns({ run: a, label: 'a' }, { run: renamed, label: 'b' }, fast);
    expect(byId.rows).toEqual([]);
    const report = compareRuns(
      { run: a, label: 'a' },
      { run: renamed, label: 'b', renamedFrom: { 'containerd-1.6/runc': 'containerd/runc' } },
      fast,
    );
    const metrics = b.results.flatMap((r) => r.metrics.map((m) => `${r.benchmark}:${m.name}`));
    expect(report.rows.filter((r) => r.kind === 'metric')).toHaveLength(metrics.length);
    for (const r of report.rows) {
      expect(r.baselineTarget).toBe('containerd/runc');
      expect(r.candidateTarget).toBe('containerd-1.6/runc');
    }
    expect(report.onlyInCandidate).toEqual([]);
    expect(report.onlyInBaseline).toEqual([`${LIFECYCLE} · containerd/crun`, `${CPU} · containerd/crun`]);
    expect(report.notes.join()).toMatch(
      /containerd-1\.6\/runc is paired with the baseline's containerd\/runc/,
    );
  });

  test('host classes that differ are pointed out', () => {
    const b = syntheticRun({ seed: 7, startedAt: night(2), targets: [RUNC, CRUN], host: { cpus: 8 } });
    expect(compareRuns({ run: a, label: 'a' }, { run: b, label: 'b' }, fast).notes.join()).toMatch(
      /host classes/,
    );
  });
});

describe('error rates, states and too little data', () => {
  test('status and error-rate rows', () => {
    const run = syntheticRun({
      seed: 8,
      startedAt: night(1),
      targets: [
        RUNC,
        { ...CRUN, failed: 20 },
        { id: 'containerd/youki', oci: 'youki', status: 'unsupported' },
      ],
    });
    const base = { run, label: 'r', target: 'containerd/runc' };
    const errors = compareRuns(base, { run, label: 'r', target: 'containerd/crun' }, fast);
    const rates = errors.rows.filter((r) => r.kind === 'error-rate');
    expect(rates.map((r) => r.verdict)).toEqual(['worse', 'worse']);
    expect(rates[0]).toMatchObject({
      baseline: { failed: 0, attempts: 10 },
      candidate: { failed: 20, attempts: 30 },
    });
    const unsupported = compareRuns(base, { run, label: 'r', target: 'containerd/youki' }, fast);
    expect(
      unsupported.rows.filter((r) => r.kind === 'status').map((r) => [r.baseline, r.candidate, r.verdict]),
    ).toEqual([
      ['ok', 'unsupported', 'worse'],
      ['ok', 'unsupported', 'worse'],
    ]);
    expect(unsupported.onlyInBaseline).toHaveLength(4); // its metrics have no counterpart
  });

  test('one sample a side is insufficient data, not a verdict', () => {
    const a = syntheticRun({ seed: 9, startedAt: night(1), n: 1 });
    const b = syntheticRun({
      seed: 10,
      startedAt: night(2),
      n: 1,
      targets: [{ ...RUNC, effect: { StartContainer: 3 } }],
    });
    const report = compareRuns({ run: a, label: 'a' }, { run: b, label: 'b' }, fast);
    expect(report.rows.every((r) => r.verdict === 'insufficient data')).toBe(true);
    expect(metric(report.rows, 'StartContainer').ratio!).toBeGreaterThan(2);
  });

  test('identical samples: no significant difference', () => {
    const a = syntheticRun({ seed: 11, startedAt: night(1) });
    const report = compareRuns({ run: a, label: 'a' }, { run: a, label: 'a' }, fast);
    expect(report.rows.every((r) => r.verdict === 'no significant difference')).toBe(true);
    const row = metric(report.rows, 'StartContainer');
    expect(row).toMatchObject({ ratio: 1, pValue: 1, cliffsDelta: 0 });
    expect(row.ratioLower!).toBeLessThan(1);
    expect(row.ratioUpper!).toBeGreaterThan(1);
  });
});

describe('calibration', () => {
  test('runs of one distribution: a significant verdict in at most about alpha of the reports', () => {
    let reportsWithVerdict = 0;
    for (let s = 0; s < 60; s++) {
      const run = syntheticRun({ seed: 500 + s, startedAt: night(1), targets: [RUNC, CRUN] });
      const report = compareRuns(
        { run, label: 'r', target: 'containerd/runc' },
        { run, label: 'r', target: 'containerd/crun' },
        { resamples: 200 },
      );
      if (report.rows.some((r) => r.verdict === 'better' || r.verdict === 'worse')) reportsWithVerdict++;
    }
    // Holm bounds the family-wise rate by 0.05: about 3 of 60; Binomial(60, 0.05) ≥ 8 has p < 0.01.
    expect(reportsWithVerdict).toBeLessThanOrEqual(7);
  });
});

describe('minimum detectable effect on every metric row', () => {
  const row = (n: number): MetricRow => {
    const run = syntheticRun({ seed: 3, startedAt: night(1), n, targets: [RUNC, CRUN] });
    const report = compareRuns(
      { run, label: 'r', target: 'containerd/runc' },
      { run, label: 'r', target: 'containerd/crun' },
      fast,
    );
    return report.rows.find((r): r is MetricRow => r.kind === 'metric' && r.metric === 'StartContainer')!;
  };
  test('3 against 3: nothing detectable, and the row says why', () => {
    const r = row(3);
    expect(r.detectable).toBeNull();
    expect(r.notes.join(' ')).toMatch(/3 against 3 values cannot be significant .*smallest possible p 0\.10/);
  });
  test('30 against 30: a finite MDE that shrinks with n', () => {
    const small = row(30).detectable!;
    const large = row(120).detectable!;
    expect(small).toBeGreaterThan(0);
    expect(large).toBeLessThan(small);
  });
});

describe('compare runs whose benchmark parameters differ', () => {
  test('each side keeps its median, but there is no ratio, no test and no verdict', () => {
    const a = syntheticRun({ seed: 7, startedAt: night(1), targets: [RUNC], parameters: { threads: 1 } });
    const b = syntheticRun({ seed: 8, startedAt: night(2), targets: [RUNC], parameters: { threads: 2 } });
    const report = compareRuns({ run: a, label: 'a' }, { run: b, label: 'b' }, fast);
    const rows = report.rows.filter((r): r is MetricRow => r.kind === 'metric');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.parametersDiffer).toBe(true);
      expect(row.baseline.median).not.toBeNull();
      expect(row.candidate.median).not.toBeNull();
      expect([row.ratio, row.pValue, row.adjustedP]).toEqual([null, null, null]);
      expect(row.verdict).toBe('insufficient data');
      expect(row.notes[0]).toMatch(/^benchmark parameters differ .*: not compared$/);
    }
  });
});
