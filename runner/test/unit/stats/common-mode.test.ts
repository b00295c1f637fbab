import { describe, expect, test } from 'vitest';
import { createRng, driftComponents, medianPolish } from '../../../src/stats/index.ts';

function gaussian(rng: { next(): number }): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

describe('medianPolish', () => {
  test('an additive table is fitted exactly; one wild cell stays in its residual and moves no effect', () => {
    const rows = [0, 2, 5, -1, 3];
    const cols = [0.5, -0.25, 1, 0, 2, -3, 0.75];
    const table = rows.map((r) => cols.map((c) => 10 + r + c));
    table[2]![4]! += 40; // a metric that moved alone on one night
    const fit = medianPolish(table);
    for (let i = 0; i < rows.length; i++)
      for (let j = 0; j < cols.length; j++) {
        const fitted = fit.overall + fit.rows[i]! + fit.columns[j]!;
        expect(fitted).toBeCloseTo(10 + rows[i]! + cols[j]!, 12);
        expect(fit.residuals[i]![j]!).toBeCloseTo(i === 2 && j === 4 ? 40 : 0, 12);
      }
    // Column effects are the night factors up to a constant: their differences are exact.
    expect(fit.columns[4]! - fit.columns[0]!).toBeCloseTo(cols[4]! - cols[0]!, 12);
  });

  test('missing cells are skipped; a night without values has no factor', () => {
    const table = [
      [1, 2, null, 4],
      [2, 3, null, 5],
      [0, null, null, 3],
    ];
    const fit = medianPolish(table);
    expect(fit.columns[2]).toBeNull();
    expect(fit.residuals[2]![1]).toBeNull();
    expect(fit.columns[1]! - fit.columns[0]!).toBeCloseTo(1, 12);
    expect(fit.columns[3]! - fit.columns[0]!).toBeCloseTo(3, 12);
  });

  test('refuses ragged rows and non-finite cells, naming the cell', () => {
    expect(() => medianPolish([[1, 2], [3]])).toThrow(/row 1 has 1 cells, expected 2/);
    expect(() => medianPolish([[1, NaN]])).toThrow(/cell \[0\]\[1\]/);
  });
});

describe('driftComponents', () => {
  test('recovers a shared night factor and a per-metric drift net of sampling noise', () => {
    // 30 metrics × 150 nights: y = level + common(night) + own(metric, night) + sampling noise.
    const rng = createRng(7);
    const [sc, sm, ss] = [0.12, 0.03, 0.04];
    const levels = Array.from({ length: 30 }, (_, i) => Math.log(5 + i));
    const common = Array.from({ length: 150 }, () => sc * gaussian(rng));
    const table = levels.map((l) => common.map((c) => l + c + sm * gaussian(rng) + ss * gaussian(rng)));
    const sampling = table.map((row) => row.map(() => ss ** 2));
    const d = driftComponents(table, sampling);
    expect(d.sigmaCommon).toBeGreaterThan(0.1);
    expect(d.sigmaCommon).toBeLessThan(0.14);
    expect(d.sigmaMetric).toBeGreaterThan(0.02);
    expect(d.sigmaMetric).toBeLessThan(0.04);
    // Share of the variance around the metric levels that the night factor explains:
    // sc² / (sc² + sm² + ss²) ≈ 0.85.
    expect(d.explained).toBeGreaterThan(0.8);
    expect(d.explained).toBeLessThan(0.9);
  });

  test('no shared factor and no own drift: both estimates near 0', () => {
    const rng = createRng(8);
    const table = Array.from({ length: 20 }, (_, i) =>
      Array.from({ length: 100 }, () => i + 0.05 * gaussian(rng)),
    );
    const d = driftComponents(
      table,
      table.map((r) => r.map(() => 0.05 ** 2)),
    );
    expect(d.sigmaCommon).toBeLessThan(0.01);
    expect(d.sigmaMetric).toBeLessThan(0.01);
  });

  test('needs two nights and two metrics, and a sampling variance for every cell', () => {
    expect(() => driftComponents([[1], [2]], [[0], [0]])).toThrow(/at least 2 nights/);
    expect(() =>
      driftComponents(
        [
          [1, 2],
          [2, 3],
        ],
        [
          [0, 0],
          [0, null],
        ],
      ),
    ).toThrow(/cell \[1\]\[1\]/);
  });
});
