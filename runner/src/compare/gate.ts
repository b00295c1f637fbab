import {
  hostClassOf,
  type BenchmarkResult,
  type Direction,
  type MetricResult,
  type RunResult,
  type Target,
  type Unit,
} from '@runtime-bench/schemas';
import {
  eDivisive,
  holmAdjust,
  linearTrend,
  logSpread,
  mean,
  median,
  nightFactors,
  outlierIndices,
  stdev,
  studentTCdf,
  studentTQuantile,
  studentTTest,
} from '../stats/index.ts';
import { formatChange } from '../format/index.ts';
import { baselineCutoff, EMPTY_ANNOTATIONS, type Annotations, type BaselineReset } from './annotations.ts';
import { canonicalJson, targetIdentity, targetOf, thresholdFor } from './keys.ts';
import { errorCounts, errorRatePValue, type ErrorCounts } from './two-sample.ts';

/** A result file of the history and where it came from. */
export interface HistoryEntry {
  run: RunResult;
  file: string;
}

export interface GateOptions {
  /** Baseline window: the last K comparable runs with data; default 10. */
  window?: number;
  /**
   * Family-wise significance level after Holm's correction; default 0.02, calibrated on
   * simulated nights to at most 1 % of nights with any false alarm (Holm over correlated rows is
   * conservative; stats README, "Targets of the nightly gate").
   */
  alpha?: number;
  /** Practical threshold (fraction, 0.05 = 5 %) a change must reach to be flagged; default 0.05. */
  threshold?: number;
  /** Per-metric thresholds (fractions) by "benchmark:metric" or "metric"; beat the annotations'. */
  thresholds?: Readonly<Record<string, number>>;
  /** Rise of the error rate (absolute, 0.05 = 5 percentage points) that counts; default 0.05. */
  errorRateThreshold?: number;
  /** Baseline resets and per-metric thresholds decided by humans (annotations.json). */
  annotations?: Annotations;
  /** Level of the change intervals; default 0.95. */
  confidence?: number;
  /**
   * 'preceding' (default, the nightly gate): the baseline is the K latest comparable runs that
   * started before the current one. 'nearest': the K comparable runs nearest in time, before or
   * after, without ongoing detection; for leave-one-out evaluation of the gate only.
   */
  scope?: 'preceding' | 'nearest';
  /** Significance level of each change point of the E-divisive search; default 0.001 (Otava's). */
  changePointAlpha?: number;
  /**
   * Remove each night's factor shared by the metrics of one benchmark × target before testing a
   * metric (default true; needs COMMON_MODE_MIN_METRICS metrics), and test that factor itself in a
   * row of its own (metric NIGHT_FACTOR_METRIC).
   */
  commonMode?: boolean;
  /**
   * Prior degrees of freedom of the moderated spread (see moderation()); default: each test's
   * own, k − 1 for a window of k runs (equal weight to a metric's own spread and to the pooled
   * one); 0 turns it off.
   */
  priorDf?: number;
}

/** Regressions are new or ongoing (already flagged in the previous run, so not alerted again). */
export type GateVerdict =
  'regression' | 'ongoing regression' | 'improvement' | 'ok' | 'no baseline' | 'insufficient data';

interface GateRowBase {
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
}

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

/** Runs a window needs before the between-run (run-level) test is used. */
export const RUN_LEVEL_MIN_RUNS = 3;

interface Resolved {
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
  priorDf: number | null;
}

/**
 * The regression gate. Each benchmark × target × metric of `current` is compared with a window
 * of the K latest comparable runs of `history` — same host class (hostClassOf), same target
 * identity (id, CRI name, OCI name; versions may differ and are reported), same benchmark
 * parameters, started after the latest applicable baseline reset.
 *
 * With at least three runs in the window the test is at run level, because nightly runs differ
 * by more than their within-run noise (host drift, neighbours): the current run's median is
 * compared with the window's run medians on a log scale by a t prediction test,
 * t = (ln m₀ - mean ln mᵢ) / (s · √(1 + 1/K)), df = K - 1 (a new observation against a normal
 * sample; e.g. Hahn & Meeker 1991, Statistical Intervals, §4.7). With one or two runs there is no
 * estimate of that variation, so the row reports the change with "insufficient data" and no
 * verdict (a test on pooled samples would flag every drift). Error rates are compared by Fisher's
 * exact test on pooled counts, and a benchmark that turns invalid / unsupported / failed after
 * having been ok in the window is a status regression.
 *
 * All p-values of the report are Holm-adjusted together. A metric is a regression only when it
 * is significant (adjusted p < alpha) AND its change reaches the threshold AND it goes the bad
 * way for its direction.
 *
 * A regression already flagged in the previous comparable run is reported as ongoing, not as
 * new. Whether the previous run flagged it is derived by running this gate on that run against
 * the history before it — stateless and reproducible, no stored state. While flagged, a row keeps
 * the baseline window it was first flagged against, so that a lasting regression is not absorbed
 * by the rolling window the next night (which would report "ok" for a run still slower than last
 * week); it stays "ongoing" until it is no longer a regression against that window, or until a
 * baseline reset annotation starts a new baseline. Pure: no I/O.
 */
export function runGate(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  options: GateOptions = {},
): GateReport {
  return createGateReplay(history, options).report(current);
}

/** Evaluates many runs of one history with shared work (the index, earlier runs' verdicts). */
export interface GateReplay {
  /** The gate's report for `current` against the history (current need not be part of it). */
  report(current: HistoryEntry): GateReport;
}

/**
 * Prepares the gate for repeated use on one history: the history is indexed once, and the
 * verdicts of earlier runs (needed for "ongoing") are computed once, in chronological order.
 */
