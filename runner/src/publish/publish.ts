// Publishing results to the data branch so that nothing is ever lost: every input is validated
// before git is touched, each run is one add-only file, the commit is built with plumbing in a
// throw-away worktree, and a push that loses a race is replayed on the new tip and retried.
import { tmpdir } from 'node:os';
import { CommandError, RbError, errorMessage } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { freeBytes } from '../util/no-space.ts';
import { detectKind } from '../config/detect.ts';
import { parseBisectionReport } from '../results/bisection-io.ts';
import { parseResult } from '../results/io.ts';
import { readTextFile } from '../util/read-file.ts';
import { gitOk, type GitRunner } from './git.ts';
import { BISECTIONS_DIR, RUNS_DIR } from '../results/layout.ts';
import {
  defaultCommitMessage,
  indexRunPaths,
  planPublication,
  prepareCandidates,
  type Candidate,
  type DocFile,
  type PublicationPlan,
  type PublishInput,
} from './plan.ts';
import { backoffMs, classifyPush } from './push.ts';
import { checkRepository, fetchBranchTip, listFiles, readFiles, withTemporaryWorktree } from './repo.ts';

/** The identity publishing commits are made with, independent of the caller's git config. */
export const DEFAULT_IDENTITY = { name: 'runtime-bench', email: 'runtime-bench@users.noreply.github.com' };

/** Enough for a nightly matrix of a dozen jobs finishing together. */
export const DEFAULT_MAX_ATTEMPTS = 10;

export interface PublishOptions {
  /** A directory inside the caller's clone; only a temporary worktree of it is used. */
  repo: string;
  /** A configured remote name, or a URL/path git accepts. */
  remote: string;
  branch: string;
  /** Commit message; a list of the added runs when absent. */
  message?: string | undefined;
  identity?: { name: string; email: string };
  maxAttempts?: number;
  /** README and JSON Schema files to add or update beside the results. */
  docs?: readonly DocFile[];
}

export interface PublishDeps {
  git: GitRunner;
  log: (line: string) => void;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface PublishReport {
  /** `published`: a commit was pushed; `unchanged`: everything was already on the branch. */
  outcome: 'published' | 'unchanged';
  branch: string;
  commit: string | null;
  attempts: number;
  added: Candidate[];
  unchanged: Candidate[];
  docs: PublicationPlan['docs'];
}

/**
 * Reads and validates every file before anything else happens: run results, and bisection reports
 * (told apart by content, as `validate` does). All problems are reported at once, each naming its
 * file and field; one invalid file means nothing is published.
 */
export async function readInputs(files: readonly string[]): Promise<PublishInput[]> {
  if (files.length === 0)
    throw new RbError(
      'USAGE_NO_FILES',
      'no result files given',
      'publish FILE… (results or bisection reports)',
    );
  const inputs: PublishInput[] = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      const text = await readTextFile(file, {
        code: 'RESULT_UNREADABLE',
        message: (reason) => `${file}: cannot read (${reason})`,
        hint: 'check the path',
      });
      inputs.push(
        detectKind(file, text) === 'bisection'
          ? { source: file, bisection: parseBisectionReport(text, file), text }
          : { source: file, result: parseResult(text, file) },
      );
    } catch (error) {
      problems.push(errorMessage(error));
    }
  }
  if (problems.length > 0) {
    throw new RbError(
      'RESULT_INVALID',
      `nothing was published: ${problems.length} of ${files.length} file(s) invalid\n${problems.join('\n')}`,
      'fix or drop the named files; a result or report on the data branch must be valid forever',
    );
  }
  return inputs;
}

/** Publishes validated results (see readInputs) to `branch` of `remote`. */
export async function publishResults(
  inputs: readonly PublishInput[],
  options: PublishOptions,
  deps: PublishDeps,
): Promise<PublishReport> {
  const candidates = prepareCandidates(inputs);
  await checkRepository(deps.git, options.repo);

  return noSpaceNamed(options.repo, candidates, () => publishInWorktree(candidates, options, deps));
}

/** git's own words for a full disk (ENOSPC) or a spent quota (EDQUOT), with LC_ALL=C. */
const GIT_NO_SPACE = /No space left on device|Disk quota exceeded/;

/**
 * A git command that finds no room for the commit's objects (in the clone) or the temporary
 * worktree (in the temp directory) becomes one error naming both and their space: nothing was
 * pushed, and the results to publish are files git only reads.
 */
async function noSpaceNamed<T>(
  repo: string,
  candidates: readonly Candidate[],
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof CommandError && GIT_NO_SPACE.test(error.stderr))) throw error;
    // Loose objects are compressed, the index and worktree files add a little: about the files' size.
    const needed = candidates.reduce((sum, c) => sum + Buffer.byteLength(c.content), 0);
    const free = (dir: string) => freeBytes(dir) ?? 'an unknown number of';
    throw new RbError(
      'NO_SPACE',
      `${repo}: no room for git to write the commit (git ${error.args[0]}: ${error.stderr.trim().split('\n').at(-1)}): ` +
        `it needs about ${needed} bytes, ${free(repo)} bytes are free ` +
        `(${free(tmpdir())} in ${tmpdir()}, where the temporary worktree goes); ` +
        'nothing was published and the result files are unchanged',
      `free space on the filesystem of ${repo}, then publish again (publishing is idempotent)`,
      { exitCode: EXIT.error.code, cause: error },
    );
  }
}

