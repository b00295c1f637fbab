// The bisection: checks that good and bad differ, then narrows releases, then commits, one
// sequential step at a time. Every verdict is read off its printed intervals and threshold
// (stats/position-decision.ts); what was found is always the narrowest range the steps reached
// (range.ts); a candidate measuring outside the ends' span stops the search (consistency.ts).
// Building and measuring are injected (BisectDeps), so the whole walk runs on an oracle in tests
// and in `pnpm bench`, and on real builds and a real stack in the CLI.
import type {
  BisectBuild,
  BisectCandidate,
  BisectReportV3,
  BisectStep,
  ComponentBuild,
} from '@runtime-bench/schemas';
import {
  endsDecision,
  positionDecision,
  type BadDirection,
  type EndsDecision,
  type PositionDecision,
} from '../stats/index.ts';
import { errorMessage, RbError } from '../errors.ts';
import { BuildFailedError } from '../install/build-failure.ts';
import { nonMonotonicMessage } from './consistency.ts';
import { narrowestRange, type FoundRange } from './range.ts';
import { applyVerdict, nextMove, startSearch } from './search.ts';
import { candidateStep, endsStep } from './step-record.ts';

export interface BuiltCandidate {
  candidate: BisectCandidate;
  /** The runtime binary to register as a handler. */
  binary: string;
  /** How it was built (null or absent: installed, or the build did not say). */
  record?: ComponentBuild | null;
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
  /**
   * A release's own commit, to be built as the commits between are: with it the commit phase
   * measures its candidates against good and bad rebuilt as commits (one recipe for all three),
   * not against the release builds.
   */
  releaseCommit?(release: BisectCandidate): Promise<BisectCandidate>;
  /**
   * The tree a candidate is built from (a commit's tree id), null when unknown: candidates of one
   * tree are one code (a merge that only brings in its side branch has the tree of that branch's
   * tip), so a tree already judged gives its verdict without being built or measured again.
   */
  treeOf?(candidate: BisectCandidate): Promise<string | null>;
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

type Outcome = BisectReportV3['outcome'];
export type BisectWalk = Omit<BisectReportV3, 'schemaVersion' | 'startedAt' | 'finishedAt' | 'tool' | 'host'>;

/** Defaults of the CLI and the bench (the bench's table shows what they achieve). */
export const BISECT_DEFAULTS = { alpha: 0.01, roundsPerLook: 20, maxLooks: 15, maxAttempts: 2 } as const;

export const BISECT_TEST =
  'read off intervals: per round ln C/G and ln B/C, Hodges–Lehmann with the signed-rank interval at 1 − alpha / looks; bad: C/G a regression of at least τ or B/C inside ±τ, good: the reverse, τ = half of B/G; the ends: B/G excludes 0';

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
  const builds: BisectBuild[] = [];
  const failed = new Map<string, unknown>();
  let buildSeconds = 0;
  let measureSeconds = 0;
  /** Verdicts by tree: identical code is judged once (two looks of noise could split it). */
  const verdictByTree = new Map<string, 'good' | 'bad'>();
  const treeOf = async (c: BisectCandidate): Promise<string | null> => (await deps.treeOf?.(c)) ?? null;
  const remember = async (c: BisectCandidate, verdict: string): Promise<void> => {
    const tree = verdict === 'good' || verdict === 'bad' ? await treeOf(c) : null;
    if (tree !== null && !verdictByTree.has(tree)) verdictByTree.set(tree, verdict as 'good' | 'bad');
  };
  const good = opts.candidates[0]!;
  const bad = opts.candidates[opts.candidates.length - 1]!;
  // Named commits or pseudo-versions, or commit ends, are the commit phase themselves.
  const onReleases = opts.candidates.every((c) => c.kind === 'release');
  const walkEnds = { good, bad, releases: onReleases };