export function createGateReplay(history: readonly HistoryEntry[], options: GateOptions = {}): GateReplay {
  const o = resolveOptions(options);
  const index = indexHistory(history);
  const memo = new Map<string, GateReport>();
  const byRunId = new Map(history.map((h) => [h.run.runId, h]));
  const chronological = [...history].sort(
    (a, b) => Date.parse(a.run.startedAt) - Date.parse(b.run.startedAt),
  );

  const evaluateOne = (entry: HistoryEntry, memoize: boolean): GateReport => {
    const cached = memoize ? memo.get(entry.run.runId) : undefined;
    if (cached) return cached;
    const previousFlags = (runId: string, key: string): string[] | null => {
      if (o.scope !== 'preceding') return null;
      const prev = memo.get(runId) ?? evaluateOne(byRunId.get(runId)!, true);
      const row = prev.rows.find((r) => rowKey(r) === key);
      return row && (row.verdict === 'regression' || row.verdict === 'ongoing regression')
        ? row.baselineRuns
        : null;
    };
    const report = evaluate(entry, history, index, o, previousFlags);
    if (memoize) memo.set(entry.run.runId, report);
    return report;
  };

  return {
    report(current: HistoryEntry): GateReport {
      if (o.scope === 'preceding') {
        // Earlier runs of the same host class first, oldest first, so that "previous run" look-ups
        // hit the memo instead of recursing through the whole history.
        const hostClass = hostClassOf(current.run.host);
        const at = Date.parse(current.run.startedAt);
        for (const h of chronological)
          if (
            Date.parse(h.run.startedAt) < at &&
            h.run.runId !== current.run.runId &&
            hostClassOf(h.run.host) === hostClass
          )
            evaluateOne(h, true);
      }
      const inHistory = byRunId.get(current.run.runId)?.run === current.run;
      return evaluateOne(current, inHistory);
    },
  };
}

function resolveOptions(options: GateOptions): Resolved {
  const annotations = options.annotations ?? EMPTY_ANNOTATIONS;
  const window = options.window ?? 10;
  if (!Number.isInteger(window) || window < 1)
    throw new RangeError(`window must be a positive integer, got ${window}`);
  const alpha = options.alpha ?? 0.02;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  if (options.priorDf !== undefined && !(options.priorDf >= 0 && Number.isFinite(options.priorDf)))
    throw new RangeError(`priorDf must be a finite number ≥ 0, got ${options.priorDf}`);
  const threshold = options.threshold ?? 0.05;
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
    errorRateThreshold: options.errorRateThreshold ?? 0.05,
    annotations,
    confidence: options.confidence ?? 0.95,
    scope: options.scope ?? 'preceding',
    changePointAlpha: options.changePointAlpha ?? 0.001,
    commonMode: options.commonMode ?? true,
    priorDf: options.priorDf ?? null,
  };
}

/** One benchmark result of one run of the history: a point of a series. */
interface SeriesPoint {
  run: RunResult;
  result: BenchmarkResult;
  at: number;
  hostClass: string;
}

/** Results of the history by benchmark × target identity × parameters, oldest first. */
type HistoryIndex = Map<string, SeriesPoint[]>;

function seriesKey(run: RunResult, result: BenchmarkResult): string {
  return `${result.benchmark}\u0000${targetIdentity(targetOf(run, result))}\u0000${canonicalJson(result.parameters)}`;
}

function indexHistory(history: readonly HistoryEntry[]): HistoryIndex {
  const index: HistoryIndex = new Map();
  for (const { run } of history) {
    const hostClass = hostClassOf(run.host);
    const at = Date.parse(run.startedAt);
    for (const result of run.results) {
      const key = seriesKey(run, result);
      const list = index.get(key) ?? [];
      list.push({ run, result, at, hostClass });
      index.set(key, list);
    }
  }
  for (const list of index.values()) list.sort((a, b) => a.at - b.at);
  return index;
}

/** Given a previous run id and a row key: that run's baseline window if it flagged the row. */
type PreviousFlags = (runId: string, key: string) => string[] | null;

/** What every row of one evaluation shares: the current run and the options. */
interface Evaluation {
  run: RunResult;
  hostClass: string;
  startedAt: number;
  options: Resolved;
  previousFlags: PreviousFlags;
  /** Baseline resets that applied to some row, by canonical JSON. */
  resetsApplied: Map<string, BaselineReset>;
  /** Earlier runs of the same host class, whatever they measured. */
  comparableRuns: number;
}

/** One benchmark result of the current run and its comparable history. */
interface Series {
  result: BenchmarkResult;
  target: Target;
  identity: string;
  /** Every comparable result of this benchmark × target × parameters, oldest first. */
  points: SeriesPoint[];
}

/** The K runs a row is compared with, and the run whose flag froze them (if any). */
interface BaselineWindow {
  window: SeriesPoint[];
  frozenFrom: string | null;
  /** Comparable points after the latest applicable reset that pass the row's filter. */
  eligible: SeriesPoint[];
  /** Points dropped only because a baseline reset came after them. */
  beforeReset: number;
}

function evaluate(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  index: HistoryIndex,
  options: Resolved,
  previousFlags: PreviousFlags,
): GateReport {
  const run = current.run;
  const ev: Evaluation = {
    run,
    hostClass: hostClassOf(run.host),
    startedAt: Date.parse(run.startedAt),
    options,
    previousFlags,
    resetsApplied: new Map(),
    comparableRuns: 0,
  };
  const historyCounts = countHistory(ev, history);
  ev.comparableRuns = historyCounts.comparable;
  const rows: GateRow[] = [];
  const baselineVersions = new Map<string, Set<string>>();
  for (const result of run.results) {
    const series = comparableSeries(ev, index, result);
    const versions = baselineVersions.get(series.target.id) ?? new Set<string>();
    for (const p of series.points) versions.add(versionsOf(targetOf(p.run, p.result)));
    baselineVersions.set(series.target.id, versions);
    const status = statusRow(ev, series);
    if (status) rows.push(status);
    const errors = errorRateRow(ev, series);
    if (errors) rows.push(errors);
    const factors = options.commonMode ? nightFactorsOf(series, run.runId) : null;
    // Two passes when the night factor applies: the metrics' own spreads first, pooled (moderation),
    // then the rows tested with the moderated spreads.
    const pooled = factors
      ? moderation(
          result.metrics.map((metric) => metricRowOf(ev, series, metric, factors, null, false)),
          options.priorDf,
        )
      : null;
    rows.push(...result.metrics.map((metric) => metricRowOf(ev, series, metric, factors, pooled)));
    // A target without earlier nights has nothing to say about its factor: no extra uncovered row.
    const factorRow = factors ? nightFactorRow(ev, series, factors) : null;
    if (factorRow && factorRow.verdict !== 'no baseline') rows.push(factorRow);
  }
  adjustAndDecide(rows, options.alpha);
  return {
    kind: 'runtime-bench.check',
    current: { label: current.file, runId: run.runId, startedAt: run.startedAt, hostClass: ev.hostClass },
    history: historyCounts,
    options: {
      window: options.window,
      alpha: options.alpha,
      threshold: options.threshold,
      thresholds: options.thresholds,
      errorRateThreshold: options.errorRateThreshold,
      scope: options.scope,
    },
    resetsApplied: [...ev.resetsApplied.values()].sort((a, b) => Date.parse(a.from) - Date.parse(b.from)),
    targets: run.targets
      .filter((t) => run.results.some((r) => r.target === t.id))
      .map((t) => ({
        id: t.id,
        identity: targetIdentity(t),
        versions: versionsOf(t),
        baselineVersions: [...(baselineVersions.get(t.id) ?? [])].sort(),
      })),
    rows,
    counts: countVerdicts(rows),
    coverage: coverageOf(rows, historyCounts),
  };
}

