import { assertFiniteSamples, mean, variance } from './descriptive.ts';
import { studentTCdf, studentTQuantile } from './distributions.ts';

/** A two-sample t-test of mean(x) - mean(y), two-sided. */
export interface TTestResult {
  /** The t statistic of mean(x) - mean(y). */
  t: number;
  /** Degrees of freedom (fractional for Welch). */
  df: number;
  /** Two-sided p-value. */
  pValue: number;
  /** mean(x) - mean(y). */
  difference: number;
  /** Standard error of the difference. */
  standardError: number;
  /** Confidence interval of the difference (mean(x) - mean(y)). */
  lower: number;
  upper: number;
  confidence: number;
}

export interface TTestOptions {
  /** Confidence level of the interval of the difference, in (0, 1); default 0.95. */
  confidence?: number;
}

/**
 * Welch's unequal-variance t-test (Welch 1947): t = (x̄ - ȳ) / √(s²ₓ/m + s²ᵧ/n) with the
 * Welch–Satterthwaite degrees of freedom, a two-sided p-value from the t distribution and the
 * interval (x̄ - ȳ) ± t₍₁₋α/₂, df₎ · SE. Matches scipy.stats.ttest_ind(x, y, equal_var=False) and
 * its confidence_interval(). Each sample needs at least two values. When both samples have zero
 * variance the statistic is 0/0 or d/0: we return t = 0, p = 1 for equal means and t = ±∞, p = 0
 * otherwise (scipy returns NaN for the former), with a zero-width interval at the difference.
 */
export function welchTTest(
  x: readonly number[],
  y: readonly number[],
  options: TTestOptions = {},
): TTestResult {
  check(x, y, 2);
  const m = x.length;
  const n = y.length;
  const vx = variance(x)! / m;
  const vy = variance(y)! / n;
  if (isConstant(x) && isConstant(y)) return finish(x[0]! - y[0]!, 0, m + n - 2, options);
  const se = Math.sqrt(vx + vy);
  // Welch–Satterthwaite; with both variances zero df is 0/0, so fall back to the pooled df.
  const df = vx + vy === 0 ? m + n - 2 : (vx + vy) ** 2 / (vx ** 2 / (m - 1) + vy ** 2 / (n - 1));
  return finish(mean(x) - mean(y), se, df, options);
}

/**
 * Student's two-sample t-test with pooled variance (equal variances assumed): t = (x̄ - ȳ) /
 * (s_p √(1/m + 1/n)), df = m + n - 2. Matches scipy.stats.ttest_ind(x, y, equal_var=True).
 * Needs m + n ≥ 3 (a single-value sample contributes no variance but is allowed). Zero pooled
 * variance is handled as in welchTTest().
 */
export function studentTTest(
  x: readonly number[],
  y: readonly number[],
  options: TTestOptions = {},
): TTestResult {
  check(x, y, 1);
  const m = x.length;
  const n = y.length;
  if (m + n < 3) throw new RangeError('t-test: needs at least three values in total (m + n - 2 ≥ 1)');
  const df = m + n - 2;
  if (isConstant(x) && isConstant(y)) return finish(x[0]! - y[0]!, 0, df, options);
  const ss = (v: readonly number[]): number => (v.length < 2 ? 0 : variance(v)! * (v.length - 1));
  const pooled = (ss(x) + ss(y)) / df;
  const se = Math.sqrt(pooled * (1 / m + 1 / n));
  return finish(mean(x) - mean(y), se, df, options);
}

/**
 * All values equal. Two constant samples are decided exactly from their values: the mean of ten
 * 0.1s is not 0.1 in floating point, so x̄ - ȳ would be a rounding residue over a zero (or
 * rounding-sized) standard error, i.e. a spurious t.
 */
function isConstant(v: readonly number[]): boolean {
  return v.every((x) => x === v[0]);
}

function check(x: readonly number[], y: readonly number[], min: number): void {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  if (x.length < min || y.length < min)
    throw new RangeError(
      `t-test: each sample needs at least ${min} values (got ${x.length} and ${y.length}); a variance needs two`,
    );
}

function finish(difference: number, se: number, df: number, options: TTestOptions): TTestResult {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  if (se === 0) {
    const t = difference === 0 ? 0 : difference > 0 ? Infinity : -Infinity;
    return {
      t,
      df,
      pValue: difference === 0 ? 1 : 0,
      difference,
      standardError: 0,
      lower: difference,
      upper: difference,
      confidence,
    };
  }
  const t = difference / se;
  // 2·F(-|t|) keeps precision in the far tail, where 2·(1 - F(|t|)) would round to 0.
  const pValue = Math.min(1, 2 * studentTCdf(-Math.abs(t), df));
  const half = studentTQuantile(1 - (1 - confidence) / 2, df) * se;
  return {
    t,
    df,
    pValue,
    difference,
    standardError: se,
    lower: difference - half,
    upper: difference + half,
    confidence,
  };
}
