// The pure views behind the site's answers, on the files of answers-data.ts: parameters, limits
// and renames (the browser test checks the same on the built pages).
import { describe, expect, test } from 'vitest';
import { enforcementOf } from '../../src/lib/enforcement.ts';
import { buildIndex } from '../../src/lib/index-builder.ts';
import { overview, type MatrixColumn } from '../../src/lib/views/overview.ts';
import { parameterKey, plainMedian, quotaEnforced, rankedRun } from '../expect.ts';
import { answerRuns, QUOTA, RENAMED_FROM, RENAMED_TO } from './answers-data.ts';
import { loaded } from './fixtures.ts';

describe('enforcementOf', () => {
  const median = (values: Record<string, number>) => (name: string) => values[name] ?? null;
  test('limits.cpu.time: throttled and within the quota is enforced; never throttled or a whole CPU is not', () => {
    expect(
      enforcementOf(
        'limits.cpu.time',
        QUOTA,
        median({ total_time: 1.7, throttled_periods: 17, cpu_usage: 170 }),
      ),
    ).toMatchObject({ state: 'enforced' });
    expect(
      enforcementOf(
        'limits.cpu.time',
        QUOTA,
        median({ total_time: 0.19, throttled_periods: 0, cpu_usage: 60 }),
      ),
    ).toMatchObject({ state: 'not enforced' });
    // 0.19 s of work with 188 ms of CPU: 99 % of a CPU under a 10 % quota
    expect(
      enforcementOf(
        'limits.cpu.time',
        QUOTA,
        median({ total_time: 0.19, throttled_periods: 3, cpu_usage: 188 }),
      ),
    ).toMatchObject({ state: 'not enforced', why: expect.stringContaining('99 %') });
    expect(enforcementOf('limits.cpu.time', QUOTA, median({ total_time: 1.7 }))).toMatchObject({
      state: 'not shown',
    });
  });
  test('limits.memory.min: a limit that never made the container fail was not enforced', () => {
    expect(enforcementOf('limits.memory.min', {}, median({ bytes: 65536, failed_bytes: 0 }))).toMatchObject({
      state: 'not enforced',
    });
    expect(
      enforcementOf('limits.memory.min', {}, median({ bytes: 196608, failed_bytes: 131072 })),
    ).toMatchObject({
      state: 'enforced',
    });
    expect(enforcementOf('performance.cpu', {}, median({}))).toBeNull();
  });
});

describe('the matrix on the answers files', () => {
  const files = answerRuns();
  const [m] = overview(buildIndex(loaded(...files)));
  const row = (benchmark: string, metric: string) =>
    m!.families.find((f) => f.benchmark === benchmark)!.rows.find((r) => r.metric.metric === metric)!;
  const resultOf = (c: MatrixColumn, benchmark: string) =>
    files
      .find((f) => f.runId === c!.run.runId)!
      .results.find((r) => r.target === c!.targetId && r.benchmark === benchmark);

  test('a renamed target is one column, at its newest run', () => {
    expect(m!.columns.map((c) => c.targetId)).toContain(RENAMED_TO);
    expect(m!.columns.map((c) => c.targetId)).not.toContain(RENAMED_FROM);
  });

  test('cells with other parameters or an ignored quota are set apart, never best', () => {
    const cpu = row('performance.cpu', 'total_time');
    const keys = m!.columns.map((c) => parameterKey(resultOf(c, 'performance.cpu')!.parameters));
    const majority = keys.filter((k) => keys.filter((x) => x === k).length > keys.length / 2)[0]!;
    // of the cells with those parameters, only one run's are ranked: the run most of them come from
    const runs = m!.columns.map((c) => c.run.runId);
    const ranked = rankedRun(runs.filter((_, i) => keys[i] === majority));
    cpu.cells.forEach((cell, i) => {
      if (cell.kind !== 'value') throw new Error('every column ran performance.cpu');
      const label = keys[i] !== majority ? 'parameters differ' : runs[i] !== ranked ? 'separate run' : null;
      expect(cell.relation.kind === 'apart' ? cell.relation.label : null, m!.columns[i]!.targetId).toBe(
        label,
      );
    });
    const limits = row('limits.cpu.time', 'total_time');
    const limitsRun = rankedRun(
      m!.columns
        .filter((c) => {
          const r = resultOf(c, 'limits.cpu.time');
          return r && quotaEnforced(r) !== false;
        })
        .map((c) => c.run.runId),
    );
    limits.cells.forEach((cell, i) => {
      const r = resultOf(m!.columns[i]!, 'limits.cpu.time');
      if (!r || cell.kind !== 'value') return;
      const enforced = quotaEnforced(r);
      const label =
        enforced === false ? 'not enforced' : m!.columns[i]!.run.runId !== limitsRun ? 'separate run' : null;
      expect(cell.relation.kind === 'apart' ? cell.relation.label : null, m!.columns[i]!.targetId).toBe(
        label,
      );
      if (cell.relation.kind === 'best') {
        expect(enforced).toBe(true);
        const best = plainMedian(r.metrics.find((x) => x.name === 'total_time')!.samples);
        for (const c of m!.columns) {
          const o = resultOf(c, 'limits.cpu.time');
          if (o && c !== m!.columns[i] && quotaEnforced(o) && c.run.runId === limitsRun)
            expect(plainMedian(o.metrics.find((x) => x.name === 'total_time')!.samples)).toBeGreaterThan(
              best,
            );
        }
      }
    });
  });
});
