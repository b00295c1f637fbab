// The I/O edge of the gate for a local history: reads a directory of result files (and its
// annotations) into plain values for the gate. history/branch.ts reads the same from the data branch.
import { stat } from 'node:fs/promises';
import { RbError } from '../errors.ts';
import { jsonFiles, loadResultDir, readResultDir } from '../results/read-dir.ts';
import { EMPTY_ANNOTATIONS, parseAnnotations, type Annotations } from '../compare/annotations.ts';
import type { HistoryEntry } from '../compare/gate/index.ts';
import { ANNOTATION_FILES } from '../results/run-path.ts';
import { readTextFile } from '../util/read-file.ts';

export interface History {
  /** Every result file under the directory, ordered by startedAt (then file name). */
  entries: HistoryEntry[];
  annotations: Annotations;
  /** The annotations file read, if any. */
  annotationsFile: string | null;
}

/**
 * Reads every `*.json` result file under `dir`, recursively (e.g. data/runs/yyyy/mm/dd/<id>.json),
 * except the annotations file at its top, with the rules of results/read-dir.ts (hidden entries
 * skipped, links and FIFOs refused, a run id in two files refused). An invalid file is an error
 * naming it — never skipped, since a silently dropped file changes the baseline.
 */
export async function readHistoryDir(dir: string): Promise<History> {
  const isDir = await stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new RbError(
      'HISTORY_UNREADABLE',
      `${dir}: cannot read the history directory (it is missing or not a directory)`,
      'pass the directory that holds earlier result files (create it empty for the first run)',
    );
  const runs = loadResultDir(dir, {
    select: (path) => jsonFiles(path) && !ANNOTATION_FILES.includes(path),
    code: 'HISTORY_INVALID',
    title: (count) => `${count} problem(s) in history ${dir}`,
    hint: 'fix or remove the named files; every result file under the history directory is part of the baseline',
  });
  const entries: HistoryEntry[] = runs.map(({ run, file }) => ({ run, file }));
  return { entries, ...(await readHistoryAnnotations(dir)) };
}

/**
 * The annotations file at the top of a history directory (ANNOTATION_FILES, at most one), read
 * and validated; EMPTY_ANNOTATIONS when there is none. What `check` and the site's gate replay
 * both read, so that they decide alike.
 */
export async function readHistoryAnnotations(
  dir: string,
): Promise<{ annotations: Annotations; annotationsFile: string | null }> {
  const found = readResultDir(dir, (path) => ANNOTATION_FILES.includes(path));
  const [problem] = found.problems;
  if (problem)
    throw new RbError('ANNOTATIONS_UNREADABLE', `${problem.file}: ${problem.message}`, 'check the path');
  if (found.files.length > 1)
    throw new RbError(
      'ANNOTATIONS_INVALID',
      `${dir}: both ${found.files.map((f) => f.path).join(' and ')} exist`,
      'keep one annotations file',
    );
  const [annotations] = found.files;
  return {
    annotations: annotations ? parseAnnotations(annotations.text, annotations.file) : EMPTY_ANNOTATIONS,
    annotationsFile: annotations?.file ?? null,
  };
}

/** Reads and validates an annotations file (JSON, or YAML by extension); errors name the field. */
export async function readAnnotationsFile(file: string): Promise<Annotations> {
  const text = await readTextFile(file, {
    code: 'ANNOTATIONS_UNREADABLE',
    message: (reason) => `${file}: cannot read (${reason})`,
    hint: 'check the path',
  });
  return parseAnnotations(text, file);
}
