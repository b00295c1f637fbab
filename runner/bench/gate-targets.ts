// The nightly gate's targets (issue 12 item 4), on simulated nightly histories built from the
// real lifecycle results in data/: each night draws, per nightly target (containerd 2.1 with runc
// and crun), N whole recorded iterations (each call divided by its run's median; smoothed
// bootstrap), recomputes the phases from the calls, and scales each call by its recorded level ×
// exp(c + u): c the night factor of the target (sd σ_c), u a per-call drift (sd σ_m), both
// estimated from the recorded runs by driftComponents (stats/common-mode.ts). Then `check` runs
// every night against the nights before it, as the nightly job would, and the table counts:
//
//   false-alarm nights   unchanged history: nights with any new regression (target ≤ 1 %)
//   +10 % in 2 nights    StartContainer (runc) +10 % from night W+1: flagged on W+1 or W+2 (≥ 90 %)
//   +5 % in 3 nights     the same with +5 %, flagged on W+1, W+2 or W+3 (≥ 90 %)
//   +20 % first night    the same with +20 %, flagged on W+1 (≥ 90 %)
//   +1 %/night creep     +1 % a night from W+1: flagged before the level passes +10 % (≥ 90 %)
//
//   node runner/bench/gate-targets.ts [--histories 100] [--samples 100,200] [--alpha 0.02]
//        [--drift PERCENT (σ_c instead of the estimate)] [--metric-drift PERCENT (σ_m)] [--no-common-mode]
//        [--prior-df D0] [--data DIR] [--only TEXT (scenarios whose name contains it)]
import { parseArgs } from 'node:util';
import type { RunResult } from '@runtime-bench/schemas';
import {
  createGateReplay,
  readHistoryDir,
  type GateOptions,
  type HistoryEntry,
} from '../src/compare/index.ts';
import { LIFECYCLE_CALLS, phaseValues } from '../src/suites/lifecycle.ts';
import {
  createRng,
  driftComponents,
  logSpread,
  median,
  medianSamplingVariance,
  quantile,
  stdev,
  summarize,
  type Rng,
} from '../src/stats/index.ts';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '100' },
    samples: { type: 'string', default: '100,200' },
    alpha: { type: 'string', default: '0.02' },
    drift: { type: 'string' },
    'metric-drift': { type: 'string' },
    'no-common-mode': { type: 'boolean', default: false },
    'prior-df': { type: 'string' },
    data: { type: 'string', default: new URL('../../data/runs', import.meta.url).pathname },
    only: { type: 'string' },
  },
});
const HISTORIES = Number(values.histories);
const WINDOW = 10;
const EVALUATED = 10; // nights after the window that are checked
const LIFECYCLE = 'operations.container.lifecycle';
const NIGHTLY_TARGETS = ['containerd-2.1/runc', 'containerd-2.1/crun-1.28'];
const STEP_METRIC = { target: 'containerd-2.1/runc', metric: 'StartContainer' };

const recorded = (await readHistoryDir(values.data)).entries.map((e) => e.run);
const template = recorded
  .filter((r) =>
    NIGHTLY_TARGETS.every((t) => r.results.some((x) => x.benchmark === LIFECYCLE && x.target === t)),
  )
  .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
if (!template)
  throw new Error(`no run in ${values.data} has lifecycle results for ${NIGHTLY_TARGETS.join(', ')}`);

/**
 * Within-run noise of one target: its recorded iterations, each call's latency divided by that
 * call's median in its run (so run offsets do not leak in), resampled whole so that the calls of
 * one iteration keep their correlation; the phases (create, run, …) are recomputed from the calls
 * as the benchmark does, so a step in StartContainer also moves run and create-and-run.
 */
interface TargetNoise {
  target: string;
  /** Median over recorded runs of each call's run median. */
  levels: Record<string, number>;
  iterations: Record<string, number>[];
  /** Smoothing bandwidth of each call on the log scale (Silverman's rule). */
  bandwidth: Record<string, number>;
}
const CALL_NAMES: readonly string[] = LIFECYCLE_CALLS;
const noise: TargetNoise[] = NIGHTLY_TARGETS.map((target) => {
  const results = recorded
    .filter((r) => r.host.kernel === template!.host.kernel)
    .flatMap((r) =>
      r.results.filter((x) => x.benchmark === LIFECYCLE && x.target === target && x.status === 'ok'),
    );
  const medians: Record<string, number[]> = {};
  const iterations: Record<string, number>[] = [];
  for (const x of results) {
    const calls = CALL_NAMES.map((c) => x.metrics.find((m) => m.name === c)?.samples ?? []);
    const n = calls[0]!.length;
    if (n === 0 || calls.some((s) => s.length !== n)) continue;
    const runMedians = calls.map((s) => median(s));
    CALL_NAMES.forEach((c, i) => (medians[c] ??= []).push(runMedians[i]!));
    for (let k = 0; k < n; k++)
      iterations.push(Object.fromEntries(CALL_NAMES.map((c, i) => [c, calls[i]![k]! / runMedians[i]!])));
  }
  const levels = Object.fromEntries(CALL_NAMES.map((c) => [c, median(medians[c]!)]));
  // A few dozen recorded iterations are a coarse picture of a continuous distribution: medians of
  // raw resamples jump between a handful of values. The smoothed bootstrap (Silverman & Young
  // 1987) adds kernel noise of Silverman's bandwidth, 0.9 · min(sd, IQR/1.34) · N^(−1/5), per call
  // on the log scale.
  const bandwidth = Object.fromEntries(
    CALL_NAMES.map((c) => {
      const logs = iterations.map((it) => Math.log(it[c]!));
      const iqr = (quantile(logs, 0.75) - quantile(logs, 0.25)) / 1.34;
      const spread = Math.min(stdev(logs) ?? 0, iqr > 0 ? iqr : Infinity);
      return [c, 0.9 * spread * iterations.length ** -0.2];
    }),
  );
  return { target, levels, iterations, bandwidth };
});

