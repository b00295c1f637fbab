import { median } from './descriptive.ts';
import { medianSamplingVariance } from './power.ts';

/**
 * A two-way table with missing cells: rows are the metrics of one benchmark × target, columns
 * the nights, cells ln(median of the night) or null.
 */
export type TwoWayTable = readonly (readonly (number | null)[])[];

export interface MedianPolish {
  overall: number;
  /** Row effects (a metric's level); 0 for a row without values. */
  rows: number[];
  /** Column effects (a night's common factor); null for a column without values. */
  columns: (number | null)[];
  /** y − overall − row − column, null where y is. */
  residuals: (number | null)[][];
}

/**
 * Tukey's median polish (Tukey 1977, Exploratory Data Analysis, ch. 11; R's `medpolish`): the
 * additive fit y_ij = overall + row_i + col_j + e_ij by alternately sweeping out row and column
 * medians until the fit stops changing (at most `iterations` sweeps, default 10, like R). Missing
 * cells are skipped. Robust: a few metrics that moved alone (a regression) barely move a night's
 * column effect, the median of that night's residuals over all metrics.
 */
export function medianPolish(table: TwoWayTable, iterations = 10): MedianPolish {
  const nRows = table.length;
  const nCols = nRows ? table[0]!.length : 0;
  for (const [i, row] of table.entries()) {
    if (row.length !== nCols) throw new RangeError(`row ${i} has ${row.length} cells, expected ${nCols}`);
    for (const [j, v] of row.entries())
      if (v !== null && !Number.isFinite(v)) throw new RangeError(`cell [${i}][${j}] is not finite: ${v}`);
  }
  const e = table.map((row) => [...row]);
  const rows = new Array<number>(nRows).fill(0);
  const cols = new Array<number>(nCols).fill(0);
  let overall = 0;
  const present = (values: (number | null)[]): number[] => values.filter((v): v is number => v !== null);
  for (let it = 0; it < iterations; it++) {
    let moved = 0;
    for (let i = 0; i < nRows; i++) {
      const values = present(e[i]!);
      if (!values.length) continue;
      const m = median(values);
      rows[i]! += m;
      moved += Math.abs(m);
      for (let j = 0; j < nCols; j++) if (e[i]![j] !== null) e[i]![j]! -= m;
    }
    const filled = cols.filter((_, j) => table.some((r) => r[j] !== null));
    const colShift = filled.length ? median(filled) : 0;
    for (let j = 0; j < nCols; j++) cols[j]! -= colShift;
    overall += colShift;
    for (let j = 0; j < nCols; j++) {
      const values = present(e.map((r) => r[j]!));
      if (!values.length) continue;
      const m = median(values);
      cols[j]! += m;
      moved += Math.abs(m);
      for (let i = 0; i < nRows; i++) if (e[i]![j] !== null) e[i]![j]! -= m;
    }
    const filledRows = rows.filter((_, i) => table[i]!.some((v) => v !== null));
    const rowShift = filledRows.length ? median(filledRows) : 0;
    for (let i = 0; i < nRows; i++) rows[i]! -= rowShift;
    overall += rowShift;
    if (moved < 1e-12) break;
  }
  const columns = cols.map((c, j) => (table.some((r) => r[j] !== null) ? c : null));
  return { overall, rows, columns, residuals: e };
}

/**
 * Each night's common factor of a two-way table: the column effect of its median polish, null
 * for a night with fewer than `minMetrics` metric values (too few for a robust factor). The gate
 * removes these factors before it tests a metric; `plan` removes the same ones.
 */
export function nightFactors(table: TwoWayTable, minMetrics: number): (number | null)[] {
  return medianPolish(table).columns.map((c, j) =>
    c !== null && table.filter((row) => row[j] !== null).length >= minMetrics ? c : null,
  );
}

