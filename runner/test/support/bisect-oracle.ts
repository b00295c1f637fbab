// An oracle for bisections: a history of releases and commits in which one commit (or a merge's
// branch commit) changes the metric by a known factor, measured with seeded noise. It stands in
// for building and measuring only in unit tests and `pnpm bench`, never in an end-to-end test.
import type { BisectCandidate } from '@runtime-bench/schemas';
import {
  BISECT_DEFAULTS,
  type BisectDeps,
  type BisectOptions,
  type BuiltCandidate,
} from '../../src/bisect/bisect.ts';
import { releasesBetween } from '../../src/bisect/candidates.ts';
import type { Rng } from '../../src/stats/index.ts';

export interface OracleHistory {
  /** Releases in order, each with the index of its commit in `commits`. */
  releases: { version: string; commit: number }[];
  /** First-parent history, oldest first; a merge lists the commits of its branch. */
  commits: { hash: string; subject: string; side?: { hash: string; subject: string }[] }[];
  /** The hash from which on the metric is `factor` times what it was. */
  culprit: string;
  factor: number;
}

/** Per-sample noise: a multiplicative factor per value. */
export type Noise = (rng: Rng) => number;

/** A Box–Muller standard normal from the seeded generator. */
export function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

export const hash = (i: number, side = 0): string => (side * 1000 + i + 1).toString(16).padStart(40, '0');

/** A linear history of n commits (one merge of `sideCommits` at `mergeAt` when given), releases every `every` commits and at the last. */
export function makeHistory(opts: {
  commits: number;
  every: number;
  culprit: (h: OracleHistory['commits']) => string;
  factor: number;
  mergeAt?: number;
  sideCommits?: number;
}): OracleHistory {
  const commits: OracleHistory['commits'] = [];
  for (let i = 0; i < opts.commits; i++) {
    const c: OracleHistory['commits'][number] = { hash: hash(i), subject: `change ${i}` };
    if (i === opts.mergeAt)
      c.side = [...Array(opts.sideCommits ?? 3).keys()].map((j) => ({
        hash: hash(j, i + 1),
        subject: `branch ${i}.${j}`,
      }));
    commits.push(c);
  }
  const releases: OracleHistory['releases'] = [];
  const at = [...Array(Math.ceil(opts.commits / opts.every)).keys()].map((r) => r * opts.every);
  if (at[at.length - 1] !== opts.commits - 1) at.push(opts.commits - 1);
  at.forEach((commit, r) => releases.push({ version: `1.${r}.0`, commit }));
  return { releases, commits, culprit: opts.culprit(commits), factor: opts.factor };
}

/** Whether the version built from `ref` contains the culprit. */
export function containsCulprit(h: OracleHistory, ref: string): boolean {
  const release = h.releases.find((r) => r.version === ref);
  const main = release ? release.commit : h.commits.findIndex((c) => c.hash === ref);
  const culpritMain = h.commits.findIndex(
    (c) => c.hash === h.culprit || c.side?.some((s) => s.hash === h.culprit),
  );
  if (main >= 0) return main >= culpritMain;
  // A branch commit: it has the culprit if the culprit is on the same branch at or before it.
  for (const [i, c] of h.commits.entries()) {
    const at = c.side?.findIndex((s) => s.hash === ref) ?? -1;
    if (at < 0) continue;
    const culpritAt = c.side!.findIndex((s) => s.hash === h.culprit);
    if (culpritAt >= 0) return at >= culpritAt;
    return i > culpritMain; // branched after the culprit (approximation: branches start at their merge's parent)
  }
  throw new Error(`oracle: unknown ref ${ref}`);
}

export interface OracleStats {
  builds: number;
  rounds: number;
}

/** Build and measure against the oracle: each sample is level × noise × a per-round drift shared by the round. */
export function oracleDeps(
  h: OracleHistory,
  rng: Rng,
  noise: Noise,
  drift = 0.05,
  log = (_: string) => {},
  /** A build from the clone as a commit measures this factor times a release build of the same code (another recipe). */
  commitBuildFactor = 1,
): BisectDeps & { stats: OracleStats } {
  let clock = 0;
  let runs = 0;
  const stats: OracleStats = { builds: 0, rounds: 0 };
  const toCandidate = (c: { hash: string; subject: string }): BisectCandidate => ({
    kind: 'commit',
    label: `${c.hash.slice(0, 12)} ${c.subject}`,
    ref: c.hash,
    commit: c.hash,
  });
  return {
    stats,
    async build(candidate) {
      stats.builds++;
      clock += 60_000;
      return { candidate, binary: `/oracle/${candidate.ref}` } satisfies BuiltCandidate;
    },
    async measure(builds, rounds) {
      stats.rounds += rounds;
      clock += rounds * builds.length * 500;
      const samples = builds.map(() => [] as number[]);
      for (let r = 0; r < rounds; r++) {
        const roundDrift = Math.exp(drift * gaussian(rng));
        builds.forEach((b, i) => {
          const level =
            50 *
            (containsCulprit(h, b.candidate.ref) ? h.factor : 1) *
            (b.candidate.kind === 'commit' ? commitBuildFactor : 1);
          samples[i]!.push(level * roundDrift * noise(rng));
        });
      }
      return { samples, runId: `oracle-${++runs}` };
    },
    async commitsBetween(good, bad) {
      const from = h.releases.find((r) => r.version === good.ref)!.commit;
      const to = h.releases.find((r) => r.version === bad.ref)!.commit;
      return h.commits.slice(from + 1, to + 1).map(toCandidate);
    },
    async mergeSide(commit) {
      return (h.commits.find((c) => c.hash === commit.ref)?.side ?? []).map(toCandidate);
    },
    async releaseCommit(release) {
      return toCandidate(h.commits[h.releases.find((r) => r.version === release.ref)!.commit]!);
    },
    now: () => clock,
    log,
  };
}

/** A bisection of StartContainer over all the history's releases, with the CLI's defaults unless overridden. */
export function oracleOptions(h: OracleHistory, over: Partial<BisectOptions> = {}): BisectOptions {
  const versions = h.releases.map((r) => r.version);
  return {
    component: 'runc',
    benchmark: 'operations.container.lifecycle',
    metric: 'StartContainer',
    direction: 'slower',
    metricDirection: 'lower',
    candidates: releasesBetween(versions, versions[0]!, versions[versions.length - 1]!),
    ...BISECT_DEFAULTS,
    budgetMinutes: null,
    ...over,
  };
}
