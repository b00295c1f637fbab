import { describe, expect, test } from 'vitest';
import { planSampleSizes } from '../../../src/compare/index.ts';
import { LIFECYCLE, night, RUNC, syntheticRun, type SyntheticMetric } from './synthetic.ts';

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
    // Default α 0.02, the one-night test's share 0.4 (the gate's PERSISTENCE_SCALES), four metrics.
    expect(plan.perTestAlpha).toBeCloseTo((0.02 * 0.4) / 4, 15);
  });
  test('without drift a +10 % step needs a handful of samples; with a drift beyond it none suffice', () => {
    const quiet = planSampleSizes(nights(28, 0, 20), { step: 0.1 }).rows.find(
      (r) => r.metric === 'StartContainer',
    )!;
    // z = Φ⁻¹(1 - 0.002/2) + Φ⁻¹(0.9) ≈ 3.09 + 1.28; sd allowed = ln 1.1 / (4.37 · √1.1) ≈ 0.0208;
    // n = π/2 · 0.08² / 0.0208² ≈ 23 (σ within estimated, so a range).
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
  test('removes the night factor shared by five or more metrics, as the gate does', () => {
    // Six lifecycle metrics with one shared night offset of sd 0.15: raw, that drift alone puts
    // a +10 % step out of reach; net of the night factor only sampling noise is left.
    const six: SyntheticMetric[] = ['A', 'B', 'C', 'D', 'E', 'F'].map((name, i) => ({
      benchmark: LIFECYCLE,
      name,
      unit: 'ms',
      direction: 'lower',
      median: 20 + 10 * i,
      sigma: 0.08,
    }));
    const runs = (metrics: SyntheticMetric[]) =>
      Array.from({ length: 28 }, (_, i) =>
        syntheticRun({ seed: 900 + i, startedAt: night(i + 1), runSigma: 0.15, n: 20, metrics }),
      );
    const corrected = planSampleSizes(runs(six)).rows.find((r) => r.metric === 'B')!;
    expect(corrected.nightFactor!).toBeGreaterThan(0.09);
    expect(corrected.nightFactor!).toBeLessThan(0.22);
    expect(corrected.sigmaBetween!).toBeLessThan(0.03);
    expect(corrected.needed).not.toBeNull();
    expect(corrected.note).toMatch(/night factor/);
    // Four metrics: the gate does not remove a factor, and neither does the plan.
    const raw = planSampleSizes(runs(six.slice(0, 4))).rows.find((r) => r.metric === 'B')!;
    expect(raw.nightFactor).toBeNull();
    expect(raw.sigmaBetween!).toBeGreaterThan(0.09);
    expect(raw.needed).toBeNull();
  });
  test('with a reference handler: planned divided by it, the drift the two share gone', () => {
    // Three metrics (no night factor) whose nights drift by 8 % for the host and 4 % per metric,
    // both shared by runc and the reference: raw, unreachable; divided, only sampling is left.
    const REF = { id: 'containerd/runc-1.2.6', oci: 'runc', version: '1.2.6' };
    const runs = Array.from({ length: 28 }, (_, i) =>
      syntheticRun({
        seed: 1300 + i,
        startedAt: night(i + 1),
        runSigma: 0.08,
        metricSigma: 0.04,
        n: 20,
        targets: [RUNC, REF],
      }),
    );
    const row = (references: string[]) =>
      planSampleSizes(runs, { references }).rows.find(
        (r) => r.target === RUNC.id && r.metric === 'StartContainer',
      )!;
    const raw = row([]);
    expect(raw.sigmaBetween!).toBeGreaterThan(0.06);
    expect(raw.needed).toBeNull();
    const divided = row([REF.id]);
    expect(divided.sigmaBetween!).toBeLessThan(0.02);
    expect(divided.needed).not.toBeNull();
    expect(divided.note).toMatch(/divided by the reference containerd\/runc-1\.2\.6/);
    // Both medians' sampling counts: √2 × the 0.08 within-run spread of each.
    expect(divided.sigmaWithin!).toBeGreaterThan(0.08 * Math.SQRT2 * 0.8);
    expect(divided.sigmaWithin!).toBeLessThan(0.08 * Math.SQRT2 * 1.2);
    // The reference itself is planned as before.
    expect(
      planSampleSizes(runs, { references: [REF.id] }).rows.find(
        (r) => r.target === REF.id && r.metric === 'StartContainer',
      )!.note,
    ).not.toMatch(/divided/);
  });
});
