import {
  hostClassOf,
  type BenchmarkResult,
  type Direction,
  type RunResult,
  type Target,
  type Unit,
} from '@runtime-bench/schemas';
import { holmAdjust, logSpread, minimumDetectableRatio, smallestRankTestP } from '../stats/index.ts';
import { engineOverhead, type EngineOverheadRow } from '../overhead/engine-runs.ts';
import { canonicalJson, targetOf } from './keys.ts';
import {
  compareSamples,
  errorCounts,
  errorRatePValue,
  verdictOf,
  type ErrorCounts,
  type SampleComparison,
  type Verdict,
} from './two-sample.ts';

/** One side of a comparison: a run, optionally narrowed to one of its targets. */
export interface CompareSide {
  run: RunResult;
  /** A label for reports, e.g. the file name. */
  label: string;
  /** Only this target id of the run; all targets (paired by id) when absent. */
  target?: string;
  /**
   * A candidate's targets renamed since the baseline run: this side's target id → the baseline's
   * id of the same target (the caller found them by what they measured). Such a target is paired
   * with its former id instead of its own; the report's notes name each pair. Ignored when both
   * sides name a target.
   */
  renamedFrom?: Readonly<Record<string, string>>;
}

export interface CompareOptions {
  /** Family-wise significance level after Holm's correction; default 0.05. */
  alpha?: number;
  /** Level of the ratio intervals; default 0.95. */
  confidence?: number;
  /** Bootstrap seed (reports are reproducible); default 1. */
  seed?: number;
  /** Bootstrap resamples; default 10 000. */
  resamples?: number;
}

/** The two sides' medians and counts of a comparison, without its statistics. */
const medians = (c: SampleComparison) => ({ baseline: c.baseline, candidate: c.candidate });

interface RowBase {
  benchmark: string;
  baselineTarget: string;
  candidateTarget: string;
  /** Holm-adjusted p-value over every test of the report; null where no test was possible. */
  adjustedP: number | null;
  verdict: Verdict;
  /**
   * The two sides ran the benchmark with different parameters (2 threads against 1, 10 s against
   * 2 s): they answer different questions, so their metrics are shown but not tested.
   */
  parametersDiffer: boolean;
  notes: string[];
}

/** A metric measured on both sides. */
export interface MetricRow extends RowBase, SampleComparison {
  kind: 'metric';
  metric: string;
  unit: Unit;
  direction: Direction;
  /**
   * Minimum detectable effect: the smallest |ratio - 1| this row would flag with 80 % power at
   * the strictest Holm level of the report (stats/power.ts); null when the samples cannot show
   * any (non-positive values, or too few for the rank test to reach that level at all).
   */
  detectable: number | null;
}

/**
 * Sets the row's minimum detectable effect from the robust log spread of both samples, and says
 * so when no effect could have been significant at this n (3 against 3: smallest p 0.1).
 */
function describeDetectable(
  row: MetricRow,
  level: number,
  samples: { baseline: readonly number[]; candidate: readonly number[] } | undefined,
): void {
  if (!samples || row.pValue === null) return;
  const sb = logSpread(samples.baseline);
  const sc = logSpread(samples.candidate);
  const sigma = sb === null || sc === null ? null : Math.sqrt((sb ** 2 + sc ** 2) / 2);
  const m = samples.baseline.length;
  const n = samples.candidate.length;
  row.detectable = minimumDetectableRatio(sigma, m, n, { alpha: level });
  if (sigma !== null && row.detectable === null)
    row.notes.push(
      `${m} against ${n} values cannot be significant at the Holm level ${level.toPrecision(2)} whatever the difference (smallest possible p ${smallestRankTestP(m, n).toPrecision(2)}): more repetitions needed`,
    );
}

/** The error rates (failed / attempted measured runs) of a benchmark on both sides. */
export interface ErrorRateRow extends RowBase {
  kind: 'error-rate';
  baseline: ErrorCounts;
  candidate: ErrorCounts;
  pValue: number | null;
}

/** A benchmark whose status differs: ok on one side, invalid / unsupported / failed on the other. */
export interface StatusRow extends RowBase {
  kind: 'status';
  baseline: BenchmarkResult['status'];
  candidate: BenchmarkResult['status'];
}

export type CompareRow = MetricRow | ErrorRateRow | StatusRow;

export interface CompareReport {
  kind: 'runtime-bench.compare';
  baseline: SideSummary;
  candidate: SideSummary;
  alpha: number;
  confidence: number;
  rows: CompareRow[];
  /** benchmark × target × metric keys present on one side only. */
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  notes: string[];
  /**
   * Engine-level minus CRI-level for the same OCI runtime version, in the sides' runs (own run
   * first, else a run on the identical host); empty when they hold no engine target with a
   * CRI-level counterpart. Narrowed to the sides' targets when they name them.
   */
  engineOverhead: EngineOverheadRow[];
}

interface SideSummary {
  label: string;
  runId: string;
  startedAt: string;
  hostClass: string;
  targets: { id: string; cri: string; oci: string }[];
}

