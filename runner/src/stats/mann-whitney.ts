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
   * 'exact': the exact permutation distribution of U (with ties: of the mid-rank U);
   * 'asymptotic': the normal approximation with tie correction; 'auto' (default): exact when the
   * number of arrangements C(m+n, m) fits exactly in a double (≤ 2⁵³) — and, with ties, when the
   * counting table stays small (≤ 5·10⁷ cells) — asymptotic otherwise.
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
 * - exact: p = min(1, 2·min(P(U ≤ U₁), P(U ≥ U₁))) under the permutation distribution of U.
 *   Without ties its frequencies are the coefficients of the Gaussian binomial coefficient
 *   [m+n choose m]_q (Andrews 1976; see also Di Bucchianico 1999), computed by the product
 *   ∏ᵢ (1 - q^(n+i)) / (1 - q^i). With ties U is a function of the mid-ranks, and its
 *   distribution over all C(m+n, m) splits of the pooled values is counted by dynamic
 *   programming over the doubled mid-ranks (the normal approximation is poor at small n:
 *   [5,5,5] vs [6,6,6] has exact p = 0.1, the approximation gives 0.047).
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
  if (!METHODS.includes(requested))
    throw new RangeError(
      `Mann-Whitney: unknown method ${JSON.stringify(requested)}; use one of ${METHODS.join(', ')}`,
    );
  if (options.continuity !== undefined && typeof options.continuity !== 'boolean')
    throw new RangeError(`Mann-Whitney: continuity must be true or false, got ${String(options.continuity)}`);
  const method =
    requested === 'auto'
      ? log2Binomial(m + n, m) <= 53 && (ties.length === 0 || tiedTableCells(m, n) <= MAX_TIED_CELLS)
        ? 'exact'
        : 'asymptotic'
      : requested;
  if (method === 'exact' && ties.length > 0)
    return { u: u1, pValue: exactTiedPValue(ranks, m), method, z: null };
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

const METHODS: readonly string[] = ['auto', 'exact', 'asymptotic'];
/** Largest counting table (group size × values × rank sums) the exact tied test builds in 'auto'. */
const MAX_TIED_CELLS = 5e7;

function tiedTableCells(m: number, n: number): number {
  const k = Math.min(m, n);
  const total = m + n;
  return (k + 1) * total * (2 * k * total + 1);
}

/**
 * Two-sided exact p of the mid-rank U with ties: the number of ways to pick k of the N pooled
 * values with each sum of doubled mid-ranks (integers), for the smaller group (k = min(m, n), so
 * that no intermediate count exceeds C(N, k) ≤ 2⁵³ once the auto rule allowed it), then
 * 2·min(P(S ≤ s), P(S ≥ s)). The rank sum of the smaller group determines U₁ (U₂ = mn - U₁),
 * and the two-sided p is symmetric in the groups.
 */
function exactTiedPValue(ranks: ArrayLike<number>, m: number): number {
  const total = ranks.length;
  const doubled = Array.from(ranks, (r) => Math.round(2 * r));
  const pickX = m <= total - m;
  const k = pickX ? m : total - m;
  let observed = 0;
  for (let i = 0; i < total; i++) if (i < m === pickX) observed += doubled[i]!;
  const maxSum = doubled.reduce((a, b) => a + b, 0);
  // ways[j · (maxSum + 1) + s]: subsets of size j of the values seen so far with doubled rank sum s.
  const width = maxSum + 1;
  const ways = new Float64Array((k + 1) * width);
  ways[0] = 1;
  let reach = 0;
  for (const r of doubled) {
    reach += r;
    for (let j = k; j >= 1; j--) {
      const row = j * width;
      const prev = (j - 1) * width;
      for (let s = Math.min(reach, maxSum); s >= r; s--) ways[row + s]! += ways[prev + s - r]!;
    }
  }
  let below = 0;
  let above = 0;
  let all = 0;
  for (let s = 0; s <= maxSum; s++) {
    const w = ways[k * width + s]!;
    all += w;
    if (s <= observed) below += w;
    if (s >= observed) above += w;
  }
  return Math.min(1, (2 * Math.min(below, above)) / all);
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
