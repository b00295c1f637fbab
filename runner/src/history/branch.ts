// The gate's history read from the data branch (`runtime-bench data history`), so that a nightly
// gates against the nights it published rather than against a folder nobody refreshes. The branch
// is fetched read-only and shallow (one commit, trees only: --depth=1 --filter=blob:none) into a
// throw-away bare repository, so the caller's clone is never touched; result files are then read
// newest first, each blob fetched on demand, until enough runs of the current run's lineage (same
// host class, a target in common) are found. They are written to `out` by the results layout, as
// `check --history` reads a directory. Git is injected (a GitRunner), so tests drive the real
// binary against a local bare repository or script it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { gitOk, type GitRunner } from '../publish/git.ts';
import { blobSizes, listFiles, readFiles, unreachable } from '../publish/repo.ts';
import { parseAnnotations } from '../compare/annotations.ts';
import { parseResult } from '../results/io.ts';
import {
  layoutProblem,
  relativeRunPath,
  relativeRunPathOfId,
  runIdOfPath,
  RUNS_DIR,
  ANNOTATION_FILES,
} from '../results/layout.ts';
import { targetIdentity } from '../compare/keys.ts';
import { GATE_DEFAULTS } from '../compare/gate/options.ts';

/**
 * Comparable runs fetched by default: the gate's window, and as many again before it, because the
 * gate replays the previous night against its own window to tell an ongoing regression from a
 * new one (gate/replay.ts).
 */
export const DEFAULT_HISTORY_RUNS = 2 * GATE_DEFAULTS.window;

/** A result file of the branch the history could be made of, newest first. */
export interface HistoryCandidate {
  /** Path on the branch, e.g. `data/runs/2026/11/27/<run-id>.json`. */
  path: string;
  runId: string;
}

/** A file of the branch left out of the history, and why (each becomes a warning naming it). */
export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * Whether `runId` is one a run is given: `<yyyymmddThhmmssZ>-<8 hex>` of a real UTC time. Any
 * other name would be ordered by its text (`20261340T…` after every real run) and left out unseen.
 */
function isRunId(runId: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-[0-9a-f]{8}$/.exec(runId);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return (
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === s
  );
}

/** The UTC stamp a run id starts with (`20261127T072213Z`), which orders runs by start time. */
const stampOf = (runId: string): string => runId.slice(0, 16);

/**
 * The result files of the branch that started before `current`, newest first, and the files
 * under the runs directory that are not where the layout puts a result (skipped). Pure.
 */
export function historyCandidates(
  paths: readonly string[],
  current: Pick<RunResult, 'runId'> | null,
): { candidates: HistoryCandidate[]; skipped: SkippedFile[] } {
  const candidates: HistoryCandidate[] = [];
  const skipped: SkippedFile[] = [];
  const prefix = `${RUNS_DIR}/`;
  for (const path of paths) {
    if (!path.startsWith(prefix)) continue;
    const relative = path.slice(prefix.length);
    if (ANNOTATION_FILES.includes(relative)) continue;
    const runId = runIdOfPath(relative);
    if (runId === undefined || !isRunId(runId) || relativeRunPathOfId(runId) !== relative) {
      skipped.push({
        path,
        reason: 'not at a path of the results layout (runs/<yyyy>/<mm>/<dd>/<run-id>.json)',
      });
      continue;
    }
    if (current && (runId === current.runId || stampOf(runId) > stampOf(current.runId))) continue;
    candidates.push({ path, runId });
  }
  candidates.sort((a, b) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
  return { candidates, skipped };
}

/**
 * Whether `earlier` is of the lineage the gate compares `current` with: the same host class and
 * at least one target of the same identity (gate/series.ts matches series by both). Pure.
 */
export function sameLineage(current: RunResult, earlier: RunResult): boolean {
  if (hostClassOf(current.host) !== hostClassOf(earlier.host)) return false;
  const identities = new Set(current.targets.map(targetIdentity));
  return earlier.targets.some((t) => identities.has(targetIdentity(t)));
}

/**
 * Which runs of the branch a history keeps: those started before `before` (null: any) that
 * `accepts` takes. A result's lineage (lineageOf), or, before a run, the nights of a host class
 * and target ids (side-by-side planning).
 */
export interface HistorySelector {
  before: Pick<RunResult, 'runId'> | null;
  accepts(run: RunResult): boolean;
}

/** The gate's history of `current`: earlier runs of its lineage (sameLineage). */
export function lineageOf(current: RunResult): HistorySelector {
  return { before: current, accepts: (run) => sameLineage(current, run) };
}

export interface BranchHistoryOptions {
  /** A remote URL or path git accepts (a configured remote is resolved by the caller). */
  url: string;
  branch: string;
  /** The result whose lineage is wanted, or any other selection of runs. */
  current: RunResult | HistorySelector;
  /** Comparable runs to fetch at most. */
  runs: number;
  /** Directory the history is written to (created; what `check --history` reads). */
  out: string;
  /** Files larger than this are skipped unread (default MAX_RESULT_BYTES). */
  maxFileBytes?: number;
}

/**
 * The largest result file read from the branch: far above any real run's (under 1 MiB), far below
 * what would exhaust memory (`cat-file` output is held whole), so a huge file is skipped unread.
 */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;

export interface BranchHistory {
  /** The branch's commit read, or null when the remote has no such branch (the first night). */
  commit: string | null;
  /** Paths of the history written, relative to `out`, oldest first. */
  files: string[];
  /** The annotations file copied to the top of `out`, if the branch has one. */
  annotations: string | null;
  skipped: SkippedFile[];
}

const SCRATCH_REMOTE = 'data';

/** Fetches the history of `current` from the data branch into `options.out` (see the top). */
export async function fetchBranchHistory(
  git: GitRunner,
  options: BranchHistoryOptions,
  log: (line: string) => void = () => {},
): Promise<BranchHistory> {
  await mkdir(options.out, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'rb-history-'));
  try {
    const repo = join(scratch, 'git');
    await gitOk(git, ['init', '--quiet', '--bare', repo]);
    // A named remote: the blobs read later are fetched on demand from the promisor remote the
    // filtered fetch configures, and git accepts only a remote name there, not any URL.
    await gitOk(git, ['remote', 'add', SCRATCH_REMOTE, options.url], { cwd: repo });
    const ref = `refs/heads/${options.branch}`;
    const listed = await git.run(['ls-remote', '--exit-code', SCRATCH_REMOTE, ref], { cwd: repo });
    if (listed.exitCode === 2) return { commit: null, files: [], annotations: null, skipped: [] };
    if (listed.exitCode !== 0) throw unreachable(options.url, listed.stderr);
    // An empty --refmap: no ref is written, FETCH_HEAD alone names the commit.
    const fetched = await git.run(
      ['fetch', '--quiet', '--no-tags', '--depth=1', '--filter=blob:none', '--refmap=', SCRATCH_REMOTE, ref],
      { cwd: repo },
    );
    if (fetched.exitCode !== 0) throw unreachable(options.url, fetched.stderr);
    const commit = (await gitOk(git, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], { cwd: repo })).trim();
    const paths = await listFiles(git, repo, commit, RUNS_DIR);
    const select = 'accepts' in options.current ? options.current : lineageOf(options.current);
    const { candidates, skipped } = historyCandidates(paths, select.before);
    const annotations = await copyAnnotations(git, repo, commit, paths, options.out);
    const kept: string[] = [];
    // Blobs are fetched on demand by `cat-file --batch`, as many at a time as runs are still
    // wanted: when the newest files are all of the lineage, nothing else is downloaded.
    for (let at = 0; at < candidates.length && kept.length < options.runs;) {
      const page = candidates.slice(at, at + options.runs - kept.length);
      at += page.length;
      const readable = await withinSize(git, repo, commit, page, options.maxFileBytes, skipped);
      const texts = await readFiles(
        git,
        repo,
        commit,
        readable.map((c) => c.path),
      );
      for (const { path } of readable) {
        const run = parseCandidate(path, texts.get(path), skipped);
        if (!run || !select.accepts(run)) continue;
        const relative = relativeRunPath(run);
        const file = join(options.out, ...relative.split('/'));
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, texts.get(path)!);
        kept.push(relative);
      }
    }
    for (const s of skipped) log(`warning: skipped ${s.path} of ${options.branch}: ${s.reason}`);
    return { commit, files: kept.reverse(), annotations, skipped };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The candidates of a page small enough to read; the others are skipped, with their size. */