const NOT_OK_RANK: Record<BenchmarkResult['status'], number> = {
  ok: 0,
  interrupted: 1,
  invalid: 2,
  unsupported: 2,
  failed: 2,
};

/**
 * Compares every benchmark × target × metric present on both sides: medians, ratio of medians
 * with a bootstrap interval, Mann–Whitney p-value, Holm-adjusted over all tests of the report,
 * and a direction-aware verdict; error rates with Fisher's exact test; status changes. With
 * `target` set on both sides two targets are paired (e.g. runc vs crun of one run); otherwise
 * targets are paired by id. Pure: no I/O.
 */
export function compareRuns(
  baseline: CompareSide,
  candidate: CompareSide,
  options: CompareOptions = {},
): CompareReport {
  const alpha = options.alpha ?? 0.05;
  const confidence = options.confidence ?? 0.95;
  const bootstrap = { confidence, seed: options.seed ?? 1, resamples: options.resamples ?? 10_000 };
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);

  const pairs = pairResults(baseline, candidate);
  const rows: CompareRow[] = [];
  // The raw samples of each metric row, for its minimum detectable effect after Holm.
  const bySide = new Map<CompareRow, { baseline: readonly number[]; candidate: readonly number[] }>();
  const onlyInBaseline: string[] = [];
  const onlyInCandidate: string[] = [];
  for (const pair of pairs.unmatchedBaseline) onlyInBaseline.push(`${pair.benchmark} · ${pair.target}`);
  for (const pair of pairs.unmatchedCandidate) onlyInCandidate.push(`${pair.benchmark} · ${pair.target}`);

  for (const { base, cand } of pairs.matched) {
    const parametersDiffer = canonicalJson(base.parameters) !== canonicalJson(cand.parameters);
    const common = {
      benchmark: base.benchmark,
      parametersDiffer,
      baselineTarget: base.target,
      candidateTarget: cand.target,
      adjustedP: null,
      verdict: 'insufficient data' as Verdict,
    };
    const pairNotes: string[] = [];
    if (parametersDiffer)
      pairNotes.push(
        `benchmark parameters differ between the two sides (${canonicalJson(base.parameters)} vs ${canonicalJson(cand.parameters)}): not compared`,
      );
    if (base.status !== cand.status) {
      const worse = NOT_OK_RANK[cand.status] > NOT_OK_RANK[base.status];
      const better = NOT_OK_RANK[cand.status] < NOT_OK_RANK[base.status];
      rows.push({
        ...common,
        kind: 'status',
        baseline: base.status,
        candidate: cand.status,
        verdict: worse ? 'worse' : better ? 'better' : 'no significant difference',
        notes: [cand.reason ?? base.reason].filter((r): r is string => !!r),
      });
    }
    if (base.failedAttempts > 0 || cand.failedAttempts > 0) {
      const b = errorCounts(base.failedAttempts, base.attempts);
      const c = errorCounts(cand.failedAttempts, cand.attempts);
      rows.push({
        ...common,
        kind: 'error-rate',
        baseline: b,
        candidate: c,
        pValue: errorRatePValue(b, c),
        notes: [],
      });
    }
    for (const bm of base.metrics) {
      const cm = cand.metrics.find((m) => m.name === bm.name);
      if (!cm) {
        onlyInBaseline.push(`${base.benchmark} · ${base.target} · ${bm.name}`);
        continue;
      }
      const notes = [...pairNotes];
      const comparable = cm.unit === bm.unit && cm.direction === bm.direction && !parametersDiffer;
      if (cm.unit !== bm.unit || cm.direction !== bm.direction) {
        notes.push(
          `unit or direction differs (${bm.unit}/${bm.direction} vs ${cm.unit}/${cm.direction}): not compared`,
        );
      }
      rows.push({
        ...common,
        kind: 'metric',
        metric: bm.name,
        unit: bm.unit,
        direction: bm.direction,
        ...(comparable
          ? compareSamples(bm.samples, cm.samples, bootstrap)
          : parametersDiffer && cm.unit === bm.unit
            ? // each side's median, but no ratio and no test: the two answer different questions
              {
                ...compareSamples([], [], bootstrap),
                ...medians(compareSamples(bm.samples, cm.samples, bootstrap)),
              }
            : compareSamples([], [], bootstrap)),
        detectable: null,
        notes,
      });
      if (comparable) bySide.set(rows.at(-1)!, { baseline: bm.samples, candidate: cm.samples });
    }
    for (const cm of cand.metrics)
      if (!base.metrics.some((m) => m.name === cm.name))
        onlyInCandidate.push(`${cand.benchmark} · ${cand.target} · ${cm.name}`);
  }

  // Holm over every p-value of the report: a report of 30 metrics must not find "1 in 20" by chance.
  const tested = rows.filter((r): r is MetricRow | ErrorRateRow => r.kind !== 'status' && r.pValue !== null);
  const adjusted = holmAdjust(tested.map((r) => r.pValue!));
  tested.forEach((r, i) => (r.adjustedP = adjusted[i]!));
  for (const row of rows) {
    if (row.kind === 'metric') {
      row.verdict = verdictOf(row, row.adjustedP, alpha, row.direction);
      describeDetectable(row, alpha / Math.max(1, tested.length), bySide.get(row));
    } else if (row.kind === 'error-rate') row.verdict = errorVerdict(row, alpha);
  }

  const notes: string[] = [];
  for (const [to, from] of pairs.renamed)
    notes.push(`${to} is paired with the baseline's ${from}: the same target renamed between the runs`);
  const sameRun = baseline.run.runId === candidate.run.runId;
  if (!sameRun)
    notes.push(
      'the two sides come from different runs: the tests see within-run variation only, so a drift of the host between the runs can look significant (use `check` with a history for nightly tracking)',
    );
  if (hostClassOf(baseline.run.host) !== hostClassOf(candidate.run.host))
    notes.push(
      'the two runs come from different host classes: differences may be the machine, not the runtime',
    );
  return {
    kind: 'runtime-bench.compare',
    baseline: sideSummary(baseline),
    candidate: sideSummary(candidate),
    alpha,
    confidence,
    rows,
    onlyInBaseline,
    onlyInCandidate,
    notes,
    engineOverhead: engineOverhead([baseline.run, candidate.run], {
      ...bootstrap,
      ...(baseline.target !== undefined || candidate.target !== undefined
        ? { targets: [baseline.target, candidate.target].filter((t): t is string => t !== undefined) }
        : {}),
    }),
  };
}

