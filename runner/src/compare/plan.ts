import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import {
  driftComponents,
  logSpread,
  median,
  medianSamplingVariance,
  nightFactorsById,
  nightlyLogSd,
  normalQuantile,
  PERSISTENCE_SCALES,
  requiredSamplesPerNight,
  signedLogMedianTable,
  variance,
} from '../stats/index.ts';
import { canonicalJson, targetIdentity, targetOf } from './keys.ts';
import { COMMON_MODE_MIN_METRICS, GATE_DEFAULTS } from './gate/index.ts';

export interface PlanOptions {
  /** The step to detect, as a fraction; default 0.1 (+10 %). */
  step?: number;
  /** Baseline window of the gate; default the gate's (GATE_DEFAULTS). */
  window?: number;
  /** Family-wise level; divided by the number of metric rows (Holm's strictest step). Default the gate's (GATE_DEFAULTS). */
  alpha?: number;
  /** Probability of flagging the step on its first night; default 0.9. */
  power?: number;
  /**
   * Target ids of pinned reference handlers (GateOptions.references): the other targets' metrics
   * are planned as the gate then tests them, divided by the reference's same metric each run.
   */
  references?: readonly string[];
}

/** The sample size one metric of one target needs. */
export interface PlanRow {
  benchmark: string;
  target: string;
  metric: string;
  /** Samples per run now (median over the runs). */
  samples: number;
  runs: number;
  /** Within-run spread of ln(sample) (robust, median over runs). */
  sigmaWithin: number | null;
  /**
   * Night-to-night spread of ln(run median) beyond sampling noise — net of the night factor when
   * the gate removes it (nightFactor not null), as the gate's tests see it; null from one run.
   */
  sigmaBetween: number | null;
  /**
   * Spread of the night factor the gate removes (shared by the metrics of this benchmark ×
   * target, median polish as in the gate); null when the gate cannot remove it (fewer than
   * COMMON_MODE_MIN_METRICS metrics, or fewer than 3 runs).
   */
  nightFactor: number | null;
  /** Smallest step the gate flags on its first night at the current sample count (same power). */
  detectableNow: number | null;
  /** Samples per night needed for the step; null when unreachable or unknown. */
  needed: number | null;
  note: string;
}

export interface Plan {
  kind: 'runtime-bench.plan';
  step: number;
  window: number;
  alpha: number;
  perTestAlpha: number;
  /** Rows one run of the history gives the gate (its most), over which Holm divides alpha. */
  rowsPerRun: number;
  power: number;
  runs: number;
  rows: PlanRow[];
}

/**
 * How many samples per night each metric needs for the nightly gate to flag a step of `step` on
 * its first night with the given power: from the runs' within-run spread (robust log spread of
 * each run's samples) and night-to-night drift (variance of the log run medians minus their
 * sampling variance), by requiredSamplesPerNight (stats/power.ts). Runs are grouped by host
 * class, benchmark, target identity and parameters, like the gate's series; from one run the
 * drift is unknown and taken as 0 (a lower bound, said in the note). Pure.
 */