function versionsOf(t: Target): string {
  return `${t.cri.name} ${t.cri.version}, ${t.oci.name} ${t.oci.version}`;
}

/** How the history files relate to the current run (for the report's headline). */
function countHistory(ev: Evaluation, history: readonly HistoryEntry[]): GateReport['history'] {
  const counts = { files: history.length, comparable: 0, otherHostClass: 0, notBefore: 0, sameRun: 0 };
  for (const h of history) {
    if (h.run.runId === ev.run.runId) counts.sameRun++;
    else if (hostClassOf(h.run.host) !== ev.hostClass) counts.otherHostClass++;
    else if (ev.options.scope === 'preceding' && Date.parse(h.run.startedAt) >= ev.startedAt)
      counts.notBefore++;
    else counts.comparable++;
  }
  return counts;
}

function comparableSeries(ev: Evaluation, index: HistoryIndex, result: BenchmarkResult): Series {
  const target = targetOf(ev.run, result);
  const points = (index.get(seriesKey(ev.run, result)) ?? []).filter(
    (p) =>
      p.run.runId !== ev.run.runId &&
      p.hostClass === ev.hostClass &&
      (ev.options.scope !== 'preceding' || p.at < ev.startedAt),
  );
  return { result, target, identity: targetIdentity(target), points };
}

/**
 * The baseline window of one row: runs after the latest applicable reset, then the K of them the
 * scope picks — unless the previous run flagged this row, in which case the row keeps the window
 * it was flagged against (so a lasting regression is not absorbed into a rolling baseline and
 * stays visible as "ongoing" until it recovers or a reset says so).
 */
function baselineWindow(
  ev: Evaluation,
  series: Series,
  kind: GateRow['kind'],
  metric: string | null,
  usable: (p: SeriesPoint) => boolean,
): BaselineWindow {
  const { options } = ev;
  const where = {
    benchmark: series.result.benchmark,
    target: series.target.id,
    hostClass: ev.hostClass,
    metric,
  };
  const reset = baselineCutoff(options.annotations.baselineResets, where, ev.run.startedAt);
  if (reset) ev.resetsApplied.set(canonicalJson(reset), reset);
  const cutoff = reset ? Date.parse(reset.from) : -Infinity;
  const usablePoints = series.points.filter(usable);
  const eligible = usablePoints.filter((p) => p.at >= cutoff);
  const beforeReset = usablePoints.length - eligible.length;
  const previous = eligible.at(-1);
  if (options.scope === 'preceding' && previous) {
    const key = rowKey({ benchmark: series.result.benchmark, targetIdentity: series.identity, kind, metric });
    const frozen = ev.previousFlags(previous.run.runId, key);
    if (frozen) {
      const ids = new Set(frozen);
      const window = eligible.filter((p) => ids.has(p.run.runId));
      if (window.length > 0) return { window, frozenFrom: previous.run.runId, eligible, beforeReset };
    }
  }
  if (options.scope === 'preceding')
    return { window: eligible.slice(-options.window), frozenFrom: null, eligible, beforeReset };
  const nearest = [...eligible]
    .sort((a, b) => Math.abs(a.at - ev.startedAt) - Math.abs(b.at - ev.startedAt))
    .slice(0, options.window)
    .sort((a, b) => a.at - b.at);
  return { window: nearest, frozenFrom: null, eligible, beforeReset };
}

function rowBase(
  series: Series,
): Pick<GateRowBase, 'benchmark' | 'target' | 'targetIdentity'> & { adjustedP: null } {
  return {
    benchmark: series.result.benchmark,
    target: series.target.id,
    targetIdentity: series.identity,
    adjustedP: null,
  };
}

/** Status: turning not-ok after having been ok is a regression; no test needed. */
function statusRow(ev: Evaluation, series: Series): GateStatusRow | null {
  const { result } = series;
  const completed = (p: SeriesPoint): boolean => p.result.status !== 'interrupted';
  const previous = series.points.filter(completed).at(-1)?.result.status ?? null;
  if (result.status === 'ok' && (previous === null || previous === 'ok')) return null;
  const { window, frozenFrom } = baselineWindow(ev, series, 'status', null, completed);
  const okInWindow = window.filter((p) => p.result.status === 'ok').length;
  const notes: string[] = result.reason ? [result.reason] : [];
  let verdict: GateVerdict;
  if (result.status === 'interrupted') verdict = 'insufficient data';
  else if (result.status === 'ok') verdict = 'improvement';
  else if (okInWindow > 0) verdict = 'regression';
  else {
    verdict = 'no baseline';
    notes.push(`not ok in any of the ${window.length} baseline run(s)`);
  }
  return {
    ...rowBase(series),
    kind: 'status',
    baselineRuns: window.map((p) => p.run.runId),
    frozenFrom,
    pValue: null,
    verdict,
    current: result.status,
    previous,
    okInWindow,
    notes,
  };
}

/** Error rate: the window's pooled counts against the current run's, by Fisher's exact test. */
function errorRateRow(ev: Evaluation, series: Series): GateErrorRateRow | null {
  const { result } = series;
  if (result.status === 'interrupted') return null;
  const { window, frozenFrom } = baselineWindow(
    ev,
    series,
    'error-rate',
    null,
    (p) => p.result.status !== 'interrupted' && p.result.attempts > 0,
  );
  const baseline = errorCounts(
    window.reduce((sum, p) => sum + p.result.failedAttempts, 0),
    window.reduce((sum, p) => sum + p.result.attempts, 0),
  );
  const current = errorCounts(result.failedAttempts, result.attempts);
  if (baseline.failed === 0 && current.failed === 0) return null;
  const pValue = errorRatePValue(baseline, current);
  return {
    ...rowBase(series),
    kind: 'error-rate',
    baselineRuns: window.map((p) => p.run.runId),
    frozenFrom,
    pValue,
    verdict: window.length === 0 ? 'no baseline' : pValue === null ? 'insufficient data' : 'ok',
    current,
    baseline,
    threshold: ev.options.errorRateThreshold,
    notes: window.length === 0 ? [noBaselineReason(ev, series, 0)] : [],
  };
}

function metricOf(p: SeriesPoint, name: string): MetricResult | undefined {
  return p.result.metrics.find((m) => m.name === name);
}