/**
 * The report of one run alone: no pair of targets to test, only its engine overhead (engine-level
 * minus CRI-level for the same OCI runtime version). Both sides are the run.
 */
export function overheadReport(side: CompareSide, options: CompareOptions = {}): CompareReport {
  const confidence = options.confidence ?? 0.95;
  return {
    kind: 'runtime-bench.compare',
    baseline: sideSummary(side),
    candidate: sideSummary(side),
    alpha: options.alpha ?? 0.05,
    confidence,
    rows: [],
    onlyInBaseline: [],
    onlyInCandidate: [],
    notes: [],
    engineOverhead: engineOverhead([side.run], {
      confidence,
      seed: options.seed ?? 1,
      resamples: options.resamples ?? 10_000,
    }),
  };
}

function errorVerdict(row: ErrorRateRow, alpha: number): Verdict {
  if (
    row.pValue === null ||
    row.adjustedP === null ||
    row.baseline.rate === null ||
    row.candidate.rate === null
  )
    return 'insufficient data';
  if (!(row.adjustedP < alpha) || row.candidate.rate === row.baseline.rate)
    return 'no significant difference';
  return row.candidate.rate > row.baseline.rate ? 'worse' : 'better';
}

interface Pairing {
  matched: { base: BenchmarkResult; cand: BenchmarkResult }[];
  unmatchedBaseline: BenchmarkResult[];
  unmatchedCandidate: BenchmarkResult[];
  /** [candidate id, baseline id] of the renamed targets that were paired */
  renamed: [string, string][];
}

function pairResults(baseline: CompareSide, candidate: CompareSide): Pairing {
  const pick = (side: CompareSide): BenchmarkResult[] =>
    side.run.results.filter((r) => side.target === undefined || r.target === side.target);
  const bases = pick(baseline);
  const cands = pick(candidate);
  // Two explicit targets are paired with each other; otherwise a target pairs with the same id.
  const explicit = baseline.target !== undefined && candidate.target !== undefined;
  const renamedFrom = explicit ? {} : (candidate.renamedFrom ?? {});
  const key = (r: BenchmarkResult, id = r.target): string =>
    explicit ? r.benchmark : `${r.benchmark}\u0000${id}`;
  const candByKey = new Map(cands.map((r) => [key(r, renamedFrom[r.target] ?? r.target), r]));
  const renamed = new Map<string, string>();
  const matched: Pairing['matched'] = [];
  const unmatchedBaseline: BenchmarkResult[] = [];
  for (const base of bases) {
    const cand = candByKey.get(key(base));
    if (cand) {
      matched.push({ base, cand });
      candByKey.delete(key(base));
      if (cand.target !== base.target) renamed.set(cand.target, base.target);
    } else unmatchedBaseline.push(base);
  }
  return {
    matched,
    unmatchedBaseline,
    unmatchedCandidate: [...candByKey.values()],
    renamed: explicit ? [] : [...renamed],
  };
}

function sideSummary(side: CompareSide): SideSummary {
  const targets: Target[] = side.target
    ? side.run.targets.filter((t) => t.id === side.target)
    : side.run.targets.filter((t) => side.run.results.some((r) => targetOf(side.run, r) === t));
  return {
    label: side.label,
    runId: side.run.runId,
    startedAt: side.run.startedAt,
    hostClass: hostClassOf(side.run.host),
    targets: targets.map((t) => ({
      id: t.id,
      cri: `${t.cri.name} ${t.cri.version}`,
      oci: `${t.oci.name} ${t.oci.version}`,
    })),
  };
}