  async function build(c: BisectCandidate): Promise<{ build: BuiltCandidate; seconds: number }> {
    const known = built.get(c.ref);
    if (known) return { build: known.build, seconds: 0 };
    // A build that failed fails again: its recipe and source are the same.
    if (failed.has(c.ref)) throw failed.get(c.ref);
    const t0 = deps.now();
    deps.log(`building ${c.label}`);
    let b: BuiltCandidate;
    try {
      b = await deps.build(c);
    } catch (error) {
      // A candidate that does not build is reported with the recipe it ran.
      failed.set(c.ref, error);
      builds.push({
        candidate: c,
        build: error instanceof BuildFailedError ? error.attempt : null,
        error: errorMessage(error),
      });
      throw error;
    }
    const seconds = (deps.now() - t0) / 1000;
    buildSeconds += seconds;
    built.set(c.ref, { build: b, seconds });
    builds.push({ candidate: c, build: b.record ?? null, error: null });
    return { build: b, seconds };
  }

  const overBudget = (): boolean =>
    opts.budgetMinutes !== null && (deps.now() - started) / 60000 >= opts.budgetMinutes;

  /** Measures the builds look after look until `decide` stops; returns the last look and the runs. */
  async function sequential<L extends { verdict: string }>(
    toMeasure: BuiltCandidate[],
    decide: (samples: number[][], look: number) => L,
  ): Promise<{ last: L; looks: number; rounds: number; runIds: string[]; seconds: number }> {
    const samples: number[][] = toMeasure.map(() => []);
    const runIds: string[] = [];
    const t0 = deps.now();
    let last: L | undefined;
    let look = 0;
    while (look < opts.maxLooks) {
      look++;
      const m = await deps.measure(toMeasure, opts.roundsPerLook);
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
        `${toMeasure.map((b) => b.candidate.label).join(', ')}: fewer than two rounds with a ${opts.metric} sample in ${look} look(s) — the runs failed`,
        "read the errors in the looks' run results (runs " + runIds.join(', ') + ')',
      );
    return { last, looks: look, rounds: samples[0]!.length, runIds, seconds };
  }

  const badWay: BadDirection = badValues(opts.direction, opts.metricDirection);
  const testOpts = (look: number) => ({
    direction: badWay,
    alpha: opts.alpha,
    look,
    looks: opts.maxLooks,
  });

