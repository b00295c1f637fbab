// Wilcoxon's signed-rank test of paired differences and the location estimate that goes with it
// (the Hodges–Lehmann estimate, with the interval obtained by inverting the same test).
import { kthByCount } from './kth-by-count.ts';
import { assertFiniteSamples } from './descriptive.ts';
import { normalCdf, normalQuantile } from './distributions.ts';
import type { Alternative } from './fisher.ts';

/** How zero differences are treated (scipy.stats.wilcoxon's `zero_method`). */
export type ZeroMethod = 'wilcox' | 'pratt' | 'zsplit';

export interface SignedRankOptions {
  /**
   * 'wilcox' (default, Wilcoxon 1945): zeros are dropped before ranking; 'pratt' (Pratt 1959):
   * zeros are ranked, then left out of the sums, with Cureton's (1967) correction of the normal
   * approximation; 'zsplit': zeros are ranked and half of their rank sum goes to each side.
   */
  zeroMethod?: ZeroMethod;
  /**
   * Continuity correction of the normal approximation (½ towards the mean). Default **false**
   * (scipy's default is true): without it the approximate test and the interval of
   * signedRankShift are inversions of each other.
   */
  correction?: boolean;
  /**
   * 'exact': the null distribution of W+ over all 2ⁿ sign patterns of n untied ranks (with ties
   * or zeros a non-integral W+ is rounded towards the mean, as scipy does: conservative);
   * 'permutation': the exact sign-flip distribution of the observed mid-ranks (right with ties
   * and zeros), both up to 400 differences; 'asymptotic': normal approximation with the tie
   * correction; 'auto' (default, scipy's rule): asymptotic above 50 differences, else exact
   * without ties or zeros, else permutation up to 13 differences, else asymptotic.
   */
  method?: 'auto' | 'exact' | 'permutation' | 'asymptotic';
  alternative?: Alternative;
}

export interface SignedRankTest {
  /** All differences given. */
  n: number;
  /** Differences equal to 0. */
  zeros: number;
  /** Differences ranked (n − zeros for 'wilcox', n otherwise). */
  ranked: number;
  /** Sum of the ranks of the positive differences (with 'zsplit', plus half the zeros' ranks). */
  wPlus: number;
  wMinus: number;
  /** scipy's statistic: min(W+, W−) two-sided, W+ one-sided. */
  statistic: number;
  pValue: number;
  method: 'exact' | 'permutation' | 'asymptotic';
  /** (W+ − mean) / sd, continuity-corrected when asked; null unless asymptotic. */
  z: number | null;
  /** Whether the ranked |differences| had ties (a group of zeros under 'pratt' / 'zsplit' counts). */
  ties: boolean;
}

/**
 * Wilcoxon's signed-rank test (Wilcoxon 1945) of differences d: are they symmetric about 0?
 * Mid-ranks of |d|, W+ the sum of the ranks of the positive ones, mean m(m+1)/4 and variance
 * m(m+1)(2m+1)/24 − Σ(t³ − t)/48 over m ranked values with tie groups of size t. Matches
 * scipy.stats.wilcoxon(d, zero_method=…, correction=…, alternative=…, method=…), whose
 * PermutationMethod is this 'permutation' when it enumerates all 2ⁿ patterns (n ≤ 13). When
 * nothing is left to rank (every difference 0 under 'wilcox') p is 1 (scipy: NaN).
 */
