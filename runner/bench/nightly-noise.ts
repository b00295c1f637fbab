// The noise model of the simulated nightly histories (gate-targets.ts), fitted on the real
// lifecycle results in data/. Three layers, each fitted on the recorded runs of one host class:
//
//   within a night   whole recorded rounds, resampled (smoothed bootstrap): the k-th iteration of
//                    every target in one recorded run, drawn together — the targets' iterations
//                    are interleaved in a run, so the load of a moment hits them alike;
//   shared drift     h ~ N(0, σ_h) a night, the same for every target of the night (the host);
//   per target       t ~ N(0, σ_t) a night and target (what the target's own runs add);
//   per call, shared s ~ N(0, σ_s,call) a night and call, the same for every target of the night;
//   per call, own    u ~ N(0, σ_o,call) a night, target and call.
//
// A target's night factor (the median polish of its calls) is then h + t; a control target's is
// h + t', so taking the factor from a control cancels h and leaves t − t'. σ_h and σ_t come from
// the recorded runs that measured several targets together: each target's factors (column
// effects of the median polish of its ln run medians) form a targets × runs table, which
// driftComponents splits into the part shared by the targets of a run (σ_h) and the part of each
// target (σ_t), net of the factors' own estimation noise. Each call's drift apart from the
// factor (σ_s² + σ_o²: its polish residuals' mean square net of the medians' sampling variance)
// is split by what the ratio of two targets' medians varies from run to run (the shared part
// cancels in it), each net of the sampling covariance the simulation itself draws for a run
// (callDrift, roundSamplingCov).
import type { RunResult } from '@runtime-bench/schemas';
import { LIFECYCLE_CALLS } from '../src/suites/lifecycle.ts';
import {
  driftComponents,
  logSpread,
  median,
  medianPolish,
  medianSamplingVariance,
  quantile,
  stdev,
  createRng,
  variance,
  type DriftComponents,
  type Rng,
} from '../src/stats/index.ts';

export const LIFECYCLE = 'operations.container.lifecycle';
export const CALL_NAMES: readonly string[] = LIFECYCLE_CALLS;

/** Within-run shape of one target: whole iterations, each call divided by its run's median. */
export interface TargetNoise {
  target: string;
  /** Median over recorded runs of each call's run median. */
  levels: Record<string, number>;
  iterations: Record<string, number>[];
  /** Smoothing bandwidth of each call on the log scale (Silverman's rule). */
  bandwidth: Record<string, number>;
  /**
   * Per recorded run, in order: its iterations' range in `iterations` and its medians (what its
   * iterations were divided by), so a night can be one recorded run as it was (drawRecordedRound).
   */
  runs: { start: number; length: number; medians: Record<string, number> }[];
}

export interface NoiseModel {
  targets: TargetNoise[];
  /** Per target: its night factor and per-call drift (driftComponents of its metrics × runs). */
  perTarget: DriftComponents[];
  /** The split of the targets' factors: sigmaCommon = σ_h, sigmaMetric = σ_t. */
  factors: DriftComponents;
  /** Per call: its drift shared by the targets of a night (σ_s) and each target's own (σ_o). */
  calls: Record<string, CallDrift>;
  /** Recorded runs the model was fitted on. */
  runs: number;
  /**
   * Recorded rounds: iteration k of every target in one run (the targets' `iterations` are
   * aligned, index i is the same round for all). Draw one index per simulated round for all
   * targets, and the within-run correlation between targets is kept.
   */
  rounds: number;
}

const lifecycleOf = (r: RunResult, target: string) =>
  r.results.find((x) => x.benchmark === LIFECYCLE && x.target === target && x.status === 'ok');

/**
 * The within-run shape of a target: its recorded iterations with each call divided by that call's
 * median in its run (so run offsets do not leak in), resampled whole so that the calls of one
 * iteration keep their correlation. A few dozen recorded iterations are a coarse picture of a
 * continuous distribution — medians of raw resamples jump between a handful of values — so the
 * smoothed bootstrap (Silverman & Young 1987) adds kernel noise of Silverman's bandwidth,
 * 0.9 · min(sd, IQR/1.34) · N^(−1/5), per call on the log scale.
 */
