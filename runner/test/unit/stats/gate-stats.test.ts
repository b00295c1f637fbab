import { describe, expect, test } from 'vitest';
import {
  moderate,
  persistence,
  PERSISTENCE_SCALES,
  pooledModeration,
  predictionScale,
  predictionTest,
  resolutionFloor,
  resolutionOf,
  TREND_WEIGHT,
  trendAlarm,
  type Moderation,
  type OwnSpread,
  type PersistenceOptions,
  type PredictionTest,
  type PredictionTestOptions,
  type SizedChange,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

// Reference values: runner/test/fixtures/stats/generate_gate.py (scipy.stats.t, linregress).
interface Fixture {
  moderation: {
    name: string;
    spreads: OwnSpread[];
    priorDf: number | 'estimated' | null;
    minMetrics: number;
    /** An infinite d₀ is written as the string "Infinity" (JSON has no infinity). */
    pooled: (Omit<Moderation, 'priorDf'> & { priorDf: number | 'Infinity' | null }) | null;
    probe: OwnSpread;
    moderated: { spread: number; df: number };
    chi2MedianOverNu: number;
  }[];
  prediction: (PredictionTest & {
    name: string;
    window: number[];
    current: number;
    options: PredictionTestOptions;
  })[];
  persistence: {
    name: string;
    previousLogs: number[];
    currentLog: number;
    singleP: number;
    options: PersistenceOptions;
    p: number;
    decided: (SizedChange & { by: 'nights' | 'trend'; nights?: number; runs: number }) | null;
  }[];
  trend: {
    name: string;
    logs: number[];
    threshold: number;
    confidence: number;
    minRuns: number;
    alarm: (SizedChange & { p: number; runs: number }) | null;
  }[];
}
const fixture = loadFixture<Fixture>('gate-stats.json');

// p-values and quantiles go through the t distribution: stdlib against scipy agree to ~1e-12.
const P = 1e-8;

describe('moderated spread matches the limma formula computed with numpy', () => {
  test.each(fixture.moderation)('$name', (c) => {
    const pooled = pooledModeration(c.spreads, c.priorDf, c.minMetrics);
    if (c.pooled === null) expect(pooled).toBeNull();
    else {
      expectClose(pooled!.lambda, c.pooled.lambda, 1e-12);
      const expected = c.pooled.priorDf === 'Infinity' ? Infinity : c.pooled.priorDf;
      if (c.priorDf === 'estimated' && expected !== Infinity) expectClose(pooled!.priorDf!, expected!, 1e-9);
      else expect(pooled!.priorDf).toBe(expected);
    }
    const m = moderate(c.probe.own, c.probe.df, c.probe.sampling, pooled);
    expectClose(m.spread, c.moderated.spread, 1e-9);
    expectClose(m.df, c.moderated.df, 1e-9);
  });

  test('d₀ is estimated larger when the metrics scatter as sampling noise alone, smaller with drifting metrics', () => {
    const [drifting, quiet] = ['eight metrics, two drifting', 'eight metrics, sampling noise only'].map(
      (name) => fixture.moderation.find((c) => c.name.startsWith(name))!,
    );
    const d0 = (c: typeof drifting) => pooledModeration(c!.spreads, 'estimated', c!.minMetrics)!.priorDf!;
    expect(d0(quiet)).toBeGreaterThan(d0(drifting));
  });

  test('Wilson–Hilferty is within 1 % of the exact median of χ²_ν/ν at the windows used', () => {
    for (const c of fixture.moderation) {
      const nu = c.probe.df;
      expectClose((1 - 2 / (9 * nu)) ** 3, c.chi2MedianOverNu, 0.01);
    }
  });

  test('no moderation without a sampling variance', () => {
    expect(moderate(0.02, 9, null, { lambda: 2, priorDf: null })).toEqual({ spread: 0.02, df: 9 });
    expect(moderate(0.02, 9, 0, { lambda: 2, priorDf: null })).toEqual({ spread: 0.02, df: 9 });
  });
});

describe('t prediction test matches scipy.stats.t', () => {
  test.each(fixture.prediction)('$name', (c) => {
    const t = predictionTest(predictionScale(c.window, c.current), c.options);
    expect(t.logScale).toBe(c.logScale);
    expect(t.floored).toBe(c.floored);
    expect(t.moderated).toBe(c.moderated);
    expectClose(t.df, c.df, 1e-12);
    expectClose(t.level, c.level, 1e-12);
    expectClose(t.difference, c.difference, 1e-12, 1e-15);
    expectClose(t.ownSpread, c.ownSpread, 1e-9, 1e-15);
    expectClose(t.spread, c.spread, 1e-9, 1e-15);
    expectClose(t.se, c.se, 1e-9, 1e-15);
    expectClose(t.p, c.p, P, 1e-300);
    expectClose(t.change, c.change, 1e-9, 1e-15);
    expectClose(t.lower, c.lower, 1e-8, 1e-15);
    expectClose(t.upper, c.upper, 1e-8, 1e-15);
  });

  test('needs two window values', () => {
    expect(() => predictionScale([1], 2)).toThrow(/at least 2/);
  });

  test('resolution: the smallest positive gap, and its floor', () => {
    expect(resolutionOf([3, 1, 1, 2.5, 7])).toBe(0.5);
    expect(resolutionOf([4, 4, 4])).toBeNull();
    expect(resolutionFloor(null, 10)).toBe(0);
    expectClose(resolutionFloor(1, null), 1 / Math.sqrt(12));
    expectClose(resolutionFloor(1, 20), 1 / (Math.sqrt(12) * 20));
  });
});

describe('persistence and the trend alarm match scipy', () => {
  test.each(fixture.persistence)('$name', (c) => {
    const r = persistence(c.previousLogs, c.currentLog, c.singleP, c.options);
    expectClose(r.p, c.p, P, 1e-300);
    if (c.decided === null) {
      expect(r.decided).toBeNull();
      return;
    }
    expect(r.decided).not.toBeNull();
    const d = r.decided!;
    expect(d.by).toBe(c.decided.by);
    expect(d.runs).toBe(c.decided.runs);
    if (d.by === 'nights') expect(d.nights).toBe(c.decided.nights);
    expectClose(d.change, c.decided.change, 1e-9);
    expectClose(d.lower, c.decided.lower, 1e-8);
    expectClose(d.upper, c.decided.upper, 1e-8);
  });

  test.each(fixture.trend)('trend: $name', (c) => {
    const r = trendAlarm(c.logs, { threshold: c.threshold, confidence: c.confidence, minRuns: c.minRuns });
    if (c.alarm === null) {
      expect(r).toBeNull();
      return;
    }
    expectClose(r!.p, c.alarm.p, P, 1e-300);
    expectClose(r!.change, c.alarm.change, 1e-9);
    expectClose(r!.lower, c.alarm.lower, 1e-8);
    expectClose(r!.upper, c.alarm.upper, 1e-8);
    expect(r!.runs).toBe(c.alarm.runs);
  });

  test('the shares of alpha sum to 1 (weighted Bonferroni keeps the family-wise level)', () => {
    const total = PERSISTENCE_SCALES.reduce((a, s) => a + s.weight, 0) + TREND_WEIGHT;
    expectClose(total, 1, 1e-12);
  });
});
