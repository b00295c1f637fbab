// The overview: the latest comparison matrix per host class (its rows: matrix-row.ts). Pure.
export type { MatrixCell, Relation } from '../matrix-row.ts';
import { matrixRowCells, type CellInput, type MatrixCell } from '../matrix-row.ts';
import { compareWithBest, type Verdict } from '../significance.ts';
import { comboLabel } from '../labels.ts';
import {
  comboRefOf,
  type ComboRef,
  type HostClassInfo,
  type MetricInfo,
  type RunMeta,
  type SiteIndex,
} from '../site-index.ts';

export interface MatrixColumn extends ComboRef {
  label: string;
  run: RunMeta;
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

/** What the matrix of one host class is made of: its columns and, per metric, each column's cell. */
export interface HostInputs {
  host: HostClassInfo;
  columns: MatrixColumn[];
  rows: { metric: MetricInfo; found: (CellInput | undefined)[] }[];
}

/**
 * For each host class, the newest run of each combination (a target's lineage) forms a column;
 * each row is one metric with that run's observation per column.
 */
export function matrixInputs(index: SiteIndex): HostInputs[] {
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
    const rows: HostInputs['rows'] = [];
    for (const metric of index.metrics) {
      if (!present.has(metric.key)) continue;
      const byKey = new Map(
        index
          .observationsOf(metric.key, (rt) => inColumns.has(rt))
          .map((o) => [`${o.run}\u0000${o.combo}`, o]),
      );
      rows.push({ metric, found: columns.map((c) => byKey.get(`${c.run.index}\u0000${c.combo}`)) });
    }
    return { host, columns, rows };
  });
}

/**
 * The matrix of each host class (see matrixInputs): in each row the best cell (by the metric's
 * direction, among cells whose benchmark status is "ok", measured with the row's parameters and,
 * on a limits benchmark, with the limit enforced) is marked, every other such cell is tested
 * against it (see compareWithBest), and the others carry their status or why they stand apart.
 */
export function overview(
  index: SiteIndex,
  verdictsOf: RowVerdicts = (_, rows, direction) => compareWithBest(rows, direction),
): HostMatrix[] {
  return matrixInputs(index).map(({ host, columns, rows }) => {
    const families: MatrixFamily[] = [];
    for (const { metric, found } of rows) {
      const { cells, parameters } = matrixRowCells(found, metric.direction, index.parameterSets, (samples) =>
        verdictsOf({ hostClassId: host.id, metricKey: metric.key }, samples, metric.direction),
      );
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