async function withinSize(
  git: GitRunner,
  repo: string,
  commit: string,
  page: readonly HistoryCandidate[],
  maxBytes = MAX_RESULT_BYTES,
  skipped: SkippedFile[],
): Promise<HistoryCandidate[]> {
  const sizes = await blobSizes(
    git,
    repo,
    commit,
    page.map((c) => c.path),
  );
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return page.filter(({ path }) => {
    const size = sizes.get(path);
    if (size === undefined || size <= maxBytes) return true;
    skipped.push({
      path,
      reason: `${mib(size)}, more than the ${mib(maxBytes)} a result file may be: not read`,
    });
    return false;
  });
}

/** A candidate's result, or undefined (and a skipped entry) when it is not a valid result where it lies. */
function parseCandidate(
  path: string,
  text: string | undefined,
  skipped: SkippedFile[],
): RunResult | undefined {
  if (text === undefined) {
    skipped.push({ path, reason: 'not a readable file' });
    return undefined;
  }
  try {
    const run = parseResult(text, path);
    const misplaced = layoutProblem(path.slice(RUNS_DIR.length + 1), run);
    if (misplaced) {
      skipped.push({ path, reason: misplaced });
      return undefined;
    }
    return run;
  } catch (error) {
    // parseResult's messages start with the path, which the warning names already.
    skipped.push({ path, reason: errorMessage(error).replace(`${path}: `, '') });
    return undefined;
  }
}

/** Copies the branch's annotations file (baseline resets, thresholds) to the top of `out`. */
async function copyAnnotations(
  git: GitRunner,
  repo: string,
  commit: string,
  paths: readonly string[],
  out: string,
): Promise<string | null> {
  const found = ANNOTATION_FILES.find((name) => paths.includes(`${RUNS_DIR}/${name}`));
  if (found === undefined) return null;
  const path = `${RUNS_DIR}/${found}`;
  const size = (await blobSizes(git, repo, commit, [path])).get(path);
  if (size !== undefined && size > MAX_RESULT_BYTES)
    throw new RbError(
      'ANNOTATIONS_INVALID',
      `${path} of the data branch is ${size} bytes, more than the ${MAX_RESULT_BYTES} an annotations file may be`,
      `fix ${path} on the data branch`,
    );
  const text = (await readFiles(git, repo, commit, [path])).get(path);
  if (text === undefined) return null;
  // Checked here, where the branch's file can be named: the gate reads it for every later night.
  try {
    parseAnnotations(text, path);
  } catch (error) {
    if (!(error instanceof RbError)) throw error;
    throw new RbError(
      error.code,
      `data branch: ${error.message}`,
      [error.hint, `fix ${path} on the data branch`].filter(Boolean).join('; '),
    );
  }
  await writeFile(join(out, found), text);
  return found;
}
