import { describe, expect, test } from 'vitest';
import { callDrift } from '../../../bench/nightly-noise.ts';
import { createRng } from '../../../src/stats/index.ts';
import { gaussian } from '../compare/synthetic.ts';

// callDrift splits each call's run-to-run drift into the part the targets of a run share and the
// part of each target. Residual tables are drawn here with known parts: per run and call a shared
// s ~ N(0, σ_s), per target u ~ N(0, σ_o), plus sampling noise e ~ N(0, √v) of known variance v.
function tables(o: { shared: number[]; own: number[]; sampling: number; targets: number; runs: number }) {
  const rng = createRng(11);
  const calls = o.shared.length;
  const s = o.shared.map((sd) => Array.from({ length: o.runs }, () => sd * gaussian(rng)));
  return Array.from({ length: o.targets }, () => ({
    residuals: s.map((row, k) =>
      row.map((x) => x + o.own[k]! * gaussian(rng) + Math.sqrt(o.sampling) * gaussian(rng)),
    ),
    sampling: Array.from({ length: calls }, () => Array.from({ length: o.runs }, () => o.sampling)),
    shrink: 1,
  }));
}

describe('callDrift', () => {
  test('recovers the shared and own parts of each call, net of sampling noise', () => {
    const shared = [0.03, 0.01, 0];
    const own = [0, 0.02, 0.015];
    const fit = callDrift(tables({ shared, own, sampling: 0.015 ** 2, targets: 3, runs: 4000 }));
    // On the variance scale (a square root near 0 magnifies noise): the estimators' standard
    // error here is about 2e-5 (4 000 runs × 3 targets, variances near 1e-3).
    fit.forEach((c, k) => {
      expect(Math.abs(c.shared ** 2 - shared[k]! ** 2), `shared ${k}`).toBeLessThan(6e-5);
      expect(Math.abs(c.own ** 2 - own[k]! ** 2), `own ${k}`).toBeLessThan(6e-5);
    });
  });

  test('a residual shrunk by the fit is scaled back', () => {
    const raw = tables({ shared: [0.02], own: [0.01], sampling: 0, targets: 2, runs: 4000 });
    const shrunk = raw.map((t) => ({
      ...t,
      residuals: t.residuals.map((r) => r.map((x) => x * Math.sqrt(0.5))),
      shrink: 0.5,
    }));
    const [a] = callDrift(raw);
    const [b] = callDrift(shrunk);
    expect(b!.shared).toBeCloseTo(a!.shared, 12);
    expect(b!.own).toBeCloseTo(a!.own, 12);
  });
});
