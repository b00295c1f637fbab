// The night factors a metric row divides out and where they came from: the types shared by the
// module that chooses them (night-factor.ts), the reference handler's (reference.ts) and the
// metric row (metric-row.ts), in a module of their own so none of them imports another for a type.
import type { MetricResult } from '@runtime-bench/schemas';
import type { Series } from './series.ts';
import type { NightFactorSource } from './types.ts';

/** ln of each night's factor (slower = positive) by run id, the current run included. */
export type NightFactors = ReadonlyMap<string, number>;

/** One metric of the reference handler, night by night: what a metric row divides out. */
export interface ReferenceFactors {
  /** ln(reference median / its usual level) by run id, slower = positive (signed as NightFactors). */
  factors: NightFactors;
  /** Sampling variance of the reference's ln median by run id (π/2 · σ²/n). */
  sampling: ReadonlyMap<string, number>;
}

/** The night factors a series' metric rows divide out, and where they came from. */
export interface FactorChoice {
  factors: NightFactors | null;
  source: NightFactorSource;
  /** Targets whose factors were used (source 'controls'). */
  controls: string[];
  /** Version changes of the target since its window ("runc 1.1.5 → 1.3.6"); empty when none. */
  changes: string[];
  /**
   * The same run's pinned reference handler (GateOptions.references) for this benchmark, its
   * components unchanged since its window: each metric row divides out the reference's own median
   * of that metric (referenceFactorsOf) where it covers the row's nights, `factors` elsewhere.
   */
  reference: Series | null;
  /** The reference's factors of one metric (referenceFactorsOf, computed once per evaluation); null without a reference. */
  referenceFactors: ((metric: MetricResult) => ReferenceFactors) | null;
}
