import { describe, expect, it } from 'vitest';
import type { ComponentBuild } from '@runtime-bench/schemas';
import { bisect, BisectStopped, type BisectOptions } from '../../../src/bisect/bisect.ts';
import { commitRange, namedCandidates, releasesBetween } from '../../../src/bisect/candidates.ts';
import { RbError } from '../../../src/errors.ts';
import { BuildFailedError } from '../../../src/install/build-failure.ts';
import { createRng } from '../../../src/stats/index.ts';
import {
  gaussian,
  makeHistory,
  oracleDeps,
  oracleOptions,
  type OracleHistory,
} from '../../support/bisect-oracle.ts';

const quiet = (sigma: number) => (rng: ReturnType<typeof createRng>) => Math.exp(sigma * gaussian(rng));

// The unit tests' steps: 10 rounds a look, at most 5 looks.
const options = (h: OracleHistory, over: Partial<BisectOptions> = {}): BisectOptions =>
  oracleOptions(h, { alpha: 0.02, roundsPerLook: 10, maxLooks: 5, ...over });

describe('bisect on an oracle', () => {
  it('names the release and the commit of a 30 % step, every verdict right', async () => {
    const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(1), quiet(0.05));
    const r = await bisect(options(h), deps);
    expect(r.outcome).toBe('found');
    expect(r.firstBadRelease).toBe('1.3.0'); // releases at commits 0, 8, 16, 24, 32, 39: 24 is the first with 19
    expect(r.lastGoodRelease).toBe('1.2.0');
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
    expect(r.lastGoodCommit?.ref).toBe(h.commits[18]!.hash);
    expect(r.steps[0]).toMatchObject({ kind: 'ends', verdict: 'differ' });
    expect(r.effect!.lower).toBeGreaterThan(1);
    expect(r.effect!.lower).toBeLessThan(1.3);
    expect(r.effect!.upper).toBeGreaterThan(1.3);
    const candidates = r.steps.filter((s) => s.kind === 'candidate');
    for (const s of candidates) expect(s.verdict).toBe(s.position! > 0.5 ? 'bad' : 'good');
    // Releases: 1.2.0 good, 1.3.0 bad (2 steps); then the ends again, rebuilt as the commits of
    // 1.2.0 and 1.3.0; commits: the 8 after 1.2.0's up to 1.3.0's, 7 between (3 steps).
    expect(r.steps.map((s) => [s.kind, s.candidate.kind])).toEqual([
      ['ends', 'release'],
      ['candidate', 'release'],
      ['candidate', 'release'],
      ['ends', 'commit'],
      ['candidate', 'commit'],
      ['candidate', 'commit'],
      ['candidate', 'commit'],
    ]);
    expect(r.steps[3]).toMatchObject({ verdict: 'differ', candidate: { ref: h.commits[24]!.hash } });
    // The report's effect is the ends' as named (the releases), not their rebuilt commits'.
    expect(r.effect).toEqual(r.steps[0]!.effect);
    expect(r.steps[3]!.effect).not.toEqual(r.steps[0]!.effect);
    expect(r.builds.map((b) => b.candidate.ref).slice(4, 6)).toEqual([
      h.commits[16]!.hash,
      h.commits[24]!.hash,
    ]);
    expect(r.spent.builds).toBe(2 + 2 + 2 + 3);
  });

  it('follows a bad merge into the commits of its branch', async () => {
    const h = makeHistory({
      commits: 16,
      every: 8,
      mergeAt: 5,
      sideCommits: 4,
      culprit: (c) => c[5]!.side![2]!.hash,
      factor: 1.5,
    });
    const r = await bisect(options(h), oracleDeps(h, createRng(2), quiet(0.05)));
    expect(r).toMatchObject({ outcome: 'found', firstBadRelease: '1.1.0', lastGoodRelease: '1.0.0' });
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
  });

  it('judges a merge and the tip of its side, one tree, once: the side tip is the change and is not measured', async () => {
    const h = makeHistory({
      commits: 16,
      every: 8,
      mergeAt: 5,
      sideCommits: 1,
      culprit: (c) => c[5]!.side![0]!.hash,
      factor: 1.5,
    });
    const merge = h.commits[5]!.hash;
    const tip = h.commits[5]!.side![0]!.hash;
    const deps = oracleDeps(h, createRng(4), quiet(0.05));
    // The merge only brings its side in: its tree is the side tip's; every other commit its own.
    const r = await bisect(options(h), {
      ...deps,
      treeOf: async (c) => (c.ref === merge || c.ref === tip ? 'tree-of-the-change' : `tree-${c.ref}`),
    });
    expect(r.outcome).toBe('found');
    expect(r.firstBadCommit?.ref).toBe(tip);
    expect(r.steps.some((s) => s.candidate.ref === merge && s.verdict === 'bad')).toBe(true);
    expect(r.steps.some((s) => s.candidate.ref === tip)).toBe(false);
  });

  it('stops when good and bad do not differ on this host, and says so', async () => {
    const h = makeHistory({ commits: 16, every: 4, culprit: (c) => c[5]!.hash, factor: 1 });
    const r = await bisect(options(h), oracleDeps(h, createRng(3), quiet(0.05)));
    expect(r.outcome).toBe('no-difference');
    expect(r.message).toMatch(/does not differ/);
    // Measured twice to the last look before giving up.
    expect(r.steps.map((s) => [s.kind, s.attempt, s.verdict, s.rounds])).toEqual([
      ['ends', 1, 'same', 50],
      ['ends', 2, 'same', 50],
    ]);
  });

  it('refuses a difference the other way than --direction', async () => {
    const h = makeHistory({ commits: 16, every: 4, culprit: (c) => c[5]!.hash, factor: 0.7 });
    const r = await bisect(options(h), oracleDeps(h, createRng(4), quiet(0.05)));
    expect(r.outcome).toBe('opposite');
    const back = await bisect(options(h, { direction: 'faster' }), oracleDeps(h, createRng(4), quiet(0.05)));
    expect(back.outcome).toBe('found');
    expect(back.firstBadCommit?.ref).toBe(h.culprit);
  });

  it('stops at the budget with the range narrowed so far', async () => {
    const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.3 });
    // Each build is one oracle minute, each round of three 1.5 s: the builds of the ends, their
    // check and the first candidate's build and step pass 3 minutes.
    const r = await bisect(options(h, { budgetMinutes: 3 }), oracleDeps(h, createRng(5), quiet(0.05)));
    expect(r.outcome).toBe('budget-exhausted');
    expect(r.message).toMatch(/^budget of 3 min spent: the change lies after 1\.\d\.0 up to 1\.\d\.0$/);
    expect(r.steps.map((s) => s.kind)).toEqual(['ends', 'candidate']);
    // The range left still holds the culprit (commit 19, first in release 1.3.0).
    expect(Number(r.lastGoodRelease!.split('.')[1])).toBeLessThan(3);
    expect(Number(r.firstBadRelease!.split('.')[1])).toBeGreaterThanOrEqual(3);
    expect(r.firstBadCommit).toBeNull();
    expect(r.spent.totalMinutes).toBeGreaterThanOrEqual(3);
  });

  it('re-measures an unclear step, then skips it, and reports the culprit range it leaves', async () => {
    const h = makeHistory({ commits: 9, every: 8, culprit: (c) => c[4]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(6), quiet(0.02));
    // The culprit measures halfway between good and bad (a partial change).
    const measure = deps.measure;
    deps.measure = async (builds, rounds) => {
      const m = await measure(builds, rounds);
      if (builds[1]?.candidate.ref === h.culprit) m.samples[1] = m.samples[1]!.map((v) => v / Math.sqrt(1.3));
      return m;
    };
    const r = await bisect(options(h), deps);
    const culpritSteps = r.steps.filter((s) => s.candidate.ref === h.culprit);
    // Clearly unlike both ends: "between", decided at the first look, re-measured once, then skipped.
    expect(culpritSteps.map((s) => [s.attempt, s.verdict])).toEqual([
      [1, 'between'],
      [2, 'between'],
    ]);
    expect(culpritSteps[0]!.looks).toBeLessThan(5);
    expect(r.outcome).toBe('ambiguous');
    expect(r.lastGoodCommit?.ref).toBe(h.commits[3]!.hash);
    expect(r.firstBadCommit?.ref).toBe(h.commits[5]!.hash);
    expect(r.skippedBetween.map((c) => c.ref)).toEqual([h.culprit]);
  });

  it('stops with a clear error when the runs give no samples, naming the runs, and reports the steps so far', async () => {
    const h = makeHistory({ commits: 9, every: 8, culprit: (c) => c[4]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(8), quiet(0.02));
    const measure = deps.measure;
    // The ends measure; the first candidate's runs all fail.
    deps.measure = async (builds, rounds) =>
      builds.length === 3 ? { samples: builds.map(() => []), runId: 'r-failed' } : measure(builds, rounds);
    const error = await bisect(options(h, { maxLooks: 2 }), deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BisectStopped);
    const stopped = error as BisectStopped;
    expect(stopped.cause).toBeInstanceOf(RbError);
    // The commit phase measures against the ends rebuilt as commits (1.0.0's and 1.1.0's).
    const label = (i: number) => `${h.commits[i]!.hash.slice(0, 12)} change ${i}`;
    expect(stopped.message).toBe(
      `stopped: ${label(0)}, ${label(4)}, ${label(8)}: fewer than two rounds with a StartContainer sample in 2 look(s) — the runs failed`,
    );
    expect(stopped.walk.outcome).toBe('failed');
    // What was known when it stopped is kept: the adjacent releases; no commit was judged yet.
    expect(stopped.walk).toMatchObject({ lastGoodRelease: '1.0.0', firstBadRelease: '1.1.0' });
    expect([stopped.walk.lastGoodCommit, stopped.walk.firstBadCommit]).toEqual([null, null]);
    expect(stopped.walk.steps.map((s) => [s.kind, s.verdict])).toEqual([
      ['ends', 'differ'],
      ['ends', 'differ'],
    ]);
    expect(stopped.walk.effect!.ratio).toBeGreaterThan(1.2);
  });

  it('bisects the commits the user names between two releases, and stops there', async () => {
    const h = makeHistory({ commits: 9, every: 8, culprit: (c) => c[5]!.hash, factor: 1.3 });
    const named = namedCandidates([2, 4, 5, 7].map((i) => h.commits[i]!.hash));
    const deps = oracleDeps(h, createRng(9), quiet(0.02));
    const r = await bisect(
      options(h, {
        candidates: [
          ...releasesBetween(['1.0.0', '1.1.0'], '1.0.0', '1.1.0').slice(0, 1),
          ...named,
          ...releasesBetween(['1.0.0', '1.1.0'], '1.0.0', '1.1.0').slice(1),
        ],
      }),
      deps,
    );
    expect(r).toMatchObject({ outcome: 'found', lastGoodRelease: null, firstBadRelease: null });
    expect(r.lastGoodCommit?.ref).toBe(h.commits[4]!.hash);
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
    expect(r.steps.every((s) => s.kind === 'ends' || named.some((n) => n.ref === s.candidate.ref))).toBe(
      true,
    );
  });

  it('bisects from commit ends (how a stopped bisection goes on), into a bad merge', async () => {
    const h = makeHistory({
      commits: 16,
      every: 8,
      mergeAt: 11,
      sideCommits: 4,
      culprit: (c) => c[11]!.side![1]!.hash,
      factor: 1.3,
    });
    const commit = (i: number) => ({
      kind: 'commit' as const,
      label: `${h.commits[i]!.hash.slice(0, 12)} ${h.commits[i]!.subject}`,
      ref: h.commits[i]!.hash,
      commit: h.commits[i]!.hash,
    });
    const candidates = commitRange(commit(9), [10, 11, 12, 13].map(commit), commit(13));
    const r = await bisect(options(h, { candidates }), oracleDeps(h, createRng(10), quiet(0.02)));
    expect(r).toMatchObject({ outcome: 'found', lastGoodRelease: null, firstBadRelease: null });
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
    expect(r.message).toMatch(
      /^first bad: [0-9a-f]{12} branch 11\.1 \(last good [0-9a-f]{12} branch 11\.0\)$/,
    );
  });

  it('stopped by its budget among commits, it reports the commit range left', async () => {
    const h = makeHistory({ commits: 40, every: 20, culprit: (c) => c[27]!.hash, factor: 1.3 });
    // Ends 2 builds and a check, releases 1 step (1.1.0 at commit 20, good), then commits: the
    // budget stops the commit phase after some steps with the culprit still in the range left.
    const r = await bisect(options(h, { budgetMinutes: 6 }), oracleDeps(h, createRng(11), quiet(0.02)));
    expect(r.outcome).toBe('budget-exhausted');
    expect(r).toMatchObject({ lastGoodRelease: '1.1.0', firstBadRelease: '1.2.0' });
    expect(r.steps.some((s) => s.candidate.kind === 'commit')).toBe(true);
    const at = (ref: string | undefined) =>
      ref === '1.1.0' ? 20 : ref === '1.2.0' ? 39 : h.commits.findIndex((c) => c.hash === ref);
    const lo = at(r.lastGoodCommit?.ref);
    const hi = at(r.firstBadCommit?.ref);
    expect(lo).toBeGreaterThanOrEqual(20);
    expect(lo).toBeLessThan(27);
    expect(hi).toBeGreaterThanOrEqual(27);
    expect(hi - lo).toBeLessThan(19);
  });

  it('skips a candidate that does not build, as git bisect skip, and still finds the culprit', async () => {
    const h = makeHistory({ commits: 16, every: 8, culprit: (c) => c[11]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(12), quiet(0.02));
    const build = deps.build;
    const lines: string[] = [];
    deps.log = (l) => lines.push(l);
    deps.build = async (c) => {
      if (c.ref === h.commits[13]!.hash || c.ref === h.commits[9]!.hash)
        throw new Error('pattern runc-dmz: no matching files found');
      return build(c);
    };
    const r = await bisect(options(h), deps);
    expect(r.outcome).toBe('found');
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
    expect(r.steps.some((s) => s.candidate.ref === h.commits[9]!.hash)).toBe(false);
    expect(lines.join('\n')).toMatch(/change 9: skipped, it does not build: pattern runc-dmz/);
  });

  it('reports a candidate that does not build with the recipe it ran, building it once', async () => {
    const h = makeHistory({ commits: 16, every: 8, culprit: (c) => c[11]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(12), quiet(0.02));
    const build = deps.build;
    const unbuildable = [h.commits[13]!.hash, h.commits[9]!.hash];
    const tries = new Map<string, number>();
    // The record a real build keeps of what it ran before go generate was missing.
    const attempt = (ref: string): ComponentBuild => ({
      source: 'git',
      origin: `/src/runc@${ref}`,
      commit: ref,
      toolchain: 'go1.20.14',
      command: ['go build -trimpath -tags seccomp netgo osusergo -o runc .'],
      env: { CGO_ENABLED: '1' },
      stamps: {},
      deps: {},
      rules: [],
      notes: [],
      builtAt: '2026-11-27T01:00:00.000Z',
    });
    deps.build = async (c) => {
      tries.set(c.ref, (tries.get(c.ref) ?? 0) + 1);
      if (unbuildable.includes(c.ref))
        throw new BuildFailedError(attempt(c.ref), new Error('pattern runc-dmz: no matching files found'));
      return build(c);
    };
    const r = await bisect(options(h), deps);
    expect(r.outcome).toBe('found');
    const failed = r.builds.filter((b) => b.error !== null);
    expect(failed.map((b) => b.candidate.ref).sort()).toEqual(
      unbuildable.filter((ref) => tries.has(ref)).sort(),
    );
    expect(failed.length).toBeGreaterThan(0);
    for (const b of failed) {
      expect(b.error).toBe('pattern runc-dmz: no matching files found');
      expect(b.build).toEqual(attempt(b.candidate.ref));
      expect(tries.get(b.candidate.ref)).toBe(1);
    }
    // Every candidate appears once; the ones that built carry no error.
    expect(new Set(r.builds.map((b) => b.candidate.ref)).size).toBe(r.builds.length);
    expect(r.builds.filter((b) => b.error === null)).toHaveLength(r.spent.builds);
  });

  it('reports the skipped unbuildable commits when the culprit may be among them', async () => {
    const h = makeHistory({ commits: 16, every: 8, culprit: (c) => c[11]!.hash, factor: 1.3 });
    const deps = oracleDeps(h, createRng(13), quiet(0.02));
    const build = deps.build;
    deps.build = async (c) => {
      if (c.ref === h.culprit) throw new Error('does not compile');
      return build(c);
    };
    const r = await bisect(options(h), deps);
    expect(r.outcome).toBe('ambiguous');
    expect(r.lastGoodCommit?.ref).toBe(h.commits[10]!.hash);
    expect(r.firstBadCommit?.ref).toBe(h.commits[12]!.hash);
    expect(r.skippedBetween.map((c) => c.ref)).toEqual([h.culprit]);
  });
});
