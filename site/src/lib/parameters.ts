// Benchmark parameters as the site compares them: results measured with different parameters
// (2 threads for 10 s against 1 thread for 2 s) answer different questions and are never compared
// or pooled; where a page would compare them it says how they differ. Pure.

/** The parameters of a set (canonical JSON, as the index keeps them) as an object. */
function parse(json: string): Record<string, unknown> {
  const v = JSON.parse(json) as unknown;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** One parameter set in words: "threads 2, timeSeconds 10" ("none" when empty). */
export function parametersLabel(json: string): string {
  const p = Object.entries(parse(json));
  return p.length === 0 ? 'none' : p.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ');
}

/** How `json` differs from `reference`: "threads 2 (not 1), timeSeconds 10 (not 2)". */
export function parameterDifference(json: string, reference: string): string {
  const a = parse(json);
  const b = parse(reference);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map(
      (k) =>
        `${k} ${k in a ? JSON.stringify(a[k]) : 'unset'} (not ${k in b ? JSON.stringify(b[k]) : 'unset'})`,
    )
    .join(', ');
}
