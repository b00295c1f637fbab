import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import {
  logSpread,
  median,
  nightlyLogSd,
  normalQuantile,
  requiredSamplesPerNight,
  variance,
} from '../stats/index.ts';
import { canonicalJson, targetIdentity, targetOf } from './keys.ts';

export interface PlanOptions {
  /** The step to detect, as a fraction; default 0.1 (+10 %). */
  step?: number;
  /** Baseline window of the gate; default 10. */
  window?: number;
  /** Family-wise level; divided by the number of metric rows (Holm's strictest step). Default 0.05. */
  alpha?: number;
  /** Probability of flagging the step on its first night; default 0.9. */
  power?: number;
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
  /** Night-to-night spread of ln(run median) beyond sampling noise; null from one run. */
  sigmaBetween: number | null;
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
  const window = options.window ?? 10;
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.9;
  if (!(step > 0 && Number.isFinite(step)))
    throw new RangeError(`step must be a finite fraction > 0, got ${step}`);
  const series = new Map<
    string,
    { benchmark: string; target: string; metric: string; samples: number[][] }
  >();
  for (const run of runs)
    for (const result of run.results) {
      if (result.status !== 'ok') continue;
      const target = targetOf(run, result);
      for (const m of result.metrics) {
        if (m.samples.length === 0) continue;
        const key = [
          hostClassOf(run.host),
          result.benchmark,
          targetIdentity(target),
          canonicalJson(result.parameters),
          m.name,
        ].join('\u0000');
        const s = series.get(key) ?? {
          benchmark: result.benchmark,
          target: target.id,
          metric: m.name,
          samples: [],
        };
        s.samples.push(m.samples);
        series.set(key, s);
      }
    }
  const perTestAlpha = alpha / Math.max(1, series.size);
  const z = normalQuantile(1 - perTestAlpha / 2) + normalQuantile(power);
  const rows = [...series.values()].map((s): PlanRow => {
    const n = Math.round(median(s.samples.map((x) => x.length)));
    const spreads = s.samples.map((x) => logSpread(x)).filter((v): v is number => v !== null);
    const sigmaWithin = spreads.length ? median(spreads) : null;
    const logMedians = s.samples
      .map((x) => median(x))
      .filter((v) => v > 0)
      .map(Math.log);
    let sigmaBetween: number | null = null;
    if (sigmaWithin !== null && logMedians.length >= 3) {
      const total = variance(logMedians)!;
      sigmaBetween = Math.sqrt(Math.max(0, total - ((Math.PI / 2) * sigmaWithin ** 2) / n));
    }
    const base = {
      benchmark: s.benchmark,
      target: s.target,
      metric: s.metric,
      samples: n,
      runs: s.samples.length,
      sigmaWithin,
      sigmaBetween,
    };
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
        ? `not reachable by samples: night-to-night drift ${(100 * drift).toFixed(1)} % alone is too large`
        : sigmaBetween === null
          ? 'drift unknown (fewer than 3 runs): assumed 0, a lower bound'
          : '';
    return { ...base, detectableNow, needed, note };
  });
  rows.sort(
    (a, b) => (b.needed ?? Infinity) - (a.needed ?? Infinity) || a.benchmark.localeCompare(b.benchmark),
  );
  return { kind: 'runtime-bench.plan', step, window, alpha, perTestAlpha, power, runs: runs.length, rows };
}
