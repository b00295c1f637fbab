import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readResultFile, writeResultFile } from '../../../src/results/io.ts';
import { RbError } from '../../../src/errors.ts';
import { EXIT } from '../../../src/exit-codes.ts';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { mountSmallFs, type SmallFs } from '../../support/small-fs.ts';

const PAGE = 4096;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function smallFs(leaveFree: number): SmallFs {
  const fs = mountSmallFs(64 * 1024, leaveFree);
  cleanups.push(() => fs.dispose());
  return fs;
}
function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rb-nospace-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a result written to a full filesystem', () => {
  // The sample result is about 5.6 kB: one free page holds its first part only, so the write is
  // cut short midway, the case that would leave a truncated file without the temp-file rename.
  test.each([
    ['no byte free', 0],
    ['one page free, less than the result', PAGE],
  ])('%s: a clear error, nothing at --out, the result kept whole elsewhere', async (_, free) => {
    const fs = smallFs(free);
    const fallback = scratchDir();
    const result = sampleRunResult();
    const needed = Buffer.byteLength(`${JSON.stringify(result, null, 2)}\n`);
    expect(needed).toBeGreaterThan(free);
    const out = join(fs.dir, 'runs', 'r.json');

    const error = await writeResultFile(out, result, { fallbackDirs: [fallback] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RbError);
    const rb = error as RbError;
    expect(rb.code).toBe('NO_SPACE');
    expect(rb.message).toContain(out);
    expect(rb.message).toContain(`needs ${needed} bytes`);
    expect(rb.message).toContain(`${fs.available()} bytes are free`);
    expect(rb.hint).toMatch(/free space/);
    // A full disk is no bad input (2) and no bug (70): the message explains it.
    expect(rb.cliExitCode).toBe(EXIT.error.code);

    // Nothing half-written where the result belongs; no temp file left behind.
    expect(readdirSync(fs.dir).sort()).toEqual(['filler', 'runs']);
    expect(readdirSync(join(fs.dir, 'runs'))).toEqual([]);

    // The whole result, every sample, in the fallback the message names.
    const kept = readdirSync(fallback);
    expect(kept).toHaveLength(1);
    const keptPath = join(fallback, kept[0]!);
    expect(rb.message).toContain(`the whole result is kept in ${keptPath}`);
    expect(await readResultFile(keptPath)).toEqual(result);
    expect(readFileSync(keptPath, 'utf8')).toBe(`${JSON.stringify(result, null, 2)}\n`);
  });

  test('the first fallback full too: the next one with room takes it', async () => {
    const out = smallFs(0);
    const fullFallback = smallFs(0);
    const roomy = scratchDir();
    const result = sampleRunResult();
    const error = await writeResultFile(join(out.dir, 'r.json'), result, {
      fallbackDirs: [fullFallback.dir, roomy],
    }).then(
      () => null,
      (e: unknown) => e as RbError,
    );
    expect(error?.code).toBe('NO_SPACE');
    expect(readdirSync(fullFallback.dir)).toEqual(['filler']);
    const kept = readdirSync(roomy);
    expect(kept).toHaveLength(1);
    expect(await readResultFile(join(roomy, kept[0]!))).toEqual(result);
    expect(error?.message).toContain(`${fullFallback.dir}: no space`);
  });

  test('no fallback with room: the error says the result could not be kept', async () => {
    const out = smallFs(0);
    const fullFallback = smallFs(0);
    const error = await writeResultFile(join(out.dir, 'r.json'), sampleRunResult(), {
      fallbackDirs: [fullFallback.dir],
    }).then(
      () => null,
      (e: unknown) => e as RbError,
    );
    expect(error?.code).toBe('NO_SPACE');
    expect(error?.message).toContain('could not be kept anywhere');
    expect(readdirSync(out.dir)).toEqual(['filler']);
    expect(readdirSync(fullFallback.dir)).toEqual(['filler']);
  });
});
