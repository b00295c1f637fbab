// What a publication changes on the data branch, decided from plain values: which results and
// bisection reports are new, which are already there (a no-op), which would overwrite a different
// file under the same id (refused), and which documentation files need adding or updating.
import type { BisectReport, RunResult } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { canonicalBisectionText, parseBisectionReport } from '../results/bisection-io.ts';
import { parseResult, serializeResult } from '../results/io.ts';
import { BISECTIONS_DIR, bisectionId, bisectionPath, runIdOfPath, runPath } from '../results/layout.ts';

/** A validated input: a run's result, or a bisection report with the text it was read from. */
export type PublishInput =
  { source: string; result: RunResult } | { source: string; bisection: BisectReport; text: string };

/** One file to publish (a run, or a bisection report): its canonical bytes and where they go. */
export interface Candidate {
  /** The run id, or the bisection report's id (bisectionId): the file's name without .json. */
  runId: string;
  path: string;
  /** serializeResult() of the validated result: what is written, and what "the same run" means. */
  content: string;
  /** Input files that held this run (more than one when the same run was named twice). */
  sources: string[];
}

/** A file that documents the data (README, JSON Schemas): added or updated, never a result. */
export interface DocFile {
  path: string;
  content: string;
}

export interface PublicationPlan {
  add: Candidate[];
  /** Runs already on the branch with identical content: publishing them again is a no-op. */
  unchanged: Candidate[];
  docs: (DocFile & { action: 'add' | 'update' })[];
}

/**
 * Turns validated inputs into candidates, one per run id (or bisection id). The same file named
 * twice collapses into one; two different files claiming one id are refused before anything is
 * written. A bisection report is published as it was written (canonical JSON of its own text,
 * never upgraded to a newer version's shape).
 */
export function prepareCandidates(inputs: readonly PublishInput[]): Candidate[] {
  const byId = new Map<string, Candidate>();
  for (const input of inputs) {
    const { source } = input;
    const [id, path, content] =
      'result' in input
        ? [input.result.runId, runPath(input.result), serializeResult(input.result)]
        : [bisectionId(input.bisection), bisectionPath(input.bisection), canonicalBisectionText(input.text)];
    const seen = byId.get(id);
    if (!seen) {
      byId.set(id, { runId: id, path, content, sources: [source] });
    } else if (seen.content === content) {
      seen.sources.push(source);
    } else {
      throw new RbError(
        'PUBLISH_CONFLICT',
        `${source} and ${seen.sources[0]} both claim ${'result' in input ? 'run' : 'bisection'} id ${id} with different content`,
        'an id names exactly one file; publish only one of them',
      );
    }
  }
  return [...byId.values()];
}

/** Paths of existing result files per run id, from a listing of the branch's result files. */
export function indexRunPaths(paths: readonly string[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const path of paths) {
    const id = runIdOfPath(path);
    if (id === undefined) continue;
    const list = index.get(id) ?? [];
    list.push(path);
    index.set(id, list);
  }
  return index;
}

/**
 * Decides what to commit. `existing` holds, for each candidate's run id already on the branch,
 * the path(s) and text found there; `existingDocs` the current text of each doc path (absent when
 * missing). Throws PUBLISH_CONFLICT, naming both sides, when a run id is taken by a different result.
 */
export function planPublication(input: {
  candidates: readonly Candidate[];
  existing: ReadonlyMap<string, readonly { path: string; text: string }[]>;
  docs: readonly DocFile[];
  existingDocs: ReadonlyMap<string, string>;
  /** Names the branch in messages, e.g. `origin/benchmark-data`. */
  where: string;
}): PublicationPlan {
  const plan: PublicationPlan = { add: [], unchanged: [], docs: [] };
  for (const candidate of input.candidates) {
    const found = input.existing.get(candidate.runId) ?? [];
    if (found.length === 0) {
      plan.add.push(candidate);
      continue;
    }
    for (const { path, text } of found) {
      if (path !== candidate.path || !sameResult(text, candidate.content, path, `${input.where}:${path}`)) {
        throw new RbError(
          'PUBLISH_CONFLICT',
          `${candidate.sources[0]}: run id ${candidate.runId} is already published as ${input.where}:${path} with different content`,
          'published results are immutable: a new measurement needs a new run id (re-run the benchmark)',
        );
      }
    }
    plan.unchanged.push(candidate);
  }
  for (const doc of input.docs) {
    const current = input.existingDocs.get(doc.path);
    if (current === undefined) plan.docs.push({ ...doc, action: 'add' });
    else if (current !== doc.content) plan.docs.push({ ...doc, action: 'update' });
  }
  return plan;
}

/** Whether an existing file holds the same result or report as `content` (compared in canonical form). */
function sameResult(existingText: string, content: string, path: string, where: string): boolean {
  if (existingText === content) return true;
  try {
    if (path.startsWith(`${BISECTIONS_DIR}/`)) {
      parseBisectionReport(existingText, where);
      return canonicalBisectionText(existingText) === content;
    }
    return serializeResult(parseResult(existingText, where)) === content;
  } catch (error) {
    // An unreadable file under the same run id is still a different file: never overwrite it.
    throw new RbError(
      'PUBLISH_CONFLICT',
      `${where} already exists and is not a valid result (${errorMessage(error)})`,
      'repair the data branch by hand; runtime-bench never rewrites a published file',
    );
  }
}

/** The commit message used when none is given. */
export function defaultCommitMessage(plan: PublicationPlan): string {
  const isReport = (c: Candidate) => c.path.startsWith(`${BISECTIONS_DIR}/`);
  const ids = plan.add.filter((c) => !isReport(c)).map((c) => c.runId);
  const reports = plan.add.filter(isReport).map((c) => c.runId);
  const runs = ids.length === 1 ? `run ${ids[0]}` : `${ids.length} runs`;
  const bisections = reports.length === 1 ? `bisection ${reports[0]}` : `${reports.length} bisections`;
  const head =
    ids.length + reports.length === 0
      ? 'Update data documentation'
      : reports.length === 0
        ? `Add ${runs}`
        : ids.length === 0
          ? `Add ${bisections}`
          : `Add ${runs} and ${bisections}`;
  const body = [...plan.add.map((c) => `- ${c.path}`), ...plan.docs.map((d) => `- ${d.action} ${d.path}`)];
  return body.length > 0 ? `${head}\n\n${body.join('\n')}\n` : `${head}\n`;
}