/** Why a row has no baseline, for the coverage summary. */
function noBaselineReason(ev: Evaluation, series: Series, beforeReset: number): string {
  if (beforeReset > 0) return NO_BASELINE_REASONS.reset;
  if (series.points.length > 0) return NO_BASELINE_REASONS.noData;
  return ev.comparableRuns > 0 ? NO_BASELINE_REASONS.newSeries : NO_BASELINE_REASONS.newHostClass;
}

export const NO_BASELINE_REASONS = {
  newHostClass: 'no earlier run of this host class',
  newSeries: 'no earlier run of this benchmark, target and parameters on this host class',
  reset: 'every earlier run is before a baseline reset',
  noData: 'no earlier ok run with this metric (unit and direction)',
} as const;

/** One metric of the current run against its baseline window. */
function metricRowOf(
  ev: Evaluation,
  series: Series,
  metric: MetricResult,
  factors: NightFactors | null,
  pooled: Moderation | null,
  complete = true,
): GateMetricRow {
  const usable = (p: SeriesPoint): boolean => {
    if (p.result.status !== 'ok') return false;
    const m = metricOf(p, metric.name);
    return !!m && m.samples.length > 0 && m.unit === metric.unit && m.direction === metric.direction;
  };
  const baseline = baselineWindow(ev, series, 'metric', metric.name, usable);
  const threshold = thresholdFor(
    series.result.benchmark,
    metric.name,
    ev.options.thresholds,
    ev.options.threshold,
  );
  // One-off outlier nights leave the window: one +40 % night would otherwise inflate the
  // run-to-run spread and hide a later step. They are reported, not silently dropped.
  const floor = Math.log1p(threshold);
  // The night factor is removed only when every night involved has one (all or nothing).
  const sign = metric.direction === 'lower' ? 1 : -1;
  const current = factors?.get(ev.run.runId);
  const applies = current !== undefined && baseline.window.every((p) => factors!.has(p.run.runId));
  const divisor = (runId: string): number => (applies ? Math.exp(sign * (factors!.get(runId) ?? 0)) : 1);
  const rawLogs = logMedians(baseline.eligible.map((p) => metricOf(p, metric.name)!.samples));
  const eligibleLogs = rawLogs?.map((l, i) => l - Math.log(divisor(baseline.eligible[i]!.run.runId)));
  const outlierIds = new Set(
    eligibleLogs ? outlierIndices(eligibleLogs, { floor }).map((i) => baseline.eligible[i]!.run.runId) : [],
  );
  const window = baseline.window.filter((p) => !outlierIds.has(p.run.runId));
  const row = metricRow(
    { ...rowBase(series), frozenFrom: baseline.frozenFrom, notes: [] },
    metric,
    window.map((p) => p.run.runId),
    window.map((p) => metricOf(p, metric.name)!.samples),
    threshold,
    ev.options,
    applies ? { window: window.map((p) => divisor(p.run.runId)), current: divisor(ev.run.runId) } : null,
    applies ? pooled : null,
  );
  if (applies && row.scale !== null) {
    row.nightFactor = Math.expm1(current);
    row.notes.push(
      `night factor ${formatChange(Math.expm1(current))} (shared by the ${series.result.benchmark} metrics of this target) removed before the test`,
    );
  }
  row.outliers = baseline.window.filter((p) => outlierIds.has(p.run.runId)).map((p) => p.run.runId);
  if (row.outliers.length)
    row.notes.push(`one-off outlier night(s) left out of the window: ${row.outliers.join(', ')}`);
  if (row.verdict === 'no baseline') row.notes.push(noBaselineReason(ev, series, baseline.beforeReset));
  if (!complete) return row;
  if (baseline.frozenFrom === null && eligibleLogs && row.pValue !== null && row.current.median! > 0) {
    const kept = baseline.eligible.filter((p) => !outlierIds.has(p.run.runId));
    const keptLogs = eligibleLogs.filter((_, i) => !outlierIds.has(baseline.eligible[i]!.run.runId));
    const currentLog = Math.log(row.current.median! / divisor(ev.run.runId));
    const values = [...kept.slice(-ev.options.window - 1), { result: series.result, run: ev.run }].flatMap(
      (p) =>
        p.run.runId === ev.run.runId ? metric.samples : metricOf(p as SeriesPoint, metric.name)!.samples,
    );
    persistence(
      row,
      keptLogs,
      currentLog,
      threshold,
      ev.options,
      resolution(values),
      applies ? pooled : null,
    );
  }
  row.changePoint = latestChangePoint(
    baseline.eligible,
    outlierIds,
    ev.run,
    series.result,
    metric,
    ev.options,
    applies ? (runId) => Math.log(divisor(runId)) : null,
  );
  return row;
}

/**
 * The night factor itself against the window's: what removing it from the metrics hides — a
 * slowdown of every metric of the target at once, or host drift — is tested here, by the same
 * prediction test, outlier rule, threshold and Holm correction as a metric (unit ratio, relative
 * to the metrics' usual levels).
 */
function nightFactorRow(ev: Evaluation, series: Series, factors: NightFactors): GateMetricRow {
  const usable = (p: SeriesPoint): boolean => p.result.status === 'ok' && factors.has(p.run.runId);
  const baseline = baselineWindow(ev, series, 'metric', NIGHT_FACTOR_METRIC, usable);
  const threshold = thresholdFor(
    series.result.benchmark,
    NIGHT_FACTOR_METRIC,
    ev.options.thresholds,
    ev.options.threshold,
  );
  const logs = baseline.eligible.map((p) => factors.get(p.run.runId)!);
  const outlierIds = new Set(
    outlierIndices(logs, { floor: Math.log1p(threshold) }).map((i) => baseline.eligible[i]!.run.runId),
  );
  const window = baseline.window.filter((p) => !outlierIds.has(p.run.runId));
  const row = metricRow(
    { ...rowBase(series), frozenFrom: baseline.frozenFrom, notes: [] },
    {
      name: NIGHT_FACTOR_METRIC,
      unit: 'ratio',
      direction: 'lower',
      samples: [Math.exp(factors.get(ev.run.runId)!)],
    },
    window.map((p) => p.run.runId),
    window.map((p) => [Math.exp(factors.get(p.run.runId)!)]),
    threshold,
    ev.options,
  );
  row.outliers = baseline.window.filter((p) => outlierIds.has(p.run.runId)).map((p) => p.run.runId);
  row.notes.push(
    `factor shared by the ${series.result.benchmark} metrics of this target each night (median polish); the metric rows are tested without it`,
  );
  if (row.outliers.length)
    row.notes.push(`one-off outlier night(s) left out of the window: ${row.outliers.join(', ')}`);
  if (row.verdict === 'no baseline') row.notes.push(noBaselineReason(ev, series, baseline.beforeReset));
  return row;
}

