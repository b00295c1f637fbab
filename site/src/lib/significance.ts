import { bootstrapRatioOfMediansCI, holmAdjust, mannWhitneyU, median } from '@runtime-bench/runner/stats';
import type { Direction } from '@runtime-bench/schemas';

/** How one cell of a matrix row compares with the row's best cell. */
export type Verdict =
  | { kind: 'best'; tied: number }
  | {
      kind: 'worse' | 'not-significant';
      /** median(cell) / median(best) */
      ratio: number;
      /** 95 % bootstrap interval of the ratio, null when a ratio is undefined (values ≤ 0) */
      lower: number | null;
      upper: number | null;
      /** Holm-adjusted two-sided Mann–Whitney p-value of cell vs best */
      pValue: number;
    }
  | { kind: 'untested'; why: string };

/** Resamples of the ratio-of-medians interval (the stats module's default is 10 000). */
export const BOOTSTRAP_RESAMPLES = 4000;

/** Significance level of the matrix; a fixed, published choice rather than a tunable. */
export const ALPHA = 0.05;

/**
 * Compares every candidate of one matrix row with the best one (by median, in the metric's
 * direction). A difference counts as significant when the two-sided Mann–Whitney U test rejects
 * equality at ALPHA after Holm's correction over the row (one row asks k − 1 questions at once);
 * the bootstrap interval of the ratio of medians says how large the difference is. Candidates
 * with fewer than two samples cannot be tested and say so. Returns verdicts in input order. With
 * `reference` (a position), every candidate is tested against that one instead of the best.
 */
export function compareWithBest(
  rows: readonly (readonly number[])[],
  direction: Direction,
  reference: number | null = null,
): Verdict[] {
  const medians = rows.map((s) => (s.length > 0 ? median(s) : NaN));
  let best = -1;
  if (reference !== null) {
    // "relative to <runtime>": the chosen cell takes the best's place, whatever its median
    if (!Number.isNaN(medians[reference] ?? NaN)) best = reference;
  } else
    for (let i = 0; i < rows.length; i++) {
      if (Number.isNaN(medians[i]!)) continue;
      if (best < 0) best = i;
      else if (direction === 'lower' ? medians[i]! < medians[best]! : medians[i]! > medians[best]!) best = i;
    }
  const verdicts: Verdict[] = rows.map(() => ({ kind: 'untested', why: 'no samples' }));
  if (best < 0) return verdicts;
  const bestSamples = rows[best]!;
  const tested: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (i === best || rows[i]!.length === 0) continue;
    if (rows[i]!.length < 2 || bestSamples.length < 2) {
      verdicts[i] = { kind: 'untested', why: 'fewer than two samples on one side: no test possible' };
      continue;
    }
    tested.push(i);
    raw.push(mannWhitneyU(rows[i]!, bestSamples).pValue);
  }
  const adjusted = holmAdjust(raw);
  let tied = 0;
  tested.forEach((i, k) => {
    const pValue = adjusted[k]!;
    let lower: number | null = null;
    let upper: number | null = null;
    if (bestSamples.every((v) => v > 0) && rows[i]!.every((v) => v >= 0)) {
      // Seeded by position so that the published interval is reproducible build after build.
      // The test above makes the decision; the interval only sizes the difference, for which
      // BOOTSTRAP_RESAMPLES keeps the Monte Carlo error of its ends well below the shown digits.
      const ci = bootstrapRatioOfMediansCI(bestSamples, rows[i]!, {
        seed: 1 + i,
        resamples: BOOTSTRAP_RESAMPLES,
      });
      lower = ci.lower;
      upper = ci.upper;
    }
    const significant = pValue < ALPHA;
    if (!significant) tied++;
    verdicts[i] = {
      kind: significant ? 'worse' : 'not-significant',
      ratio: medians[i]! / medians[best]!,
      lower,
      upper,
      pValue,
    };
  });
  verdicts[best] = { kind: 'best', tied };
  return verdicts;
}
