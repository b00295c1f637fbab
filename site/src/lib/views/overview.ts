// The overview: the latest comparison matrix per host class. Pure.
import type { MedianInterval } from '@runtime-bench/runner/stats';
import { medianInterval } from '@runtime-bench/runner/stats';
import { parameterDifference } from '../parameters.ts';
import { compareWithBest, type Verdict } from '../significance.ts';
import { comboLabel } from '../labels.ts';
import {
  comboRefOf,
  type ComboRef,
  type HostClassInfo,
  type MetricInfo,
  type Observation,
  type RunMeta,
  type SiteIndex,
} from '../site-index.ts';

export interface MatrixColumn extends ComboRef {
  label: string;
  run: RunMeta;
}

export type MatrixCell =
  | { kind: 'missing' }
  | { kind: 'status'; status: Observation['status']; reason: string | undefined }
  | {
      kind: 'value';
      status: Observation['status'];
      reason: string | undefined;
      median: number;
      n: number;
      errors: number;
      interval: MedianInterval | null;
      verdict: Verdict;
      /** how this cell stands against the row's best ok cell, for the one-line display */
      relation: Relation;
    };

/**
 * A cell against the row's best: the best itself (only when no other cell has the same median:
 * ties are not "best"), a ratio of medians, or — when the best median is 0 and a ratio would be
 * infinite — the absolute difference. `none` when the cell was not compared (status not ok).
 */
export type Relation =
  | { kind: 'best' }
  /** measured apart from the row's comparison: other parameters, or a limit not enforced */
  | { kind: 'apart'; label: 'parameters differ' | 'not enforced' | 'enforcement not shown'; why: string }
  | { kind: 'tie' }
  | { kind: 'ratio'; ratio: number }
  | { kind: 'difference'; difference: number }
  | { kind: 'none' };

/** The relation of a median to the row's best median (best null: nothing to compare with). */
export function relationTo(
  median: number,
  best: number | null,
  tiedBest: boolean,
  isBest: boolean,
): Relation {
  if (best === null) return { kind: 'none' };
  if (isBest) return tiedBest ? { kind: 'tie' } : { kind: 'best' };
  if (median === best) return { kind: 'tie' };
  if (best === 0 || !Number.isFinite(median / best)) return { kind: 'difference', difference: median - best };
  return { kind: 'ratio', ratio: median / best };
}

export interface MatrixRow {
  metric: MetricInfo;
  cells: MatrixCell[];
  /** the parameters (index into SiteIndex.parameterSets) of the cells the row compares; null: none */
  parameters: number | null;
}

export interface MatrixFamily {
  benchmark: string;
  description: string;
  rows: MatrixRow[];
}

export interface HostMatrix {
  host: HostClassInfo;
  columns: MatrixColumn[];
  families: MatrixFamily[];
}

/** Which matrix row a set of verdicts belongs to: a host class's table and a metric's row. */
export interface MatrixRowKey {
  hostClassId: string;
  metricKey: string;
}

/**
 * The verdicts of one matrix row's cells, in column order, for the row named by `key`: by default
 * compareWithBest, computed on the spot; site-data.ts hands in verdicts computed in worker threads.
 */
export type RowVerdicts = (
  key: MatrixRowKey,
  rows: readonly (readonly number[])[],
  direction: MetricInfo['direction'],
) => Verdict[];

/** The matrix rows' samples as overview() hands them to a RowVerdicts, by row. */
export interface MatrixTests {
  key: MatrixRowKey;
  rows: readonly (readonly number[])[];
  direction: MetricInfo['direction'];
}

/** The map key of a MatrixRowKey. */
export function matrixRowId(key: MatrixRowKey): string {
  return `${key.hostClassId}\u0000${key.metricKey}`;
}

/**
 * For each host class, the newest run of each combination forms a column; each row is one metric
 * with the median of that run's samples. The best cell of a row (by the metric's direction,
 * among cells whose benchmark status is "ok") is marked, every other ok cell is tested against it
 * (see compareWithBest), and cells without samples carry their status and reason.
 */
