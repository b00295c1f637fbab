// The version-change decision measured side by side (issue 37), on real round-matched samples:
// how often a step planted in one lifecycle call of the new version is flagged on its first
// night and within --looks nights (alpha spent over them), how often two identical builds get a
// false verdict, and how close the reported change is to the planted one.
//
// A/A pairs from real rounds. data/ holds no run that measured one build twice side by side, so
// the two "builds" of a pair are two neighbouring rounds of one target: rounds 2j and 2j + 1
// (the other targets' rounds lie between them, about a second apart), in random order (as the
// nightly randomises the order within a round). Their ratio carries the real within-run noise
// and the real load shared by neighbouring rounds (Spearman 0.26-0.50 between them, per call,
// against 0.33-0.61 between two targets' samples of one round: a slightly harder pairing than
// the nightly's). Every lifecycle result of data/ with >= 100 rounds and no failed repetition
// gives such pairs (19 nightly-shaped runs × 3 targets, the runc sweep's 11 versions, the
// containerd sweep's 5).
//
// A night is one recorded run: --rounds pairs drawn without replacement from its pairs (all its
// targets). A history draws its nights from different runs, so nights differ as the runs do. B's
// planted call is multiplied by 1 + step, and the phases are recomputed from the calls (a step in
// StartContainer moves run and create-and-run too). Look j pools the rounds of nights 1..j; a
// metric whose verdict is final leaves the next looks (decideLook's `repeat`).
//
// Reported, per planted call and step: the regression flagged on the first night / within the
// looks; false verdicts (regression or improvement) on A/A nights over all 11 metrics, and on the
// metrics the plant does not touch; the reported change within ±2 points of the planted one (at
// the look that flagged it, and on every first night).
//
//   node runner/bench/side-by-side.ts [--histories 1000] [--rounds 200] [--steps 5,10]
//        [--metric StartContainer | all] [--threshold 3] [--alpha 0.02] [--looks 3]
//        [--spending pocock|obrien-fleming|bonferroni] [--data DIR]
import { parseArgs } from 'node:util';
import type { RunResult } from '@runtime-bench/schemas';
import { readHistoryDir } from '../src/history/index.ts';
import { formatChange, formatP, formatPercent, terminalTable } from '../src/format/index.ts';
import {
  createRng,
  decideLook,
  SPENDING_RULES,
  type MetricDecision,
  type MetricPair,
  type Rng,
  type SpendingRule,
} from '../src/stats/index.ts';
import { LIFECYCLE_CALLS, PHASES, phaseValues } from '../src/suites/lifecycle.ts';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '200' },
    steps: { type: 'string', default: '5,10' },
    metric: { type: 'string', default: 'StartContainer' },
    threshold: { type: 'string', default: '3' },
    alpha: { type: 'string', default: '0.02' },
    looks: { type: 'string', default: '3' },
    spending: { type: 'string', default: 'pocock' },
    data: { type: 'string', default: new URL('../../data/runs', import.meta.url).pathname },
  },
});
const HISTORIES = Number(values.histories);
const ROUNDS = Number(values.rounds);
const LOOKS = Number(values.looks);
const ALPHA = Number(values.alpha);
const THRESHOLD = Number(values.threshold) / 100;
const SPENDING = values.spending as SpendingRule;
if (!SPENDING_RULES.includes(SPENDING))
  throw new Error(`--spending ${values.spending}: use one of ${SPENDING_RULES.join(', ')}`);
const LIFECYCLE = 'operations.container.lifecycle';
const METRICS = [...LIFECYCLE_CALLS, ...Object.keys(PHASES)];
const PLANTED = values.metric === 'all' ? [...LIFECYCLE_CALLS] : [values.metric];
for (const m of PLANTED)
  if (!(LIFECYCLE_CALLS as readonly string[]).includes(m))
    throw new Error(`--metric ${m}: plant the step in a call (${LIFECYCLE_CALLS.join(', ')}) or 'all'`);

