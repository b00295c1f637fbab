/**
 * Holm's step-down adjustment of p-values for m simultaneous tests (Holm 1979): sort the
 * p-values ascending, p₍ᵢ₎ ↦ max over j ≤ i of min(1, (m - j + 1)·p₍ⱼ₎). Rejecting where the
 * adjusted p < α controls the family-wise error rate at α under any dependence between the tests,
 * and is uniformly more powerful than Bonferroni. Returns the adjusted p-values in input order.
 * Matches statsmodels' multipletests(p, method='holm') and R's p.adjust(p, "holm").
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  pValues.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`Holm: p-value ${i} is ${p} (must be within [0, 1])`);
  });
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}
