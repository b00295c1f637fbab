// The nightly gate's targets (issues 12 and 29), on simulated nightly histories built from the
// real lifecycle results in data/ (noise model: nightly-noise.ts — whole recorded iterations
// resampled, a drift shared by the night's targets, one per target, one per call). Each night
// draws N iterations per nightly target (containerd 2.1 with runc and crun; with --reference also
// a pinned runc build, the reference handler), recomputes the phases from the calls, and then
// `check` runs every night against the nights before it, as the nightly job would. The table counts:
//
//   false-alarm nights   unchanged history: nights with any new regression (target ≤ 1 %)
//   +10 % in 2 nights    StartContainer (runc; --step-metric) +10 % from night W+1: flagged on W+1 or W+2 (≥ 90 %)
//   +5 % in 3 nights     the same with +5 %, flagged on W+1, W+2 or W+3 (≥ 90 %)
//   +20 % first night    the same with +20 %, flagged on W+1 (≥ 90 %)
//   +1 %/night creep     +1 % a night from W+1: flagged before the level passes +10 % (≥ 90 %)
//   "at a version bump"  the same, with runc's version recorded as changed from night W+1: the
//                        gate then takes runc's night factor from the unchanged targets (controls)
//
//   node runner/bench/gate-targets.ts [--histories 100] [--samples 100,200] [--alpha 0.02]
//        [--reference [--scalar-controls]] [--drift PERCENT (σ_h)] [--target-drift PERCENT (σ_t)]
//        [--shared-call-drift PERCENT (σ_s)] [--metric-drift PERCENT (σ_o, per call and target)]
//        [--no-common-mode] [--prior-df D0|estimated] [--data DIR] [--only 'TEXT|TEXT' (scenarios whose name contains one)]
//        [--targets STEP,OTHER (the nightly targets; the step goes on the first's StartContainer)]
//        [--reference-target ID (the pinned reference handler)] [--step-metric CALL (default StartContainer)]
//        [--recorded-nights (each night one recorded run resampled, its real drift kept, no drawn drift;
//         the run's own sampling noise is then counted twice: an upper bound on the nights' noise)]
import { parseArgs } from 'node:util';
import type { RunResult } from '@runtime-bench/schemas';
import { createGateReplay, type GateOptions, type HistoryEntry } from '../src/compare/index.ts';
import { readHistoryDir } from '../src/history/index.ts';
import { phaseValues } from '../src/suites/lifecycle.ts';
import { createRng, summarize, type Rng } from '../src/stats/index.ts';
import {
  CALL_NAMES,
  drawIteration,
  drawRecordedRound,
  fitNoiseModel,
  LIFECYCLE,
  nightScales,
  type CallDrift,
  type DriftScales,
} from './nightly-noise.ts';
import { samplingBound } from './sampling-bound.ts';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '100' },
    samples: { type: 'string', default: '100,200' },
    alpha: { type: 'string', default: '0.02' },
    reference: { type: 'boolean', default: false },
    drift: { type: 'string' },
    'target-drift': { type: 'string' },
    'metric-drift': { type: 'string' },
    'shared-call-drift': { type: 'string' },
    'scalar-controls': { type: 'boolean', default: false },
    'no-common-mode': { type: 'boolean', default: false },
    'prior-df': { type: 'string' },
    data: { type: 'string', default: new URL('../../data/runs', import.meta.url).pathname },
    only: { type: 'string' },
    targets: { type: 'string', default: 'containerd-2.1/runc,containerd-2.1/crun-1.28' },
    'reference-target': { type: 'string', default: 'containerd-2.1/runc-1.3.6' },
    'step-metric': { type: 'string', default: 'StartContainer' },
    'recorded-nights': { type: 'boolean', default: false },
  },
});
const HISTORIES = Number(values.histories);
// Each night one recorded run resampled by rounds, its level kept: the drift between nights is the
// recorded runs' own, whatever its structure, and no drawn layer is added — but a recorded run's
// medians already carry their sampling noise and resampling adds it again: an upper bound.
const RECORDED_NIGHTS = values['recorded-nights'];
const WINDOW = 10;
const EVALUATED = 10; // nights after the window that are checked
const NIGHTLY_TARGETS = values.targets.split(',');
// A second runc build measured beside them in data/: the pinned reference handler of the nightly
// suite (a fixed build that never changes), here with its own recorded within-run noise.
const REFERENCE = values['reference-target'];
const FITTED_ON = [...NIGHTLY_TARGETS, REFERENCE];
const TARGETS = values.reference ? FITTED_ON : NIGHTLY_TARGETS;
const STEP_METRIC = { target: NIGHTLY_TARGETS[0]!, metric: values['step-metric'] };
if (!CALL_NAMES.includes(STEP_METRIC.metric))
  throw new Error(`--step-metric ${STEP_METRIC.metric}: not a lifecycle call (${CALL_NAMES.join(', ')})`);
