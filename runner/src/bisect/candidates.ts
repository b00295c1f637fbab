// The candidates of a bisection, as pure functions of version lists and git output: the releases
// between good and bad, then the commits between two adjacent releases (first parent first).
import type { BisectCandidate } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';

const RELEASE = /^v?(\d+)\.(\d+)\.(\d+)$/;

/** Numeric parts of a final release (x.y.z, optional leading v); null for a pre-release or other tag. */
export function releaseParts(version: string): [number, number, number] | null {
  const m = RELEASE.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function compareParts(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * The final releases from `good` to `bad` inclusive, in order from good to bad (either may be the
 * older: bisecting an improvement runs backwards in time the same way). Pre-releases (1.2.0-rc.1)
 * are left out, as a user upgrading between releases never ran them. Versions may carry a leading v.
 */
export function releasesBetween(versions: readonly string[], good: string, bad: string): BisectCandidate[] {
  const g = releaseParts(good);
  const b = releaseParts(bad);
  if (!g)
    throw new RbError(
      'USAGE_BISECT_GOOD',
      `--good "${good}" is not a release version x.y.z`,
      'e.g. --good 1.1.5 (a commit needs --git-dir)',
    );
  if (!b)
    throw new RbError(
      'USAGE_BISECT_BAD',
      `--bad "${bad}" is not a release version x.y.z`,
      'e.g. --bad 1.3.6 (a commit needs --git-dir)',
    );
  if (compareParts(g, b) === 0)
    throw new RbError(
      'USAGE_BISECT_BAD',
      `--good and --bad are the same release ${good}`,
      'name two releases',
    );
  const [lo, hi] = compareParts(g, b) < 0 ? [g, b] : [b, g];
  const byKey = new Map<string, { parts: [number, number, number]; version: string }>();
  for (const v of versions) {
    const parts = releaseParts(v);
    if (parts && compareParts(parts, lo) >= 0 && compareParts(parts, hi) <= 0)
      byKey.set(parts.join('.'), { parts, version: parts.join('.') });
  }
  for (const [flag, parts, given] of [
    ['--good', g, good],
    ['--bad', b, bad],
  ] as const)
    if (!byKey.has(parts.join('.')))
      throw new RbError(
        flag === '--good' ? 'USAGE_BISECT_GOOD' : 'USAGE_BISECT_BAD',
        `${flag} ${given} is not among the component's released versions`,
        'name a released version (the version list of the source, or the tags of --git-dir)',
      );
  const sorted = [...byKey.values()].sort((x, y) => compareParts(x.parts, y.parts));
  if (compareParts(g, b) > 0) sorted.reverse();
  return sorted.map((r) => ({ kind: 'release', label: r.version, ref: r.version, commit: null }));
}

/** One line per commit: `<hash> <subject>` (git log --format='%H %s'), oldest first. */
export function parseCommitLines(stdout: string): BisectCandidate[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => {
      const [hash, ...subject] = l.split(' ');
      if (!/^[0-9a-f]{40,64}$/.test(hash!)) throw new Error(`git log: unexpected line "${l}"`);
      const label = `${hash!.slice(0, 12)} ${subject.join(' ')}`.trim();
      return { kind: 'commit' as const, label, ref: hash!, commit: hash! };
    });
}

/**
 * The git arguments listing the first-parent commits after `good` up to and including `bad`,
 * oldest first (as `git bisect --first-parent` walks them): a merge stands for its whole branch,
 * and a merge found bad is then bisected along its second parent (mergeSideArgs).
 */
export function firstParentArgs(good: string, bad: string): string[] {
  return ['log', '--first-parent', '--reverse', '--format=%H %s', `${good}..${bad}`];
}

/**
 * Commit ends (as `git bisect good/bad <commit>`): good, the first-parent commits after it, bad.
 * `between` is firstParentArgs' output for the two; bad must be its last commit (a first-parent
 * descendant of good), else the range is not one line of history and is refused.
 */
export function commitRange(
  good: BisectCandidate,
  between: readonly BisectCandidate[],
  bad: BisectCandidate,
): BisectCandidate[] {
  if (between.length === 0 || between[between.length - 1]!.ref !== bad.ref)
    throw new RbError(
      'USAGE_BISECT_BAD',
      `--bad ${bad.label} does not follow --good ${good.label} on the first-parent line of history`,
      'name a --bad commit that descends from --good through first parents (git log --first-parent GOOD..BAD ends with it)',
    );
  return [good, ...between.slice(0, -1), bad];
}

/** The commits a merge brought in (its second parent's side, first parent first), oldest first. */
export function mergeSideArgs(merge: string): string[] {
  return ['log', '--first-parent', '--reverse', '--format=%H %s', `${merge}^1..${merge}^2`];
}

/** Candidates the user named (commits or pseudo-versions), between the good and bad ends. */
export function namedCandidates(refs: readonly string[]): BisectCandidate[] {
  return refs.map((ref) => ({
    kind: 'commit',
    label: ref,
    ref,
    commit: /^[0-9a-f]{40}$/.test(ref) ? ref : null,
  }));
}
