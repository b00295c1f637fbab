// One row of the comparison matrix: which cells are compared (the same benchmark parameters, a
// limit enforced), the best one or a chosen reference, and how every other cell stands against
// it. Shared by the build (views/overview.ts) and the browser, which recomputes a row from the
// cells a filter leaves visible (client/matrix.ts). Pure and browser-safe.
import { medianInterval, type MedianInterval } from '@runtime-bench/runner/stats';
import type { Enforcement } from './enforcement.ts';
import { parameterDifference } from './parameters.ts';
import type { Verdict } from './significance.ts';

/** Which run (and which versions) a matrix cell's numbers come from. */
export interface CellOrigin {
  runId: string;
  startedAt: string;
  /** "containerd 1.6.20 · runc 1.1.5" */
  versions: string;
}

/** What a row needs of one cell's observation (a plain value, shipped to the browser as JSON). */
export interface CellInput {
  /** the run the cell comes from (a column's cells may come from different runs of its lineage) */
  origin?: CellOrigin | undefined;
  /** the run's position in the index (later runs are newer) */
  run: number;
  status: 'ok' | 'invalid' | 'unsupported' | 'failed' | 'interrupted';
  reason?: string | undefined;
  samples: readonly number[];
  median: number | null;
  errors: number;
  /** index into the index's parameterSets */
  parameters: number;
  enforcement: Enforcement | null;
}

/** /data/matrix/<host class>.json: one host class's matrix cells, in the page's column order. */
export interface MatrixData {
  parameterSets: string[];
  columns: { label: string; combo: string; run: { runId: string; startedAt: string } }[];
  /** by metric slug (the page's tr[data-slug]) */
  rows: Record<
    string,
    { unit: string; direction: 'lower' | 'higher'; label: string; cells: (CellInput | null)[] }
  >;
}

export type MatrixCell =
  | { kind: 'missing' }
  | { kind: 'status'; status: CellInput['status']; reason: string | undefined }
  | {
      kind: 'value';
      status: CellInput['status'];
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
  /** the column the row is shown relative to ("relative to <runtime>") */
  | { kind: 'reference' }
  /** measured apart from the row's comparison: other parameters, or a limit not enforced */
  | {
      kind: 'apart';
      label: 'parameters differ' | 'not enforced' | 'enforcement not shown' | 'separate run';
      why: string;
    }
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
  reference = false,
): Relation {
  if (best === null) return { kind: 'none' };
  if (isBest && reference) return { kind: 'reference' };
  if (isBest) return tiedBest ? { kind: 'tie' } : { kind: 'best' };
  if (median === best) return { kind: 'tie' };
  if (best === 0 || !Number.isFinite(median / best)) return { kind: 'difference', difference: median - best };
  return { kind: 'ratio', ratio: median / best };
}

/**
 * The cells of one row. `verdictsOf` tests the competing samples (empty: not competing), in order,
 * against the best or, with `reference` (a cell's position), against that cell; the compared
 * parameters are then the reference's.
 */
export function matrixRowCells(
  found: readonly (CellInput | undefined)[],
  direction: 'lower' | 'higher',
  parameterSets: readonly string[],
  verdictsOf: (rows: readonly (readonly number[])[], direction: 'lower' | 'higher') => Verdict[],
  reference: number | null = null,
): { cells: MatrixCell[]; parameters: number | null } {
  const ref = reference === null ? undefined : found[reference];
  const parameters =
    ref && ref.status === 'ok' && ref.samples.length > 0 ? ref.parameters : comparedParameters(found);
  const measured = found.map((o) =>
    o && o.status === 'ok' ? apartFrom(parameterSets, o, parameters) : null,
  );
  // Cells are ranked only against cells of the same run: the run of the reference, else the run
  // with most comparable cells. Another run's level (the host that night) is not the runtime's.
  const run =
    ref && ref.status === 'ok' && ref.samples.length > 0
      ? ref.run
      : comparedRun(found.map((o, i) => (o && o.status === 'ok' && !measured[i] ? o : undefined)));
  const apart = found.map(
    (o, i) => measured[i] ?? (o && o.status === 'ok' ? separateRun(o, found, run) : null),
  );
  const competing = found.map((o, i) => (o && o.status === 'ok' && !apart[i] ? o.samples : []));
  const verdicts = verdictsOf(competing, direction);
  const bestIndex = verdicts.findIndex((v) => v.kind === 'best');
  const bestMedian = bestIndex >= 0 ? found[bestIndex]!.median : null;
  const tiedBest =
    bestMedian !== null &&
    found.some((o, i) => i !== bestIndex && competing[i]!.length > 0 && o!.median === bestMedian);
  const cells = found.map((o, i): MatrixCell => {
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
          : (away ?? relationTo(o.median!, bestMedian, tiedBest, i === bestIndex, reference !== null)),
    };
  });
  return { cells, parameters };
}

/**
 * The parameters a matrix row compares: those of most of its "ok" cells (on a tie, those of the
 * newest run), so that a run measured with other parameters stands apart instead of being ranked.
 */
function comparedParameters(found: readonly (CellInput | undefined)[]): number | null {
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

/** The run most of the row's comparable cells come from; on a tie, the newest. */
function comparedRun(found: readonly (CellInput | undefined)[]): number | null {
  const count = new Map<number, number>();
  for (const o of found) if (o && o.samples.length > 0) count.set(o.run, (count.get(o.run) ?? 0) + 1);
  let best: number | null = null;
  for (const [run, n] of count) {
    const b = best === null ? 0 : count.get(best)!;
    if (n > b || (n === b && run > best!)) best = run;
  }
  return best;
}

/** A cell of another run than the one the row compares: shown, never ranked against it. */
function separateRun(
  o: CellInput,
  found: readonly (CellInput | undefined)[],
  run: number | null,
): Extract<Relation, { kind: 'apart' }> | null {
  if (run === null || o.run === run) return null;
  const other = found.find((x) => x?.run === run)?.origin?.runId;
  return {
    kind: 'apart',
    label: 'separate run',
    why: `measured in run ${o.origin?.runId ?? 'another run'}, not side by side with the row's compared cells${other ? ` (run ${other})` : ''}: a run's own level is not the runtime's`,
  };
}

/** Why an ok cell is not compared with its row: other parameters, or a limit not enforced. */
function apartFrom(
  parameterSets: readonly string[],
  o: CellInput,
  parameters: number | null,
): Extract<Relation, { kind: 'apart' }> | null {
  if (parameters !== null && o.parameters !== parameters)
    return {
      kind: 'apart',
      label: 'parameters differ',
      why: `measured with ${parameterDifference(parameterSets[o.parameters]!, parameterSets[parameters]!)} than the row's other cells`,
    };
  if (o.enforcement && o.enforcement.state !== 'enforced')
    return {
      kind: 'apart',
      label: o.enforcement.state === 'not enforced' ? 'not enforced' : 'enforcement not shown',
      why: o.enforcement.why,
    };
  return null;
}
