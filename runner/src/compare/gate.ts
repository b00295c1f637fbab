import {
  hostClassOf,
  type BenchmarkResult,
  type Direction,
  type RunResult,
  type Unit,
} from '@runtime-bench/schemas';
import { holmAdjust, mean, median, stdev, studentTCdf, studentTQuantile } from '../stats/index.ts';
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
  /** Family-wise significance level after Holm's correction; default 0.05. */
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
  threshold: number;
  significant: boolean;
  large: boolean;
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
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  const threshold = options.threshold ?? 0.05;
  if (!(threshold >= 0)) throw new RangeError(`threshold must be ≥ 0, got ${threshold}`);
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
  };
}

interface Entry {
  run: RunResult;
  result: BenchmarkResult;
  at: number;
  hostClass: string;
}

/** Results of the history by benchmark × target identity × parameters, oldest first. */
type HistoryIndex = Map<string, Entry[]>;

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

function evaluate(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  index: HistoryIndex,
  o: Resolved,
  previousFlags: PreviousFlags,
): GateReport {
  const run = current.run;
  const hostClass = hostClassOf(run.host);
  const startedAt = Date.parse(run.startedAt);
  const stats = { files: history.length, comparable: 0, otherHostClass: 0, notBefore: 0, sameRun: 0 };
  for (const h of history) {
    if (h.run.runId === run.runId) stats.sameRun++;
    else if (hostClassOf(h.run.host) !== hostClass) stats.otherHostClass++;
    else if (o.scope === 'preceding' && Date.parse(h.run.startedAt) >= startedAt) stats.notBefore++;
    else stats.comparable++;
  }
  const isComparable = (e: Entry): boolean =>
    e.run.runId !== run.runId && e.hostClass === hostClass && (o.scope !== 'preceding' || e.at < startedAt);

  const rows: GateRow[] = [];
  const resetsApplied = new Map<string, BaselineReset>();
  const baselineVersions = new Map<string, Set<string>>();
  for (const result of run.results) {
    const target = targetOf(run, result);
    const identity = targetIdentity(target);
    // Every comparable result of this benchmark × target × parameters, oldest first.
    const entries = (index.get(seriesKey(run, result)) ?? []).filter(isComparable);
    const versions = baselineVersions.get(target.id) ?? new Set<string>();
    for (const e of entries) {
      const t = targetOf(e.run, e.result);
      versions.add(`${t.cri.name} ${t.cri.version}, ${t.oci.name} ${t.oci.version}`);
    }
    baselineVersions.set(target.id, versions);
    const where = { benchmark: result.benchmark, target: target.id, hostClass };
    // The baseline window of one row: runs after the latest applicable reset, then the K of
    // them the scope picks — unless the previous run flagged this row, in which case the row
    // keeps the window it was flagged against (so a lasting regression is not absorbed into a
    // rolling baseline and stays visible as "ongoing" until it recovers or a reset says so).
    const eligible = (
      kind: GateRow['kind'],
      metric: string | null,
      usable: (e: Entry) => boolean,
    ): { window: Entry[]; frozenFrom: string | null } => {
      const reset = baselineCutoff(o.annotations.baselineResets, { ...where, metric }, run.startedAt);
      if (reset) resetsApplied.set(canonicalJson(reset), reset);
      const cutoff = reset ? Date.parse(reset.from) : -Infinity;
      const list = entries.filter((e) => e.at >= cutoff && usable(e));
      const previous = list.at(-1);
      if (o.scope === 'preceding' && previous) {
        const key = rowKey({ benchmark: result.benchmark, targetIdentity: identity, kind, metric });
        const frozen = previousFlags(previous.run.runId, key);
        if (frozen) {
          const ids = new Set(frozen);
          const window = list.filter((e) => ids.has(e.run.runId));
          if (window.length > 0) return { window, frozenFrom: previous.run.runId };
        }
      }
      if (o.scope === 'preceding') return { window: list.slice(-o.window), frozenFrom: null };
      const nearest = [...list]
        .sort((a, b) => Math.abs(a.at - startedAt) - Math.abs(b.at - startedAt))
        .slice(0, o.window)
        .sort((a, b) => a.at - b.at);
      return { window: nearest, frozenFrom: null };
    };
    const base = {
      benchmark: result.benchmark,
      target: target.id,
      targetIdentity: identity,
      adjustedP: null,
      notes: [] as string[],
    };

    // Status: turning not-ok after having been ok is a regression; no test needed.
    const statusEligible = eligible('status', null, (e) => e.result.status !== 'interrupted');
    const statusWindow = statusEligible.window;
    const previous = entries.filter((e) => e.result.status !== 'interrupted').at(-1)?.result.status ?? null;
    if (result.status !== 'ok' || (previous !== null && previous !== 'ok')) {
      const okInWindow = statusWindow.filter((e) => e.result.status === 'ok').length;
      let verdict: GateVerdict;
      const notes: string[] = result.reason ? [result.reason] : [];
      if (result.status === 'interrupted') verdict = 'insufficient data';
      else if (result.status === 'ok') verdict = 'improvement';
      else if (okInWindow > 0) verdict = 'regression';
      else {
        verdict = 'no baseline';
        notes.push(`not ok in any of the ${statusWindow.length} baseline run(s)`);
      }
      rows.push({
        ...base,
        kind: 'status',
        baselineRuns: statusWindow.map((e) => e.run.runId),
        frozenFrom: statusEligible.frozenFrom,
        pValue: null,
        verdict,
        current: result.status,
        previous,
        okInWindow,
        notes,
      });
    }

    // Error rate: pooled counts of the window against the current run.
    const errorEligible = eligible(
      'error-rate',
      null,
      (e) => e.result.status !== 'interrupted' && e.result.attempts > 0,
    );
    const errorWindow = errorEligible.window;
    const baseErrors = errorCounts(
      errorWindow.reduce((s, e) => s + e.result.failedAttempts, 0),
      errorWindow.reduce((s, e) => s + e.result.attempts, 0),
    );
    const curErrors = errorCounts(result.failedAttempts, result.attempts);
    if ((baseErrors.failed > 0 || curErrors.failed > 0) && result.status !== 'interrupted') {
      const pValue = errorRatePValue(baseErrors, curErrors);
      rows.push({
        ...base,
        kind: 'error-rate',
        baselineRuns: errorWindow.map((e) => e.run.runId),
        frozenFrom: errorEligible.frozenFrom,
        pValue,
        verdict: errorWindow.length === 0 ? 'no baseline' : pValue === null ? 'insufficient data' : 'ok',
        current: curErrors,
        baseline: baseErrors,
        threshold: o.errorRateThreshold,
        notes: [],
      });
    }

    for (const metric of result.metrics) {
      const { window, frozenFrom } = eligible('metric', metric.name, (e) => {
        if (e.result.status !== 'ok') return false;
        const m = e.result.metrics.find((x) => x.name === metric.name);
        return !!m && m.samples.length > 0 && m.unit === metric.unit && m.direction === metric.direction;
      });
      const baseSamples = window.map((e) => e.result.metrics.find((x) => x.name === metric.name)!.samples);
      rows.push(
        metricRow(
          { ...base, frozenFrom, notes: [] },
          metric.name,
          metric.unit,
          metric.direction,
          metric.samples,
          window.map((e) => e.run.runId),
          baseSamples,
          thresholdFor(result.benchmark, metric.name, o.thresholds, o.threshold),
          o,
        ),
      );
    }
  }

  // Holm over every p-value of this run: many metrics × targets must not produce chance alarms.
  const tested = rows.filter((r) => r.pValue !== null);
  const adjusted = holmAdjust(tested.map((r) => r.pValue!));
  tested.forEach((r, i) => (r.adjustedP = adjusted[i]!));
  for (const row of rows) {
    decide(row, o.alpha);
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

  return {
    kind: 'runtime-bench.check',
    current: { label: current.file, runId: run.runId, startedAt: run.startedAt, hostClass },
    history: stats,
    options: {
      window: o.window,
      alpha: o.alpha,
      threshold: o.threshold,
      thresholds: o.thresholds,
      errorRateThreshold: o.errorRateThreshold,
      scope: o.scope,
    },
    resetsApplied: [...resetsApplied.values()].sort((a, b) => Date.parse(a.from) - Date.parse(b.from)),
    targets: run.targets
      .filter((t) => run.results.some((r) => r.target === t.id))
      .map((t) => ({
        id: t.id,
        identity: targetIdentity(t),
        versions: `${t.cri.name} ${t.cri.version}, ${t.oci.name} ${t.oci.version}`,
        baselineVersions: [...(baselineVersions.get(t.id) ?? [])].sort(),
      })),
    rows,
    counts: countVerdicts(rows),
  };
}

function metricRow(
  base: Omit<GateRowBase, 'baselineRuns' | 'pValue' | 'verdict' | 'adjustedP'> & { adjustedP: null },
  metric: string,
  unit: Unit,
  direction: Direction,
  samples: readonly number[],
  baselineRuns: string[],
  baseSamples: readonly (readonly number[])[],
  threshold: number,
  o: Resolved,
): GateMetricRow {
  const pooled = baseSamples.flat();
  const row: GateMetricRow = {
    ...base,
    kind: 'metric',
    metric,
    unit,
    direction,
    baselineRuns,
    current: { n: samples.length, median: samples.length ? median(samples) : null },
    baseline: { runs: baseSamples.length, n: pooled.length, level: null },
    change: null,
    changeLower: null,
    changeUpper: null,
    pValue: null,
    test: null,
    threshold,
    significant: false,
    large: false,
    verdict: baseSamples.length === 0 ? 'no baseline' : 'insufficient data',
  };
  const m0 = row.current.median;
  if (m0 === null || baseSamples.length === 0) return row;

  if (baseSamples.length >= RUN_LEVEL_MIN_RUNS) {
    const medians = baseSamples.map((s) => median(s));
    const k = medians.length;
    const useLog = m0 > 0 && medians.every((m) => m > 0);
    const f = useLog ? Math.log : (v: number): number => v;
    const ys = medians.map(f);
    const center = mean(ys);
    const se = stdev(ys)! * Math.sqrt(1 + 1 / k);
    const df = k - 1;
    const d = f(m0) - center;
    row.baseline.level = useLog ? Math.exp(center) : center;
    row.test = `t prediction test on ${useLog ? 'log ' : ''}run medians (${k} runs)`;
    if (se === 0) row.pValue = d === 0 ? 1 : 0;
    else row.pValue = Math.min(1, 2 * studentTCdf(-Math.abs(d / se), df));
    const half = se === 0 ? 0 : studentTQuantile(1 - (1 - o.confidence) / 2, df) * se;
    if (useLog) {
      row.change = Math.exp(d) - 1;
      row.changeLower = Math.exp(d - half) - 1;
      row.changeUpper = Math.exp(d + half) - 1;
    } else if (center !== 0) {
      row.change = d / Math.abs(center);
      row.changeLower = (d - half) / Math.abs(center);
      row.changeUpper = (d + half) / Math.abs(center);
      row.notes.push('non-positive values: linear scale');
    }
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
