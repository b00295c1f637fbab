// The bisection: checks that good and bad differ, then narrows releases, then commits, one
// sequential step at a time. Building and measuring are injected (BisectDeps), so the whole walk
// runs on an oracle in tests and in `pnpm bench`, and on real builds and a real stack in the CLI.
import type { BisectCandidate, BisectReport, BisectStep, RatioInterval } from '@runtime-bench/schemas';
import {
  endsLook,
  positionLook,
  type BadDirection,
  type EndsLook,
  type PairedLogT,
  type SignedRank,
} from '../stats/index.ts';
import { errorMessage, RbError } from '../errors.ts';
import { applyVerdict, nextMove, startSearch, type SearchState } from './search.ts';

export interface BuiltCandidate {
  candidate: BisectCandidate;
  /** The runtime binary to register as a handler. */
  binary: string;
}

export interface Measurement {
  /** Per build given, its samples of the metric, aligned by round (same length). */
  samples: number[][];
  runId: string;
}

export interface BisectDeps {
  /** Builds or installs a candidate (called once per candidate; the driver keeps the result). */
  build(candidate: BisectCandidate): Promise<BuiltCandidate>;
  /** Measures `rounds` rounds of the builds, interleaved in the order given, in one run. */
  measure(builds: readonly BuiltCandidate[], rounds: number): Promise<Measurement>;
  /** Commits after `good` up to and including `bad` (first parent), or null without a clone. */
  commitsBetween?(good: BisectCandidate, bad: BisectCandidate): Promise<BisectCandidate[] | null>;
  /** The commits a merge brought in (its second parent's side), empty for an ordinary commit. */
  mergeSide?(commit: BisectCandidate): Promise<BisectCandidate[]>;
  /** Milliseconds, monotonic enough for budgets. */
  now(): number;
  log(line: string): void;
}

export interface BisectOptions {
  component: string;
  benchmark: string;
  metric: string;
  /** Which way bad differs from good, as the user says it. */
  direction: 'slower' | 'faster';
  /** The metric's better direction (a latency: lower; a throughput: higher). */
  metricDirection: 'lower' | 'higher';
  /** Releases from good to bad inclusive (releasesBetween), or good, the named candidates, bad. */
  candidates: BisectCandidate[];
  alpha: number;
  roundsPerLook: number;
  maxLooks: number;
  /** Measurements of one candidate before it is skipped as unclear (2: one re-measurement). */
  maxAttempts: number;
  budgetMinutes: number | null;
}

type Outcome = BisectReport['outcome'];
export type BisectWalk = Omit<BisectReport, 'schemaVersion' | 'startedAt' | 'finishedAt' | 'tool' | 'host'>;

/** Defaults of the CLI and the bench (the bench's table shows what they achieve). */
export const BISECT_DEFAULTS = { alpha: 0.01, roundsPerLook: 20, maxLooks: 15, maxAttempts: 2 } as const;

export const BISECT_TEST =
  'per round ln C − ln G and ln B − ln C, Wilcoxon signed-rank one-sided each, group-sequential with Bonferroni looks (alpha / looks / 2 each side)';

function interval(r: PairedLogT, confidence = 0.95): RatioInterval {
  return { ratio: r.ratio, lower: r.ratioLower, upper: r.ratioUpper, confidence, n: r.n };
}

/** A bisection that stopped before its end: the report of the steps so far, and why. */
export class BisectStopped extends Error {
  readonly walk: BisectWalk;
  constructor(walk: BisectWalk, cause: unknown) {
    super(walk.message, { cause });
    this.name = 'BisectStopped';
    this.walk = walk;
  }
}

/** Which way a bad version's values go: slower is larger for a latency, smaller for a throughput. */
export function badValues(direction: 'slower' | 'faster', metricDirection: 'lower' | 'higher'): BadDirection {
  return (direction === 'slower') === (metricDirection === 'lower') ? 'larger' : 'smaller';
}