export function wilcoxonSignedRank(d: readonly number[], options: SignedRankOptions = {}): SignedRankTest {
  assertFiniteSamples(d, 'differences');
  const zeroMethod = checkOption('zeroMethod', options.zeroMethod ?? 'wilcox', ZERO_METHODS);
  const alternative = checkOption('alternative', options.alternative ?? 'two-sided', ALTERNATIVES);
  const requested = checkOption('method', options.method ?? 'auto', METHODS);
  if (options.correction !== undefined && typeof options.correction !== 'boolean')
    throw new RangeError(`signed-rank: correction must be true or false, got ${String(options.correction)}`);
  const n = d.length;
  const zeros = d.filter((v) => v === 0).length;
  const kept = zeroMethod === 'wilcox' ? d.filter((v) => v !== 0) : [...d];
  const m = kept.length;
  const { ranks, ties } = absRanks(kept);
  let wPlus = 0;
  let wMinus = 0;
  let zeroRanks = 0;
  kept.forEach((v, i) => {
    if (v > 0) wPlus += ranks[i]!;
    else if (v < 0) wMinus += ranks[i]!;
    else zeroRanks += ranks[i]!;
  });
  if (zeroMethod === 'zsplit') {
    wPlus += zeroRanks / 2;
    wMinus += zeroRanks / 2;
  }
  const zeroGroup = zeroMethod === 'pratt' && zeros > 0;
  const hasTies = ties.some((t) => t > 1);
  const method =
    requested !== 'auto'
      ? requested
      : n > 50
        ? 'asymptotic'
        : !hasTies && zeros === 0
          ? 'exact'
          : n <= 13
            ? 'permutation'
            : 'asymptotic';
  if (method !== 'asymptotic' && m > MAX_EXACT)
    throw new RangeError(
      `signed-rank: method '${method}' counts all sign patterns, too slow for ${m} differences (at most ${MAX_EXACT}); use 'auto' or 'asymptotic'`,
    );
  const statistic = alternative === 'two-sided' ? Math.min(wPlus, wMinus) : wPlus;
  const base = { n, zeros, ranked: m, wPlus, wMinus, statistic, method, ties: hasTies };
  if (m === 0 || (zeroMethod === 'pratt' && m === zeros))
    return { ...base, pValue: 1, z: method === 'asymptotic' ? 0 : null };

  if (method === 'asymptotic') {
    let mean = (m * (m + 1)) / 4;
    let varianceTerm = m * (m + 1) * (2 * m + 1);
    // Pratt: the zeros' ranks 1..z are not in play (Cureton 1967), nor is their tie group.
    if (zeroGroup) {
      mean -= (zeros * (zeros + 1)) / 4;
      varianceTerm -= zeros * (zeros + 1) * (2 * zeros + 1);
    }
    const tieTerm = ties.reduce((s, t, i) => (zeroGroup && i === 0 ? s : s + t ** 3 - t), 0);
    const sd = Math.sqrt((varianceTerm - tieTerm / 2) / 24);
    if (!(sd > 0)) return { ...base, pValue: 1, z: 0 };
    let z = (wPlus - mean) / sd;
    if (options.correction) {
      const sign = alternative === 'greater' ? 1 : alternative === 'less' ? -1 : Math.sign(z);
      z -= (sign * 0.5) / sd;
    }
    const pValue =
      alternative === 'greater'
        ? normalCdf(-z)
        : alternative === 'less'
          ? normalCdf(z)
          : Math.min(1, 2 * normalCdf(-Math.abs(z)));
    return { ...base, pValue, z };
  }
  if (method === 'exact') {
    const pmf = signedRankDistribution(m);
    // A non-integral W+ (ties, zsplit) is rounded towards the mean before the tail is read (scipy gh-19872).
    const lower = (k: number): number => tail(pmf, 0, Math.ceil(k));
    const upper = (k: number): number => tail(pmf, Math.floor(k), pmf.length - 1);
    const pValue =
      alternative === 'greater'
        ? upper(wPlus)
        : alternative === 'less'
          ? lower(wPlus)
          : Math.min(1, 2 * Math.min(upper(wPlus), lower(wPlus)));
    return { ...base, pValue, z: null };
  }
  // Permutation: every nonzero difference positive or negative with probability ½, ranks fixed.
  const signedRanks = kept.flatMap((v, i) => (v !== 0 ? [Math.round(2 * ranks[i]!)] : []));
  const offset = zeroMethod === 'zsplit' ? Math.round(zeroRanks) : 0; // doubled half of the zeros' ranks
  const counts = subsetSumCounts(signedRanks);
  const observed = Math.round(2 * wPlus) - offset;
  let total = 0;
  let atMost = 0;
  let atLeast = 0;
  counts.forEach((c, s) => {
    total += c;
    if (s <= observed) atMost += c;
    if (s >= observed) atLeast += c;
  });
  const pValue =
    alternative === 'greater'
      ? atLeast / total
      : alternative === 'less'
        ? atMost / total
        : Math.min(1, (2 * Math.min(atMost, atLeast)) / total);
  return { ...base, pValue, z: null };
}

/**
 * P(W+ = k), k = 0..n(n+1)/2, for n untied ranks 1..n under the null: the number of subsets of
 * {1..n} with sum k over 2ⁿ (counts exact in doubles up to n = 50, relative error ~1e-16 beyond).
 */
export function signedRankDistribution(n: number): Float64Array {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`signed-rank distribution: n = ${n} is not a count`);
  const counts = subsetSumCounts(Array.from({ length: n }, (_, i) => i + 1));
  const total = 2 ** n;
  return counts.map((c) => c / total);
}

/** The estimate of the centre of symmetry of d and its interval from the signed-rank test. */
export interface ShiftInterval {
  /** Hodges–Lehmann: the median of the Walsh averages (dᵢ + dⱼ)/2, i ≤ j. */
  estimate: number;
  /** Interval bounds; ±Infinity when n is too small for the confidence. */
  lower: number;
  upper: number;
  confidence: number;
  /** How the order statistic k was found: the exact W+ distribution (n ≤ 50) or the normal approximation. */
  method: 'exact' | 'asymptotic';
  /** The bounds are the k-th smallest and k-th largest Walsh average (0 when unbounded). */
  k: number;
}