/**
 * Alarms from persistence: a step smaller than one night's noise shows as several nights in a
 * row beyond the window. Besides the one-night prediction test, the mean of the last k nights
 * (the current one and the k − 1 comparable nights before it, one-off outliers left out) is
 * tested against the K nights before them, t = (ȳₖ − ȳ_K) / (s_K·√(1/k + 1/K)), df = K − 1 —
 * provided the nights are beyond half the threshold in the same direction — both of two nights,
 * the median of more (one slow night followed by normal ones is not a lasting change; a creep's
 * first nights may be below the bar). The row's p-value is the
 * weighted Bonferroni minimum over the scales, min(p_k / w_k) (each scale gets its share w_k of
 * alpha, so the family-wise level holds). When a longer scale decides, the change shown is
 * tonight's level against the K nights before the k (with its prediction interval) — it must
 * reach the threshold — and the test says which scale decided.
 */
export const PERSISTENCE_SCALES: readonly { nights: number; weight: number }[] = [
  { nights: 1, weight: 0.4 },
  { nights: 2, weight: 0.15 },
  { nights: 4, weight: 0.1 },
  { nights: 6, weight: 0.05 },
];

/**
 * The trend alarm's share of alpha (with PERSISTENCE_SCALES' the shares sum to 1). A creep of a
 * percent a night is absorbed by the rolling window — each night is near the few before it, and
 * the k-night means lag — but it is a slope of the whole window: the OLS slope of the window's
 * log medians and tonight's (night factor removed, outliers left out), t = b·√Sxx / s, df n − 2,
 * s the residual spread moderated like the others. It counts only when tonight is beyond the
 * threshold against the window's early level (the mean of its first half) in the slope's
 * direction, and that is the change shown.
 */
export const TREND_WEIGHT = 0.3;

function persistence(
  row: GateMetricRow,
  previousLogs: readonly number[],
  currentLog: number,
  threshold: number,
  options: Resolved,
  step: number | null,
  moderated: Moderation | null,
): void {
  const single = row.pValue!;
  const sampling = ownSpreads.get(row)?.sampling ?? null;
  let best = { p: single / PERSISTENCE_SCALES[0]!.weight, k: 1 };
  let chosen: { change: number; lower: number; upper: number; k: number; runs: number } | null = null;
  const K = options.window;
  for (const { nights: k, weight } of PERSISTENCE_SCALES.slice(1)) {
    // k − 1 earlier nights plus a window of at least RUN_LEVEL_MIN_RUNS before them.
    if (previousLogs.length < k - 1 + RUN_LEVEL_MIN_RUNS) continue;
    const recent = [...previousLogs.slice(previousLogs.length - (k - 1)), currentLog];
    const window = previousLogs.slice(0, previousLogs.length - (k - 1)).slice(-K);
    const center = mean(window);
    const d = mean(recent) - center;
    const bar = Math.log1p(threshold) / 2;
    // The lower bar: with two nights, both; with more, their median (one wild night cannot pass it).
    const beyond = (y: number): boolean =>
      Math.sign(y - center) === Math.sign(d) && Math.abs(y - center) >= bar;
    if (k <= 2 ? !recent.every(beyond) : !beyond(median(recent))) continue;
    const floor = step === null ? 0 : step / (Math.sqrt(12) * Math.exp(center));
    const m = moderate(stdev(window)!, window.length - 1, sampling, moderated);
    const spread = Math.max(m.spread, floor);
    const se = spread * Math.sqrt(1 / k + 1 / window.length);
    const df = m.df;
    const p = se === 0 ? 0 : Math.min(1, 2 * studentTCdf(-Math.abs(d / se), df));
    // The size is tonight's level against the nights before the change began: a creep's mean
    // over k nights lags its level.
    const now = currentLog - center;
    if (Math.sign(now) !== Math.sign(d) || Math.abs(Math.expm1(now)) < threshold || p / weight >= best.p)
      continue;
    const half =
      studentTQuantile(1 - (1 - options.confidence) / 2, df) * spread * Math.sqrt(1 + 1 / window.length);
    best = { p: p / weight, k };
    chosen = {
      change: Math.expm1(now),
      lower: Math.expm1(now - half),
      upper: Math.expm1(now + half),
      k,
      runs: window.length,
    };
  }
  const trend = trendAlarm(
    [...previousLogs.slice(-K), currentLog],
    threshold,
    options.confidence,
    sampling,
    moderated,
  );
  let trendChosen = false;
  if (trend && trend.p / TREND_WEIGHT < best.p) {
    best = { p: trend.p / TREND_WEIGHT, k: 1 };
    chosen = { ...trend, k: 1, runs: trend.runs };
    trendChosen = true;
  }
  row.pValue = Math.min(1, best.p);
  if (!chosen) return;
  if (trendChosen) {
    row.change = chosen.change;
    row.changeLower = chosen.lower;
    row.changeUpper = chosen.upper;
    row.test = `t test of the slope of the log run medians over the last ${chosen.runs} nights (tonight included); change: tonight against the first ${Math.floor((chosen.runs - 1) / 2)} of them`;
    row.notes.push(`trend: tonight is the end of a steady drift over ${chosen.runs} nights`);
    return;
  }
  row.change = chosen.change;
  row.changeLower = chosen.lower;
  row.changeUpper = chosen.upper;
  row.persistence = chosen.k;
  row.test = `t test of the mean of the last ${chosen.k} nights against the ${chosen.runs} before them (log run medians); change: tonight against those ${chosen.runs}`;
  row.notes.push(`lasting change: each of the last ${chosen.k} nights beyond half the threshold`);
}

/**
 * The trend alarm (TREND_WEIGHT) on the window's log medians and tonight's (the last value): the
 * two-sided p of the OLS slope (before the weight), and tonight's change against the early
 * level; null when there is no trend worth flagging (too few nights, or tonight within the
 * threshold or against the slope). Exported for its tests.
 */
