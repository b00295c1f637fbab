import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  endsDecision,
  positionDecision,
  positionLook,
  readVerdict,
  signedRankShift,
} from '../../../src/stats/index.ts';

/** Rounds of good, candidate, bad: a shared round level × the version's level × ±10 % of noise. */
function rounds(n: number, candidate: number, bad: number, seed = 1): [number[], number[], number[]] {
  const noise = (k: number, s: number): number =>
    1 + ((((k + 1) * s * 7919) % 201) - 100) / 1000 + k * s * 1e-7;
  const level = (k: number): number => 40 + ((k * 37) % 23);
  const g = Array.from({ length: n }, (_, k) => level(k) * noise(k, seed));
  const c = Array.from({ length: n }, (_, k) => level(k) * candidate * noise(k, seed + 1));
  const b = Array.from({ length: n }, (_, k) => level(k) * bad * noise(k, seed + 2));
  return [g, c, b];
}

describe('positionDecision: a bisection step read off two intervals and half the ends’ change', () => {
  const opts = { direction: 'larger' as const, alpha: 0.01, look: 1, looks: 5 };
  test.each([
    ['candidate like good', 1, 'good'],
    ['candidate like bad', 1.3, 'bad'],
    ['candidate halfway', 1.14, 'between'],
  ] as const)('%s', (_, candidate, verdict) => {
    const [g, c, b] = rounds(80, candidate, 1.3);
    const d = positionDecision(g, c, b, opts);
    expect(d.verdict).toBe(verdict);
    expect(d.level).toBeCloseTo(0.01 / 5, 15);
    expect(d.threshold).toBeCloseTo(d.badVsGood.change / 2, 15);
  });

  test('a faster bad version (a throughput, or a speed-up hunted down)', () => {
    const [g, c, b] = rounds(80, 0.75, 0.75);
    expect(positionDecision(g, c, b, { ...opts, direction: 'smaller' }).verdict).toBe('bad');
    const [g2, c2, b2] = rounds(80, 1, 0.75);
    expect(positionDecision(g2, c2, b2, { ...opts, direction: 'smaller' }).verdict).toBe('good');
  });

  test('too few rounds: continue, and unclear on the last look', () => {
    const [g, c, b] = rounds(4, 1.15, 1.3);
    expect(positionDecision(g, c, b, opts).verdict).toBe('continue');
    expect(positionDecision(g, c, b, { ...opts, look: 5 }).verdict).toBe('unclear');
  });

  test('its intervals are the signed-rank intervals of the per-round log ratios at alpha / looks', () => {
    const [g, c, b] = rounds(30, 1.1, 1.2);
    const d = positionDecision(g, c, b, opts);
    const s = signedRankShift(
      c.map((v, k) => Math.log(v / g[k]!)),
      1 - 0.01 / 5,
    );
    expect(d.candidateVsGood.lower).toBeCloseTo(Math.expm1(s.lower), 14);
    expect(d.candidateVsGood.upper).toBeCloseTo(Math.expm1(s.upper), 14);
    expect(d.confidence).toBe(1 - d.level);
  });

  test('for random rounds the verdict is what the printed intervals and threshold say', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 90 }),
        fc.constantFrom(1, 1.05, 1.1, 1.2),
        fc.constantFrom(1.1, 1.2, 0.85),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 3 }),
        (n, candidate, bad, seed, look) => {
          const [g, c, b] = rounds(n, candidate, bad, seed);
          const direction = bad > 1 ? ('larger' as const) : ('smaller' as const);
          const d = positionDecision(g, c, b, { direction, alpha: 0.02, look, looks: 3 });
          const metric = direction === 'larger' ? 'lower' : 'higher';
          const cg = readVerdict(d.candidateVsGood, d.threshold, metric);
          const bc = readVerdict(d.badVsCandidate, d.threshold, metric);
          expect(d.candidateVsGood.verdict).toBe(cg);
          expect(d.badVsCandidate.verdict).toBe(bc);
          const isBad = cg === 'regression' || bc === 'same';
          const isGood = bc === 'regression' || cg === 'same';
          const beyond = (x: { lower: number; upper: number }): boolean =>
            direction === 'larger' ? x.lower > 0 : x.upper < 0;
          const expected =
            (beyond(d.candidateVsGood) && beyond(d.badVsCandidate)) || (isBad && isGood)
              ? 'between'
              : isBad
                ? 'bad'
                : isGood
                  ? 'good'
                  : look === 3
                    ? 'unclear'
                    : 'continue';
          expect(d.verdict).toBe(expected);
          // Beyond good the bad way on the interval ⇔ positionLook's one-sided test at its pCritical,
          // where both use the normal approximation (n > 50) and no log ratio ties.
          const ratios = c.map((v, k) => Math.abs(Math.log(v / g[k]!)));
          if (n > 50 && new Set(ratios).size === n && !ratios.includes(0)) {
            const old = positionLook(g, c, b, { direction, alpha: 0.02, look, looks: 3 });
            const p = direction === 'larger' ? old.vsGood.pGreater : old.vsGood.pLess;
            expect(beyond(d.candidateVsGood)).toBe(p <= old.pCritical);
            compared++;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(30);
  });

  test('bad input is refused by name', () => {
    expect(() => positionDecision([1, 2], [1, 2], [1], opts)).toThrow(/unequal length \(2, 2, 1\)/);
    expect(() => positionDecision([1, 2], [1, 0], [1, 2], opts)).toThrow(/candidate \/ good: round 1 has 0/);
    expect(() => positionDecision([1], [1], [1], { ...opts, look: 6 })).toThrow(/look 6 is not in 1..5/);
  });
});

describe('endsDecision: do good and bad differ, read off bad / good’s interval', () => {
  const opts = { direction: 'larger' as const, alpha: 0.01, look: 1, looks: 5 };
  test('differ, opposite, and same only on the last look', () => {
    const [g, , b] = rounds(80, 1, 1.3);
    const d = endsDecision(g, b, opts);
    expect(d.verdict).toBe('differ');
    // The interval is the signed-rank one of the per-round log ratios at level alpha / looks.
    const s = signedRankShift(
      b.map((v, k) => Math.log(v / g[k]!)),
      1 - 0.01 / 5,
    );
    expect(d.badVsGood.lower).toBeCloseTo(Math.expm1(s.lower), 12);
    expect(d.badVsGood.upper).toBeCloseTo(Math.expm1(s.upper), 12);
    expect(d.confidence).toBeCloseTo(1 - 0.01 / 5, 15);
    expect(endsDecision(b, g, opts).verdict).toBe('opposite');
    expect(endsDecision(g, b, { ...opts, direction: 'smaller' }).verdict).toBe('opposite');
    const [g2, c2] = rounds(80, 1, 1);
    expect(endsDecision(g2, c2, opts).verdict).toBe('continue');
    const same = endsDecision(g2, c2, { ...opts, look: 5 });
    expect(same.verdict).toBe('same');
    expect(same.badVsGood.lower).toBeLessThanOrEqual(0);
    expect(same.badVsGood.upper).toBeGreaterThanOrEqual(0);
  });
  test('refuses unequal rounds and a look out of range', () => {
    expect(() => endsDecision([1, 2], [1], opts)).toThrow(/unequal length/);
    expect(() => endsDecision([1, 2], [1, 2], { ...opts, look: 6 })).toThrow(/look 6 is not in 1..5/);
  });
});
