import { describe, expect, test } from 'vitest';
import { callDrift } from '../../../bench/nightly-noise.ts';
import { createRng } from '../../../src/stats/index.ts';
import { gaussian } from '../compare/synthetic.ts';

// callDrift splits each call's run-to-run drift into the part the targets of a run share and the
// part of each target. Runs are drawn here with known parts: per run and call a shared
// s ~ N(0, σ_s), per target u ~ N(0, σ_o), plus sampling noise of variance v whose part ρ·v is
// common to the targets of a run (interleaved targets' medians covary). No night factor: the ln
// medians are their own residuals (shrink 1).
function draw(o: { shared: number[]; own: number[]; v: number; rho: number; targets: number; runs: number }) {
  const rng = createRng(11);
  const calls = o.shared.length;
  const common = o.shared.map((sd) =>
    Array.from({ length: o.runs }, () => sd * gaussian(rng) + Math.sqrt(o.rho * o.v) * gaussian(rng)),
  );
  const logMedians = Array.from({ length: o.targets }, () =>
    common.map((row, k) =>
      row.map((x) => x + o.own[k]! * gaussian(rng) + Math.sqrt((1 - o.rho) * o.v) * gaussian(rng)),
    ),
  );
  // The sampling covariance the caller knows: v on the diagonal, ρ·v between targets.
  const samplingCov = Array.from({ length: calls }, () =>
    Array.from({ length: o.targets }, (_, a) =>
      Array.from({ length: o.targets }, (_, b) => (a === b ? o.v : o.rho * o.v)),
    ),
  );
  return {
    tables: logMedians.map((residuals) => ({ residuals, shrink: 1 })),
    logMedians,
    samplingCov,
    targetDrift: 0,
  };
}

describe('callDrift', () => {
  test('recovers the shared and own parts of each call, net of sampling noise and its covariance', () => {
    const shared = [0.03, 0.01, 0];
    const own = [0, 0.02, 0.015];
    for (const rho of [0, 0.5]) {
      // On the variance scale (a square root near 0 magnifies noise): the estimators' standard
      // error here is about 2e-5 (4 000 runs × 3 targets, variances near 1e-3).
      callDrift(draw({ shared, own, v: 0.015 ** 2, rho, targets: 3, runs: 4000 })).forEach((c, k) => {
        expect(Math.abs(c.shared ** 2 - shared[k]! ** 2), `ρ ${rho}: shared ${k}`).toBeLessThan(6e-5);
        for (const o of c.own)
          expect(Math.abs(o ** 2 - own[k]! ** 2), `ρ ${rho}: own ${k}`).toBeLessThan(6e-5);
      });
    }
  });

  test('correlated sampling counted as independent would be read as shared drift', () => {
    // No shared drift, 2 % of each target's own.
    const input = draw({ shared: [0], own: [0.02], v: 0.02 ** 2, rho: 0.6, targets: 3, runs: 4000 });
    const independent = input.samplingCov.map((m) => m.map((row, a) => row.map((v, b) => (a === b ? v : 0))));
    expect(callDrift(input)[0]!.shared ** 2).toBeLessThan(6e-5);
    // 0.6 · 0.02² = 2.4e-4 of covariance taken for drift.
    expect(callDrift({ ...input, samplingCov: independent })[0]!.shared ** 2).toBeGreaterThan(1.8e-4);
  });

  test('the per-target drift σ_t stays in a ratio and is not taken for the call’s own', () => {
    const input = draw({ shared: [0.02], own: [0.01], v: 0, rho: 0, targets: 3, runs: 4000 });
    const rng = createRng(5);
    // Each target's factor drift, the same for all its calls of a run.
    const withTarget = input.logMedians.map((calls) => {
      const t = Array.from({ length: 4000 }, () => 0.015 * gaussian(rng));
      return calls.map((row) => row.map((x, j) => x + t[j]!));
    });
    const fit = callDrift({ ...input, logMedians: withTarget, targetDrift: 0.015 })[0]!;
    for (const o of fit.own) expect(Math.abs(o ** 2 - 0.01 ** 2)).toBeLessThan(6e-5);
  });

  test('a residual shrunk by the fit is scaled back', () => {
    const input = draw({ shared: [0.02], own: [0.01], v: 0, rho: 0, targets: 2, runs: 4000 });
    const shrunk = input.tables.map((t) => ({
      residuals: t.residuals.map((r) => r.map((x) => x * Math.sqrt(0.5))),
      shrink: 0.5,
    }));
    const a = callDrift(input)[0]!;
    const b = callDrift({ ...input, tables: shrunk })[0]!;
    expect(b.shared).toBeCloseTo(a.shared, 12);
    b.own.forEach((o, i) => expect(o).toBeCloseTo(a.own[i]!, 12));
  });

  test('each target its own: one target drifting by itself is told from two that do not', () => {
    // Three targets: the first has 2.5 % of own drift on this call, the other two none.
    const rng = createRng(17);
    const runs = 4000;
    const s = Array.from({ length: runs }, () => 0.02 * gaussian(rng));
    const logMedians = [0.025, 0, 0].map((own) => [s.map((x) => x + own * gaussian(rng))]);
    const fit = callDrift({
      tables: logMedians.map((residuals) => ({ residuals, shrink: 1 })),
      logMedians,
      samplingCov: [
        [
          [0, 0, 0],
          [0, 0, 0],
          [0, 0, 0],
        ],
      ],
      targetDrift: 0,
    })[0]!;
    expect(Math.abs(fit.own[0]! ** 2 - 0.025 ** 2)).toBeLessThan(6e-5);
    expect(fit.own[1]! ** 2).toBeLessThan(6e-5);
    expect(fit.own[2]! ** 2).toBeLessThan(6e-5);
    expect(Math.abs(fit.shared ** 2 - 0.02 ** 2)).toBeLessThan(6e-5);
  });
});