const BUMPED_VERSION = '1.2.0';

const recorded = (await readHistoryDir(values.data)).entries.map((e) => e.run);
const template = recorded
  .filter((r) => FITTED_ON.every((t) => r.results.some((x) => x.benchmark === LIFECYCLE && x.target === t)))
  .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
if (!template) throw new Error(`no run in ${values.data} has lifecycle results for ${FITTED_ON.join(', ')}`);
// Fitted on the same runs with or without --reference, so the two tables share one noise model.
const model = fitNoiseModel(recorded, template.host.kernel, FITTED_ON);
const pct = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v) / 100);
const byCall = (given: number | undefined, fitted: (c: CallDrift) => number): Record<string, number> =>
  Object.fromEntries(CALL_NAMES.map((c) => [c, given ?? fitted(model.calls[c]!)]));
const givenOwn = pct(values['metric-drift']);
const DRIFT: DriftScales = {
  shared: pct(values.drift) ?? model.factors.sigmaCommon,
  target: pct(values['target-drift']) ?? model.factors.sigmaMetric,
  sharedCall: byCall(pct(values['shared-call-drift']), (c) => c.shared),
  metric: Object.fromEntries(CALL_NAMES.map((c) => [c, model.calls[c]!.own.map((own) => givenOwn ?? own)])),
};
// With --reference the gate is told which target is the pinned reference (check --reference):
// the other targets' rows divide each call by the reference's; --scalar-controls leaves it
// unnamed, so that it only serves as a control of the night factor at a version change.
const REFERENCES = values.reference && !values['scalar-controls'] ? [REFERENCE] : [];

