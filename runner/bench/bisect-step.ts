// One bisection step, two ways of deciding it (issue 38 item 3): the signed-rank tests of
// positionLook, and positionDecision, whose good / bad / between are read off the printed
// intervals (candidate / good, bad / candidate) and a threshold of half the ends' change. The
// oracle of bench:bisect: every sample is its version's level × a drift shared by the round ×
// a noise factor drawn from the recorded StartContainer samples in data/ (each divided by its
// run-target's median). A candidate is the good or the bad version (alternately); the step is
// measured look after look (rounds of good, candidate, bad) until it decides or the looks end.
//
//   wrong     a clear verdict (good / bad) naming the other end
//   unclear   unclear on the last look, or "between" (both ends differ from it)
//
//   node runner/bench/bisect-step.ts [--trials 2000] [--steps 10,20] [--alpha 0.01]
//        [--rounds-per-look 20] [--looks 15] [--drift 0.05] [--data DIR]
import { startContainerResiduals } from './residuals.ts';
import { parseArgs } from 'node:util';
import { BISECT_DEFAULTS } from '../src/bisect/bisect.ts';
import { formatPercent, terminalTable } from '../src/format/index.ts';
import { createRng, positionDecision, positionLook, type Rng } from '../src/stats/index.ts';
import { gaussian } from '../test/support/bisect-oracle.ts';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '2000' },
    steps: { type: 'string', default: '10,20' },
    alpha: { type: 'string', default: String(BISECT_DEFAULTS.alpha) },
    'rounds-per-look': { type: 'string', default: String(BISECT_DEFAULTS.roundsPerLook) },
    looks: { type: 'string', default: String(BISECT_DEFAULTS.maxLooks) },
    drift: { type: 'string', default: '0.05' },
    data: { type: 'string', default: new URL('../../data/runs', import.meta.url).pathname },
  },
});
const TRIALS = Number(values.trials);
const ALPHA = Number(values.alpha);
const PER_LOOK = Number(values['rounds-per-look']);
const LOOKS = Number(values.looks);
const DRIFT = Number(values.drift);

const residuals = await startContainerResiduals(values.data);

type Decide = 'signed-rank tests (positionLook)' | 'read off intervals (positionDecision)';
const WAYS: Decide[] = ['signed-rank tests (positionLook)', 'read off intervals (positionDecision)'];

function step(
  rng: Rng,
  factor: number,
  candidateIsBad: boolean,
  way: Decide,
): { verdict: string; rounds: number } {
  const g: number[] = [];
  const c: number[] = [];
  const b: number[] = [];
  const sample = (level: number, drift: number): number =>
    level * drift * Math.exp(residuals[rng.int(residuals.length)]!);
  for (let look = 1; look <= LOOKS; look++) {
    for (let r = 0; r < PER_LOOK; r++) {
      const drift = Math.exp(DRIFT * gaussian(rng));
      g.push(sample(50, drift));
      c.push(sample(candidateIsBad ? 50 * factor : 50, drift));
      b.push(sample(50 * factor, drift));
    }
    const opts = { direction: 'larger' as const, alpha: ALPHA, look, looks: LOOKS };
    const verdict =
      way === WAYS[0] ? positionLook(g, c, b, opts).verdict : positionDecision(g, c, b, opts).verdict;
    if (verdict !== 'continue') return { verdict, rounds: g.length };
  }
  throw new Error('unreachable: the last look decides or says unclear');
}

const rows: string[][] = [];
for (const stepPct of values.steps.split(',').map(Number))
  for (const way of WAYS) {
    let wrong = 0;
    let unclear = 0;
    let rounds = 0;
    for (let t = 0; t < TRIALS; t++) {
      // The same seed for both ways: the same samples, look by look, until one of them stops.
      const rng = createRng(1000 * stepPct + t);
      const candidateIsBad = t % 2 === 1;
      const s = step(rng, 1 + stepPct / 100, candidateIsBad, way);
      rounds += s.rounds;
      if (s.verdict === 'unclear' || s.verdict === 'between') unclear++;
      else if ((s.verdict === 'bad') !== candidateIsBad) wrong++;
    }
    rows.push([
      `+${stepPct} %`,
      way,
      String(TRIALS),
      `${formatPercent(wrong / TRIALS)} (${wrong})`,
      `${formatPercent(unclear / TRIALS)} (${unclear})`,
      (rounds / TRIALS).toFixed(0),
    ]);
  }
console.log(
  `bisection step: ${residuals.length} recorded StartContainer residuals, drift ${DRIFT}/round; alpha ${ALPHA}, ≤ ${LOOKS} looks of ${PER_LOOK} rounds; the candidate is good or bad alternately`,
);
console.log(terminalTable(['step', 'decision', 'steps', 'wrong', 'unclear', 'rounds mean'], rows));
