// How `compare` prints the engine overhead: one sentence per row ("docker/runc: engine overhead on
// engine.startup.latency latency_median = +203 ms [95 % CI …] over containerd/runc"), and once per
// benchmark pair the span each side times, so the reader knows what the difference holds.
import { formatRatio, formatSignedValue, formatValue } from '../format/index.ts';
import { ENGINE_COUNTERPARTS } from './counterparts.ts';
import type { EngineOverheadRow } from './engine-runs.ts';

/** "+203.3 ms [95 % CI +189.8 ms, +225.2 ms]", or "–" without a difference. */
export function formatOverhead(row: EngineOverheadRow, confidence: number): string {
  const d = formatSignedValue(row.difference, row.unit);
  if (row.lower === null || row.upper === null) return d;
  return `${d} [${Math.round(confidence * 100)} % CI ${formatSignedValue(row.lower, row.unit)}, ${formatSignedValue(row.upper, row.unit)}]`;
}

/** Why a row has no difference (its last note), or null when it has one. */
function missingBecause(row: EngineOverheadRow): string | null {
  return row.difference === null && row.notes.length > 0 ? row.notes.at(-1)! : null;
}

/**
 * One row in a sentence, with both medians, the ratio, n and the runs when they differ. A row
 * without a difference ends with why — or, with `saidAbove`, points to the row above that said it.
 */
export function overheadSentence(row: EngineOverheadRow, confidence: number, saidAbove = false): string {
  const medians = `medians ${formatValue(row.engine.median, row.unit)} vs ${formatValue(row.cri.median, row.unit)}`;
  const runs = row.sameRun ? '' : `; CRI side from run ${row.criRunId}`;
  const reason = missingBecause(row);
  const why = reason === null ? '' : saidAbove ? ': no overhead, for the reason given above' : `: ${reason}`;
  return (
    `${row.engineTarget} (${row.engineVersion}): engine overhead on ${row.engineBenchmark} ${row.metric} = ` +
    `${formatOverhead(row, confidence)} over ${row.criTarget} (${row.criVersion}; ${row.oci}; ${medians}; ` +
    `${formatRatio(row.ratio)}; n = ${row.engine.n} + ${row.cri.n}${runs})${why}`
  );
}

/** What each side of the benchmark pairs present in `rows` times. */
export function overheadSpans(rows: readonly EngineOverheadRow[]): string[] {
  const present = new Set(rows.map((r) => r.engineBenchmark));
  return ENGINE_COUNTERPARTS.filter((c) => present.has(c.upper) && c.spans).flatMap((c) => [
    `${c.upper} times ${c.spans!.upper}`,
    `${c.cri} times ${c.spans!.cri}`,
    `so engine − CRI holds ${c.spans!.difference}`,
  ]);
}

/** The section's lines: a heading, the spans, one sentence per row (plain text; callers escape). */
export function overheadLines(rows: readonly EngineOverheadRow[], confidence: number): string[] {
  if (rows.length === 0) return [];
  return [
    `Engine overhead (engine-level minus CRI-level median for the same OCI runtime version on the same host; ${Math.round(confidence * 100)} % bootstrap CI of the difference):`,
    ...overheadSpans(rows).map((l) => `  ${l}`),
    // An unsupported target repeats its (long) reason on every metric: say it once per target.
    ...rows.map((r, i) => {
      const reason = missingBecause(r);
      const saidAbove =
        reason !== null &&
        rows.slice(0, i).some((p) => p.engineTarget === r.engineTarget && missingBecause(p) === reason);
      return `  ${overheadSentence(r, confidence, saidAbove)}`;
    }),
  ];
}
