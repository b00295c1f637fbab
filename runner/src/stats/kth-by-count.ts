// The k-th smallest of a large implicit set of values (the m·n pairwise differences of two samples,
// the n(n+1)/2 Walsh averages of one), without listing it: bisect on the value with a function that
// counts the members ≤ t, until few are left between the bounds, then list those and pick. Used by
// the Hodges–Lehmann estimators and their intervals (effect-size.ts, signed-rank.ts).

export interface KthSearch {
  /** A value below every member. */
  lo: number;
  /** A value at or above every member. */
  hi: number;
  /** How many members there are. */
  total: number;
  /** Stop bisecting once at most this many members lie in (lo, hi]. */
  enough: number;
  /** How many members are ≤ t. */
  countAtMost(t: number): number;
  /** The members in (lo, hi], in any order. */
  listBetween(lo: number, hi: number): number[];
}

/** The k-th smallest (1-based) member. */
export function kthByCount(k: number, search: KthSearch): number {
  // Invariant: countAtMost(lo) < k ≤ countAtMost(hi).
  let { lo, hi } = search;
  let below = 0;
  let atMostHi = search.total;
  while (atMostHi - below > search.enough) {
    const mid = lo + (hi - lo) / 2;
    // No double strictly between lo and hi: every member in (lo, hi] equals hi.
    if (mid <= lo || mid >= hi) return hi;
    const c = search.countAtMost(mid);
    if (c < k) {
      lo = mid;
      below = c;
    } else {
      hi = mid;
      atMostHi = c;
    }
  }
  // Few members remain in (lo, hi]: list them and pick the (k - below)-th.
  const rest = search.listBetween(lo, hi).sort((a, b) => a - b);
  return rest[k - below - 1]!;
}
