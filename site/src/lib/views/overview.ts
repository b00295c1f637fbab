// The overview: the latest comparison matrix per host class (its rows: matrix-row.ts). Pure.
export type { MatrixCell, Relation } from '../matrix-row.ts';
import { matrixRowCells, type CellInput, type CellOrigin, type MatrixCell } from '../matrix-row.ts';
import { compareWithBest, type Verdict } from '../significance.ts';
import { comboLabel } from '../labels.ts';
import { compareVersions } from '../versions.ts';
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
  /** per cell, the run its numbers come from (null: no observation) */
  origins: (CellOrigin | null)[];
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
 * Handlers and versions in the order a reader expects: by name, then version by version
 * ("runc-1.1.5" before "runc-1.1.10" before "runc-1.1.14"), never as text.
 */
export function compareColumns(a: ComboRef, b: ComboRef): number {
  const split = (h: string) => {
    const m = /^(.*?)[-_ ]?v?(\d+(?:\.\d+)*.*)$/.exec(h);
    return m ? { name: m[1]!, version: m[2]! } : { name: h, version: '' };
  };
  const ha = split(a.handler);
  const hb = split(b.handler);
  return (
    a.criName.localeCompare(b.criName) ||
    ha.name.localeCompare(hb.name) ||
    compareVersions(ha.version, hb.version) ||
    compareVersions(a.criVersion, b.criVersion) ||
    a.ociName.localeCompare(b.ociName) ||
    compareVersions(a.ociVersion, b.ociVersion) ||
    a.combo.localeCompare(b.combo)
  );
}

/**
 * For each host class, the newest run of each combination (a target's lineage) forms a column;
 * each row is one metric with, per column, the newest observation of that lineage that measured
 * the metric: a newer run of the lineage that did not run the benchmark never hides the one that
 * did (the cell says which run it comes from).
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
      .sort(compareColumns);
    const present = index.metricKeysByHost.get(host.id) ?? new Set<string>();
    const rows: HostInputs['rows'] = [];
    for (const metric of index.metrics) {
      if (!present.has(metric.key)) continue;
      // per combo of this host class, the newest run target with a row of this metric
      const newest = new Map<string, number>();
      const metricRows = index.rowsOf(metric.key);
      for (const rt of metricRows?.runTarget ?? []) {
        const t = index.runTargets[rt]!;
        if (t.hostClassId !== host.id) continue;
        const prev = newest.get(t.combo);
        if (prev === undefined || t.run >= index.runTargets[prev]!.run) newest.set(t.combo, rt);
      }
      const wanted = new Set(newest.values());
      const byCombo = new Map(
        index.observationsOf(metric.key, (rt) => wanted.has(rt)).map((o) => [o.combo, o]),
      );
      rows.push({
        metric,
        found: columns.map((c) => {
          const o = byCombo.get(c.combo);
          if (!o) return undefined;
          const run = index.runs[o.run]!;
          const versions = `${o.criName} ${o.criVersion} · ${o.ociName} ${o.ociVersion}`;
          return { ...o, origin: { runId: run.runId, startedAt: run.startedAt, versions } };
        }),
      });
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
      family.rows.push({ metric, cells, parameters, origins: found.map((o) => o?.origin ?? null) });
    }
    return { host, columns, families };
  });
}
