// The gate's options, their defaults (one table for check, plan and the site) and their checks.
import { EMPTY_ANNOTATIONS, type Annotations } from '../annotations.ts';

/**
 * The gate's defaults. `check` and `plan` take their command-line defaults from here and the site
 * replays the gate with them, so the nightly verdicts, the sample-size plan and the pages agree.
 */
export const GATE_DEFAULTS = {
  /** Baseline window: the last K comparable runs with data. */
  window: 10,
  /**
   * Family-wise significance level after Holm's correction, calibrated on simulated nights to at
   * most 1 % of nights with any false alarm (Holm over correlated rows is conservative;
   * docs/calibration-log.md, "Targets of the nightly gate").
   */
  alpha: 0.02,
  /** Practical threshold (fraction) a change must reach to be flagged. */
  threshold: 0.05,
  /** Rise of the error rate (absolute) that counts. */
  errorRateThreshold: 0.05,
  /** Level of the change intervals. */
  confidence: 0.95,
  scope: 'preceding',
  /** Significance level of each change point of the E-divisive search (Otava's). */
  changePointAlpha: 0.001,
  commonMode: true,
} as const satisfies Required<Omit<GateOptions, 'thresholds' | 'annotations' | 'priorDf' | 'references'>>;

/** Runs a window needs before the between-run (run-level) test is used. */
export const RUN_LEVEL_MIN_RUNS = 3;

export interface GateOptions {
  /** Baseline window: the last K comparable runs with data; default GATE_DEFAULTS.window. */
  window?: number;
  /** Family-wise significance level after Holm's correction; default GATE_DEFAULTS.alpha. */
  alpha?: number;
  /** Practical threshold (fraction, 0.05 = 5 %) a change must reach to be flagged. */
  threshold?: number;
  /** Per-metric thresholds (fractions) by "benchmark:metric" or "metric"; beat the annotations'. */
  thresholds?: Readonly<Record<string, number>>;
  /** Rise of the error rate (absolute, 0.05 = 5 percentage points) that counts. */
  errorRateThreshold?: number;
  /** Baseline resets and per-metric thresholds decided by humans (annotations.json). */
  annotations?: Annotations;
  /** Level of the change intervals. */
  confidence?: number;
  /**
   * 'preceding' (default, the nightly gate): the baseline is the K latest comparable runs that
   * started before the current one. 'nearest': the K comparable runs nearest in time, before or
   * after, without ongoing detection; for leave-one-out evaluation of the gate only.
   */
  scope?: 'preceding' | 'nearest';
  /** Significance level of each change point of the E-divisive search. */
  changePointAlpha?: number;
  /**
   * Remove each night's factor shared by the metrics of one benchmark × target before testing a
   * metric (default true; needs COMMON_MODE_MIN_METRICS metrics), and test that factor itself in a
   * row of its own (metric NIGHT_FACTOR_METRIC).
   */
  commonMode?: boolean;
  /**
   * Prior degrees of freedom of the moderated spread (stats/moderation.ts); default: each test's
   * own, k − 1 for a window of k runs (equal weight to a metric's own spread and to the pooled
   * one); 'estimated': from how much the target's metrics' spreads scatter about the pooled one,
   * as limma does (more power, more false alarms: docs/statistics.md, "Moderated spread"); 0 turns it off.
   */
  priorDf?: number | 'estimated';
  /**
   * Target ids of pinned reference handlers: fixed runtime builds the nightly runs beside the
   * targets it watches, for no other purpose than to measure the night (examples/nightly.yaml).
   * Every other target of the same benchmark then divides each metric by the reference's median
   * of that metric the same night, instead of by its own night factor: that removes the call's own
   * drift too, which the targets of one night share (docs/calibration-log.md, "Power from controls"). A
   * reference whose components changed since its window is not used that night. Added to the
   * annotations' referenceHandlers.
   */
  references?: readonly string[];
}

/** Options with their defaults applied and checked. */
export interface ResolvedGateOptions {
  window: number;
  alpha: number;
  threshold: number;
  thresholds: Record<string, number>;
  errorRateThreshold: number;
  annotations: Annotations;
  confidence: number;
  scope: 'preceding' | 'nearest';
  changePointAlpha: number;
  commonMode: boolean;
  priorDf: number | 'estimated' | null;
  references: string[];
}

/** Applies the defaults; a RangeError names the option that is out of range. */
export function resolveGateOptions(options: GateOptions): ResolvedGateOptions {
  const annotations = options.annotations ?? EMPTY_ANNOTATIONS;
  const window = options.window ?? GATE_DEFAULTS.window;
  if (!Number.isInteger(window) || window < 1)
    throw new RangeError(`window must be a positive integer, got ${window}`);
  const alpha = options.alpha ?? GATE_DEFAULTS.alpha;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  if (
    options.priorDf !== undefined &&
    options.priorDf !== 'estimated' &&
    !(options.priorDf >= 0 && Number.isFinite(options.priorDf))
  )
    throw new RangeError(`priorDf must be a finite number ≥ 0 or 'estimated', got ${options.priorDf}`);
  const threshold = options.threshold ?? GATE_DEFAULTS.threshold;
  // A finite bound: Infinity (or 1e400, which parses to it) would let a 10× slower run pass.
  if (!(threshold >= 0 && Number.isFinite(threshold)))
    throw new RangeError(`threshold must be a finite number ≥ 0, got ${threshold}`);
  for (const [key, value] of Object.entries(options.thresholds ?? {}))
    if (!(value >= 0 && Number.isFinite(value)))
      throw new RangeError(`threshold of ${key} must be a finite number ≥ 0, got ${value}`);
  const fromAnnotations = Object.fromEntries(
    Object.entries(annotations.thresholds).map(([k, v]) => [k, v / 100]),
  );
  return {
    window,
    alpha,
    threshold,
    thresholds: { ...fromAnnotations, ...options.thresholds },
    errorRateThreshold: options.errorRateThreshold ?? GATE_DEFAULTS.errorRateThreshold,
    annotations,
    confidence: options.confidence ?? GATE_DEFAULTS.confidence,
    scope: options.scope ?? GATE_DEFAULTS.scope,
    changePointAlpha: options.changePointAlpha ?? GATE_DEFAULTS.changePointAlpha,
    commonMode: options.commonMode ?? GATE_DEFAULTS.commonMode,
    priorDf: options.priorDf ?? null,
    references: [...new Set([...annotations.referenceHandlers, ...(options.references ?? [])])],
  };
}