/**
 * Night-to-night drift, estimated from the recorded runs of the template's host class: per
 * target, a two-way table of ln(run median) (metrics × runs) split by driftComponents into a
 * factor shared by the target's metrics each night and a per-metric part, both net of the
 * medians' sampling variance (π/2 · σ_w²/n, σ_w the robust log spread of the metric's pooled
 * within-run shape). The two targets' variances are averaged.
 */
const components = NIGHTLY_TARGETS.map((target) => {
  const runs = recorded
    .filter((r) => r.host.kernel === template!.host.kernel)
    .map((r) => r.results.find((x) => x.benchmark === LIFECYCLE && x.target === target && x.status === 'ok'))
    .filter((x) => x !== undefined);
  const names = runs[0]!.metrics.map((m) => m.name);
  const table = names.map((name) =>
    runs.map((x) => {
      const s = x.metrics.find((m) => m.name === name)?.samples ?? [];
      return s.length && median(s) > 0 ? Math.log(median(s)) : null;
    }),
  );
  const sampling = names.map((name) => {
    const shape = runs.flatMap((x) => {
      const s = x.metrics.find((m) => m.name === name)?.samples ?? [];
      const med = s.length ? median(s) : 0;
      return med > 0 ? s.map((v) => v / med) : [];
    });
    const sigma = logSpread(shape) ?? 0;
    return runs.map((x) => {
      const n = x.metrics.find((m) => m.name === name)?.samples.length ?? 0;
      return n ? medianSamplingVariance(sigma ** 2, n) : null;
    });
  });
  return driftComponents(table, sampling);
});
const avgSd = (f: (c: (typeof components)[number]) => number): number =>
  Math.sqrt(components.reduce((a, c) => a + f(c) ** 2, 0) / components.length);
const SIGMA_COMMON = values.drift === undefined ? avgSd((c) => c.sigmaCommon) : Number(values.drift) / 100;
const SIGMA_METRIC =
  values['metric-drift'] === undefined ? avgSd((c) => c.sigmaMetric) : Number(values['metric-drift']) / 100;

function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** One simulated night: the template's lifecycle results with resampled, scaled samples. */
function night(
  rng: Rng,
  index: number,
  n: number,
  effect: (target: string, metric: string) => number,
): HistoryEntry {
  const startedAt = new Date(Date.UTC(2027, 0, 1 + index, 3)).toISOString();
  const runId = `${startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '')}-${index.toString(16).padStart(8, '0')}`;
  const results = template!.results
    .filter((x) => x.benchmark === LIFECYCLE && NIGHTLY_TARGETS.includes(x.target))
    .map((x) => {
      const t = noise.find((v) => v.target === x.target)!;
      const common = SIGMA_COMMON * gaussian(rng);
      const factor = Object.fromEntries(
        CALL_NAMES.map((c) => [
          c,
          t.levels[c]! * Math.exp(common + SIGMA_METRIC * gaussian(rng)) * effect(x.target, c),
        ]),
      );
      const samples: Record<string, number[]> = {};
      for (let k = 0; k < n; k++) {
        const it = t.iterations[Math.floor(rng.next() * t.iterations.length)]!;
        const calls = Object.fromEntries(
          CALL_NAMES.map((c) => [c, it[c]! * factor[c]! * Math.exp(t.bandwidth[c]! * gaussian(rng))]),
        );
        for (const [name, v] of Object.entries({ ...calls, ...phaseValues(calls) }))
          (samples[name] ??= []).push(v);
      }
      return {
        ...x,
        attempts: n,
        failedAttempts: 0,
        metrics: x.metrics.map((m) => ({
          ...m,
          samples: samples[m.name]!,
          summary: summarize(samples[m.name]!),
        })),
      };
    });
  const run: RunResult = { ...template!, runId, startedAt, finishedAt: startedAt, results };
  return { run, file: `${runId}.json` };
}