type Round = Record<string, number>;
/** One A/A pair of rounds of one target: its calls at round 2j and 2j + 1. */
interface PairRound {
  first: Round;
  second: Round;
}

/** Each usable run's A/A pairs of rounds (targets with ≥ 100 rounds and no failed repetition). */
function pairPools(runs: readonly RunResult[]): { runId: string; pairs: PairRound[] }[] {
  const pools: { runId: string; pairs: PairRound[] }[] = [];
  for (const run of runs) {
    const pairs: PairRound[] = [];
    for (const r of run.results) {
      if (r.benchmark !== LIFECYCLE || r.status !== 'ok' || r.failedAttempts > 0) continue;
      const calls = LIFECYCLE_CALLS.map((c) => r.metrics.find((m) => m.name === c)?.samples ?? []);
      const n = Math.min(...calls.map((s) => s.length));
      if (n < 100 || calls.some((s) => s.length !== n)) continue;
      const round = (k: number): Round =>
        Object.fromEntries(LIFECYCLE_CALLS.map((c, i) => [c, calls[i]![k]!]));
      for (let k = 0; k + 1 < n; k += 2) pairs.push({ first: round(k), second: round(k + 1) });
    }
    if (pairs.length > 0) pools.push({ runId: run.runId, pairs });
  }
  return pools;
}

/**
 * A night: ROUNDS pairs of one run, each pair in random order; without replacement while the run
 * has that many pairs, with replacement beyond (then repeated rounds tie, as they would not).
 */
function drawNight(rng: Rng, pool: PairRound[]): { a: Round[]; b: Round[] } {
  const index = pool.map((_, i) => i);
  const a: Round[] = [];
  const b: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let p: PairRound;
    if (ROUNDS <= pool.length) {
      const j = i + rng.int(index.length - i);
      [index[i], index[j]] = [index[j]!, index[i]!];
      p = pool[index[i]!]!;
    } else p = pool[rng.int(pool.length)]!;
    const swap = rng.int(2) === 1;
    a.push(swap ? p.second : p.first);
    b.push(swap ? p.first : p.second);
  }
  return { a, b };
}

/** All 11 metrics of a round: the calls (one of them scaled) and the phases recomputed from them. */
function metricsOf(round: Round, planted: string | null, factor: number): Round {
  const calls = { ...round };
  if (planted !== null) calls[planted] = calls[planted]! * factor;
  return { ...calls, ...phaseValues(calls as Parameters<typeof phaseValues>[0]) };
}

interface Tally {
  histories: number;
  firstNight: number;
  withinLooks: number;
  /** Nights with any false verdict, over all metrics (A/A) or the untouched ones (step), and nights looked at. */
  falseNights: number;
  nights: number;
  /** Flagged at some look: change within ±2 points of the step (at the flagging look). */
  flagged: number;
  flaggedClose: number;
  /** First nights: the planted metric's change within ±2 points. */
  firstClose: number;
  /** A/A: final verdicts of all metrics. */
  verdicts: Record<string, number>;
  looksUsed: number;
}

