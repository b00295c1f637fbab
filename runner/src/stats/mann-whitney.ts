import { assertFiniteSamples } from './descriptive.ts';
import { normalCdf } from './distributions.ts';
import { rankWithTies } from './ranks.ts';

export interface MannWhitneyResult {
  /** U of x: the number of pairs (xᵢ, yⱼ) with xᵢ > yⱼ, plus half the number of ties. */
  u: number;
  /** Two-sided p-value. */
  pValue: number;
  method: 'exact' | 'asymptotic';
  /** The standardised statistic of the normal approximation (asymptotic method only). */
  z: number | null;
}

export interface MannWhitneyOptions {
  /**
   * 'exact': the exact null distribution of U (no ties allowed); 'asymptotic': the normal
   * approximation with tie correction; 'auto' (default): exact when there are no ties and the
   * number of arrangements C(m+n, m) fits exactly in a double (≤ 2⁵³), asymptotic otherwise.
   */
  method?: 'auto' | 'exact' | 'asymptotic';
  /** Continuity correction of the normal approximation (scipy's default); default true. */
  continuity?: boolean;
}

/**
 * The Mann–Whitney U test (Wilcoxon rank-sum; Mann & Whitney 1947), two-sided: does one sample
 * tend to have larger values than the other? Rank-based, so it suits skewed latency data and is
 * unmoved by outliers. U₁ = R₁ - m(m+1)/2 from the mid-ranks of the pooled sample.
 *
 * - exact: p = min(1, 2·min(P(U ≤ U₁), P(U ≥ U₁))) under the permutation distribution of U,
 *   whose frequencies are the coefficients of the Gaussian binomial coefficient [m+n choose m]_q
 *   (Andrews 1976; see also Di Bucchianico 1999), computed by the product
 *   ∏ᵢ (1 - q^(n+i)) / (1 - q^i). Valid without ties only.
 * - asymptotic: z = (max(U₁, U₂) - mn/2 - ½) / σ with the tie-corrected
 *   σ² = mn/12 · ((N + 1) - Σ(t³ - t) / (N(N - 1))), N = m + n, p = 2·(1 - Φ(z)) capped at 1.
 *   When all values are equal (σ = 0) p = 1.
 *
 * Matches scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method=..., use_continuity=...).
 */
export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  options: MannWhitneyOptions = {},
): MannWhitneyResult {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  const m = x.length;
  const n = y.length;
  const { ranks, ties } = rankWithTies([...x, ...y]);
  let r1 = 0;
  for (let i = 0; i < m; i++) r1 += ranks[i]!;
  const u1 = r1 - (m * (m + 1)) / 2;
  const requested = options.method ?? 'auto';
  if (requested === 'exact' && ties.length > 0)
    throw new RangeError(
      'Mann-Whitney: the exact distribution assumes no ties; use the asymptotic method for tied data',
    );
  const method =
    requested === 'auto'
      ? ties.length === 0 && log2Binomial(m + n, m) <= 53
        ? 'exact'
        : 'asymptotic'
      : requested;
  if (method === 'exact') {
    const counts = uFrequencies(m, n);
    let total = 0;
    for (const c of counts) total += c;
    let below = 0; // P(U ≤ u1) · total
    for (let u = 0; u <= u1; u++) below += counts[u]!;
    let above = 0; // P(U ≥ u1) · total
    for (let u = u1; u <= m * n; u++) above += counts[u]!;
    return { u: u1, pValue: Math.min(1, (2 * Math.min(below, above)) / total), method, z: null };
  }
  const big = m + n;
  const tieTerm = ties.reduce((sum, t) => sum + t ** 3 - t, 0);
  const sigma = Math.sqrt(((m * n) / 12) * (big + 1 - tieTerm / (big * (big - 1))));
  if (!(sigma > 0)) return { u: u1, pValue: 1, method, z: 0 };
  const uMax = Math.max(u1, m * n - u1);
  const z = (uMax - (m * n) / 2 - (options.continuity === false ? 0 : 0.5)) / sigma;
  // 2·Φ(-z) rather than 2·(1 - Φ(z)) keeps precision for large z.
  return { u: u1, pValue: Math.min(1, 2 * normalCdf(-z)), method, z };
}

/**
 * Frequencies of U = 0..mn under the null hypothesis (all C(m+n, m) arrangements equally
 * likely): the coefficients of [m+n choose m]_q, built as [n+i choose i]_q from
 * [n+i-1 choose i-1]_q · (1 - q^(n+i)) / (1 - q^i) for i = 1..m. Every intermediate polynomial
 * has non-negative integer coefficients, exact in doubles while C(m+n, m) ≤ 2⁵³.
 */
export function uFrequencies(m: number, n: number): Float64Array {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 1 || n < 1)
    throw new RangeError(`U distribution: sample sizes must be positive integers, got ${m} and ${n}`);
  const c = new Float64Array(m * n + m + n + 2);
  c[0] = 1;
  for (let i = 1; i <= m; i++) {
    const top = (i - 1) * n + n + i; // degree after multiplying by (1 - q^(n+i))
    for (let k = top; k >= n + i; k--) c[k]! -= c[k - (n + i)]!;
    for (let k = i; k <= top; k++) c[k]! += c[k - i]!;
  }
  return c.slice(0, m * n + 1);
}

function log2Binomial(total: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log2((total - k + i) / i);
  return s;
}