export function trendAlarm(
  logs: readonly number[],
  threshold: number,
  confidence: number,
  sampling: number | null = null,
  moderated: Moderation | null = null,
): { p: number; change: number; lower: number; upper: number; runs: number } | null {
  const fit = linearTrend(logs);
  if (!fit || logs.length < RUN_LEVEL_MIN_RUNS + 2) return null;
  const early = logs.slice(0, Math.floor((logs.length - 1) / 2));
  const center = mean(early);
  const now = logs.at(-1)! - center;
  if (Math.sign(now) !== Math.sign(fit.slope) || Math.abs(Math.expm1(now)) < threshold) return null;
  const m = moderate(fit.residualSd, fit.df, sampling, moderated);
  const se = m.spread / Math.sqrt(fit.sxx);
  const p = se === 0 ? 0 : Math.min(1, 2 * studentTCdf(-Math.abs(fit.slope / se), m.df));
  const half = studentTQuantile(1 - (1 - confidence) / 2, m.df) * m.spread * Math.sqrt(1 + 1 / early.length);
  return {
    p,
    change: Math.expm1(now),
    lower: Math.expm1(now - half),
    upper: Math.expm1(now + half),
    runs: logs.length,
  };
}

/**
 * The pooled spread of one benchmark × target's metrics once the night factor is removed. What
 * is left of a metric's night-to-night variation is mostly the sampling noise of its median, so
 * its window spread s² is about λ times that sampling variance v (π/2 · σ_w²/n from the nights'
 * own samples, with many degrees of freedom), with λ common to the metrics. λ is pooled as the
 * median over the metrics of s²/v (divided by the median of χ²_ν/ν, (1 − 2/(9ν))³ by
 * Wilson–Hilferty, so that it estimates the mean); each metric's spread is then moderated
 * towards λ·v as in limma's moderated t (Smyth 2004): s̃² = (d₀·λv + ν·s²)/(d₀ + ν), with
 * d₀ + ν degrees of freedom. A window of 10 leaves a t test with 9 df, whose critical value at a
 * Holm level of 0.05/40 is 5.0 against 3.2 for a normal: most of the gate's power lost.
 */
interface Moderation {
  lambda: number;
  /** null: each test's own degrees of freedom. */
  priorDf: number | null;
}

/** Each tested row's own window spread and its median's sampling variance (log scale). */
const ownSpreads = new WeakMap<GateMetricRow, { own: number; sampling: number; df: number }>();

/** Degrees of freedom of each row's one-night test (more than K − 1 when moderated). */
const testDfs = new WeakMap<GateMetricRow, number>();

function moderation(rows: readonly GateMetricRow[], priorDf: number | null): Moderation | null {
  if (priorDf !== null && !(priorDf > 0)) return null;
  const spreads = rows
    .filter((r) => r.nightFactor !== null)
    .map((r) => ownSpreads.get(r))
    .filter((v) => v !== undefined && v.sampling > 0 && v.df > 0);
  if (spreads.length < COMMON_MODE_MIN_METRICS) return null;
  const nu = median(spreads.map((v) => v!.df));
  const ratio = median(spreads.map((v) => v!.own ** 2 / v!.sampling));
  return { lambda: ratio / (1 - 2 / (9 * nu)) ** 3, priorDf };
}

/** The spread a test uses: its own, or moderated towards the pooled one. */
function moderate(
  own: number,
  df: number,
  sampling: number | null,
  pooled: Moderation | null,
): { spread: number; df: number } {
  if (!pooled || sampling === null || !(sampling > 0)) return { spread: own, df };
  const prior = pooled.lambda * sampling;
  const d0 = pooled.priorDf ?? df;
  return { spread: Math.sqrt((d0 * prior + df * own ** 2) / (d0 + df)), df: d0 + df };
}

/** Mean sampling variance of ln(median) of the nights: π/2 · σ_w²/n, σ_w the robust log spread. */
function samplingVariance(nights: readonly (readonly number[])[]): number | null {
  let sum = 0;
  for (const s of nights) {
    const sigma = logSpread(s);
    if (sigma === null) return null;
    sum += ((Math.PI / 2) * sigma ** 2) / s.length;
  }
  return sum / nights.length;
}

/** Name of the row that tests a benchmark × target's night factor against the window's. */
export const NIGHT_FACTOR_METRIC = '(night factor)';

/** Fewest metrics of one benchmark × target for a night factor: a median of fewer is not robust. */
export const COMMON_MODE_MIN_METRICS = 5;

/** ln of each night's factor (slower = positive) by run id, the current run included. */
type NightFactors = Map<string, number>;

/** What a window's run medians and the current median are divided by (the night factors). */
interface Divisors {
  window: number[];
  current: number;
}

/**
 * The factor each night shares across the metrics of one benchmark × target: the column effects
 * of a median polish (stats/common-mode.ts) of the metrics' ln(night median) — negated for
 * higher-is-better metrics, so that a slower night is positive for all — over the comparable ok
 * runs (the latest CHANGE_POINT_HISTORY) and the current run. Recorded nights move together
 * (README, "Targets of the nightly gate"), so removing it leaves a metric's own change against
 * the within-run noise. Null with fewer than COMMON_MODE_MIN_METRICS metrics in the current run.
 */
function nightFactorsOf(series: Series, runId: string): NightFactors | null {
  const { result } = series;
  if (result.status !== 'ok') return null;
  const metrics = result.metrics.filter((m) => m.samples.length > 0 && median(m.samples) > 0);
  if (metrics.length < COMMON_MODE_MIN_METRICS) return null;
  const nights = [
    ...series.points
      .filter((p) => p.result.status === 'ok')
      .slice(-CHANGE_POINT_HISTORY)
      .map((p) => ({ runId: p.run.runId, result: p.result })),
    { runId, result },
  ];
  const table = metrics.map((metric) =>
    nights.map(({ result: r }) => {
      const m = r.metrics.find(
        (x) => x.name === metric.name && x.unit === metric.unit && x.direction === metric.direction,
      );
      if (!m || m.samples.length === 0) return null;
      const med = median(m.samples);
      return med > 0 ? (metric.direction === 'lower' ? 1 : -1) * Math.log(med) : null;
    }),
  );
  const factors: NightFactors = new Map();
  nightFactors(table, COMMON_MODE_MIN_METRICS).forEach((c, j) => {
    if (c !== null) factors.set(nights[j]!.runId, c);
  });
  return factors;
}

function logMedians(samples: readonly (readonly number[])[]): number[] | null {
  const medians = samples.map((s) => median(s));
  return medians.every((m) => m > 0) ? medians.map(Math.log) : null;
}

/**
 * The latest change point of the metric's series (comparable runs after the latest reset, then
 * the current run; outlier nights left out; night factors removed when the row's test removes
 * them), by E-divisive means: the night, the step with its
 * interval, and which component versions changed between the run before and the run at it.
 */
