// The overhead table over the CRI, one for both layers (an engine's and Kubernetes'): each metric
// pair of the runner's counterpart table (@runtime-bench/runner/overhead) as both sides, then
// upper − CRI with its 95 % bootstrap interval (seed 1) and the ratio, from the runner's one
// estimator. Which samples stand on each side is the layer's own view (engines.ts, kubernetes.ts);
// the rows and their shape are this module's. Pure.
import {
  overheadEstimate,
  type CounterpartMetric,
  type OverheadCounterpart,
  type OverheadEstimate,
} from '@runtime-bench/runner/overhead';
import type { Unit } from '@runtime-bench/schemas';
import type { RunMeta } from '../site-index.ts';

/** A median of the runs a layer's rule picked, with those runs. */
export interface SideValue {
  kind: 'value';
  median: number;
  /** samples (pooled over `runs`) */
  n: number;
  unit: Unit;
  /**
   * The runs the samples come from: several when the nodes of one node class each wrote their
   * file of the same cluster run (same start time); else one.
   */
  runs: RunMeta[];
  /** the target the samples come from, with its versions (comboLabel) */
  target: string;
}

/** Why a side has no number, in a sentence for the reader. */
export interface SideMissing {
  kind: 'missing';
  why: string;
}

export type Side = SideValue | SideMissing;

/** One side as a layer's rule picked it: its shown value with the samples, or why there is none. */
export type PickedSide = { side: SideValue; samples: readonly number[] } | { side: SideMissing };

/** Both sides of one metric pair, and the unit the row is shown in (the upper side's). */
export interface PairSides {
  upper: PickedSide;
  cri: PickedSide;
  unit: Unit | null;
}

/** One metric of a benchmark above the CRI beside its CRI-level counterpart. */
export interface OverheadRow extends OverheadEstimate {
  counterpart: OverheadCounterpart;
  upperMetric: string;
  criMetric: string;
  /** the upper side's unit (the CRI side is converted to it when both are times) */
  unit: Unit | null;
  upperSide: Side;
  criSide: Side;
}

/** Seconds per unit of the time units, so that ms and µs sides can still be paired. */
const SECONDS: Partial<Record<Unit, number>> = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 };

/** A value in `from` expressed in `to`, or null when the two units cannot be converted. */
export function convertUnit(value: number, from: Unit, to: Unit): number | null {
  if (from === to) return value;
  const a = SECONDS[from];
  const b = SECONDS[to];
  return a !== undefined && b !== undefined ? (value * a) / b : null;
}

/** The CRI side's samples in the upper side's unit, or null when the units cannot be converted. */
function inUnit(samples: readonly number[], from: Unit, to: Unit): number[] | null {
  if (convertUnit(1, from, to) === null) return null;
  return samples.map((x) => convertUnit(x, from, to)!);
}

/**
 * The overhead rows of some counterparts: one per metric pair for which `sidesOf` gives sides
 * (null leaves the pair out), in the table's order. Both sides with samples give upper − CRI,
 * its interval and the ratio; else the row shows the sides and no number.
 */
export function overheadRows(
  counterparts: readonly OverheadCounterpart[],
  sidesOf: (c: OverheadCounterpart, m: CounterpartMetric) => PairSides | null,
): OverheadRow[] {
  const rows: OverheadRow[] = [];
  for (const counterpart of counterparts)
    for (const m of counterpart.metrics) {
      const sides = sidesOf(counterpart, m);
      if (!sides) continue;
      const { upper, cri } = sides;
      let criSamples: number[] | null = null;
      if ('samples' in upper && 'samples' in cri)
        criSamples = inUnit(cri.samples, cri.side.unit, upper.side.unit);
      const estimate = overheadEstimate(
        criSamples ?? [],
        criSamples && 'samples' in upper ? upper.samples : [],
        { seed: 1 },
      );
      rows.push({
        ...estimate,
        counterpart,
        upperMetric: m.upper,
        criMetric: m.cri,
        unit: sides.unit,
        upperSide: upper.side,
        criSide: cri.side,
      });
    }
  return rows;
}