/** One history of up to LOOKS nights; `planted` null is A/A. */
function history(
  rng: Rng,
  pools: { pairs: PairRound[] }[],
  planted: string | null,
  step: number,
  t: Tally,
): void {
  // Nights from different runs.
  const order = pools.map((_, i) => i);
  let open = new Set(METRICS);
  const pooledA: Record<string, number[]> = Object.fromEntries(METRICS.map((m) => [m, []]));
  const pooledB: Record<string, number[]> = Object.fromEntries(METRICS.map((m) => [m, []]));
  const touched = new Set(
    planted === null
      ? []
      : [
          planted,
          ...Object.entries(PHASES).flatMap(([ph, calls]) => (calls.includes(planted as never) ? [ph] : [])),
        ],
  );
  let flagged = false;
  t.histories++;
  for (let look = 1; look <= LOOKS && open.size > 0; look++) {
    const j = look - 1 + rng.int(order.length - look + 1);
    [order[look - 1], order[j]] = [order[j]!, order[look - 1]!];
    const night = drawNight(rng, pools[order[look - 1]!]!.pairs);
    for (let k = 0; k < ROUNDS; k++) {
      const ra = metricsOf(night.a[k]!, null, 1);
      const rb = metricsOf(night.b[k]!, planted, 1 + step);
      for (const m of METRICS) {
        pooledA[m]!.push(ra[m]!);
        pooledB[m]!.push(rb[m]!);
      }
    }
    const pairs: MetricPair[] = [...open].map((m) => ({
      metric: m,
      direction: 'lower',
      threshold: THRESHOLD,
      a: pooledA[m]!,
      b: pooledB[m]!,
      roundsMatched: true,
    }));
    const d = decideLook(pairs, { alpha: ALPHA, look, looks: LOOKS, spending: SPENDING });
    t.nights++;
    t.looksUsed++;
    if (
      d.metrics.some(
        (r) => !touched.has(r.metric) && (r.verdict === 'regression' || r.verdict === 'improvement'),
      )
    )
      t.falseNights++;
    if (planted !== null) {
      const r = d.metrics.find((x) => x.metric === planted);
      if (r) {
        const close = Math.abs(r.change - step) <= 0.02;
        if (look === 1 && close) t.firstClose++;
        if (r.verdict === 'regression' && !flagged) {
          flagged = true;
          if (look === 1) t.firstNight++;
          t.withinLooks++;
          t.flagged++;
          if (close) t.flaggedClose++;
        }
      }
    } else for (const r of d.metrics) if (r.final) t.verdicts[r.verdict] = (t.verdicts[r.verdict] ?? 0) + 1;
    open = new Set(d.repeat);
  }
}

const newTally = (): Tally => ({
  histories: 0,
  firstNight: 0,
  withinLooks: 0,
  falseNights: 0,
  nights: 0,
  flagged: 0,
  flaggedClose: 0,
  firstClose: 0,
  verdicts: {},
  looksUsed: 0,
});

/** "+4.8 % [+1.2, +8.4] at 99.92 %: regression" — the verdict beside what it is read off. */
function formatDecision(r: MetricDecision): string {
  const bound = (v: number): string => (Number.isFinite(v) ? formatChange(v).replace(' %', '') : '∞');
  return `${formatChange(r.change)} [${bound(r.lower)}, ${bound(r.upper)}] at ${(100 * r.confidence).toFixed(2)} %: ${r.verdict}`;
}

/**
 * The decision on the real version pairs of data/, one night each (look 1 of LOOKS): runc 1.1.5
 * → 1.2.6 in every nightly-shaped run, and each pair of neighbouring versions of a sweep. The
 * recorded runs kept a fixed order within a round (the nightly will randomise it), so a
 * position effect is not excluded.
 */
function realPairs(runs: readonly RunResult[]): string[][] {
  const rows: string[][] = [];
  for (const run of runs) {
    const ok = run.results.filter(
      (r) =>
        r.benchmark === LIFECYCLE &&
        r.status === 'ok' &&
        r.failedAttempts === 0 &&
        r.metrics[0]!.samples.length >= 100,
    );
    const byTarget = new Map(ok.map((r) => [r.target, r]));
    const pairs: [string, string][] =
      run.config.name === 'sweep'
        ? ok.slice(1).map((r, i) => [ok[i]!.target, r.target])
        : byTarget.has('nightly-ctl/runc') && byTarget.has('nightly-ctl/runc-1.2.6')
          ? [['nightly-ctl/runc', 'nightly-ctl/runc-1.2.6']]
          : [];
    for (const [from, to] of pairs) {
      const samples = (t: string, m: string): number[] =>
        byTarget.get(t)!.metrics.find((x) => x.name === m)!.samples;
      const d = decideLook(
        METRICS.map((m) => ({
          metric: m,
          direction: 'lower',
          threshold: THRESHOLD,
          a: samples(from, m),
          b: samples(to, m),
          roundsMatched: samples(from, m).length === samples(to, m).length,
        })),
        { alpha: ALPHA, look: 1, looks: LOOKS, spending: SPENDING },
      );
      const start = d.metrics.find((r) => r.metric === 'StartContainer')!;
      const count = (v: string): number => d.metrics.filter((r) => r.verdict === v).length;
      rows.push([
        run.runId,
        from.split('/')[0] === to.split('/')[0]
          ? `${from} → ${to.split('/').slice(1).join('/')}`
          : `${from} → ${to}`,
        formatDecision(start),
        formatP(start.test.pValue),
        `${count('regression')} / ${count('improvement')} / ${count('same')} / ${count('unclear')}`,
      ]);
    }
  }
  return rows;
}

