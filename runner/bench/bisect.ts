// The bisection's error rates (issue 25), on an oracle: a history of releases and commits like
// runc 1.1.5 → 1.3.6 (27 releases, 40 first-parent commits between two releases), one commit of
// which makes StartContainer `step` slower. Every sample is its version's level × a per-round
// drift shared by the round (good, candidate and bad are measured back to back) × a noise factor
// drawn from the recorded StartContainer samples in data/ (each divided by its run-target's
// median: the real within-run spread and tails, "the nightly noise"; --noise-scale widens it).
// The table counts, over --bisections runs with the culprit drawn uniformly:
//
//   wrong steps      steps whose clear verdict (good/bad) is wrong
//   unclear steps    steps that stayed unclear at their last look (or found the candidate between the ends)
//   wrong            bisections that named another commit (target ≤ 5 % on a +10 % step)
//   unresolved       bisections that ended ambiguous, non-monotonic or over budget (no answer,
//                    not a wrong one)
//   steps, rounds    per bisection (mean, max): what it costs
//
// --commit-offsets simulates builds from the clone measuring a constant factor away from release
// builds of the same code (another recipe or toolchain: issue 38): every commit measures
// (1 + offset) times its release-built level. "rebuilt ends" measures the commit phase against
// the ends rebuilt as commits (one recipe, the CLI with --git-dir); "release ends" against the
// release builds, as before — where the offset shows as candidates outside the ends' span.
//
//   node runner/bench/bisect.ts [--bisections 200] [--steps 10,20] [--alpha 0.02]
//        [--rounds-per-look 20] [--looks 15] [--noise-scale 1] [--commit-offsets 0] [--data DIR]
//   pnpm --filter @runtime-bench/runner bench:bisect-offset   (+10 %, offsets 0, 5 and 15 %)
import { startContainerResiduals } from './residuals.ts';
import { parseArgs } from 'node:util';
import { bisect, BISECT_DEFAULTS } from '../src/bisect/bisect.ts';
import { formatPercent, terminalTable } from '../src/format/index.ts';
import { createRng, type Rng } from '../src/stats/index.ts';
import { containsCulprit, makeHistory, oracleDeps, oracleOptions } from '../test/support/bisect-oracle.ts';

const { values } = parseArgs({
  options: {
    bisections: { type: 'string', default: '200' },
    steps: { type: 'string', default: '10,20' },
    alpha: { type: 'string', default: String(BISECT_DEFAULTS.alpha) },
    'rounds-per-look': { type: 'string', default: String(BISECT_DEFAULTS.roundsPerLook) },
    looks: { type: 'string', default: String(BISECT_DEFAULTS.maxLooks) },
    'noise-scale': { type: 'string', default: '1' },
    drift: { type: 'string', default: '0.05' },
    'commit-offsets': { type: 'string', default: '0' },
    data: { type: 'string', default: new URL('../../data/runs', import.meta.url).pathname },
  },
});

const residuals = await startContainerResiduals(values.data);
const scale = Number(values['noise-scale']);
const noise = (rng: Rng): number => Math.exp(scale * residuals[rng.int(residuals.length)]!);

const RELEASES = 27;
const COMMITS_PER_RELEASE = 40;
const n = Number(values.bisections);
const rows: string[][] = [];
type Ends = 'rebuilt ends' | 'release ends';
const variants: { offset: number; ends: Ends }[] = values['commit-offsets']
  .split(',')
  .map(Number)
  .flatMap((offset) =>
    offset === 0
      ? [{ offset, ends: 'rebuilt ends' as const }]
      : [
          { offset, ends: 'rebuilt ends' as const },
          { offset, ends: 'release ends' as const },
        ],
  );
for (const step of values.steps.split(',').map(Number))
  for (const { offset, ends } of variants) {
    let wrongSteps = 0;
    let unclearSteps = 0;
    let clearSteps = 0;
    let wrong = 0;
    let unresolved = 0;
    const why = new Map<string, number>();
    const stepsTaken: number[] = [];
    const rounds: number[] = [];
    for (let b = 0; b < n; b++) {
      const rng = createRng(1000 * step + b);
      // The culprit is any commit after the first release up to the last.
      const culpritAt = 1 + rng.int(RELEASES * COMMITS_PER_RELEASE - COMMITS_PER_RELEASE);
      const h = makeHistory({
        commits: (RELEASES - 1) * COMMITS_PER_RELEASE + 1,
        every: COMMITS_PER_RELEASE,
        culprit: (c) => c[Math.min(culpritAt, c.length - 1)]!.hash,
        factor: 1 + step / 100,
      });
      const opts = oracleOptions(h, {
        alpha: Number(values.alpha),
        roundsPerLook: Number(values['rounds-per-look']),
        maxLooks: Number(values.looks),
      });
      const deps = oracleDeps(h, rng, noise, Number(values.drift), undefined, 1 + offset / 100);
      if (ends === 'release ends') delete deps.releaseCommit;
      const r = await bisect(opts, deps);
      for (const s of r.steps) {
        if (s.kind !== 'candidate') continue;
        if (s.verdict === 'unclear' || s.verdict === 'between') unclearSteps++;
        else {
          clearSteps++;
          if ((s.verdict === 'bad') !== containsCulprit(h, s.candidate.ref)) wrongSteps++;
        }
      }
      if (r.outcome !== 'found') {
        unresolved++;
        why.set(r.outcome, (why.get(r.outcome) ?? 0) + 1);
      } else if (r.firstBadCommit?.ref !== h.culprit) wrong++;
      stepsTaken.push(r.steps.length);
      rounds.push(deps.stats.rounds);
    }
    const mean = (x: number[]) => x.reduce((a, v) => a + v, 0) / x.length;
    const steps = clearSteps + unclearSteps;
    rows.push([
      `+${step} %`,
      offset === 0 ? '0' : `+${offset} %, ${ends}`,
      String(n),
      `${formatPercent(wrongSteps / Math.max(1, clearSteps))} (${wrongSteps}/${clearSteps})`,
      `${formatPercent(unclearSteps / Math.max(1, steps))}`,
      `${formatPercent(wrong / n)} (${wrong})`,
      `${formatPercent(unresolved / n)} (${[...why].map(([k, v]) => `${v} ${k}`).join(', ') || 0})`,
      `${mean(stepsTaken).toFixed(1)} / ${Math.max(...stepsTaken)}`,
      `${mean(rounds).toFixed(0)} / ${Math.max(...rounds)}`,
    ]);
  }
console.log(
  `bisect oracle: ${RELEASES} releases × ${COMMITS_PER_RELEASE} commits, noise = ${residuals.length} recorded StartContainer residuals × ${scale}, drift ${values.drift}/round; alpha ${values.alpha}, ≤ ${values.looks} looks of ${values['rounds-per-look']} rounds`,
);
console.log(
  terminalTable(
    [
      'step',
      'commit offset',
      'bisections',
      'wrong steps',
      'unclear steps',
      'wrong',
      'unresolved',
      'steps mean/max',
      'rounds mean/max',
    ],
    rows,
  ),
);