function latestChangePoint(
  points: readonly SeriesPoint[],
  outliers: ReadonlySet<string>,
  run: RunResult,
  result: BenchmarkResult,
  metric: MetricResult,
  options: Resolved,
  offset: ((runId: string) => number) | null,
): GateChangePoint | null {
  if (metric.samples.length === 0) return null;
  const kept = points.filter((p) => !outliers.has(p.run.runId)).slice(-CHANGE_POINT_HISTORY);
  const runs = [...kept.map((p) => ({ run: p.run, result: p.result })), { run, result }];
  // With the night factor removed (offset), the steps are the metric's own, as in the tests.
  const logs = logMedians(
    runs.map((r, i) => (i === runs.length - 1 ? metric.samples : metricOf(kept[i]!, metric.name)!.samples)),
  )?.map((l, i) => l - (offset?.(runs[i]!.run.runId) ?? 0));
  if (!logs || logs.length < RUN_LEVEL_MIN_RUNS + 1) return null;
  const cp = eDivisive(logs, { alpha: options.changePointAlpha }).at(-1);
  if (!cp) return null;
  const [start, end] = cp.segment;
  const t = studentTTest(logs.slice(cp.index, end), logs.slice(start, cp.index), {
    confidence: options.confidence,
  });
  const at = runs[cp.index]!;
  const before = runs[cp.index - 1]!;
  return {
    runId: at.run.runId,
    startedAt: at.run.startedAt,
    nightsAgo: runs.length - 1 - cp.index,
    step: Math.expm1(t.difference),
    stepLower: Math.expm1(t.lower),
    stepUpper: Math.expm1(t.upper),
    pValue: cp.pValue,
    runsBefore: cp.index - start,
    runsAfter: end - cp.index,
    versionChanges: versionChanges(before, at),
  };
}

/** Longest series the change-point search looks at (O(n²) per metric). */
const CHANGE_POINT_HISTORY = 60;

/**
 * "runc 1.1.5 → 1.3.6": components whose version differs between two runs (the run-level
 * components and the target's CRI and OCI runtime), so that a step is attributed to a release.
 */
export function versionChanges(
  before: { run: RunResult; result: BenchmarkResult },
  after: { run: RunResult; result: BenchmarkResult },
): string[] {
  // A run may hold several stacks (components named twice with different versions): the
  // target's own CRI and OCI versions are authoritative; other components list all versions.
  const versions = (r: { run: RunResult; result: BenchmarkResult }): Map<string, string> => {
    const all = new Map<string, Set<string>>();
    for (const c of r.run.components) all.set(c.name, (all.get(c.name) ?? new Set()).add(c.version));
    const out = new Map([...all].map(([name, v]) => [name, [...v].sort().join(' + ')]));
    const t = targetOf(r.run, r.result);
    out.set(t.cri.name, t.cri.version);
    out.set(t.oci.name, t.oci.version);
    return out;
  };
  const a = versions(before);
  const b = versions(after);
  const changes: string[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const from = a.get(name);
    const to = b.get(name);
    if (from !== to) changes.push(`${name} ${from ?? '(none)'} → ${to ?? '(none)'}`);
  }
  return changes;
}

/** Holm over every p-value of this run (many metrics × targets must not produce chance alarms), then verdicts. */
function adjustAndDecide(rows: GateRow[], alpha: number): void {
  const tested = rows.filter((r) => r.pValue !== null);
  const adjusted = holmAdjust(tested.map((r) => r.pValue!));
  tested.forEach((r, i) => (r.adjustedP = adjusted[i]!));
  for (const row of rows) {
    decide(row, alpha);
    if (row.kind === 'metric') row.detectable = detectableChange(row, alpha, tested.length);
    if (row.frozenFrom === null) continue;
    if (row.verdict === 'regression') {
      row.verdict = 'ongoing regression';
      row.notes.push(
        `already flagged in ${row.frozenFrom}; compared with the baseline it was flagged against`,
      );
    } else
      row.notes.push(
        `flagged in ${row.frozenFrom}, no longer a regression against the baseline it was flagged against`,
      );
  }
}

/**
 * The smallest change this row could have flagged: the prediction test's critical value at the
 * strictest Holm level (alpha / number of tests) times its standard error, and at least the
 * threshold. Conservative (Holm's later steps are looser). Null without a run-level test.
 */
function detectableChange(row: GateMetricRow, alpha: number, tests: number): number | null {
  if (row.scale === null || row.baseline.runs < RUN_LEVEL_MIN_RUNS) return null;
  // The one-night test gets its share of alpha (PERSISTENCE_SCALES) on metric rows.
  const share = row.metric === NIGHT_FACTOR_METRIC ? 1 : PERSISTENCE_SCALES[0]!.weight;
  const df = testDfs.get(row) ?? row.baseline.runs - 1;
  const critical = studentTQuantile(1 - (alpha * share) / (2 * Math.max(1, tests)), df);
  const logScale = row.test?.includes('log') ?? false;
  const statistical = logScale ? Math.expm1(critical * row.scale) : critical * row.scale;
  return Math.max(statistical, row.threshold);
}

/** How many rows were checked, and why the others were not. */
function coverageOf(rows: readonly GateRow[], history: GateReport['history']): GateCoverage {
  const notChecked = new Map<string, number>();
  let checked = 0;
  for (const r of rows) {
    if (r.verdict !== 'no baseline' && r.verdict !== 'insufficient data') {
      checked++;
      continue;
    }
    const reason =
      r.verdict === 'insufficient data'
        ? r.kind === 'metric' && r.baseline.runs > 0 && r.baseline.runs < RUN_LEVEL_MIN_RUNS
          ? `fewer than ${RUN_LEVEL_MIN_RUNS} baseline runs`
          : 'no data in the current run'
        : r.kind === 'status'
          ? 'not ok in any baseline run'
          : (r.notes.find((n) => (Object.values(NO_BASELINE_REASONS) as string[]).includes(n)) ??
            (history.comparable === 0 ? NO_BASELINE_REASONS.newHostClass : 'no baseline'));
    notChecked.set(reason, (notChecked.get(reason) ?? 0) + 1);
  }
  return {
    rows: rows.length,
    checked,
    notChecked: [...notChecked]
      .map(([reason, count]) => ({ reason, rows: count }))
      .sort((a, b) => b.rows - a.rows),
  };
}