const started = Date.now();
const runs = (await readHistoryDir(values.data)).entries.map((e) => e.run);
const pools = pairPools(runs);
if (pools.length < LOOKS)
  throw new Error(
    `${values.data}: ${pools.length} runs with ${ROUNDS} A/A pairs of rounds; need ${LOOKS} at least`,
  );
const pairCount = pools.reduce((s, p) => s + p.pairs.length, 0);
const replaced = pools.filter((p) => p.pairs.length < ROUNDS).length;

const aa = newTally();
for (let h = 0; h < HISTORIES; h++) history(createRng(h), pools, null, 0, aa);

const pct = (k: number, n: number): string => `${formatPercent(k / Math.max(1, n))} (${k}/${n})`;
const rows: string[][] = [];
const steps = values.steps.split(',').map((s) => Number(s) / 100);
for (const planted of PLANTED)
  for (const step of steps) {
    const t = newTally();
    for (let h = 0; h < HISTORIES; h++)
      history(createRng(1_000_000 * (1 + step * 100) + h), pools, planted, step, t);
    rows.push([
      planted,
      `+${Math.round(step * 100)} %`,
      pct(t.firstNight, t.histories),
      pct(t.withinLooks, t.histories),
      pct(t.firstClose, t.histories),
      pct(t.flaggedClose, t.flagged),
      pct(t.falseNights, t.nights),
    ]);
  }

console.log(
  `side by side: ${pools.length} runs, ${pairCount} A/A pairs of neighbouring rounds; ${ROUNDS} rounds a night${replaced ? ` (drawn with replacement in the ${replaced} runs with fewer pairs)` : ''}, ≤ ${LOOKS} nights pooled; alpha ${ALPHA} (${SPENDING}), Holm over ${METRICS.length} metrics, threshold ${formatPercent(THRESHOLD)}; ${HISTORIES} histories a cell (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
console.log(
  terminalTable(
    [
      'planted in',
      'step',
      'flagged 1st night',
      `within ${LOOKS} nights`,
      '1st night within ±2 pts',
      'flagged within ±2 pts',
      'false nights, other metrics',
    ],
    rows,
  ),
);
const finals = Object.values(aa.verdicts).reduce((a, b) => a + b, 0);
console.log(
  `A/A (${HISTORIES} histories, ${aa.nights} nights): nights with a false verdict over all ${METRICS.length} metrics ${pct(aa.falseNights, aa.nights)}; final verdicts of the metrics: ${Object.entries(
    aa.verdicts,
  )
    .sort()
    .map(([v, k]) => `${v} ${pct(k, finals)}`)
    .join(', ')}`,
);

console.log(
  `\nReal version pairs in ${values.data}, one night each (look 1 of ${LOOKS}, the same alpha, threshold and Holm):`,
);
console.log(
  terminalTable(
    ['run', 'pair', 'StartContainer', 'p', 'all 11 metrics: regr. / impr. / same / unclear'],
    realPairs(runs),
  ),
);