/**
 * The two-way table of nightFactors: one row per metric, one column per night, each cell
 * sign · ln(median of the night's samples) — `sign` 1 for a lower-is-better metric and −1 for a
 * higher-is-better one, so that a slower night is positive for all — or null where the night has
 * no samples or a median ≤ 0. The gate and `plan` build the table the same way.
 */
export function signedLogMedianTable(
  metrics: readonly { sign: number; nights: readonly (readonly number[] | null)[] }[],
): (number | null)[][] {
  return metrics.map(({ sign, nights }) =>
    nights.map((samples) => {
      if (!samples || samples.length === 0) return null;
      const med = median(samples);
      return med > 0 ? sign * Math.log(med) : null;
    }),
  );
}

/** nightFactors by night id: the nights that have a factor, keyed by `ids[column]`. */
export function nightFactorsById(
  table: TwoWayTable,
  ids: readonly string[],
  minMetrics: number,
): Map<string, number> {
  const byId = new Map<string, number>();
  nightFactors(table, minMetrics).forEach((c, j) => {
    if (c !== null) byId.set(ids[j]!, c);
  });
  return byId;
}

export interface DriftComponents {
  /** Night-to-night sd of the common factor (ln scale), beyond the noise of its estimate. */
  sigmaCommon: number;
  /** Night-to-night sd of each metric apart from the common factor, beyond sampling noise. */
  sigmaMetric: number;
  /** Mean sampling variance of a cell (the median's), for reference. */
  samplingVariance: number;
  /** Variance of the cells around the metric levels, and the share the common factor explains. */
  totalVariance: number;
  explained: number;
  cells: number;
}

/**
 * Splits the night-to-night variation of a two-way table of ln(night medians) into a factor
 * shared by all metrics of a night and a per-metric part, each net of sampling noise:
 * - per-metric: the polish residuals' mean square, with the two-way fit's degrees of freedom
 *   (cells − rows − columns + 1), minus the cells' mean sampling variance (`sampling`, the
 *   variance of each cell's median); floored at 0;
 * - common: the variance of the column effects minus the variance of their estimate, the median
 *   of m residuals (π/2 · residual mean square / m); floored at 0.
 * Moment estimators (ANOVA-style, Searle et al. 1992, Variance Components, ch. 3).
 */
export function driftComponents(table: TwoWayTable, sampling: TwoWayTable): DriftComponents {
  const fit = medianPolish(table);
  let cells = 0;
  let residualSq = 0;
  let samplingSum = 0;
  let totalSq = 0;
  for (const [i, row] of table.entries())
    for (const [j, v] of row.entries()) {
      if (v === null) continue;
      const s = sampling[i]?.[j];
      if (s === null || s === undefined) throw new RangeError(`no sampling variance for cell [${i}][${j}]`);
      cells++;
      residualSq += fit.residuals[i]![j]! ** 2;
      samplingSum += s;
      totalSq += (v - fit.overall - fit.rows[i]!) ** 2;
    }
  const rowsUsed = table.filter((r) => r.some((v) => v !== null)).length;
  const columns = fit.columns.filter((c): c is number => c !== null);
  const dof = cells - rowsUsed - columns.length + 1;
  if (dof < 1 || columns.length < 2) throw new RangeError('the table needs at least 2 nights and 2 metrics');
  const residualMs = residualSq / dof;
  const samplingVariance = samplingSum / cells;
  const meanColumn = columns.reduce((a, b) => a + b, 0) / columns.length;
  const columnVar = columns.reduce((a, c) => a + (c - meanColumn) ** 2, 0) / (columns.length - 1);
  const perColumn = cells / columns.length;
  const columnNoise = medianSamplingVariance(residualMs, perColumn);
  return {
    sigmaCommon: Math.sqrt(Math.max(0, columnVar - columnNoise)),
    sigmaMetric: Math.sqrt(Math.max(0, residualMs - samplingVariance)),
    samplingVariance,
    totalVariance: totalSq / cells,
    explained: totalSq > 0 ? 1 - residualSq / totalSq : 0,
    cells,
  };
}
