// How `compare` prints the engine overhead: one sentence per row ("docker/runc: engine overhead on
// engine.startup.latency latency_median = +203 ms [95 % CI …] over containerd/runc"), and once per
// benchmark pair the span each side times, so the reader knows what the difference holds.
import { ENGINE_COUNTERPARTS } from '../engine/counterparts.ts';
import { formatRatio, formatSignedValue, formatValue } from '../format/index.ts';
import type { EngineOverheadRow } from './engine-overhead.ts';

/** "+203.3 ms [95 % CI +189.8 ms, +225.2 ms]", or "–" without a difference. */
export function formatOverhead(row: EngineOverheadRow, confidence: number): string {
  const d = formatSignedValue(row.difference, row.unit);
  if (row.lower === null || row.upper === null) return d;
  return `${d} [${Math.round(confidence * 100)} % CI ${formatSignedValue(row.lower, row.unit)}, ${formatSignedValue(row.upper, row.unit)}]`;
}

/** One row in a sentence, with both medians, the ratio, n and the runs when they differ. */
export function overheadSentence(row: EngineOverheadRow, confidence: number): string {
  const medians = `medians ${formatValue(row.engine.median, row.unit)} vs ${formatValue(row.cri.median, row.unit)}`;
  const runs = row.sameRun ? '' : `; CRI side from run ${row.criRunId}`;
  const why = row.difference === null && row.notes.length > 0 ? `: ${row.notes.at(-1)}` : '';
  return (
    `${row.engineTarget} (${row.engineVersion}): engine overhead on ${row.engineBenchmark} ${row.metric} = ` +
    `${formatOverhead(row, confidence)} over ${row.criTarget} (${row.criVersion}; ${row.oci}; ${medians}; ` +
    `${formatRatio(row.ratio)}; n = ${row.engine.n} + ${row.cri.n}${runs})${why}`
  );
}

/** What each side of the benchmark pairs present in `rows` times. */
export function overheadSpans(rows: readonly EngineOverheadRow[]): string[] {
  const present = new Set(rows.map((r) => r.engineBenchmark));
  return ENGINE_COUNTERPARTS.filter((c) => present.has(c.engine)).flatMap((c) => [
    `${c.engine} times ${c.engineSpan}`,
    `${c.cri} times ${c.criSpan}`,
    `so engine − CRI holds ${c.difference}`,
  ]);
}

/** The section's lines: a heading, the spans, one sentence per row (plain text; callers escape). */
export function overheadLines(rows: readonly EngineOverheadRow[], confidence: number): string[] {
  if (rows.length === 0) return [];
  return [
    `Engine overhead (engine-level minus CRI-level median for the same OCI runtime version on the same host; ${Math.round(confidence * 100)} % bootstrap CI of the difference):`,
    ...overheadSpans(rows).map((l) => `  ${l}`),
    ...rows.map((r) => `  ${overheadSentence(r, confidence)}`),
  ];
}
