// The gate's report and its rows: the JSON `runtime-bench check --json` prints, which the
// action and the site read.
import type { BenchmarkResult, Direction, RunResult, Unit } from '@runtime-bench/schemas';
import type { BaselineReset } from '../annotations.ts';
import type { ErrorCounts } from '../two-sample.ts';

/** A result file of the history and where it came from. */
export interface HistoryEntry {
  run: RunResult;
  file: string;
}

/** Regressions are new or ongoing (already flagged in the previous run, so not alerted again). */
export type GateVerdict =
  'regression' | 'ongoing regression' | 'improvement' | 'ok' | 'no baseline' | 'insufficient data';

export interface GateRowBase {
  benchmark: string;
  target: string;
  /** id · cri · oci: how the target was matched in the history. */
  targetIdentity: string;
  /** Run ids of the baseline window, oldest first. */
  baselineRuns: string[];
  /**
   * Set when the previous run (this id) flagged this row: the window is then the one it was
   * flagged against, and a regression is "ongoing" rather than new.
   */
  frozenFrom: string | null;
  pValue: number | null;
  adjustedP: number | null;
  verdict: GateVerdict;
  notes: string[];
}

/** One metric of the current run against its baseline window. */
export interface GateMetricRow extends GateRowBase {
  kind: 'metric';
  metric: string;
  unit: Unit;
  direction: Direction;
  current: { n: number; median: number | null };
  /** The baseline level: geometric mean of the window's run medians (median of the pooled samples below 3 runs). */
  baseline: { runs: number; n: number; level: number | null };
  /** current median / baseline level - 1, with its interval. */
  change: number | null;
  changeLower: number | null;
  changeUpper: number | null;
  test: string | null;
  /** Standard error of the prediction test (log scale when the test is on logs); null without it. */
  scale: number | null;
  threshold: number;
  significant: boolean;
  large: boolean;
  /**
   * Minimum detectable effect: the smallest |change| this row could flag at its window size and
   * run-to-run spread (strictest Holm level, and at least the threshold); null without a test.
   */
  detectable: number | null;
  /** Runs of the window left out as one-off outlier nights. */
  outliers: string[];
  /** The latest change point of the metric's nightly series, including the current run. */
  changePoint: GateChangePoint | null;
  /**
   * The current night's factor shared by all metrics of this benchmark × target (ratio − 1, e.g.
   * 0.08: everything 8 % slower than the metrics' usual levels), removed from `change` and from
   * the window before the test; null when not applied (too few metrics or nights).
   */
  nightFactor: number | null;
  /** Nights the change was measured over (1, or more when a lasting change decided; see persistence). */
  persistence: number;
  /**
   * Tonight's median against the window's level without any night factor removed (ratio − 1,
   * one night, log scale); `change` is this net of the factor. Null without a run-level test on
   * logs. Absent in reports of earlier versions.
   */
  rawChange?: number | null;
  /**
   * Where the night factor came from: 'own' (the median polish of this target's metrics),
   * 'controls' (unchanged targets of the same run, listed in `factorControls`: this target's
   * components changed since its window), 'none' (no factor removed: too few metrics or nights,
   * turned off, or a changed target without a control — then a note says that drift could not be
   * separated), 'reference' (the pinned reference handler's median of this metric the same night,
   * GateOptions.references; `nightFactor` is then the reference's night against its usual level,
   * and `factorControls` names it). Absent in reports of earlier versions.
   */
  factorSource?: NightFactorSource;
  /** The control targets whose factors were used (factorSource 'controls'), or the reference ('reference'). */
  factorControls?: string[];
}

/** Where a metric row's night factor came from (GateMetricRow.factorSource). */
export type NightFactorSource = 'own' | 'controls' | 'reference' | 'none';

/** A step in a metric's nightly series found by E-divisive means (stats/change-point.ts). */
export interface GateChangePoint {
  /** The first run at the new level, and when it started. */
  runId: string;
  startedAt: string;
  /** 0 when the current run is the first at the new level. */
  nightsAgo: number;
  /** Ratio of the levels after / before minus 1, with its interval (Student t on log medians). */
  step: number;
  stepLower: number;
  stepUpper: number;
  pValue: number;
  runsBefore: number;
  runsAfter: number;
  /** Component versions that changed at that run, e.g. "runc 1.1.5 → 1.3.6". */
  versionChanges: string[];
}

/** How many rows the gate could check, and why the others could not be. */
export interface GateCoverage {
  rows: number;
  checked: number;
  notChecked: { reason: string; rows: number }[];
}

/** The error rate (failed / attempted measured runs) of a benchmark against the window's. */
export interface GateErrorRateRow extends GateRowBase {
  kind: 'error-rate';
  current: ErrorCounts;
  baseline: ErrorCounts;
  threshold: number;
}

/** A benchmark that is not ok in the current run (or was not ok in the previous one). */
export interface GateStatusRow extends GateRowBase {
  kind: 'status';
  current: BenchmarkResult['status'];
  previous: BenchmarkResult['status'] | null;
  okInWindow: number;
}

export type GateRow = GateMetricRow | GateErrorRateRow | GateStatusRow;

export interface GateReport {
  kind: 'runtime-bench.check';
  current: { label: string; runId: string; startedAt: string; hostClass: string };
  history: {
    files: number;
    /** Same host class, started before the current run, not the current run itself. */
    comparable: number;
    otherHostClass: number;
    /** Started at or after the current run ('preceding' scope only). */
    notBefore: number;
    sameRun: number;
  };
  options: {
    window: number;
    alpha: number;
    threshold: number;
    thresholds: Record<string, number>;
    errorRateThreshold: number;
    scope: 'preceding' | 'nearest';
  };
  resetsApplied: BaselineReset[];
  targets: { id: string; identity: string; versions: string; baselineVersions: string[] }[];
  rows: GateRow[];
  counts: Record<'regression' | 'ongoing' | 'improvement' | 'ok' | 'noBaseline' | 'insufficient', number>;
  coverage: GateCoverage;
}