/** One simulated night: the template's lifecycle results with resampled, scaled samples. */
function night(
  rng: Rng,
  index: number,
  n: number,
  effect: (target: string, metric: string) => number,
  bumped: boolean,
): HistoryEntry {
  const startedAt = new Date(Date.UTC(2027, 0, 1 + index, 3)).toISOString();
  const runId = `${startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '')}-${index.toString(16).padStart(8, '0')}`;
  const scales = nightScales(rng, model, DRIFT);
  // One recorded round per simulated round, for every target alike (nightly-noise.ts); with
  // --recorded-nights all from one recorded run, taken as it was.
  const recordedRun = Math.floor(rng.next() * model.runs);
  const roundsOfRun = model.targets[0]!.runs[recordedRun]!.length;
  const rounds = Array.from({ length: n }, () =>
    Math.floor(rng.next() * (RECORDED_NIGHTS ? roundsOfRun : model.rounds)),
  );
  const results = template!.results
    .filter((x) => x.benchmark === LIFECYCLE && TARGETS.includes(x.target))
    .map((x) => {
      const t = model.targets.find((v) => v.target === x.target)!;
      const scale = scales.get(x.target)!;
      const samples: Record<string, number[]> = {};
      for (let k = 0; k < n; k++) {
        const calls = RECORDED_NIGHTS
          ? Object.fromEntries(
              Object.entries(drawRecordedRound(rng, t, recordedRun, rounds[k]!)).map(([c, v]) => [
                c,
                v * effect(x.target, c),
              ]),
            )
          : Object.fromEntries(
              Object.entries(drawIteration(rng, t, rounds[k])).map(([c, v]) => [
                c,
                v * scale[c]! * effect(x.target, c),
              ]),
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
  const targets = template!.targets
    .filter((t) => TARGETS.includes(t.id))
    .map((t) =>
      bumped && t.id === STEP_METRIC.target ? { ...t, oci: { ...t.oci, version: BUMPED_VERSION } } : t,
    );
  const run: RunResult = { ...template!, runId, startedAt, finishedAt: startedAt, targets, results };
  return { run, file: `${runId}.json` };
}

type Scenario = {
  name: string;
  target: string;
  effect: (target: string, metric: string, night: number) => number;
  hit: (flagNights: number[]) => boolean;
  /** runc's version is recorded as changed from night W+1 (its factor then comes from controls). */
  bump?: boolean;
};
const isStep = (target: string, metric: string): boolean =>
  target === STEP_METRIC.target && metric === STEP_METRIC.metric;
const FIRST = WINDOW + 1;
const step =
  (ratio: number) =>
  (t: string, m: string, d: number): number =>
    isStep(t, m) && d >= FIRST ? ratio : 1;
const within = (nights: number) => (flagged: number[]) =>
  flagged.some((d) => d >= FIRST && d < FIRST + nights);
const FALSE_ALARMS = 'false-alarm nights';
const scenarios: Scenario[] = [
  { name: FALSE_ALARMS, target: '≤ 1 %', effect: () => 1, hit: () => false },
  { name: '+10 % flagged within 2 nights', target: '≥ 90 %', effect: step(1.1), hit: within(2) },
  { name: '+5 % flagged within 3 nights', target: '≥ 90 %', effect: step(1.05), hit: within(3) },
  { name: '+20 % flagged on its first night', target: '≥ 90 %', effect: step(1.2), hit: within(1) },
  {
    name: '+1 %/night creep flagged before +10 %',
    target: '≥ 90 %',
    effect: (t, m, d) => (isStep(t, m) && d >= FIRST ? 1.01 ** (d - FIRST + 1) : 1),
    // 1.01^k passes 1.10 at k = 10 (night FIRST + 9).
    hit: (nights) => nights.some((d) => d < FIRST + 9),
  },
  {
    name: `${FALSE_ALARMS} at a version bump`,
    target: '≤ 1 %',
    effect: () => 1,
    hit: () => false,
    bump: true,
  },
  {
    name: '+10 % at a version bump, within 2 nights',
    target: '≥ 90 %',
    effect: step(1.1),
    hit: within(2),
    bump: true,
  },
  {
    name: '+5 % at a version bump, within 3 nights',
    target: '≥ 90 %',
    effect: step(1.05),
    hit: within(3),
    bump: true,
  },
];

const options: GateOptions = {
  window: WINDOW,
  alpha: Number(values.alpha),
  commonMode: !values['no-common-mode'],
  references: REFERENCES,
  ...(values['prior-df'] === undefined
    ? {}
    : { priorDf: values['prior-df'] === 'estimated' ? 'estimated' : Number(values['prior-df']) }),
};
const header = ['scenario', 'target', ...values.samples.split(',').map((n) => `n = ${n}`)];
const lines: string[][] = [];
let rowsPerNight: number | null = null;
const sources = new Set<string>();
const started = performance.now();
const only = values.only?.split('|');
const misses: string[] = [];
for (const scenario of scenarios.filter((s) => !only || only.some((o) => s.name.includes(o)))) {
  const cells = [scenario.name, scenario.target];
  for (const n of values.samples.split(',').map(Number)) {
    let hits = 0;
    let missedUnderThreshold = 0;
    let missedNotSignificant = 0;
    let missedBoth = 0;
    let alarmNights = 0;
    let nights = 0;
    for (let h = 0; h < HISTORIES; h++) {
      const rng = createRng(1 + h * 7919 + n);
      const history = Array.from({ length: WINDOW + EVALUATED }, (_, i) =>
        night(
          rng,
          i + 1,
          n,
          (t, m) => scenario.effect(t, m, i + 1),
          scenario.bump === true && i + 1 >= FIRST,
        ),
      );
      const replay = createGateReplay(history, options);
      const flagNights: number[] = [];
      // The two halves of a regression verdict, each alone: significant the bad way, and a change
      // reaching the threshold (decide.ts) — which of them held a missed step back.
      const significantNights: number[] = [];
      const largeNights: number[] = [];
      for (let i = WINDOW; i < history.length; i++) {
        const report = replay.report(history[i]!);
        const stepRow = report.rows.find(
          (r) => r.kind === 'metric' && r.metric === STEP_METRIC.metric && r.target === STEP_METRIC.target,
        );
        if (stepRow?.kind === 'metric' && stepRow.change !== null && stepRow.change > 0) {
          if (stepRow.verdict === 'regression') flagNights.push(i + 1);
          if (stepRow.significant) significantNights.push(i + 1);
          if (stepRow.large) largeNights.push(i + 1);
        }
        if (h === 0 && i + 1 === FIRST && stepRow?.kind === 'metric')
          sources.add(
            `${scenario.name}: ${stepRow.factorSource}${stepRow.factorControls?.length ? ` (${stepRow.factorControls.join(', ')})` : ''}`,
          );
        if (report.counts.regression > 0) alarmNights++;
        rowsPerNight ??= report.rows.filter((r) => r.pValue !== null).length;
        nights++;
      }
      if (scenario.hit(flagNights)) hits++;
      else if (scenario.hit(significantNights)) missedUnderThreshold++;
      else if (scenario.hit(largeNights)) missedNotSignificant++;
      else missedBoth++;
    }
    if (!scenario.name.startsWith(FALSE_ALARMS))
      misses.push(
        `${scenario.name}, n = ${n}: missed ${HISTORIES - hits} — significant but under the threshold ${missedUnderThreshold}, over the threshold but not significant ${missedNotSignificant}, neither ${missedBoth}`,
      );
    cells.push(
      scenario.name.startsWith(FALSE_ALARMS)
        ? `${((100 * alarmNights) / nights).toFixed(1)} % (${alarmNights}/${nights})`
        : `${((100 * hits) / HISTORIES).toFixed(0)} % (${hits}/${HISTORIES})`,
    );
  }
  lines.push(cells);
}

const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const row = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
const f = (x: number): string => `${(100 * x).toFixed(1)} %`;
console.log(
  `gate targets: ${HISTORIES} simulated histories per cell, window ${WINDOW}, ${EVALUATED} nights checked each, alpha ${options.alpha}, night factor ${options.commonMode ? 'removed' : 'not removed'} (lifecycle of ${TARGETS.join(', ')}${values.reference ? `; ${REFERENCE} as the pinned reference handler${REFERENCES.length ? ', named to the gate (each call divided by its)' : ', as a control of the night factor only'}` : ''})`,
);
if (RECORDED_NIGHTS)
  console.log(
    `nights: each one of the ${model.runs} recorded runs (drawn at random), resampled by rounds — their drift between runs as recorded, their sampling noise counted twice (an upper bound); the drawn layers below are not used`,
  );
console.log(
  `noise model (fitted on ${model.runs} recorded runs of ${FITTED_ON.join(', ')}): whole rounds (iteration k of every target of a run) resampled from ${model.rounds} recorded rounds; drift shared by the night's targets σ_h = ${f(DRIFT.shared)}, per target σ_t = ${f(DRIFT.target)}, per call shared by the targets σ_s / each target's own σ_o (${FITTED_ON.join(', ')}) = ${CALL_NAMES.map((c) => `${c} ${f(DRIFT.sharedCall[c]!)} / ${DRIFT.metric[c]!.map(f).join(', ')}`).join('; ')} (${values.drift === undefined ? 'estimated from data/' : 'given'}; each target's own factor: ${model.perTarget.map((c, i) => `${FITTED_ON[i]} σ_c ${f(c.sigmaCommon)}, σ_m ${f(c.sigmaMetric)}, common share ${(100 * c.explained).toFixed(0)} %`).join('; ')})`,
);
console.log(row(header));
console.log(row(widths.map((w) => '-'.repeat(w))));
for (const l of lines) console.log(row(l));
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
console.log(
  `missed histories, by what held the step back within its nights (either alone would have flagged it):`,
);
for (const m of misses) console.log(`  ${m}`);
console.log(
  `${STEP_METRIC.target} ${STEP_METRIC.metric}'s night factor on night W+1: ${[...sources].join('; ')}`,
);

// The bound the within-night sampling noise sets on the +5 % step (sampling-bound.ts): an oracle
// that knows the night-to-night variance and removes the factor without error.
const stepTarget = model.targets.find((t) => t.target === STEP_METRIC.target)!;
const rows = rowsPerNight ?? 0;
const share = (w: number): number => (options.alpha! * w) / Math.max(1, rows);
const referenceNoise = model.targets.find((t) => t.target === REFERENCE);
const STEP_SHARED = DRIFT.sharedCall[STEP_METRIC.metric]!;
const ownOf = (target: string): number => DRIFT.metric[STEP_METRIC.metric]![FITTED_ON.indexOf(target)] ?? 0;
const STEP_OWN = ownOf(STEP_METRIC.target);
const bounds: [string, number, typeof referenceNoise][] = [
  // The own factor leaves the call's drift, shared and own.
  ['own factor', Math.hypot(STEP_SHARED, STEP_OWN), undefined],
  // From c controls (their median; the mean for c ≤ 2) the factor leaves t − mean(t'): σ_t²(1 + 1/c).
  [
    `factor from ${TARGETS.length - 1} control(s)`,
    Math.hypot(STEP_SHARED, STEP_OWN, DRIFT.target * Math.sqrt(1 + 1 / (TARGETS.length - 1))),
    undefined,
  ],
];
// Divided by the reference's call: the host's and the call's shared drift cancel; both targets'
// own drifts (per target and per call) and both medians' sampling stay.
if (REFERENCES.length && referenceNoise)
  bounds.push([
    `divided by the reference ${REFERENCE}`,
    Math.hypot(Math.SQRT2 * DRIFT.target, STEP_OWN, ownOf(REFERENCE)),
    referenceNoise,
  ]);
for (const [label, drift, partner] of bounds)
  for (const n of values.samples.split(',').map(Number)) {
    const b = samplingBound({
      rng: createRng(97 + n),
      target: stepTarget,
      ...(partner ? { partner } : {}),
      call: STEP_METRIC.metric,
      n,
      drift,
      step: 0.05,
      window: WINDOW,
      alphaOneNight: share(0.4),
      alphaTwoNights: share(0.15),
      power: 0.9,
    });
    console.log(
      `oracle bound, +5 % in ${STEP_METRIC.metric} (${label}), n = ${n}: sd of a night's ln median ${f(b.sigmaSampling)} (sampling) → ${f(b.sigmaNight)} with drift; one-night test ${f(b.oneNight)}, two-night mean ${f(b.twoNights)} (alpha ${options.alpha} × 0.4 and × 0.15 over ${rows} rows); within 3 nights ≤ ${f(b.withinThree)}; the two-night test reaches 90 % at n ≈ ${b.samplesForPower ?? 'unreachable (drift alone)'}`,
    );
  }