function targetNoise(runs: readonly RunResult[], target: string): TargetNoise {
  const medians: Record<string, number[]> = {};
  const iterations: Record<string, number>[] = [];
  const recordedRuns: TargetNoise['runs'] = [];
  for (const x of runs.map((r) => lifecycleOf(r, target)).filter((x) => x !== undefined)) {
    const calls = CALL_NAMES.map((c) => x.metrics.find((m) => m.name === c)?.samples ?? []);
    const n = calls[0]!.length;
    if (n === 0 || calls.some((s) => s.length !== n)) continue;
    const runMedians = calls.map((s) => median(s));
    CALL_NAMES.forEach((c, i) => (medians[c] ??= []).push(runMedians[i]!));
    recordedRuns.push({
      start: iterations.length,
      length: n,
      medians: Object.fromEntries(CALL_NAMES.map((c, i) => [c, runMedians[i]!])),
    });
    for (let k = 0; k < n; k++)
      iterations.push(Object.fromEntries(CALL_NAMES.map((c, i) => [c, calls[i]![k]! / runMedians[i]!])));
  }
  const levels = Object.fromEntries(CALL_NAMES.map((c) => [c, median(medians[c]!)]));
  const bandwidth = Object.fromEntries(
    CALL_NAMES.map((c) => [c, silvermanBandwidth(iterations.map((it) => Math.log(it[c]!)))]),
  );
  return { target, levels, iterations, bandwidth, runs: recordedRuns };
}

/** Silverman's rule of thumb: 0.9 · min(sd, IQR/1.34) · N^(−1/5) (Silverman 1986, eq. 3.31). */
export function silvermanBandwidth(logs: readonly number[]): number {
  const iqr = (quantile(logs, 0.75) - quantile(logs, 0.25)) / 1.34;
  const spread = Math.min(stdev(logs) ?? 0, iqr > 0 ? iqr : Infinity);
  return 0.9 * spread * logs.length ** -0.2;
}

/**
 * One target's metrics × runs table of ln(run median), the medians' sampling variances
 * (π/2 · σ_w²/n, σ_w the robust log spread of the metric's pooled within-run shape), and the
 * target's factor per run with its estimation variance (the median of m polish residuals:
 * π/2 · residual mean square / m).
 */
function targetTable(runs: readonly RunResult[], target: string) {
  const results = runs.map((r) => lifecycleOf(r, target)!);
  const names = results[0]!.metrics.map((m) => m.name);
  const samplesOf = (x: (typeof results)[number], name: string): number[] =>
    x.metrics.find((m) => m.name === name)?.samples ?? [];
  const table = names.map((name) =>
    results.map((x) => {
      const s = samplesOf(x, name);
      return s.length && median(s) > 0 ? Math.log(median(s)) : null;
    }),
  );
  const sampling = names.map((name) => {
    const shape = results.flatMap((x) => {
      const s = samplesOf(x, name);
      const med = s.length ? median(s) : 0;
      return med > 0 ? s.map((v) => v / med) : [];
    });
    const sigma = logSpread(shape) ?? 0;
    return results.map((x) => {
      const n = samplesOf(x, name).length;
      return n ? medianSamplingVariance(sigma ** 2, n) : null;
    });
  });
  const fit = medianPolish(table);
  const cells = fit.residuals.flat().filter((v): v is number => v !== null);
  const dof = cells.length - names.length - results.length + 1;
  const residualMs = cells.reduce((a, e) => a + e * e, 0) / Math.max(1, dof);
  const factorVariance = medianSamplingVariance(residualMs, names.length);
  // The calls' residuals (phases are sums of calls), and the fit's shrinkage of a residual.
  const callResiduals = CALL_NAMES.map((c) => fit.residuals[names.indexOf(c)] ?? []);
  const shrink = Math.max(1, dof) / Math.max(1, cells.length);
  return { table, sampling, factors: fit.columns, factorVariance, callResiduals, shrink };
}

/**
 * Fits the model on the recorded runs of `hostKernel` that measured every one of `targets`
 * (lifecycle, status ok).
 */
