// What a bisection has found so far, as a pure function of its steps: the narrowest range between
// a version judged good and one judged bad. The search only ever narrows (a good verdict moves the
// low end up, a bad one the high end down, each inside the open range), so the latest good and the
// latest bad verdict of each kind of candidate bound the change — whatever ended the walk.
import type { BisectCandidate, BisectReport, BisectStep } from '@runtime-bench/schemas';

export type FoundRange = Pick<
  BisectReport,
  'lastGoodRelease' | 'firstBadRelease' | 'lastGoodCommit' | 'firstBadCommit'
>;

export const NOTHING_FOUND: FoundRange = {
  lastGoodRelease: null,
  firstBadRelease: null,
  lastGoodCommit: null,
  firstBadCommit: null,
};

/**
 * The narrowest range the steps reached between the walk's `good` and `bad` ends. Nothing is
 * found until an ends step showed that they differ. Releases: the latest release judged good (the
 * good end before any), the latest judged bad (the bad end before any), when releases are bisected.
 * Commits, once a commit has a clear verdict: the latest commit judged good and the latest judged
 * bad, a missing side being the release (or commit end) that bounds it. A step whose effect lies
 * outside the ends' span (outsideEnds) is no evidence either way and is left out.
 */
export function narrowestRange(
  ends: {
    good: BisectCandidate;
    bad: BisectCandidate;
    /** The walk bisects releases first (its candidates are releases), not commits the user named. */
    releases: boolean;
  },
  steps: readonly BisectStep[],
): FoundRange {
  if (!steps.some((s) => s.kind === 'ends' && s.verdict === 'differ')) return NOTHING_FOUND;
  const judged = (kind: BisectCandidate['kind'], verdict: 'good' | 'bad'): BisectCandidate | null =>
    steps.findLast(
      (s) => s.kind === 'candidate' && !s.outsideEnds && s.candidate.kind === kind && s.verdict === verdict,
    )?.candidate ?? null;
  const releaseEnds = ends.releases;
  const goodRelease = judged('release', 'good') ?? (ends.good.kind === 'release' ? ends.good : null);
  const badRelease = judged('release', 'bad') ?? (ends.bad.kind === 'release' ? ends.bad : null);
  const goodCommit = judged('commit', 'good');
  const badCommit = judged('commit', 'bad');
  // Commit ends are commits from the start; release ends bound the commits between them.
  const commitPhase = !releaseEnds || goodCommit !== null || badCommit !== null;
  const lowEnd = releaseEnds ? goodRelease : ends.good;
  const highEnd = releaseEnds ? badRelease : ends.bad;
  return {
    lastGoodRelease: releaseEnds ? goodRelease!.ref : null,
    firstBadRelease: releaseEnds ? badRelease!.ref : null,
    lastGoodCommit: commitPhase ? (goodCommit ?? lowEnd) : null,
    firstBadCommit: commitPhase ? (badCommit ?? highEnd) : null,
  };
}