function metricRow(
  base: Pick<GateRowBase, 'benchmark' | 'target' | 'targetIdentity' | 'frozenFrom' | 'notes'> & {
    adjustedP: null;
  },
  metric: Pick<MetricResult, 'name' | 'unit' | 'direction' | 'samples'>,
  baselineRuns: string[],
  baseSamples: readonly (readonly number[])[],
  threshold: number,
  options: Resolved,
  divisors: Divisors | null = null,
  moderated: Moderation | null = null,
): GateMetricRow {
  const samples = metric.samples;
  const pooled = baseSamples.flat();
  const row: GateMetricRow = {
    ...base,
    kind: 'metric',
    metric: metric.name,
    unit: metric.unit,
    direction: metric.direction,
    baselineRuns,
    current: { n: samples.length, median: samples.length ? median(samples) : null },
    baseline: { runs: baseSamples.length, n: pooled.length, level: null },
    change: null,
    changeLower: null,
    changeUpper: null,
    pValue: null,
    test: null,
    scale: null,
    threshold,
    significant: false,
    large: false,
    detectable: null,
    outliers: [],
    changePoint: null,
    nightFactor: null,
    persistence: 1,
    verdict: baseSamples.length === 0 ? 'no baseline' : 'insufficient data',
  };
  const m0 = row.current.median;
  if (m0 === null || baseSamples.length === 0) return row;
  if (baseSamples.length >= RUN_LEVEL_MIN_RUNS) {
    predictionTest(row, m0, baseSamples, [...pooled, ...samples], options.confidence, divisors, moderated);
    return row;
  }
  // One or two baseline runs cannot tell a change from run-to-run drift (a pooled-sample test
  // would call every drift significant): report the change, give no verdict.
  row.baseline.level = median(pooled);
  if (row.baseline.level > 0) row.change = m0 / row.baseline.level - 1;
  row.notes.push(
    `only ${baseSamples.length} baseline run(s): the gate needs ${RUN_LEVEL_MIN_RUNS} to tell a change from run-to-run variation`,
  );
  return row;
}

/**
 * The t prediction test of the current median against the window's run medians (on a log scale
 * when all are positive). The spread is floored by the values' quantization: whole-millisecond
 * metrics often have equal medians on every night (s = 0), and a one-step change would then get
 * p = 0 whatever the noise; the floor is the standard deviation of rounding to that resolution
 * (resolution/√12, relative to the level on a log scale).
 */
function predictionTest(
  row: GateMetricRow,
  m0: number,
  baseSamples: readonly (readonly number[])[],
  allValues: readonly number[],
  confidence: number,
  divisors: Divisors | null,
  moderated: Moderation | null,
): void {
  const medians = baseSamples.map((s, i) => median(s) / (divisors?.window[i] ?? 1));
  if (divisors) m0 /= divisors.current;
  const k = medians.length;
  const useLog = m0 > 0 && medians.every((m) => m > 0);
  const f = useLog ? Math.log : (v: number): number => v;
  const ys = medians.map(f);
  const center = mean(ys);
  const level = useLog ? Math.exp(center) : center;
  const step = resolution(allValues);
  const floor = step === null ? 0 : useLog ? step / (Math.sqrt(12) * level) : step / Math.sqrt(12);
  const own = stdev(ys)!;
  const sampling = useLog ? samplingVariance(baseSamples) : null;
  if (sampling !== null) ownSpreads.set(row, { own, sampling, df: k - 1 });
  const { spread: moderatedSpread, df } = moderate(own, k - 1, sampling, moderated);
  testDfs.set(row, df);
  const spread = Math.max(moderatedSpread, floor);
  const se = spread * Math.sqrt(1 + 1 / k);
  const d = f(m0) - center;
  // Expressed at tonight's factor, so that current / level − 1 is the change.
  row.baseline.level = level * (divisors?.current ?? 1);
  row.scale = se;
  row.test = `${df > k - 1 ? 'moderated ' : ''}t prediction test on ${useLog ? 'log ' : ''}run medians (${k} runs${df > k - 1 ? `, df ${df}` : ''})`;
  if (spread > moderatedSpread)
    row.notes.push(`run medians vary less than the values' resolution (${step}): spread floored`);
  row.pValue = se === 0 ? (d === 0 ? 1 : 0) : Math.min(1, 2 * studentTCdf(-Math.abs(d / se), df));
  const half = se === 0 ? 0 : studentTQuantile(1 - (1 - confidence) / 2, df) * se;
  if (useLog) {
    row.change = Math.expm1(d);
    row.changeLower = Math.expm1(d - half);
    row.changeUpper = Math.expm1(d + half);
  } else if (center !== 0) {
    row.change = d / Math.abs(center);
    row.changeLower = (d - half) / Math.abs(center);
    row.changeUpper = (d + half) / Math.abs(center);
    row.notes.push('non-positive values: linear scale');
  }
}

/** The smallest positive gap between distinct values (the quantization step), or null. */
function resolution(values: readonly number[]): number | null {
  const sorted = Float64Array.from(values).sort();
  let step = Infinity;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]! - sorted[i - 1]!;
    if (gap > 0 && gap < step) step = gap;
  }
  return Number.isFinite(step) ? step : null;
}

function decide(row: GateRow, alpha: number): void {
  if (row.kind === 'status') return;
  if (row.kind === 'error-rate') {
    if (row.verdict !== 'ok' || row.adjustedP === null) return;
    const rise = row.current.rate! - row.baseline.rate!;
    if (row.adjustedP < alpha && Math.abs(rise) >= row.threshold)
      row.verdict = rise > 0 ? 'regression' : 'improvement';
    return;
  }
  if (row.pValue === null || row.adjustedP === null || row.change === null) return;
  row.significant = row.adjustedP < alpha;
  row.large = Math.abs(row.change) >= row.threshold;
  const worse = row.direction === 'lower' ? row.change > 0 : row.change < 0;
  row.verdict = row.significant && row.large ? (worse ? 'regression' : 'improvement') : 'ok';
}

function rowKey(row: {
  benchmark: string;
  targetIdentity: string;
  kind: GateRow['kind'];
  metric?: string | null;
}): string {
  return `${row.benchmark}\u0000${row.targetIdentity}\u0000${row.kind}\u0000${row.kind === 'metric' ? row.metric : ''}`;
}

function countVerdicts(rows: readonly GateRow[]): GateReport['counts'] {
  const counts = { regression: 0, ongoing: 0, improvement: 0, ok: 0, noBaseline: 0, insufficient: 0 };
  for (const r of rows) {
    if (r.verdict === 'regression') counts.regression++;
    else if (r.verdict === 'ongoing regression') counts.ongoing++;
    else if (r.verdict === 'improvement') counts.improvement++;
    else if (r.verdict === 'ok') counts.ok++;
    else if (r.verdict === 'no baseline') counts.noBaseline++;
    else counts.insufficient++;
  }
  return counts;
}
