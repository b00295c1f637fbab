// The noise panel of a benchmark page: per host class, combination and parameter set, how much
// the run medians vary from run to run, and the smallest change the nightly gate can detect at
// its sample size (its own minimum detectable effect, from its report on the newest run) — the
// answer to "could a 10 % change even be seen?". Pure.
import type { GateRow } from '@runtime-bench/runner/compare';
import { median } from '@runtime-bench/runner/stats';
import { parametersLabel } from '../parameters.ts';
import { STATUS_OK, type MetricInfo, type SiteIndex } from '../site-index.ts';

/** Runs of each line the variation is taken over: the gate's baseline window (10 by default). */
export const NOISE_RUNS = 10;

/** The change the panel asks about ("could a 10 % change be seen?"). */
export const NOISE_QUESTION = 0.1;

/**
 * The largest detectable change the panel prints as a number: beyond a doubling (+100 %) the
 * figure (a "≥ 36629.9 %") says nothing but that the gate cannot see a change of this row.
 */
export const NOISE_DETECT_CAP = 1;

/** The panel's "could detect" cell: "≥ 12.3 %", or "cannot detect" past NOISE_DETECT_CAP. */
export function detectableLabel(detectable: number, pct: (v: number) => string): string {
  return detectable > NOISE_DETECT_CAP
    ? `cannot detect (not even a change > ${pct(NOISE_DETECT_CAP)})`
    : `≥ ${pct(detectable)}`;
}

export interface NoiseRow {
  hostClassId: string;
  combo: string;
  /** the target id of the line's newest run, which the gate's rows name */
  targetId: string;
  parameters: string;
  /** run medians the variation is taken over (at most NOISE_RUNS, the newest) */
  runs: number;
  /**
   * Typical run-to-run change of the median: exp(1.4826 · MAD of the log run medians) − 1, a
   * robust spread that one odd night does not inflate; null below 3 runs or with values ≤ 0.
   */
  variation: number | null;
  /** the gate's minimum detectable change for this row on the newest run; null: no gate row */
  detectable: number | null;
  /** why `detectable` is null, in words */
  why: string | null;
}

/** The robust run-to-run variation of run medians (see NoiseRow.variation). */
export function runToRunVariation(medians: readonly number[]): number | null {
  if (medians.length < 3 || medians.some((m) => !(m > 0))) return null;
  const logs = medians.map(Math.log);
  const center = median(logs);
  const mad = median(logs.map((l) => Math.abs(l - center)));
  return Math.exp(1.4826 * mad) - 1;
}

/**
 * The noise rows of one metric. `gateRows` are the gate's rows on each host class's newest run
 * (its status report), by host class id.
 */
export function noiseRows(
  index: SiteIndex,
  metric: MetricInfo,
  gateRows: ReadonlyMap<string, readonly GateRow[]>,
): NoiseRow[] {
  const rows = index.rowsOf(metric.key);
  if (!rows) return [];
  const lines = new Map<string, { medians: number[]; last: number; parameters: number }>();
  for (let i = 0; i < rows.runTarget.length; i++) {
    if (rows.status[i] !== STATUS_OK || rows.n[i] === 0) continue;
    const t = index.runTargets[rows.runTarget[i]!]!;
    const key = `${t.hostClassId}\u0000${t.combo}\u0000${rows.parameters[i]!}`;
    const line = lines.get(key) ?? { medians: [], last: 0, parameters: rows.parameters[i]! };
    line.medians.push(rows.median[i]!);
    line.last = rows.runTarget[i]!;
    lines.set(key, line);
  }
  const out: NoiseRow[] = [];
  for (const line of lines.values()) {
    const t = index.runTargets[line.last]!;
    const newestOfHost = index.runs.findLast((r) => r.hostClassId === t.hostClassId)!;
    const row = (gateRows.get(t.hostClassId) ?? []).find(
      (r) =>
        r.kind === 'metric' &&
        r.benchmark === metric.benchmark &&
        r.metric === metric.metric &&
        r.target === t.targetId,
    );
    const detectable = row && row.kind === 'metric' ? row.detectable : null;
    const medians = line.medians.slice(-NOISE_RUNS);
    out.push({
      hostClassId: t.hostClassId,
      combo: t.combo,
      targetId: t.targetId,
      parameters: parametersLabel(index.parameterSets[line.parameters]!),
      runs: medians.length,
      variation: runToRunVariation(medians),
      detectable,
      why:
        detectable !== null
          ? null
          : t.run !== newestOfHost.index
            ? 'not in the newest run of this host class'
            : row
              ? (row.notes[0] ?? `gate verdict: ${row.verdict}`)
              : 'no gate row',
    });
  }
  return out.sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.combo.localeCompare(b.combo));
}
