// The one "read a file the user named, or say which and why not": every input file of the runner
// (config, result, install record, annotations, stack state, checksums) is read here, so an
// unreadable one always becomes an RbError with the caller's code, wording and fix.
import { readFile } from 'node:fs/promises';
import { RbError, errorMessage } from '../errors.ts';

/** How a file that cannot be read is reported. */
export interface UnreadableFile {
  code: string;
  /** The message, given why the file could not be read (the system's words: "ENOENT: no such file …"). */
  message: (reason: string) => string;
  hint?: string;
}

/** The text (UTF-8) of `path`, or an RbError as `unreadable` says. */
export async function readTextFile(path: string, unreadable: UnreadableFile): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new RbError(unreadable.code, unreadable.message(errorMessage(error)), unreadable.hint);
  }
}

/** The text (UTF-8) of `path`; null when there is no such file; an RbError as `unreadable` says otherwise. */
export async function readTextFileIfExists(path: string, unreadable: UnreadableFile): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new RbError(unreadable.code, unreadable.message(errorMessage(error)), unreadable.hint);
  }
}