/** Runs a bisection with the given side effects and returns the report's body. */
export async function bisect(opts: BisectOptions, deps: BisectDeps): Promise<BisectWalk> {
  const started = deps.now();
  const steps: BisectStep[] = [];
  const built = new Map<string, { build: BuiltCandidate; seconds: number }>();
  let buildSeconds = 0;
  let measureSeconds = 0;
  const good = opts.candidates[0]!;
  const bad = opts.candidates[opts.candidates.length - 1]!;

  async function build(c: BisectCandidate): Promise<{ build: BuiltCandidate; seconds: number }> {
    const known = built.get(c.ref);
    if (known) return { build: known.build, seconds: 0 };
    const t0 = deps.now();
    deps.log(`building ${c.label}`);
    const b = await deps.build(c);
    const seconds = (deps.now() - t0) / 1000;
    buildSeconds += seconds;
    built.set(c.ref, { build: b, seconds });
    return { build: b, seconds };
  }

  const overBudget = (): boolean =>
    opts.budgetMinutes !== null && (deps.now() - started) / 60000 >= opts.budgetMinutes;

  /** Measures the builds look after look until `decide` stops; returns the last look and the runs. */
  async function sequential<L extends { verdict: string }>(
    builds: BuiltCandidate[],
    decide: (samples: number[][], look: number) => L,
  ): Promise<{ last: L; looks: number; runIds: string[]; seconds: number }> {
    const samples: number[][] = builds.map(() => []);
    const runIds: string[] = [];
    const t0 = deps.now();
    let last: L | undefined;
    let look = 0;
    while (look < opts.maxLooks) {
      look++;
      const m = await deps.measure(builds, opts.roundsPerLook);
      runIds.push(m.runId);
      m.samples.forEach((s, i) => samples[i]!.push(...s));
      if (samples[0]!.length < 2) continue; // every round failed so far: nothing to test yet
      last = decide(samples, look);
      if (last.verdict !== 'continue') break;
      if (overBudget()) break;
    }
    const seconds = (deps.now() - t0) / 1000;
    measureSeconds += seconds;
    if (!last)
      throw new RbError(
        'BISECT_NO_SAMPLES',
        `${builds.map((b) => b.candidate.label).join(', ')}: fewer than two rounds with a ${opts.metric} sample in ${look} look(s) — the runs failed`,
        "read the errors in the looks' run results (runs " + runIds.join(', ') + ')',
      );
    return { last, looks: look, runIds, seconds };
  }

  const badWay = badValues(opts.direction, opts.metricDirection);
  /** The one-sided p of a signed-rank statistic in the bad direction. */
  const pBadWay = (r: SignedRank): number => (badWay === 'larger' ? r.pGreater : r.pLess);
  const testOpts = (look: number) => ({
    direction: badWay,
    alpha: opts.alpha,
    look,
    looks: opts.maxLooks,
  });

  let effect: RatioInterval | null = null;
  const result = (
    outcome: Outcome,
    message: string,
    found: Partial<
      Pick<BisectWalk, 'lastGoodRelease' | 'firstBadRelease' | 'lastGoodCommit' | 'firstBadCommit'>
    > = {},
    skippedBetween: BisectCandidate[] = [],
  ): BisectWalk => ({
    component: opts.component,
    good: good.ref,
    bad: bad.ref,
    benchmark: opts.benchmark,
    metric: opts.metric,
    direction: opts.direction,
    method: {
      alpha: opts.alpha,
      roundsPerLook: opts.roundsPerLook,
      maxLooks: opts.maxLooks,
      maxAttempts: opts.maxAttempts,
      test: BISECT_TEST,
    },
    outcome,
    message,
    lastGoodRelease: found.lastGoodRelease ?? null,
    firstBadRelease: found.firstBadRelease ?? null,
    lastGoodCommit: found.lastGoodCommit ?? null,
    firstBadCommit: found.firstBadCommit ?? null,
    skippedBetween,
    effect,
    steps,
    spent: {
      builds: built.size,
      buildMinutes: buildSeconds / 60,
      runnerMinutes: measureSeconds / 60,
      totalMinutes: (deps.now() - started) / 60000,
      budgetMinutes: opts.budgetMinutes,
    },
  });

  // What is known so far (the releases found, the range being narrowed): a walk that stops on an
  // error still reports it.
  let found: Parameters<typeof result>[2] = {};
  let narrowing: SearchState<BisectCandidate> | null = null;
  /** The range a search has narrowed to, as the report's last good / first bad fields. */
  const rangeOf = (state: SearchState<BisectCandidate>): Parameters<typeof result>[2] =>
    // In the commit phase the ends may be releases still: the range is commits then.
    state.candidates.every((c) => c.kind === 'release')
      ? { lastGoodRelease: state.candidates[state.lo]!.ref, firstBadRelease: state.candidates[state.hi]!.ref }
      : { lastGoodCommit: state.candidates[state.lo]!, firstBadCommit: state.candidates[state.hi]! };

  try {
    // 1. Do good and bad differ here at all?
    const g = await build(good);
    const b = await build(bad);
    // As an unclear step, a "same" is measured again before the bisection gives up.
    let ends!: Awaited<ReturnType<typeof sequential<EndsLook>>>;
    let endsVerdict: EndsLook['verdict'] = 'same';
    for (let attempt = 1; attempt <= opts.maxAttempts && endsVerdict === 'same'; attempt++) {
      ends = await sequential([g.build, b.build], ([sg, sb], look) => endsLook(sg!, sb!, testOpts(look)));
      endsVerdict = ends.last.verdict === 'continue' ? 'same' : ends.last.verdict;
      steps.push({
        kind: 'ends',
        candidate: bad,
        attempt,
        verdict: endsVerdict,
        rounds: ends.last.badVsGood.n,
        looks: ends.looks,
        alphaPerLook: ends.last.alphaPerLook,
        pCritical: ends.last.pCritical,
        pBeyondGood: pBadWay(ends.last.signedRank),
        pShortOfBad: null,
        effect: interval(ends.last.badVsGood),
        badVsGood: interval(ends.last.badVsGood),
        position: 1,
        buildSeconds: attempt === 1 ? g.seconds + b.seconds : 0,
        measureSeconds: ends.seconds,
        runIds: ends.runIds,
      });
      if (overBudget()) break;
    }
    effect = interval(ends.last.badVsGood);
    const what = `${opts.benchmark} ${opts.metric}`;
    if (endsVerdict === 'same')
      return result(
        'no-difference',
        `${opts.component} ${bad.label} does not differ from ${good.label} in ${what} on this host (${ends.last.badVsGood.n} rounds): nothing to bisect`,
      );
    if (endsVerdict === 'opposite')
      return result(
        'opposite',
        `${opts.component} ${bad.label} is ${opts.direction === 'slower' ? 'faster' : 'slower'} than ${good.label} in ${what} on this host, not ${opts.direction}: check --good, --bad and --direction`,
      );

    // 2. Narrow one list of candidates; returns the adjacent pair, or why it stopped.
    async function narrow(
      candidates: BisectCandidate[],
    ): Promise<
      | { done: true; good: BisectCandidate; bad: BisectCandidate; skipped: BisectCandidate[] }
      | { done: false; state: SearchState<BisectCandidate> }
    > {
      let state = (narrowing = startSearch(candidates));
      for (;;) {
        const move = nextMove(state);
        if (move.kind === 'done')
          return { done: true, good: move.good, bad: move.bad, skipped: move.skippedBetween };
        if (overBudget()) return { done: false, state };
        let c: Awaited<ReturnType<typeof build>>;
        try {
          c = await build(move.candidate);
        } catch (error) {
          // A commit that does not build (as upstream builds it) is skipped, as `git bisect skip`:
          // the culprit may then be any of the skipped ones between the last good and first bad.
          deps.log(`  ${move.candidate.label}: skipped, it does not build: ${errorMessage(error)}`);
          state = narrowing = applyVerdict(state, move.index, 'unclear', 1);
          continue;
        }
        deps.log(
          `measuring ${move.candidate.label} against ${good.label} and ${bad.label}${move.attempt > 1 ? ` (attempt ${move.attempt})` : ''}`,
        );
        const s = await sequential([g.build, c.build, b.build], ([sg, sc, sb], look) =>
          positionLook(sg!, sc!, sb!, testOpts(look)),
        );
        const verdict = s.last.verdict === 'continue' ? 'unclear' : s.last.verdict;
        // A candidate unlike both ends is re-measured, then skipped, as an unclear one.
        const searchVerdict = verdict === 'between' ? 'unclear' : verdict;
        steps.push({
          kind: 'candidate',
          candidate: move.candidate,
          attempt: move.attempt,
          verdict,
          rounds: s.last.candidateVsGood.n,
          looks: s.looks,
          alphaPerLook: s.last.alphaPerLook,
          pCritical: s.last.pCritical,
          pBeyondGood: pBadWay(s.last.vsGood),
          pShortOfBad: pBadWay(s.last.vsBad),
          effect: interval(s.last.candidateVsGood),
          badVsGood: interval(s.last.badVsGood),
          position: s.last.position,
          buildSeconds: c.seconds,
          measureSeconds: s.seconds,
          runIds: s.runIds,
        });
        deps.log(`  ${move.candidate.label}: ${verdict}`);
        state = narrowing = applyVerdict(state, move.index, searchVerdict, opts.maxAttempts);
      }
    }

    const stopped = (state: SearchState<BisectCandidate>, known: Parameters<typeof result>[2]): BisectWalk =>
      result(
        'budget-exhausted',
        `budget of ${opts.budgetMinutes} min spent: the change lies after ${state.candidates[state.lo]!.label} up to ${state.candidates[state.hi]!.label}`,
        { ...known, ...rangeOf(state) },
      );

    // Named commits or pseudo-versions, or commit ends, are the commit phase themselves.
    const onReleases = opts.candidates.every((c) => c.kind === 'release');
    let range = opts.candidates;
    let tagCommit: BisectCandidate | null = null;
    if (onReleases) {
      const releases = await narrow(opts.candidates);
      if (!releases.done) return stopped(releases.state, {});
      found = { lastGoodRelease: releases.good.ref, firstBadRelease: releases.bad.ref };
      if (releases.skipped.length > 0)
        return result(
          'ambiguous',
          `the change lies after ${releases.good.label} up to ${releases.bad.label}; steps between stayed unclear`,
          found,
          releases.skipped,
        );
      // 3. The commits between the two adjacent releases, then into a bad merge's branch.
      const commits = (await deps.commitsBetween?.(releases.good, releases.bad)) ?? null;
      if (commits === null)
        return result(
          'found',
          `first bad release ${releases.bad.label} (last good ${releases.good.label}); give --git-dir to bisect its commits`,
          found,
        );
      // The last commit listed is the bad release's own: the release build stands for it.
      tagCommit = commits[commits.length - 1] ?? releases.bad;
      range = [releases.good, ...commits.slice(0, -1), releases.bad];
    }
    const expanded = new Set<string>();
    for (;;) {
      const r = await narrow(range);
      if (!r.done) return stopped(r.state, found);
      if (r.skipped.length > 0)
        return result(
          'ambiguous',
          `the change lies after ${r.good.label} up to ${r.bad.label}; steps between stayed unclear`,
          { ...found, lastGoodCommit: r.good, firstBadCommit: r.bad },
          r.skipped,
        );
      const firstBad = r.bad.kind === 'release' ? (tagCommit ?? r.bad) : r.bad;
      // Only a commit can be a merge (a release end of named candidates has no hash to follow).
      const side =
        firstBad.kind !== 'commit' || expanded.has(firstBad.ref)
          ? []
          : ((await deps.mergeSide?.(firstBad)) ?? []);
      if (side.length === 0)
        return result(
          'found',
          onReleases
            ? `first bad release ${found.firstBadRelease}, first bad commit ${firstBad.label}`
            : `first bad: ${firstBad.label} (last good ${r.good.label})`,
          {
            ...found,
            lastGoodCommit: r.good,
            firstBadCommit: firstBad,
          },
        );
      // The merge's first parent is good: which of the commits it brought in did it?
      deps.log(`${firstBad.label} is a merge: bisecting the ${side.length} commits it brought in`);
      expanded.add(firstBad.ref);
      range = [r.good, ...side, firstBad];
    }
  } catch (error) {
    // Whatever stopped the walk (a signal, a failed build or run), the steps so far are reported.
    throw new BisectStopped(
      result('failed', `stopped: ${errorMessage(error)}`, {
        ...found,
        ...(narrowing ? rangeOf(narrowing) : {}),
      }),
      error,
    );
  }
}