/**
 * The Hodges–Lehmann (1963) one-sample estimate with Tukey's distribution-free interval
 * (Hollander & Wolfe 1999, §3.3): with the N = n(n+1)/2 Walsh averages sorted,
 * [W₍ₖ₎, W₍ₙ₋ₖ₊₁₎] where k − 1 is the largest c with P(W+ ≤ c) ≤ (1 − confidence)/2. The number
 * of Walsh averages above δ is W+ of d − δ (without ties), so the interval holds exactly the
 * shifts the two-sided signed-rank test does not reject at 1 − confidence: exact null
 * distribution up to n = 50, above it the normal approximation without continuity correction
 * (c = ⌊μ − z·σ⌋) — the test of wilcoxonSignedRank(d, { correction: false }) without ties. The
 * Walsh averages are never materialised: each order statistic is found by bisection on the value
 * with two-pointer counting, O(n) memory.
 */
export function signedRankShift(d: readonly number[], confidence = 0.95): ShiftInterval {
  assertFiniteSamples(d, 'differences');
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`signed-rank interval: confidence must be in (0, 1), got ${confidence}`);
  const sorted = Float64Array.from(d).sort();
  const n = sorted.length;
  const total = (n * (n + 1)) / 2;
  const half = Math.floor((total + 1) / 2);
  const estimate =
    total % 2 === 1
      ? kthWalshAverage(sorted, half)
      : (kthWalshAverage(sorted, half) + kthWalshAverage(sorted, half + 1)) / 2;
  const tailProbability = (1 - confidence) / 2;
  let c: number;
  let method: ShiftInterval['method'];
  if (n <= 50) {
    method = 'exact';
    const pmf = signedRankDistribution(n);
    c = -1;
    let cumulative = 0;
    while (c + 1 < pmf.length && cumulative + pmf[c + 1]! <= tailProbability) cumulative += pmf[++c]!;
  } else {
    method = 'asymptotic';
    const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
    c = Math.floor(total / 2 + normalQuantile(tailProbability) * sd);
  }
  const k = c + 1;
  if (k < 1) return { estimate, lower: -Infinity, upper: Infinity, confidence, method, k: 0 };
  return {
    estimate,
    lower: kthWalshAverage(sorted, k),
    upper: kthWalshAverage(sorted, total - k + 1),
    confidence,
    method,
    k,
  };
}

/** Number of Walsh averages (sᵢ + sⱼ)/2, i ≤ j, that are ≤ t (s ascending). */
function walshAtMost(s: Float64Array, t: number): number {
  let count = 0;
  let j = s.length - 1;
  for (let i = 0; i < s.length; i++) {
    while (j >= i && (s[i]! + s[j]!) / 2 > t) j--;
    if (j < i) break;
    count += j - i + 1;
  }
  return count;
}

/** The k-th smallest (1-based) Walsh average of the ascending s. */
function kthWalshAverage(s: Float64Array, k: number): number {
  const n = s.length;
  return kthByCount(k, {
    lo: s[0]! - 1,
    hi: s[n - 1]!,
    total: (n * (n + 1)) / 2,
    enough: n,
    countAtMost: (t) => walshAtMost(s, t),
    listBetween: (lo, hi) => {
      const rest: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = i; j < n; j++) {
          const w = (s[i]! + s[j]!) / 2;
          if (w > hi) break;
          if (w > lo) rest.push(w);
        }
      return rest;
    },
  });
}

/** Mid-ranks of |values| (1-based) and the tie-group sizes in ascending order of |value|, size 1 included. */
function absRanks(values: readonly number[]): { ranks: Float64Array; ties: number[] } {
  const abs = values.map(Math.abs);
  const order = abs.map((_, i) => i).sort((a, b) => abs[a]! - abs[b]!);
  const ranks = new Float64Array(values.length);
  const ties: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && abs[order[end]!] === abs[order[start]!]) end++;
    for (let k = start; k < end; k++) ranks[order[k]!] = (start + 1 + end) / 2;
    ties.push(end - start);
    start = end;
  }
  return { ranks, ties };
}

/** counts[s] = number of subsets of the (non-negative integer) items with sum s. */
function subsetSumCounts(items: readonly number[]): Float64Array {
  const max = items.reduce((a, b) => a + b, 0);
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  let reach = 0;
  for (const item of items) {
    reach += item;
    for (let s = reach; s >= item; s--) counts[s]! += counts[s - item]!;
  }
  return counts;
}

function tail(pmf: Float64Array, from: number, to: number): number {
  let p = 0;
  for (let k = Math.max(0, from); k <= Math.min(to, pmf.length - 1); k++) p += pmf[k]!;
  return Math.min(1, p);
}

/** Most ranked differences 'exact' and 'permutation' take: their tables grow as n³ (400: 3·10⁷ steps). */
const MAX_EXACT = 400;
const ZERO_METHODS = ['wilcox', 'pratt', 'zsplit'] as const;
const ALTERNATIVES: readonly Alternative[] = ['two-sided', 'less', 'greater'];
const METHODS = ['auto', 'exact', 'permutation', 'asymptotic'] as const;

function checkOption<T extends string>(name: string, value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value))
    throw new RangeError(
      `signed-rank: unknown ${name} ${JSON.stringify(value)}; use one of ${allowed.join(', ')}`,
    );
  return value;
}