export function fitNoiseModel(
  recorded: readonly RunResult[],
  hostKernel: string,
  targets: readonly string[],
): NoiseModel {
  // Runs where every target recorded every call the same number of times: their iterations
  // line up round by round.
  const aligned = (r: RunResult): boolean => {
    const lengths = targets.flatMap((t) =>
      CALL_NAMES.map((c) => lifecycleOf(r, t)?.metrics.find((m) => m.name === c)?.samples.length ?? 0),
    );
    return lengths[0]! > 0 && lengths.every((n) => n === lengths[0]);
  };
  const runs = recorded.filter((r) => r.host.kernel === hostKernel && aligned(r));
  if (runs.length < 3)
    throw new Error(`only ${runs.length} recorded runs measure ${targets.join(', ')} together`);
  const tables = targets.map((t) => targetTable(runs, t));
  const perTarget = tables.map((t) => driftComponents(t.table, t.sampling));
  const factors = driftComponents(
    tables.map((t) => t.factors),
    tables.map((t) => t.factors.map((f) => (f === null ? null : t.factorVariance))),
  );
  const noise = targets.map((t) => targetNoise(runs, t));
  // The sampling part is what the simulation itself draws for a night of a run's length: the
  // drift is then what the runs vary beyond it (the analytic π/2 · σ²/n of an iid median knows
  // nothing of the targets' covariance within a run).
  const runLength = median(noise[0]!.runs.map((r) => r.length));
  const drift = callDrift({
    tables: tables.map((t) => ({ residuals: t.callResiduals, shrink: t.shrink })),
    logMedians: noise.map((t) => CALL_NAMES.map((c) => t.runs.map((r) => Math.log(r.medians[c]!)))),
    samplingCov: roundSamplingCov(createRng(20261127), noise, runLength),
    targetDrift: factors.sigmaMetric,
  });
  const calls = Object.fromEntries(CALL_NAMES.map((c, k) => [c, drift[k]!]));
  return {
    targets: noise,
    perTarget,
    factors,
    calls,
    runs: runs.length,
    rounds: noise[0]!.iterations.length,
  };
}

/** One call's night-to-night drift apart from the night factor: shared by the targets, and own. */
export interface CallDrift {
  /** σ_s: the same for every target of a night. */
  shared: number;
  /** σ_o of each target (in the model's target order): runc and a second runc build share more than runc and crun. */
  own: number[];
}

/**
 * Per call k, its night-to-night drift apart from the night factor, split into what the targets
 * of a run share (σ_s) and each target's own (σ_o), net of the sampling covariance S[k] of the
 * targets' ln medians within one run (targets × targets: interleaved targets' medians covary):
 * - own: from each pair of targets, V_ab = the variance over runs of ln(median_a / median_b) —
 *   where the shared drift cancels — less its sampling variance S_aa + S_bb − 2·S_ab and the two
 *   targets' per-target drift 2σ_t², which is σ_o,a² + σ_o,b²; each target's σ_o,a² is then
 *   (V_ab + V_ac − V_bc) / 2 averaged over the other pairs {b, c} (V_ab / 2 with two targets),
 *   floored at 0;
 * - the total a target's own night factor leaves: its polish residuals' mean r² / shrink (the
 *   residual of a two-way fit is shrunk by its degrees of freedom ÷ cells) less S_tt; σ_s² is the
 *   mean over targets of total − σ_o² (floored at 0).
 * Moment estimators, as driftComponents. The ratio is what a reference handler leaves, the
 * residual what the own factor leaves, so each path's noise is fitted on what it sees.
 */
export function callDrift(input: {
  /** Per target: polish residuals (rows: calls, columns: runs) and the fit's shrinkage. */
  tables: readonly { residuals: (number | null)[][]; shrink: number }[];
  /** Per target, call and run: ln(run median). */
  logMedians: readonly (readonly (readonly number[])[])[];
  /** Per call: the targets' sampling covariance of ln medians within a run. */
  samplingCov: readonly (readonly (readonly number[])[])[];
  /** σ_t, each target's own night factor drift (it stays in a ratio of two targets). */
  targetDrift: number;
}): CallDrift[] {
  const { tables, logMedians, samplingCov, targetDrift } = input;
  const calls = tables[0]?.residuals.length ?? 0;
  return Array.from({ length: calls }, (_, k) => {
    const S = samplingCov[k]!;
    const total = tables.map((t, i) => {
      const cells = t.residuals[k]!.filter((r): r is number => r !== null);
      return cells.length
        ? Math.max(0, cells.reduce((a, r) => a + r * r, 0) / cells.length / t.shrink - S[i]![i]!)
        : 0;
    });
    const m = tables.length;
    const V: (number | null)[][] = Array.from({ length: m }, () => Array<number | null>(m).fill(null));
    for (let a = 0; a < m; a++)
      for (let b = a + 1; b < m; b++) {
        const v = variance(logMedians[a]![k]!.map((x, j) => x - logMedians[b]![k]![j]!));
        if (v === null) continue;
        V[a]![b] = V[b]![a] = v - (S[a]![a]! + S[b]![b]! - 2 * S[a]![b]!) - 2 * targetDrift ** 2;
      }
    const own = Array.from({ length: m }, (_, a) => {
      const estimates: number[] = [];
      if (m === 2 && V[0]![1] !== null) estimates.push(V[0]![1]! / 2);
      for (let b = 0; b < m; b++)
        for (let c = b + 1; c < m; c++) {
          if (b === a || c === a) continue;
          const [ab, ac, bc] = [V[a]![b], V[a]![c], V[b]![c]];
          if (
            ab !== null &&
            ac !== null &&
            bc !== null &&
            ab !== undefined &&
            ac !== undefined &&
            bc !== undefined
          )
            estimates.push((ab + ac - bc) / 2);
        }
      return estimates.length ? Math.max(0, estimates.reduce((x, y) => x + y, 0) / estimates.length) : 0;
    });
    const shared = total.reduce((acc, t, i) => acc + Math.max(0, t - own[i]!), 0) / Math.max(1, total.length);
    return { shared: Math.sqrt(shared), own: own.map(Math.sqrt) };
  });
}