  let effect: BisectReportV3['effect'] = null;
  /** The report's body; what was found is the narrowest range of the steps unless `found` says more. */
  const result = (
    outcome: Outcome,
    message: string,
    found: Partial<FoundRange> = {},
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
    ...narrowestRange(walkEnds, steps),
    ...found,
    skippedBetween,
    effect,
    builds,
    steps,
    spent: {
      builds: built.size,
      buildMinutes: buildSeconds / 60,
      runnerMinutes: measureSeconds / 60,
      totalMinutes: (deps.now() - started) / 60000,
      budgetMinutes: opts.budgetMinutes,
    },
  });
  const what = `${opts.benchmark} ${opts.metric}`;

  /**
   * Do these builds of good and bad differ here? Measured again (maxAttempts) before "same". The
   * first check (the ends as named) gives the report's effect; a later one (the ends rebuilt as
   * commits) is a step of its own.
   */
  async function checkEnds(
    g: { build: BuiltCandidate; seconds: number },
    b: { build: BuiltCandidate; seconds: number },
    reportsEffect: boolean,
  ): Promise<EndsDecision['verdict']> {
    let verdict: EndsDecision['verdict'] = 'same';
    for (let attempt = 1; attempt <= opts.maxAttempts && verdict === 'same'; attempt++) {
      const ends = await sequential([g.build, b.build], ([sg, sb], look) =>
        endsDecision(sg!, sb!, testOpts(look)),
      );
      verdict = ends.last.verdict === 'continue' ? 'same' : ends.last.verdict;
      const step = endsStep(
        {
          candidate: b.build.candidate,
          attempt,
          rounds: ends.rounds,
          looks: ends.looks,
          buildSeconds: attempt === 1 ? g.seconds + b.seconds : 0,
          measureSeconds: ends.seconds,
          runIds: ends.runIds,
        },
        ends.last,
        verdict,
      );
      steps.push(step);
      if (reportsEffect) effect = step.effect;
      if (overBudget()) break;
    }
    return verdict;
  }

  type Narrowed =
    | { done: true; good: BisectCandidate; bad: BisectCandidate; skipped: BisectCandidate[] }
    | { done: false; why: 'budget' | 'non-monotonic'; message: string };

  /** Narrows one list of candidates, each measured beside these builds of its ends. */
  async function narrow(
    candidates: BisectCandidate[],
    g: BuiltCandidate,
    b: BuiltCandidate,
  ): Promise<Narrowed> {
    let state = startSearch(candidates);
    await remember(g.candidate, 'good');
    await remember(b.candidate, 'bad');
    for (;;) {
      const move = nextMove(state);
      if (move.kind === 'done')
        return { done: true, good: move.good, bad: move.bad, skipped: move.skippedBetween };
      if (overBudget()) return { done: false, why: 'budget', message: budgetMessage() };
      const tree = await treeOf(move.candidate);
      const known = tree === null ? undefined : verdictByTree.get(tree);
      if (known) {
        deps.log(
          `  ${move.candidate.label}: ${known}, the tree of a candidate judged ${known} (not measured again)`,
        );
        state = applyVerdict(state, move.index, known, opts.maxAttempts);
        continue;
      }
      let c: Awaited<ReturnType<typeof build>>;
      try {
        c = await build(move.candidate);
      } catch (error) {
        // A commit that does not build (as upstream builds it) is skipped, as `git bisect skip`:
        // the culprit may then be any of the skipped ones between the last good and first bad.
        deps.log(`  ${move.candidate.label}: skipped, it does not build: ${errorMessage(error)}`);
        state = applyVerdict(state, move.index, 'unclear', 1);
        continue;
      }
      deps.log(
        `measuring ${move.candidate.label} against ${g.candidate.label} and ${b.candidate.label}${move.attempt > 1 ? ` (attempt ${move.attempt})` : ''}`,
      );
      const s = await sequential([g, c.build, b], ([sg, sc, sb], look) =>
        positionDecision(sg!, sc!, sb!, testOpts(look)),
      );
      const verdict: PositionDecision['verdict'] & BisectStep['verdict'] =
        s.last.verdict === 'continue' ? 'unclear' : s.last.verdict;
      const step = candidateStep(
        {
          candidate: move.candidate,
          attempt: move.attempt,
          rounds: s.rounds,
          looks: s.looks,
          buildSeconds: c.seconds,
          measureSeconds: s.seconds,
          runIds: s.runIds,
        },
        s.last,
        verdict,
      );
      steps.push(step);
      deps.log(`  ${move.candidate.label}: ${verdict}${step.outsideEnds ? ' (outside the ends’ span)' : ''}`);
      if (step.outsideEnds)
        return {
          done: false,
          why: 'non-monotonic',
          message: nonMonotonicMessage(
            { candidate: move.candidate, effect: step.effect!, badVsGood: step.badVsGood! },
            {
              good: { candidate: g.candidate, record: g.record ?? null },
              candidate: { candidate: move.candidate, record: c.build.record ?? null },
              bad: { candidate: b.candidate, record: b.record ?? null },
            },
          ),
        };
      await remember(move.candidate, verdict);
      // A candidate unlike both ends is re-measured, then skipped, as an unclear one.
      state = applyVerdict(state, move.index, verdict === 'between' ? 'unclear' : verdict, opts.maxAttempts);
    }
  }

  /** Where the budget left the change: the narrowest range of the steps, commits once there are any. */
  function budgetMessage(): string {
    const r = narrowestRange(walkEnds, steps);
    const lo = r.lastGoodCommit?.label ?? r.lastGoodRelease;
    const hi = r.firstBadCommit?.label ?? r.firstBadRelease;
    return `budget of ${opts.budgetMinutes} min spent: the change lies after ${lo} up to ${hi}`;
  }

  const stoppedEarly = (r: { why: 'budget' | 'non-monotonic'; message: string }): BisectWalk =>
    result(r.why === 'budget' ? 'budget-exhausted' : 'non-monotonic', r.message);

  try {
    // 1. Do good and bad differ here at all?
    const g = await build(good);
    const b = await build(bad);
    const endsVerdict = await checkEnds(g, b, true);
    if (endsVerdict === 'same')
      return result(
        'no-difference',
        `${opts.component} ${bad.label} does not differ from ${good.label} in ${what} on this host (${steps.at(-1)!.rounds} rounds): nothing to bisect`,
      );
    if (endsVerdict === 'opposite')
      return result(
        'opposite',
        `${opts.component} ${bad.label} is ${opts.direction === 'slower' ? 'faster' : 'slower'} than ${good.label} in ${what} on this host, not ${opts.direction}: check --good, --bad and --direction`,
      );

    // 2. Releases first, unless the candidates are commits already.
    let range = opts.candidates;
    let ends = { good: g.build, bad: b.build };
    let tagCommit: BisectCandidate | null = null;
    if (onReleases) {
      const releases = await narrow(opts.candidates, g.build, b.build);
      if (!releases.done) return stoppedEarly(releases);
      if (releases.skipped.length > 0)
        return result(
          'ambiguous',
          `the change lies after ${releases.good.label} up to ${releases.bad.label}; steps between stayed unclear`,
          {},
          releases.skipped,
        );
      // 3. The commits between the two adjacent releases, then into a bad merge's branch.
      const commits = (await deps.commitsBetween?.(releases.good, releases.bad)) ?? null;
      if (commits === null)
        return result(
          'found',
          `first bad release ${releases.bad.label} (last good ${releases.good.label}); give --git-dir to bisect its commits`,
        );
      // The last commit listed is the bad release's own.
      tagCommit = commits[commits.length - 1] ?? releases.bad;
      range = [releases.good, ...commits.slice(0, -1), releases.bad];
      if (deps.releaseCommit && tagCommit.kind === 'commit') {
        // One recipe for the commit phase: the ends rebuilt as commits, checked again as commits.
        const goodCommit = await deps.releaseCommit(releases.good);
        const gc = await build(goodCommit);
        const bc = await build(tagCommit);
        const again = await checkEnds(gc, bc, false);
        if (again !== 'differ')
          return result(
            'non-monotonic',
            `non-monotonic: built as commits, ${bc.build.candidate.label} ${again === 'same' ? 'does not differ from' : `is ${opts.direction === 'slower' ? 'faster' : 'slower'} than`} ${gc.build.candidate.label} in ${what}, though the releases ${releases.bad.label} and ${releases.good.label} differ: the release and commit builds are not alike (compare their build records)`,
          );
        range = [goodCommit, ...commits];
        ends = { good: gc.build, bad: bc.build };
      }
    }
    const expanded = new Set<string>();
    for (;;) {
      const r = await narrow(range, ends.good, ends.bad);
      if (!r.done) return stoppedEarly(r);
      if (r.skipped.length > 0)
        return result(
          'ambiguous',
          `the change lies after ${r.good.label} up to ${r.bad.label}; steps between stayed unclear`,
          { lastGoodCommit: r.good, firstBadCommit: r.bad },
          r.skipped,
        );
      const firstBad = r.bad.kind === 'release' ? (tagCommit ?? r.bad) : r.bad;
      // Only a commit can be a merge (a release end of named candidates has no hash to follow).
      const side =
        firstBad.kind !== 'commit' || expanded.has(firstBad.ref)
          ? []
          : ((await deps.mergeSide?.(firstBad)) ?? []);
      if (side.length === 0) {
        const found = { lastGoodCommit: r.good, firstBadCommit: firstBad };
        const releases = narrowestRange(walkEnds, steps);
        return result(
          'found',
          onReleases
            ? `first bad release ${releases.firstBadRelease}, first bad commit ${firstBad.label}`
            : `first bad: ${firstBad.label} (last good ${r.good.label})`,
          found,
        );
      }
      // The merge's first parent is good: which of the commits it brought in did it?
      deps.log(`${firstBad.label} is a merge: bisecting the ${side.length} commits it brought in`);
      expanded.add(firstBad.ref);
      range = [r.good, ...side, firstBad];
    }
  } catch (error) {
    // Whatever stopped the walk (a signal, a failed build or run), the steps so far are reported
    // with the narrowest range they reached.
    throw new BisectStopped(result('failed', `stopped: ${errorMessage(error)}`), error);
  }
}
