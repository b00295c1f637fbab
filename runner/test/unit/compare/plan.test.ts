import { describe, expect, test } from 'vitest';
import { planSampleSizes } from '../../../src/compare/index.ts';
import { night, syntheticRun } from './synthetic.ts';

// Synthetic nights: within-run sd of ln(sample) 0.08 for StartContainer (synthetic.ts), and a
// night-to-night log offset of sd `runSigma`.
const nights = (count: number, runSigma: number, n = 10) =>
  Array.from({ length: count }, (_, i) =>
    syntheticRun({ seed: 500 + i, startedAt: night(i + 1), runSigma, n }),
  );

describe('plan', () => {
  test('recovers the within-run spread and the drift it was built with', () => {
    const plan = planSampleSizes(nights(28, 0.03, 20));
    const row = plan.rows.find((r) => r.metric === 'StartContainer')!;
    expect(row.sigmaWithin!).toBeGreaterThan(0.06);
    expect(row.sigmaWithin!).toBeLessThan(0.1);
    expect(row.sigmaBetween!).toBeGreaterThan(0.015);
    expect(row.sigmaBetween!).toBeLessThan(0.05);
    expect(plan.perTestAlpha).toBeCloseTo(0.05 / 4, 15); // four metrics in the synthetic suite
  });
  test('without drift a +10 % step needs a handful of samples; with a drift beyond it none suffice', () => {
    const quiet = planSampleSizes(nights(28, 0, 20), { step: 0.1 }).rows.find(
      (r) => r.metric === 'StartContainer',
    )!;
    // z = Φ⁻¹(1 - 0.0125/2) + Φ⁻¹(0.9) ≈ 2.50 + 1.28; sd allowed = ln 1.1 / (3.78 · √1.1) ≈ 0.0240;
    // n = π/2 · 0.08² / 0.0240² ≈ 17 (σ within estimated, so a range).
    expect(quiet.needed!).toBeGreaterThan(8);
    expect(quiet.needed!).toBeLessThan(35);
    const noisy = planSampleSizes(nights(10, 0.08, 10)).rows.find((r) => r.metric === 'StartContainer')!;
    expect(noisy.needed).toBeNull();
    expect(noisy.note).toMatch(/drift .* alone is too large/);
  });
  test('from one run the drift is unknown and the note says it is a lower bound', () => {
    const row = planSampleSizes(nights(1, 0)).rows.find((r) => r.metric === 'StartContainer')!;
    expect(row.sigmaBetween).toBeNull();
    expect(row.note).toMatch(/lower bound/);
  });
});