export function overview(
  index: SiteIndex,
  verdictsOf: RowVerdicts = (_, rows, direction) => compareWithBest(rows, direction),
): HostMatrix[] {
  // host → combo → the newest run target of that combination
  const latest = new Map<string, Map<string, number>>();
  index.runTargets.forEach((t, i) => {
    let combos = latest.get(t.hostClassId);
    if (!combos) latest.set(t.hostClassId, (combos = new Map()));
    const prev = combos.get(t.combo);
    if (prev === undefined || t.run > index.runTargets[prev]!.run) combos.set(t.combo, i);
  });
  return index.hostClasses.map((host) => {
    const chosen = [...(latest.get(host.id)?.values() ?? [])];
    const columns: MatrixColumn[] = chosen
      .map((i) => {
        const ref = comboRefOf(index.runTargets[i]!);
        return { ...ref, label: comboLabel(ref), run: index.runs[index.runTargets[i]!.run]! };
      })
      .sort((a, b) => a.criName.localeCompare(b.criName) || a.handler.localeCompare(b.handler));
    const inColumns = new Set(chosen);
    const present = index.metricKeysByHost.get(host.id) ?? new Set<string>();
    const families: MatrixFamily[] = [];
    for (const metric of index.metrics) {
      if (!present.has(metric.key)) continue;
      const byKey = new Map(
        index
          .observationsOf(metric.key, (rt) => inColumns.has(rt))
          .map((o) => [`${o.run}\u0000${o.combo}`, o]),
      );
      const found = columns.map((c) => byKey.get(`${c.run.index}\u0000${c.combo}`));
      const parameters = comparedParameters(found);
      const apart = found.map((o) => (o && o.status === 'ok' ? apartFrom(index, o, parameters) : null));
      const competing = found.map((o, i) => (o && o.status === 'ok' && !apart[i] ? o.samples : []));
      const verdicts = verdictsOf(
        { hostClassId: host.id, metricKey: metric.key },
        competing,
        metric.direction,
      );
      const bestIndex = verdicts.findIndex((v) => v.kind === 'best');
      const bestMedian = bestIndex >= 0 ? found[bestIndex]!.median : null;
      const tiedBest =
        bestMedian !== null &&
        found.some((o, i) => i !== bestIndex && competing[i]!.length > 0 && o!.median === bestMedian);
      const cells: MatrixCell[] = found.map((o, i): MatrixCell => {
        if (!o) return { kind: 'missing' };
        if (o.samples.length === 0) return { kind: 'status', status: o.status, reason: o.reason };
        const away = apart[i];
        return {
          kind: 'value',
          status: o.status,
          reason: o.reason,
          median: o.median!,
          n: o.samples.length,
          errors: o.errors,
          interval: medianInterval(o.samples),
          verdict:
            o.status !== 'ok'
              ? { kind: 'untested', why: `benchmark status is "${o.status}": not compared` }
              : away
                ? { kind: 'untested', why: `${away.label}: ${away.why}` }
                : verdicts[i]!,
          relation:
            o.status !== 'ok'
              ? { kind: 'none' }
              : (away ?? relationTo(o.median!, bestMedian, tiedBest, i === bestIndex)),
        };
      });
      let family = families.at(-1);
      if (!family || family.benchmark !== metric.benchmark) {
        family = { benchmark: metric.benchmark, description: metric.benchmarkDescription, rows: [] };
        families.push(family);
      }
      family.rows.push({ metric, cells, parameters });
    }
    return { host, columns, families };
  });
}

/**
 * The parameters a matrix row compares: those of most of its "ok" cells (on a tie, those of the
 * newest run), so that a run measured with other parameters stands apart instead of being ranked.
 */
function comparedParameters(found: readonly (Observation | undefined)[]): number | null {
  const count = new Map<number, { n: number; run: number }>();
  for (const o of found) {
    if (!o || o.status !== 'ok' || o.samples.length === 0) continue;
    const c = count.get(o.parameters) ?? { n: 0, run: -1 };
    count.set(o.parameters, { n: c.n + 1, run: Math.max(c.run, o.run) });
  }
  let best: number | null = null;
  for (const [p, c] of count) {
    const b = best === null ? null : count.get(best)!;
    if (!b || c.n > b.n || (c.n === b.n && c.run > b.run)) best = p;
  }
  return best;
}

/** Why an ok cell is not compared with its row: other parameters, or a limit not enforced. */
function apartFrom(
  index: SiteIndex,
  o: Observation,
  parameters: number | null,
): Extract<Relation, { kind: 'apart' }> | null {
  if (parameters !== null && o.parameters !== parameters)
    return {
      kind: 'apart',
      label: 'parameters differ',
      why: `measured with ${parameterDifference(index.parameterSets[o.parameters]!, index.parameterSets[parameters]!)} than the row's other cells`,
    };
  if (o.enforcement && o.enforcement.state !== 'enforced')
    return {
      kind: 'apart',
      label: o.enforcement.state === 'not enforced' ? 'not enforced' : 'enforcement not shown',
      why: o.enforcement.why,
    };
  return null;
}
