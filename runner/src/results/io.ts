import { randomBytes } from 'node:crypto';
import { rename, writeFile, mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, basename, join } from 'node:path';
import { READABLE_RESULT_SCHEMA_VERSIONS, RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { isNoSpace, spaceShortfall } from '../util/no-space.ts';
import { lineColumn } from '../util/position.ts';
import { readTextFile } from '../util/read-file.ts';

/**
 * What is wrong with JSON text, by position only: JSON.parse quotes the text around the error
 * ("root:x:0:0"...), and a message must never echo a file that may not be ours (/etc/passwd).
 */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = errorMessage(error);
  if (text.trim() === '') return 'the file is empty';
  if (message.startsWith('Unexpected end of JSON input'))
    return `it ends too early (${lineColumn(text, text.length)})`;
  const at = /^(.*?) in JSON at position (\d+)/.exec(message);
  if (at) return `${at[1]!.replace(/"[^"]*"/g, '…')} at ${lineColumn(text, Number(at[2]))}`;
  const first = text.search(/\S/);
  if (!/[[{]/.test(text[first]!)) return `it does not start with "{" (${lineColumn(text, first)})`;
  return 'unexpected token';
}

/** Parses and validates the text of a result file; `where` names it in every error line. */
export function parseResult(text: string, where: string): RunResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'RESULT_INVALID',
      `${where}: not valid JSON (${jsonSyntaxProblem(error, text)})`,
      'result files are written by `runtime-bench run`; restore the file from the data branch',
    );
  }
  const version = (json as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (
    typeof version === 'number' &&
    !(READABLE_RESULT_SCHEMA_VERSIONS as readonly number[]).includes(version)
  ) {
    throw new RbError(
      'RESULT_INVALID',
      `${where}: schemaVersion ${version} is not supported by this runtime-bench (it reads ${READABLE_RESULT_SCHEMA_VERSIONS.join(', ')})`,
      'upgrade runtime-bench to read newer result files',
    );
  }
  return parseWithFriendlyErrors(RunResultSchema, json, where, {
    code: 'RESULT_INVALID',
    hint: 'fix the named fields or re-run the benchmark',
  });
}

export async function readResultFile(path: string): Promise<RunResult> {
  const text = await readTextFile(path, {
    code: 'RESULT_UNREADABLE',
    message: (reason) => `${path}: cannot read (${reason})`,
    hint: 'check the path',
  });
  return parseResult(text, path);
}

/** Canonical serialisation of a result: stable key order as built, two-space indent, final newline. */
export function serializeResult(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

export interface WriteResultOptions {
  /**
   * Where a result that finds no room at its path is kept instead, tried in order (default: the
   * system's temp directory), so a full disk never loses what was measured.
   */
  fallbackDirs?: readonly string[];
}

/**
 * Validates and writes a result atomically (temp file + rename), so a crash never leaves a
 * half-written file where a valid one is expected. An invalid result is never written at `path`;
 * its measurements are kept beside it in `<path>.rejected` (a name no reader takes for a result),
 * so a run refused at the end loses nothing it measured. A full filesystem (ENOSPC, EDQUOT) leaves
 * nothing at `path`: the whole result goes to the first fallback directory with room, and the
 * error names both, the bytes needed and the bytes free.
 */
export async function writeResultFile(
  path: string,
  result: RunResult,
  options: WriteResultOptions = {},
): Promise<void> {
  let valid: RunResult;
  try {
    valid = parseResult(JSON.stringify(result), `result for ${basename(path)}`);
  } catch (error) {
    if (!(error instanceof RbError)) throw error;
    const kept = `${path}.rejected`;
    const saved = await mkdir(dirname(path), { recursive: true })
      .then(() => writeFile(kept, serializeResult(result)))
      .then(
        () => `the measurements are kept, unvalidated, in ${kept}`,
        (failure: unknown) => `the measurements could not be kept in ${kept} (${errorMessage(failure)})`,
      );
    throw new RbError(error.code, `${error.message}\n${saved}`, error.hint);
  }
  const text = serializeResult(valid);
  try {
    await writeAtomically(path, text);
  } catch (error) {
    if (!isNoSpace(error)) throw error;
    const needed = Buffer.byteLength(text);
    const reason = error.code;
    const kept = await keepElsewhere(path, text, options.fallbackDirs ?? [tmpdir()]);
    throw new RbError(
      'NO_SPACE',
      `${path}: no room to write the result (${reason}): it ${spaceShortfall(path, needed)}\n${kept}`,
      `free space on the filesystem of ${dirname(path)} (or pass --out/--data-dir on another one), then copy the kept result there`,
      { exitCode: EXIT.error.code, cause: error },
    );
  }
}

/** Temp file + rename; a device or pipe (/dev/stdout, a FIFO) is written through instead. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const existing = await stat(path).catch(() => null);
  if (existing && !existing.isFile()) {
    // Renaming over a device or pipe would replace it.
    await writeFile(path, text);
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Writes the result whole into the first directory with room; says where, or why nowhere. */
async function keepElsewhere(path: string, text: string, dirs: readonly string[]): Promise<string> {
  const refusals: string[] = [];
  for (const dir of dirs) {
    const kept = join(dir, `unwritten-${randomBytes(4).toString('hex')}-${basename(path)}`);
    try {
      await writeAtomically(kept, text);
      const passed = refusals.length > 0 ? ` (not in ${refusals.join('; ')})` : '';
      return `the whole result is kept in ${kept}${passed}`;
    } catch (error) {
      const why = isNoSpace(error)
        ? `no space, it ${spaceShortfall(dir, Buffer.byteLength(text))}`
        : errorMessage(error);
      refusals.push(`${dir}: ${why}`);
    }
  }
  return `the result could not be kept anywhere (${refusals.join('; ')})`;
}
