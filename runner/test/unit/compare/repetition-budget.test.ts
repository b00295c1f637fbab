import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runsFor } from '@runtime-bench/schemas';
import { parseConfig } from '../../../src/config/load.ts';
import { chooseRepetitions, smallestSignificantN } from '../../../src/compare/repetition-budget.ts';
import { minimumDetectableRatio } from '../../../src/stats/index.ts';
import { QUICK_BUDGET, QUICK_HEADLINES } from './quick-budget-inputs.ts';

describe('smallestSignificantN', () => {
  // 2 / C(2n, n): n = 5 gives 2/252 = 0.0079, n = 6 gives 2/924 = 0.0022.
  test.each([
    [0.05, 4], // 2/70 = 0.029 < 0.05; 3 against 3: 2/20 = 0.1
    [0.05 / 7, 6],
    [0.008, 5],
  ])('at level %f: %i per side', (level, n) => expect(smallestSignificantN(level)).toBe(n));
});

describe('chooseRepetitions', () => {
  const options = { targets: 2, warmup: 1 };

  test('every headline starts at the fewest repetitions that can be significant at the Holm level', () => {
    // Two headlines: level 0.025, 2/C(10,5) = 0.0079 reaches it, 2/C(8,4) = 0.029 does not.
    const r = chooseRepetitions(
      [
        { benchmark: 'a', secondsPerRepetition: 1, logSpread: 0 },
        { benchmark: 'b', secondsPerRepetition: 1, logSpread: 0 },
      ],
      { ...options, budgetSeconds: 1000 },
    );
    expect(r.level).toBe(0.025);
    expect(r.choices.map((c) => c.repetitions)).toEqual([5, 5]);
    // No spread: every change is detectable at the minimum, so nothing more is bought.
    expect(r.choices.map((c) => c.detectable)).toEqual([0, 0]);
    expect(r.seconds).toBe(2 * 2 * (5 + 1));
  });

  test('with time to spare a noisy headline gets repetitions until it detects the step', () => {
    const r = chooseRepetitions([{ benchmark: 'noisy', secondsPerRepetition: 0.1, logSpread: 0.2 }], {
      ...options,
      budgetSeconds: 1000,
      step: 0.1,
    });
    const n = r.choices[0]!.repetitions;
    const at = (k: number) => minimumDetectableRatio(0.2, k, k, { alpha: 0.05 })!;
    expect(at(n)).toBeLessThanOrEqual(0.1);
    expect(at(n - 1)).toBeGreaterThan(0.1);
    expect(r.choices[0]!.detectable).toBe(at(n));
  });

  test('the budget stops the buying; the seconds are warm-ups plus repetitions on every target, plus the fixed part', () => {
    // Minimum 4 per side at level 0.05; each repetition costs 2 targets × 1 s; 20 s fixed.
    // 20 + 2 × (4 + 1) = 30 s at the minimum; 40 s leaves room for exactly 5 more.
    const r = chooseRepetitions([{ benchmark: 'noisy', secondsPerRepetition: 1, logSpread: 0.5 }], {
      ...options,
      budgetSeconds: 40,
      fixedSeconds: 20,
    });
    expect(r.choices[0]!.repetitions).toBe(9);
    expect(r.seconds).toBe(40);
    expect(r.choices[0]!.seconds).toBe(20);
  });

  test('the seconds go where they shrink the detectable change most per second', () => {
    // Same spread, one ten times dearer.
    const r = chooseRepetitions(
      [
        { benchmark: 'dear', secondsPerRepetition: 10, logSpread: 0.3 },
        { benchmark: 'cheap', secondsPerRepetition: 1, logSpread: 0.3 },
      ],
      // At the minimum (5, level 0.025): 2 × 10 × 6 + 2 × 1 × 6 s; 20 s more buy one dear repetition
      // or ten cheap ones: the cheap first, after which the dear one no longer fits.
      { ...options, budgetSeconds: 2 * 10 * 6 + 2 * 1 * 6 + 20 },
    );
    expect(r.choices.map((c) => c.repetitions)).toEqual([5, 15]);
  });

  test('a minimum over the budget is an error saying both', () => {
    expect(() =>
      chooseRepetitions([{ benchmark: 'a', secondsPerRepetition: 10, logSpread: 0.1 }], {
        ...options,
        budgetSeconds: 50,
      }),
    ).toThrow(/minimum of 4 repetitions per headline takes 100 s, over the budget of 50 s/);
  });
});

describe('examples/quick.yaml follows the budget', () => {
  const text = readFileSync(new URL('../../../../examples/quick.yaml', import.meta.url), 'utf8');
  const config = parseConfig(text, 'examples/quick.yaml');
  const budget = chooseRepetitions(QUICK_HEADLINES, QUICK_BUDGET);

  test.each(budget.choices.map((c) => [c.benchmark, c.repetitions] as const))(
    '%s runs %i times',
    (benchmark, repetitions) => expect(runsFor(config, benchmark)).toBe(repetitions),
  );

  test('its warm-up and benchmarks are the ones the budget assumed', () => {
    expect(config.warmup).toBe(QUICK_BUDGET.warmup);
    expect(config.benchmarks.slice().sort()).toEqual(
      [...QUICK_HEADLINES.map((h) => h.benchmark), ...QUICK_BUDGET.fixedBenchmarks].sort(),
    );
    expect(budget.seconds).toBeLessThanOrEqual(QUICK_BUDGET.budgetSeconds);
  });
});
