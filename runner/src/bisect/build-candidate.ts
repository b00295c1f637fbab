// The bisection's side effects on sources: a clone's tags and commits (git), and builds of each
// candidate through the install build sources (a release from the Go module proxy, or any ref of
// the user's clone), built the way upstream builds its releases and cached under the prefix.
import type { BisectCandidate } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { availableVersions, parseGitTags } from '../install/available.ts';
import { buildComponent } from '../install/build.ts';
import { realInstallEnv } from '../install/env.ts';
import { exec } from '../util/exec.ts';
import type { BuiltCandidate } from './bisect.ts';
import { commitRange, firstParentArgs, mergeSideArgs, parseCommitLines, releaseParts } from './candidates.ts';

export interface Repo {
  dir: string;
  /** Final-release versions of its tags (without the v). */
  releases(): Promise<string[]>;
  /** The tag (or ref) of a release version. */
  refOf(candidate: BisectCandidate): Promise<string>;
  commitsBetween(good: BisectCandidate, bad: BisectCandidate): Promise<BisectCandidate[]>;
  mergeSide(commit: BisectCandidate): Promise<BisectCandidate[]>;
  /** Candidates from commit (or any ref) ends: good, the first-parent commits between, bad. */
  commitEnds(good: string, bad: string): Promise<BisectCandidate[]>;
  /** A release's tag as the commit it points at, to be built as the commits around it are. */
  releaseCommit(release: BisectCandidate): Promise<BisectCandidate>;
  /** The tree id a candidate (a release's tag, a commit) points at, null when git knows none. */
  treeOf(candidate: BisectCandidate): Promise<string | null>;
}

const git = async (dir: string, args: string[]): Promise<string> =>
  (await exec('git', ['-C', dir, ...args])).stdout;

/** The user's clone; refused (exit 2) when it is not a git work tree. */
export async function createRepo(dir: string): Promise<Repo> {
  const check = await exec('git', ['-C', dir, 'rev-parse', '--git-dir'], { allowFailure: true });
  if (check.exitCode !== 0)
    throw new RbError(
      'USAGE_BISECT_REPO',
      `--repo ${dir} is not a git repository`,
      "give the path of the component's clone",
    );
  let tags: string[] | null = null;
  const tagList = async (): Promise<string[]> =>
    (tags ??= (await git(dir, ['tag', '--list'])).split('\n').map((t) => t.trim()));
  const refOf = async (c: BisectCandidate): Promise<string> => {
    if (c.kind !== 'release') return c.ref;
    const all = await tagList();
    const tag = [`v${c.ref}`, c.ref].find((t) => all.includes(t));
    if (!tag)
      throw new RbError(
        'USAGE_BISECT_REPO',
        `--git-dir ${dir} has no tag for release ${c.ref}`,
        'fetch its tags (git fetch --tags)',
      );
    return tag;
  };
  const commitOf = async (flag: string, ref: string): Promise<BisectCandidate> => {
    // A release end beside a commit end is its tag (1.1.15 → v1.1.15), as in the release phase.
    const log = (r: string) =>
      exec('git', ['-C', dir, 'log', '-1', '--format=%H %s', '--end-of-options', r], { allowFailure: true });
    let r = await log(ref);
    if (r.exitCode !== 0 && releaseParts(ref) !== null) r = await log(`v${ref}`);
    const [c] = r.exitCode === 0 ? parseCommitLines(r.stdout) : [];
    if (!c)
      throw new RbError(
        flag === '--good' ? 'USAGE_BISECT_GOOD' : 'USAGE_BISECT_BAD',
        `${flag} ${ref} is neither a release nor a commit of --git-dir ${dir}`,
        'name a release version, a commit hash or a tag of the clone',
      );
    return c;
  };
  return {
    dir,
    commitEnds: async (good, bad) => {
      const g = await commitOf('--good', good);
      const b = await commitOf('--bad', bad);
      return commitRange(g, parseCommitLines(await git(dir, firstParentArgs(g.ref, b.ref))), b);
    },
    releases: async () => parseGitTags((await tagList()).join('\n')),
    releaseCommit: async (release) => commitOf('--good', await refOf(release)),
    refOf,
    commitsBetween: async (good, bad) =>
      parseCommitLines(await git(dir, firstParentArgs(await refOf(good), await refOf(bad)))),
    treeOf: async (c) => {
      const ref = await refOf(c).catch(() => null);
      if (ref === null) return null;
      const r = await exec(
        'git',
        ['-C', dir, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{tree}`],
        {
          allowFailure: true,
        },
      );
      return r.exitCode === 0 ? r.stdout.trim() : null;
    },
    mergeSide: async (commit) => {
      const parents = (await git(dir, ['rev-list', '--parents', '-n', '1', commit.ref])).trim().split(' ');
      if (parents.length < 3) return [];
      return parseCommitLines(await git(dir, mergeSideArgs(commit.ref)));
    },
  };
}

export interface Builder {
  build(candidate: BisectCandidate): Promise<BuiltCandidate>;
  /** Released versions the Go module proxy serves for the component. */
  releases(): Promise<string[]>;
}

/** Builds from the clone when there is one, else releases and pseudo-versions from the Go module proxy. */
export function createBuilder(opts: {
  component: 'runc';
  repo: Repo | null;
  prefix: string;
  log: (line: string) => void;
}): Builder {
  const env = realInstallEnv(opts.log);
  return {
    async build(candidate) {
      const r = opts.repo
        ? await buildComponent(env, {
            component: opts.component,
            source: 'git',
            version: await opts.repo.refOf(candidate),
            gitDir: opts.repo.dir,
            prefix: opts.prefix,
          })
        : await buildComponent(env, {
            component: opts.component,
            source: 'go',
            version: candidate.ref,
            prefix: opts.prefix,
          });
      opts.log(`${candidate.label}: ${r.cached ? 'cached' : 'built'} ${r.binary} (${r.version})`);
      return { candidate, binary: r.binary, record: r.record };
    },
    releases: () => availableVersions(env, opts.component, 'go'),
  };
}
