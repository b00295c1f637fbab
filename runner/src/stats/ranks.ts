import { assertFiniteSamples } from './descriptive.ts';

/** Ranks of the pooled values (1-based, ties get the mean of their ranks) and the tie-group sizes. */
export interface PooledRanks {
  /** ranks[i] is the rank of values[i]. */
  ranks: Float64Array;
  /** Sizes of the groups of tied values (only groups of two or more). */
  ties: number[];
}

/** Mid-ranks of the values (the "average" method of scipy.stats.rankdata), with tie-group sizes. */
export function rankWithTies(values: readonly number[]): PooledRanks {
  assertFiniteSamples(values);
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Float64Array(values.length);
  const ties: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++;
    // Positions start..end-1 hold equal values: all get the mean rank (start+1 + end) / 2.
    const rank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) ranks[order[k]!] = rank;
    if (end - start > 1) ties.push(end - start);
    start = end;
  }
  return { ranks, ties };
}
