// The nightly gate's targets (issue 12 item 4), on simulated nightly histories built from the
// real lifecycle results in data/: each night resamples, for every lifecycle metric of the
// nightly targets (containerd 2.1 with runc and crun), N samples from that metric's recorded
// within-run distribution (each recorded run's samples divided by its median, so run offsets do
// not leak into the within-run noise), scaled by the metric's recorded median and by a host
// drift exp(δ), δ ~ Normal(0, σ_b) shared by all metrics of the night, where σ_b is estimated
// from the recorded runs by `plan` (variance of the log run medians minus their sampling
// variance; median over the lifecycle series). Then `check` runs every night against the nights
// before it, as the nightly job would, and the table counts:
//
//   false-alarm nights   unchanged history: nights with any new regression (target ≤ 1 %)
//   +10 % in 2 nights    StartContainer (runc) +10 % from night W+1: flagged on W+1 or W+2 (≥ 90 %)
//   +20 % first night    the same with +20 %, flagged on W+1 (≥ 90 %)
//   +1 %/night creep     +1 % a night from W+1: flagged before the level passes +10 % (≥ 90 %)
//
//   node runner/bench/gate-targets.ts [--histories 100] [--samples 10,30] [--alpha 0.05]
//        [--drift PERCENT (instead of the estimate)] [--data DIR] [--only TEXT (scenarios whose name contains it)]
import { parseArgs } from 'node:util';
import type { RunResult } from '@runtime-bench/schemas';
import {
  createGateReplay,
  planSampleSizes,
  readHistoryDir,
  type GateOptions,
  type HistoryEntry,
} from '../src/compare/index.ts';
import { createRng, median, summarize, type Rng } from '../src/stats/index.ts';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '100' },
    samples: { type: 'string', default: '10,30' },
    alpha: { type: 'string', default: '0.05' },
    drift: { type: 'string' },
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

/** Within-run noise of one series: samples / their run's median, pooled over recorded runs. */
interface Series {
  target: string;
  metric: string;
  level: number;
  shape: number[];
}
const series: Series[] = [];
for (const target of NIGHTLY_TARGETS) {
  const results = recorded.flatMap((r) =>
    r.results.filter((x) => x.benchmark === LIFECYCLE && x.target === target && x.status === 'ok'),
  );
  for (const metric of results[0]!.metrics.map((m) => m.name)) {
    const runs = results
      .map((x) => x.metrics.find((m) => m.name === metric)!.samples)
      .filter((s) => s.length > 0);
    const medians = runs.map((s) => median(s));
    if (medians.some((m) => !(m > 0))) continue;
    series.push({
      target,
      metric,
      level: median(medians),
      shape: runs.flatMap((s, i) => s.map((v) => v / medians[i]!)),
    });
  }
}

const lifecycleRuns = recorded.map((r) => ({
  ...r,
  results: r.results.filter((x) => x.benchmark === LIFECYCLE && NIGHTLY_TARGETS.includes(x.target)),
}));
const drifts = planSampleSizes(lifecycleRuns)
  .rows.map((r) => r.sigmaBetween)
  .filter((v): v is number => v !== null);
const driftEstimate = drifts.length ? median(drifts) : 0;
const SIGMA_B = values.drift === undefined ? driftEstimate : Number(values.drift) / 100;

function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** One simulated night: the template's lifecycle results with resampled, scaled samples. */
function night(rng: Rng, index: number, n: number, effect: (s: Series) => number): HistoryEntry {
  const drift = Math.exp(SIGMA_B * gaussian(rng));
  const startedAt = new Date(Date.UTC(2027, 0, 1 + index, 3)).toISOString();
  const runId = `${startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '')}-${index.toString(16).padStart(8, '0')}`;
  const results = template!.results
    .filter((x) => x.benchmark === LIFECYCLE && NIGHTLY_TARGETS.includes(x.target))
    .map((x) => ({
      ...x,
      attempts: n,
      failedAttempts: 0,
      metrics: x.metrics.flatMap((m) => {
        const s = series.find((v) => v.target === x.target && v.metric === m.name);
        if (!s) return [];
        const factor = s.level * drift * effect(s);
        const samples = Array.from(
          { length: n },
          () => s.shape[Math.floor(rng.next() * s.shape.length)]! * factor,
        );
        return [{ ...m, samples, summary: summarize(samples) }];
      }),
    }));
  const run: RunResult = { ...template!, runId, startedAt, finishedAt: startedAt, results };
  return { run, file: `${runId}.json` };
}

type Scenario = {
  name: string;
  target: string;
  effect: (s: Series, night: number) => number;
  hit: (flagNights: number[]) => boolean;
};
const isStep = (s: Series): boolean => s.target === STEP_METRIC.target && s.metric === STEP_METRIC.metric;
const FIRST = WINDOW + 1;
const scenarios: Scenario[] = [
  { name: 'false-alarm nights', target: '≤ 1 %', effect: () => 1, hit: () => false },
  {
    name: '+10 % flagged within 2 nights',
    target: '≥ 90 %',
    effect: (s, d) => (isStep(s) && d >= FIRST ? 1.1 : 1),
    hit: (nights) => nights.some((d) => d === FIRST || d === FIRST + 1),
  },
  {
    name: '+20 % flagged on its first night',
    target: '≥ 90 %',
    effect: (s, d) => (isStep(s) && d >= FIRST ? 1.2 : 1),
    hit: (nights) => nights.includes(FIRST),
  },
  {
    name: '+1 %/night creep flagged before +10 %',
    target: '≥ 90 %',
    effect: (s, d) => (isStep(s) && d >= FIRST ? 1.01 ** (d - FIRST + 1) : 1),
    // 1.01^k passes 1.10 at k = 10 (night FIRST + 9).
    hit: (nights) => nights.some((d) => d < FIRST + 9),
  },
];

const options: GateOptions = { window: WINDOW, alpha: Number(values.alpha) };
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
        night(rng, i + 1, n, (s) => scenario.effect(s, i + 1)),
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
  `gate targets: ${HISTORIES} simulated histories per cell, window ${WINDOW}, ${EVALUATED} nights checked each, alpha ${options.alpha} (Holm over ${series.length} lifecycle metrics of ${NIGHTLY_TARGETS.join(', ')})`,
);
console.log(
  `noise model: within-run shapes from ${recorded.length} recorded runs in data/; night-to-night drift σ_b = ${(100 * SIGMA_B).toFixed(1)} %${values.drift === undefined ? ` (estimated: median over ${drifts.length} series)` : ' (given)'}`,
);
console.log(row(header));
console.log(row(widths.map((w) => '-'.repeat(w))));
for (const l of lines) console.log(row(l));
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
