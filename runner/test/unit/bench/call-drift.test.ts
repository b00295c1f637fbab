import { describe, expect, test } from 'vitest';
import { callDrift } from '../../../bench/nightly-noise.ts';
import { createRng } from '../../../src/stats/index.ts';
import { gaussian } from '../compare/synthetic.ts';

// callDrift splits each call's run-to-run drift into the part the targets of a run share and the
// part of each target. Residual tables are drawn here with known parts: per run and call a shared
// s ~ N(0, σ_s), per target u ~ N(0, σ_o), plus sampling noise of variance v whose part ρ·v is
// common to the targets of a run (interleaved targets' medians covary).
function draw(o: { shared: number[]; own: number[]; v: number; rho: number; targets: number; runs: number }) {
  const rng = createRng(11);
  const calls = o.shared.length;
  const common = o.shared.map((sd) =>
    Array.from({ length: o.runs }, () => sd * gaussian(rng) + Math.sqrt(o.rho * o.v) * gaussian(rng)),
  );
  const tables = Array.from({ length: o.targets }, () => ({
    residuals: common.map((row, k) =>
      row.map((x) => x + o.own[k]! * gaussian(rng) + Math.sqrt((1 - o.rho) * o.v) * gaussian(rng)),
    ),
    shrink: 1,
  }));
  // The sampling covariance the caller knows: v on the diagonal, ρ·v between targets.
  const cov = Array.from({ length: calls }, () =>
    Array.from({ length: o.targets }, (_, a) =>
      Array.from({ length: o.targets }, (_, b) => (a === b ? o.v : o.rho * o.v)),
    ),
  );
  return { tables, cov };
}

describe('callDrift', () => {
  test('recovers the shared and own parts of each call, net of sampling noise and its covariance', () => {
    const shared = [0.03, 0.01, 0];
    const own = [0, 0.02, 0.015];
    for (const rho of [0, 0.5]) {
      const { tables, cov } = draw({ shared, own, v: 0.015 ** 2, rho, targets: 3, runs: 4000 });
      // On the variance scale (a square root near 0 magnifies noise): the estimators' standard
      // error here is about 2e-5 (4 000 runs × 3 targets, variances near 1e-3).
      callDrift(tables, cov).forEach((c, k) => {
        expect(Math.abs(c.shared ** 2 - shared[k]! ** 2), `ρ ${rho}: shared ${k}`).toBeLessThan(6e-5);
        expect(Math.abs(c.own ** 2 - own[k]! ** 2), `ρ ${rho}: own ${k}`).toBeLessThan(6e-5);
      });
    }
  });

  test('correlated sampling left in would be read as shared drift', () => {
    // No shared drift, 2 % of each target's own (so the bound by the targets' drift does not bite).
    const { tables, cov } = draw({
      shared: [0],
      own: [0.02],
      v: 0.02 ** 2,
      rho: 0.6,
      targets: 3,
      runs: 4000,
    });
    const independent = cov.map((m) => m.map((row, a) => row.map((v, b) => (a === b ? v : 0))));
    expect(callDrift(tables, cov)[0]!.shared ** 2).toBeLessThan(6e-5);
    // 0.6 · 0.02² = 2.4e-4 of covariance taken for drift.
    expect(callDrift(tables, independent)[0]!.shared ** 2).toBeGreaterThan(1.8e-4);
  });

  test('a residual shrunk by the fit is scaled back', () => {
    const { tables, cov } = draw({ shared: [0.02], own: [0.01], v: 0, rho: 0, targets: 2, runs: 4000 });
    const shrunk = tables.map((t) => ({
      residuals: t.residuals.map((r) => r.map((x) => x * Math.sqrt(0.5))),
      shrink: 0.5,
    }));
    const [a] = callDrift(tables, cov);
    const [b] = callDrift(shrunk, cov);
    expect(b!.shared).toBeCloseTo(a!.shared, 12);
    expect(b!.own).toBeCloseTo(a!.own, 12);
  });
});
