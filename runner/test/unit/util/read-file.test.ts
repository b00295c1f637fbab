// The one file-reading helper, on real files: the text when readable; otherwise the caller's code,
// its message around the system's own reason, and its hint; a missing file is null only when asked.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { readTextFile, readTextFileIfExists } from '../../../src/util/read-file.ts';

let dir: string;
let file: string;
let missing: string;
const unreadable = {
  code: 'TEST_UNREADABLE',
  message: (reason: string) => `the test file: cannot read (${reason})`,
  hint: 'check the path',
};

/** What node itself says when reading `path` fails: the reason the message must carry. */
async function systemReason(path: string): Promise<string> {
  return readFile(path, 'utf8').then(
    () => {
      throw new Error(`${path} was readable`);
    },
    (error: Error) => error.message,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-read-'));
  file = join(dir, 'a.txt');
  missing = join(dir, 'missing.txt');
  await writeFile(file, 'héllo\nwörld\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('readTextFile', () => {
  test('the text of a readable file, as UTF-8', async () => {
    expect(await readTextFile(file, unreadable)).toBe('héllo\nwörld\n');
  });

  test.each([
    ['a missing file', () => missing],
    ['a directory', () => dir],
  ])('%s: an RbError with the code, the message around the reason, and the hint', async (_, path) => {
    const reason = await systemReason(path());
    const error = await readTextFile(path(), unreadable).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbError);
    expect(error).toMatchObject({
      code: 'TEST_UNREADABLE',
      message: `the test file: cannot read (${reason})`,
      hint: 'check the path',
    });
  });

  test('without a hint, the error has none', async () => {
    const error = await readTextFile(missing, { code: 'X', message: (r) => r }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'X', hint: undefined });
  });
});

describe('readTextFileIfExists', () => {
  test('the text of a readable file; null for a missing one', async () => {
    expect(await readTextFileIfExists(file, unreadable)).toBe('héllo\nwörld\n');
    expect(await readTextFileIfExists(missing, unreadable)).toBeNull();
  });

  test('any other failure (a directory) is still the friendly error', async () => {
    const reason = await systemReason(dir);
    await expect(readTextFileIfExists(dir, unreadable)).rejects.toMatchObject({
      code: 'TEST_UNREADABLE',
      message: `the test file: cannot read (${reason})`,
    });
  });
});