/**
 * The sampling covariance of the targets' ln medians of each call within one run of n rounds, as
 * the simulation draws a night (aligned rounds, smoothed: drawIteration): by `draws` pseudo-runs.
 * Indexed [call][target][target].
 */
export function roundSamplingCov(
  rng: Rng,
  targets: readonly TargetNoise[],
  n: number,
  draws = 300,
): number[][][] {
  const rounds = targets[0]!.iterations.length;
  const logs = Array.from({ length: draws }, () => {
    const picks = Array.from({ length: n }, () => Math.floor(rng.next() * rounds));
    return targets.map((t) => {
      const drawn = picks.map((k) => drawIteration(rng, t, k));
      return CALL_NAMES.map((c) => Math.log(median(drawn.map((d) => d[c]!))));
    });
  });
  return CALL_NAMES.map((_, k) =>
    targets.map((_, a) =>
      targets.map((_, b) => {
        const xa = logs.map((l) => l[a]![k]!);
        const xb = logs.map((l) => l[b]![k]!);
        const ma = xa.reduce((s, v) => s + v, 0) / draws;
        const mb = xb.reduce((s, v) => s + v, 0) / draws;
        return xa.reduce((s, v, i) => s + (v - ma) * (xb[i]! - mb), 0) / (draws - 1);
      }),
    ),
  );
}

export function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** Drift of one night: σ_h shared by the targets, σ_t per target, per call σ_s shared and σ_o own. */
export interface DriftScales {
  shared: number;
  target: number;
  /** By call: σ_s, the same for every target of the night. */
  sharedCall: Record<string, number>;
  /** By call: σ_o of each target (the model's target order). */
  metric: Record<string, number[]>;
}

/**
 * The scale of every call of every target for one night: level × exp(h + t + s + u), h and each
 * call's s drawn once for the night. Keyed by target, then call.
 */
export function nightScales(
  rng: Rng,
  model: NoiseModel,
  drift: DriftScales,
): Map<string, Record<string, number>> {
  const h = drift.shared * gaussian(rng);
  // Drawn only when there is a shared per-call part, so that histories without one keep their draws.
  const s = Object.fromEntries(
    CALL_NAMES.map((call) => [
      call,
      drift.sharedCall[call]! > 0 ? drift.sharedCall[call]! * gaussian(rng) : 0,
    ]),
  );
  return new Map(
    model.targets.map((t, i) => {
      const c = h + drift.target * gaussian(rng);
      return [
        t.target,
        Object.fromEntries(
          CALL_NAMES.map((call) => [
            call,
            t.levels[call]! * Math.exp(c + s[call]! + drift.metric[call]![i]! * gaussian(rng)),
          ]),
        ),
      ];
    }),
  );
}

/**
 * One round of recorded run `run` (drawn within that run: iteration k of every target alike when
 * the caller passes the same k), as it was measured — the run's own level and drift kept —
 * smoothed like drawIteration. A night made of these is a recorded run resampled.
 */
export function drawRecordedRound(rng: Rng, t: TargetNoise, run: number, k: number): Record<string, number> {
  const r = t.runs[run]!;
  const drawn = drawIteration(rng, t, r.start + k);
  return Object.fromEntries(CALL_NAMES.map((c) => [c, drawn[c]! * r.medians[c]!]));
}

/**
 * One drawn iteration of a target: each call's latency before the night's scale; `round` picks the
 * recorded round (the same for every target of a simulated round), else one is drawn.
 */
export function drawIteration(rng: Rng, t: TargetNoise, round?: number): Record<string, number> {
  const it = t.iterations[round ?? Math.floor(rng.next() * t.iterations.length)]!;
  return Object.fromEntries(CALL_NAMES.map((c) => [c, it[c]! * Math.exp(t.bandwidth[c]! * gaussian(rng))]));
}