async function publishInWorktree(
  candidates: readonly Candidate[],
  options: PublishOptions,
  deps: PublishDeps,
): Promise<PublishReport> {
  const { git, log } = deps;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const identity = options.identity ?? DEFAULT_IDENTITY;
  const where = `${options.remote}/${options.branch}`;
  return withTemporaryWorktree(
    git,
    options.repo,
    async (worktree) => {
      const run = (args: readonly string[], input?: string) => gitOk(git, args, { cwd: worktree, input });
      for (let attempt = 1; ; attempt += 1) {
        const tip = await fetchBranchTip(git, worktree, options.remote, options.branch);
        const plan = await planOnTip(git, worktree, tip, candidates, options.docs ?? [], where);
        if (plan.add.length === 0 && plan.docs.length === 0) {
          log(`all ${candidates.length} run(s) already on ${where}: nothing to publish`);
          return report('unchanged', options.branch, tip, attempt, plan);
        }

        // Build the commit with plumbing: no files are checked out or written to disk.
        await run(tip ? ['read-tree', tip] : ['read-tree', '--empty']);
        const entries: string[] = [];
        for (const file of [...plan.add, ...plan.docs]) {
          const blob = (await run(['hash-object', '-w', '--no-filters', '--stdin'], file.content)).trim();
          entries.push(`100644 ${blob}\t${file.path}\n`);
        }
        await run(['update-index', '--add', '--index-info'], entries.join(''));
        const tree = (await run(['write-tree'])).trim();
        const parents = tip ? ['-p', tip] : [];
        const commit = (
          await run(
            [
              '-c',
              `user.name=${identity.name}`,
              '-c',
              `user.email=${identity.email}`,
              'commit-tree',
              '--no-gpg-sign',
              tree,
              ...parents,
              '-F',
              '-',
            ],
            options.message ?? defaultCommitMessage(plan),
          )
        ).trim();

        log(
          `attempt ${attempt}: ${tip ? `${where} at ${tip.slice(0, 12)}` : `creating ${where} as an orphan branch`}, ` +
            `adding ${plan.add.length} run(s)${plan.docs.length ? ` and ${plan.docs.length} doc file(s)` : ''}`,
        );
        const pushed = await git.run(
          ['push', '--porcelain', '--no-verify', options.remote, `${commit}:refs/heads/${options.branch}`],
          { cwd: worktree },
        );
        const outcome = classifyPush(pushed.exitCode, pushed.stdout, pushed.stderr);
        if (outcome.kind === 'pushed') {
          log(`pushed ${commit.slice(0, 12)} to ${where}`);
          return report('published', options.branch, commit, attempt, plan);
        }
        if (outcome.kind === 'failed') {
          throw new RbError(
            'PUBLISH_PUSH_FAILED',
            `pushing to ${where} failed:\n${outcome.reason}`,
            'check the remote and the credentials (RB_PUBLISH_TOKEN / GITHUB_TOKEN in CI); nothing was published',
          );
        }
        if (outcome.kind === 'refused') {
          throw new RbError(
            'PUBLISH_REFUSED',
            `${where} refused the push: ${outcome.reason}`,
            'the data branch must accept plain pushes from the publisher (no required reviews or status checks)',
          );
        }
        if (attempt >= maxAttempts) {
          throw new RbError(
            'PUBLISH_RETRIES_EXHAUSTED',
            `${where} moved under us ${attempt} times in a row (${outcome.reason}); nothing was published`,
            'publishing is idempotent: run the same command again',
          );
        }
        const delay = backoffMs(attempt, deps.random);
        log(`attempt ${attempt}: push rejected (${outcome.reason}), retrying on the new tip in ${delay} ms`);
        await deps.sleep(delay);
      }
    },
    log,
  );
}

/** Reads what is on the branch tip for our run ids and doc files, and plans against it. */
async function planOnTip(
  git: GitRunner,
  worktree: string,
  tip: string | null,
  candidates: readonly Candidate[],
  docs: readonly DocFile[],
  where: string,
): Promise<PublicationPlan> {
  const existing = new Map<string, { path: string; text: string }[]>();
  const existingDocs = new Map<string, string>();
  if (tip) {
    // Every run id (and bisection id) is looked up across the whole tree: a run republished with
    // another startedAt would land in another date directory, and must still be recognised as taken.
    const byId = indexRunPaths([
      ...(await listFiles(git, worktree, tip, RUNS_DIR)),
      ...(await listFiles(git, worktree, tip, BISECTIONS_DIR)),
    ]);
    const wanted = candidates.flatMap((c) => byId.get(c.runId) ?? []);
    const texts = await readFiles(git, worktree, tip, [...wanted, ...docs.map((d) => d.path)]);
    for (const c of candidates) {
      const found = (byId.get(c.runId) ?? []).map((path) => ({ path, text: texts.get(path) ?? '' }));
      if (found.length > 0) existing.set(c.runId, found);
    }
    for (const d of docs) {
      const text = texts.get(d.path);
      if (text !== undefined) existingDocs.set(d.path, text);
    }
  }
  return planPublication({ candidates, existing, docs, existingDocs, where });
}

function report(
  outcome: PublishReport['outcome'],
  branch: string,
  commit: string | null,
  attempts: number,
  plan: PublicationPlan,
): PublishReport {
  return { outcome, branch, commit, attempts, added: plan.add, unchanged: plan.unchanged, docs: plan.docs };
}