type Scenario = {
  name: string;
  target: string;
  effect: (target: string, metric: string, night: number) => number;
  hit: (flagNights: number[]) => boolean;
};
const isStep = (target: string, metric: string): boolean =>
  target === STEP_METRIC.target && metric === STEP_METRIC.metric;
const FIRST = WINDOW + 1;
const scenarios: Scenario[] = [
  { name: 'false-alarm nights', target: '≤ 1 %', effect: () => 1, hit: () => false },
  {
    name: '+10 % flagged within 2 nights',
    target: '≥ 90 %',
    effect: (t, m, d) => (isStep(t, m) && d >= FIRST ? 1.1 : 1),
    hit: (nights) => nights.some((d) => d === FIRST || d === FIRST + 1),
  },
  {
    name: '+5 % flagged within 3 nights',
    target: '≥ 90 %',
    effect: (t, m, d) => (isStep(t, m) && d >= FIRST ? 1.05 : 1),
    hit: (nights) => nights.some((d) => d >= FIRST && d <= FIRST + 2),
  },
  {
    name: '+20 % flagged on its first night',
    target: '≥ 90 %',
    effect: (t, m, d) => (isStep(t, m) && d >= FIRST ? 1.2 : 1),
    hit: (nights) => nights.includes(FIRST),
  },
  {
    name: '+1 %/night creep flagged before +10 %',
    target: '≥ 90 %',
    effect: (t, m, d) => (isStep(t, m) && d >= FIRST ? 1.01 ** (d - FIRST + 1) : 1),
    // 1.01^k passes 1.10 at k = 10 (night FIRST + 9).
    hit: (nights) => nights.some((d) => d < FIRST + 9),
  },
];

const options: GateOptions = {
  window: WINDOW,
  alpha: Number(values.alpha),
  commonMode: !values['no-common-mode'],
  ...(values['prior-df'] === undefined ? {} : { priorDf: Number(values['prior-df']) }),
};
const header = ['scenario', 'target', ...values.samples.split(',').map((n) => `n = ${n}`)];
const lines: string[][] = [];
const started = performance.now();
for (const scenario of scenarios.filter((s) => !values.only || s.name.includes(values.only))) {
  const cells = [scenario.name, scenario.target];
  for (const n of values.samples.split(',').map(Number)) {
    let hits = 0;
    let alarmNights = 0;
    let nights = 0;
    for (let h = 0; h < HISTORIES; h++) {
      const rng = createRng(1 + h * 7919 + n);
      const history = Array.from({ length: WINDOW + EVALUATED }, (_, i) =>
        night(rng, i + 1, n, (t, m) => scenario.effect(t, m, i + 1)),
      );
      const replay = createGateReplay(history, options);
      const flagNights: number[] = [];
      for (let i = WINDOW; i < history.length; i++) {
        const report = replay.report(history[i]!);
        const stepFlag = report.rows.some(
          (r) =>
            r.kind === 'metric' &&
            r.verdict === 'regression' &&
            r.metric === STEP_METRIC.metric &&
            r.target === STEP_METRIC.target,
        );
        if (stepFlag) flagNights.push(i + 1);
        if (report.counts.regression > 0) alarmNights++;
        nights++;
      }
      if (scenario.hit(flagNights)) hits++;
    }
    cells.push(
      scenario.name === 'false-alarm nights'
        ? `${((100 * alarmNights) / nights).toFixed(1)} % (${alarmNights}/${nights})`
        : `${((100 * hits) / HISTORIES).toFixed(0)} % (${hits}/${HISTORIES})`,
    );
  }
  lines.push(cells);
}

const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const row = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `gate targets: ${HISTORIES} simulated histories per cell, window ${WINDOW}, ${EVALUATED} nights checked each, alpha ${options.alpha}, night factor ${options.commonMode ? 'removed' : 'not removed'} (lifecycle of ${NIGHTLY_TARGETS.join(', ')})`,
);
console.log(
  `noise model: whole iterations resampled from ${noise.map((t) => `${t.iterations.length} (${t.target})`).join(', ')} recorded iterations; night factor per target σ_c = ${(100 * SIGMA_COMMON).toFixed(1)} %, per-metric drift σ_m = ${(100 * SIGMA_METRIC).toFixed(1)} % (${values.drift === undefined ? 'estimated from data/' : 'given'}; per target: ${components.map((c) => `σ_c ${(100 * c.sigmaCommon).toFixed(1)} %, σ_m ${(100 * c.sigmaMetric).toFixed(1)} %, common share ${(100 * c.explained).toFixed(0)} %`).join('; ')})`,
);
console.log(row(header));
console.log(row(widths.map((w) => '-'.repeat(w))));
for (const l of lines) console.log(row(l));
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