export function planSampleSizes(runs: readonly RunResult[], options: PlanOptions = {}): Plan {
  const step = options.step ?? 0.1;
  const window = options.window ?? GATE_DEFAULTS.window;
  const alpha = options.alpha ?? GATE_DEFAULTS.alpha;
  const power = options.power ?? 0.9;
  if (!(step > 0 && Number.isFinite(step)))
    throw new RangeError(`step must be a finite fraction > 0, got ${step}`);
  const series = new Map<
    string,
    {
      group: string;
      /** The group without the target: where a reference handler's same metric is found. */
      place: string;
      benchmark: string;
      target: string;
      metric: string;
      sign: number;
      runIds: string[];
      samples: number[][];
    }
  >();
  for (const run of runs)
    for (const result of run.results) {
      if (result.status !== 'ok') continue;
      const target = targetOf(run, result);
      for (const m of result.metrics) {
        if (m.samples.length === 0) continue;
        const group = [
          hostClassOf(run.host),
          result.benchmark,
          targetIdentity(target),
          canonicalJson(result.parameters),
        ].join('\u0000');
        const key = `${group}\u0000${m.name}\u0000${m.unit}\u0000${m.direction}`;
        const s = series.get(key) ?? {
          group,
          place: [
            hostClassOf(run.host),
            result.benchmark,
            canonicalJson(result.parameters),
            m.name,
            m.unit,
          ].join('\u0000'),
          sign: m.direction === 'lower' ? 1 : -1,
          runIds: [],
          benchmark: result.benchmark,
          target: target.id,
          metric: m.name,
          samples: [],
        };
        s.samples.push(m.samples);
        s.runIds.push(run.runId);
        series.set(key, s);
      }
    }
  const factors = nightFactorsByGroup([...series.values()]);
  // The gate's one-night test gets its share of alpha (PERSISTENCE_SCALES), Holm's strictest step.
  // Holm in the gate is over the rows of one run: the most metrics one run holds (plus the
  // night-factor rows), not every series of a history that mixes configurations.
  const rowsPerRun = Math.max(
    1,
    ...runs.map(
      (run) =>
        run.results.filter((r) => r.status === 'ok').reduce((a, r) => a + r.metrics.length, 0) +
        run.results.filter((r) => r.status === 'ok' && r.metrics.length >= COMMON_MODE_MIN_METRICS).length,
    ),
  );
  const perTestAlpha = (alpha * PERSISTENCE_SCALES[0]!.weight) / rowsPerRun;
  const z = normalQuantile(1 - perTestAlpha / 2) + normalQuantile(power);
  const references = new Set(options.references ?? []);
  const referenceOf = new Map(
    [...series.values()].filter((s) => references.has(s.target)).map((s) => [s.place, s]),
  );
  const rows = [...series.values()].map((s): PlanRow => {
    const n = Math.round(median(s.samples.map((x) => x.length)));
    const spreads = s.samples.map((x) => logSpread(x)).filter((v): v is number => v !== null);
    const reference = references.has(s.target) ? undefined : referenceOf.get(s.place);
    if (reference && spreads.length)
      return referenceRow(s, reference, n, median(spreads), { window, step, z, perTestAlpha, power });
    const sigmaWithin = spreads.length ? median(spreads) : null;
    const factor = factors.get(s.group) ?? null;
    // With the night factor removed (as the gate does), only the metric's own drift is left.
    const logMedians = s.samples
      .map((x, i) => ({ m: median(x), c: factor ? factor.byRun.get(s.runIds[i]!) : 0 }))
      .filter((v): v is { m: number; c: number } => v.m > 0 && v.c !== undefined)
      .map((v) => Math.log(v.m) - s.sign * v.c);
    let sigmaBetween: number | null = null;
    if (factor) {
      // The gate moderates each metric's spread towards the pooled one: the pooled per-metric
      // drift of the group (driftComponents) is what its tests see, and 5–10 runs of one metric
      // are too few for a stable estimate of its own.
      sigmaBetween = factor.sigmaMetric;
    } else if (sigmaWithin !== null && logMedians.length >= 3) {
      const total = variance(logMedians)!;
      sigmaBetween = Math.sqrt(Math.max(0, total - medianSamplingVariance(sigmaWithin ** 2, n)));
    }
    const base = rowBase(s, n, sigmaWithin, sigmaBetween, factor?.sd ?? null);
    if (sigmaWithin === null)
      return { ...base, detectableNow: null, needed: null, note: 'no positive samples: no log spread' };
    const drift = sigmaBetween ?? 0;
    const detectableNow = Math.expm1(z * nightlyLogSd(sigmaWithin, drift, n) * Math.sqrt(1 + 1 / window));
    const needed = requiredSamplesPerNight(
      { sigmaWithin, sigmaBetween: drift, window, step },
      { alpha: perTestAlpha, power },
    );
    const note =
      needed === null
        ? `not reachable by samples: night-to-night drift ${(100 * drift).toFixed(1)} %${factor ? ' (night factor removed)' : ''} alone is too large`
        : sigmaBetween === null
          ? 'drift unknown (fewer than 3 runs): assumed 0, a lower bound'
          : factor
            ? `night factor (${(100 * factor.sd).toFixed(1)} %) removed and drift pooled over the target's metrics, as the gate does`
            : '';
    return { ...base, detectableNow, needed, note };
  });
  rows.sort(
    (a, b) => (b.needed ?? Infinity) - (a.needed ?? Infinity) || a.benchmark.localeCompare(b.benchmark),
  );
  return {
    kind: 'runtime-bench.plan',
    step,
    window,
    alpha,
    perTestAlpha,
    rowsPerRun,
    power,
    runs: runs.length,
    rows,
  };
}

/** The fields of a plan row that say what was measured. */
function rowBase(
  s: PlannedSeries,
  n: number,
  sigmaWithin: number | null,
  sigmaBetween: number | null,
  nightFactor: number | null,
): Pick<
  PlanRow,
  'benchmark' | 'target' | 'metric' | 'samples' | 'runs' | 'sigmaWithin' | 'sigmaBetween' | 'nightFactor'
