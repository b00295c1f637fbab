// The I/O edge of the gate: reads a history directory into plain values for runGate().
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import { readResultFile } from '../results/io.ts';
import { AnnotationsSchema, EMPTY_ANNOTATIONS, type Annotations } from './annotations.ts';
import type { HistoryEntry } from './gate.ts';

/** File names of the annotations at the top of a history directory (at most one may exist). */
export const ANNOTATION_FILES = ['annotations.json', 'annotations.yaml', 'annotations.yml'];

export interface History {
  /** Every result file under the directory, ordered by startedAt (then file name). */
  entries: HistoryEntry[];
  annotations: Annotations;
  /** The annotations file read, if any. */
  annotationsFile: string | null;
}

/**
 * Reads every `*.json` result file under `dir`, recursively (e.g. data/runs/yyyy/mm/dd/<id>.json),
 * except the annotations file at its top; hidden entries (".git") are skipped. An invalid file is
 * an error naming it — never skipped, since a silently dropped file changes the baseline — and
 * so is a run id that appears in two files.
 */
export async function readHistoryDir(dir: string): Promise<History> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })).map(String);
  } catch (error) {
    throw new RbError(
      'HISTORY_UNREADABLE',
      `${dir}: cannot read the history directory (${errorMessage(error)})`,
      'pass the directory that holds earlier result files (create it empty for the first run)',
    );
  }
  const files = names
    .filter((n) => n.endsWith('.json') && !n.split(/[\\/]/).some((part) => part.startsWith('.')))
    .filter((n) => !ANNOTATION_FILES.includes(n))
    .sort();
  const entries: HistoryEntry[] = [];
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const name of files) {
    const file = join(dir, name);
    try {
      const run = await readResultFile(file);
      const other = seen.get(run.runId);
      if (other) problems.push(`${file}: run ${run.runId} is also in ${other}`);
      else seen.set(run.runId, file);
      entries.push({ run, file });
    } catch (error) {
      problems.push(errorMessage(error));
    }
  }
  if (problems.length > 0)
    throw new RbError(
      'HISTORY_INVALID',
      `${problems.length} problem(s) in history ${dir}:\n${problems.join('\n')}`,
      'fix or remove the named files; every result file under the history directory is part of the baseline',
    );
  entries.sort(
    (a, b) => Date.parse(a.run.startedAt) - Date.parse(b.run.startedAt) || a.file.localeCompare(b.file),
  );
  const present = names.filter((n) => ANNOTATION_FILES.includes(n));
  if (present.length > 1)
    throw new RbError(
      'ANNOTATIONS_INVALID',
      `${dir}: both ${present.join(' and ')} exist`,
      'keep one annotations file',
    );
  const annotationsFile = present[0] ? join(dir, present[0]) : null;
  const annotations = annotationsFile ? await readAnnotationsFile(annotationsFile) : EMPTY_ANNOTATIONS;
  return { entries, annotations, annotationsFile };
}

/** Reads and validates an annotations file (JSON, or YAML by extension); errors name the field. */
export async function readAnnotationsFile(file: string): Promise<Annotations> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RbError(
      'ANNOTATIONS_UNREADABLE',
      `${file}: cannot read (${errorMessage(error)})`,
      'check the path',
    );
  }
  return parseAnnotations(text, file);
}

/** Parses the text of an annotations file; `where` names it in every error line. */
export function parseAnnotations(text: string, where: string): Annotations {
  let data: unknown;
  try {
    data = /\.ya?ml$/.test(where) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'ANNOTATIONS_INVALID',
      `${where}: cannot parse (${errorMessage(error)})`,
      'fix the syntax',
    );
  }
  return parseWithFriendlyErrors(AnnotationsSchema, data, where, {
    code: 'ANNOTATIONS_INVALID',
    hint: 'see runner/src/stats/README.md ("Annotations") for the format',
  });
}
