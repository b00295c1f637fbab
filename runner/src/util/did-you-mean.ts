// "Did you mean": the known names closest to a misspelt one, by edit distance. Pure.

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * Up to `max` candidates close to `word`: the nearest ones by edit distance, if within 40 % of the
 * word's length (at least 1, as commander judges flags); when none is, the shortest names `word`
 * starts a dotted segment of (`perf` → `performance`, not also `performance.cpu`).
 */
export function closestNames(word: string, candidates: readonly string[], max = 3): string[] {
  const unique = [...new Set(candidates)].filter((c) => c !== word);
  const lower = word.toLowerCase();
  const scored = unique
    .map((c) => ({ c, d: editDistance(lower, c.toLowerCase()) }))
    .filter(({ d }) => d <= Math.max(1, Math.floor(0.4 * word.length)));
  if (scored.length > 0) {
    const best = Math.min(...scored.map((s) => s.d));
    return scored
      .filter((s) => s.d === best)
      .map((s) => s.c)
      .sort()
      .slice(0, max);
  }
  const starts = unique.filter(
    (c) =>
      lower.length > 0 &&
      c
        .toLowerCase()
        .split('.')
        .some((s) => s.startsWith(lower)),
  );
  return starts
    .filter((c) => !starts.some((s) => c.startsWith(`${s}.`)))
    .sort((x, y) => x.length - y.length || x.localeCompare(y))
    .slice(0, max);
}

/** `did you mean a or b?` for the closest names, or null when none is close. */
export function didYouMean(word: string, candidates: readonly string[]): string | null {
  const names = closestNames(word, candidates);
  if (names.length === 0) return null;
  return `did you mean ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`}?`;
}

/** Every name and each of its leading dotted parts (`a.b.c` → `a`, `a.b`, `a.b.c`), as a config may name them. */
export function dottedPrefixes(names: readonly string[]): string[] {
  return [
    ...new Set(names.flatMap((n) => n.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.')))),
  ];
}