> {
  return {
    benchmark: s.benchmark,
    target: s.target,
    metric: s.metric,
    samples: n,
    runs: s.samples.length,
    sigmaWithin,
    sigmaBetween,
    nightFactor,
  };
}

interface PlannedSeries {
  target: string;
  benchmark: string;
  metric: string;
  runIds: string[];
  samples: number[][];
}

/**
 * A metric the gate divides by the reference handler's same metric each night: what its tests see
 * is ln(median) − ln(reference median), whose sampling variance is both medians' (counted as
 * independent: interleaved targets' medians covary, so this errs on the safe side) and whose
 * night-to-night drift is what is left of their difference net of it.
 */
function referenceRow(
  s: PlannedSeries,
  reference: PlannedSeries,
  n: number,
  ownSpread: number,
  o: { window: number; step: number; z: number; perTestAlpha: number; power: number },
): PlanRow {
  const refSpreads = reference.samples.map((x) => logSpread(x)).filter((v): v is number => v !== null);
  const sigmaWithin = Math.hypot(ownSpread, refSpreads.length ? median(refSpreads) : 0);
  const logRatios = s.runIds
    .map((id, i) => {
      const j = reference.runIds.indexOf(id);
      const a = median(s.samples[i]!);
      const b = j < 0 ? 0 : median(reference.samples[j]!);
      return a > 0 && b > 0 ? Math.log(a) - Math.log(b) : null;
    })
    .filter((v): v is number => v !== null);
  const sigmaBetween =
    logRatios.length >= 3
      ? Math.sqrt(Math.max(0, variance(logRatios)! - medianSamplingVariance(sigmaWithin ** 2, n)))
      : null;
  const drift = sigmaBetween ?? 0;
  const needed = requiredSamplesPerNight(
    { sigmaWithin, sigmaBetween: drift, window: o.window, step: o.step },
    { alpha: o.perTestAlpha, power: o.power },
  );
  const divided = `divided by the reference ${reference.target} each night, as the gate does`;
  return {
    ...rowBase(s, n, sigmaWithin, sigmaBetween, null),
    detectableNow: Math.expm1(o.z * nightlyLogSd(sigmaWithin, drift, n) * Math.sqrt(1 + 1 / o.window)),
    needed,
    note:
      needed === null
        ? `not reachable by samples: night-to-night drift ${(100 * drift).toFixed(1)} % (${divided}) alone is too large`
        : sigmaBetween === null
          ? `drift unknown (fewer than 3 runs with the reference): assumed 0, a lower bound; ${divided}`
          : divided,
  };
}

/**
 * Each night's factor of one benchmark × target, as the gate estimates it (gate/night-factor.ts):
 * the column effects of a median polish of the metrics' signed ln(run median), with at least
 * COMMON_MODE_MIN_METRICS metrics and 3 runs; its spread (sd of the effects) for the report.
 */
function nightFactorsByGroup(
  all: readonly { group: string; sign: number; runIds: string[]; samples: number[][] }[],
): Map<string, { byRun: Map<string, number>; sd: number; sigmaMetric: number }> {
  const groups = new Map<string, typeof all>();
  for (const s of all) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
  const out = new Map<string, { byRun: Map<string, number>; sd: number; sigmaMetric: number }>();
  for (const [group, members] of groups) {
    if (members.length < COMMON_MODE_MIN_METRICS) continue;
    const runIds = [...new Set(members.flatMap((m) => m.runIds))];
    if (runIds.length < 3) continue;
    const table = signedLogMedianTable(
      members.map((m) => ({
        sign: m.sign,
        nights: runIds.map((id) => {
          const i = m.runIds.indexOf(id);
          return i < 0 ? null : m.samples[i]!;
        }),
      })),
    );
    const sampling = members.map((m) =>
      runIds.map((id) => {
        const i = m.runIds.indexOf(id);
        const spread = i < 0 ? null : logSpread(m.samples[i]!);
        return spread === null ? null : medianSamplingVariance(spread ** 2, m.samples[i]!.length);
      }),
    );
    // Cells without a sampling variance cannot be netted: left out of the drift components (the
    // factors themselves come from every cell, as in the gate).
    const cells = table.map((row, i) => row.map((v, j) => (sampling[i]![j] === null ? null : v)));
    const byRun = nightFactorsById(table, runIds, COMMON_MODE_MIN_METRICS);
    const effects = [...byRun.values()];
    if (effects.length < 3) continue;
    let sigmaMetric: number;
    try {
      sigmaMetric = driftComponents(cells, sampling).sigmaMetric;
    } catch {
      continue; // too few cells for the components
    }
    out.set(group, { byRun, sd: Math.sqrt(variance(effects)!), sigmaMetric });
  }
  return out;
}
