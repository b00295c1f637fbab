import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RbError, serializeResult } from '@runtime-bench/runner';
import { loadRuns, resolveDataDir } from '../../src/lib/load.ts';
import { makeRun, spread } from './fixtures.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-site-load-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(rel: string, text: string): Promise<void> {
  await mkdir(join(dir, rel, '..'), { recursive: true });
  await writeFile(join(dir, rel), text);
}

const a = makeRun('20261102T000000Z-0000000a', '2026-11-02T00:00:00Z', [
  { oci: 'runc', ociVersion: '1', samples: spread(5) },
]);
const b = makeRun('20261101T230000Z-0000000b', '2026-11-02T01:00:00+02:00', [
  { oci: 'runc', ociVersion: '1', samples: spread(5) },
]);

describe('loadRuns', () => {
  test('reads every *.json below runs/, recursively, ordered by start instant', async () => {
    await put('runs/2026/11/02/a.json', serializeResult(a));
    await put('runs/2026/11/01/b.json', serializeResult(b));
    await put('runs/2026/11/01/README.txt', 'not a result');
    await put('runs/2026/11/01/.tmp.json', '{ half written');
    const runs = loadRuns(dir);
    // b starts at 23:00Z on the 1st (01:00+02:00), before a
    expect(runs.map((r) => [r.run.runId, r.file])).toEqual([
      [b.runId, 'runs/2026/11/01/b.json'],
      [a.runId, 'runs/2026/11/02/a.json'],
    ]);
  });

  test('an invalid file fails the load, naming the file and the field', async () => {
    await put('runs/2026/11/02/a.json', serializeResult(a));
    const broken = JSON.parse(serializeResult(b)) as { host: { cpus: unknown } };
    broken.host.cpus = 'two';
    await put('runs/2026/11/01/broken.json', JSON.stringify(broken));
    await put('runs/2026/11/01/garbage.json', '{');
    let error: unknown;
    try {
      loadRuns(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RbError);
    const message = (error as RbError).message;
    expect((error as RbError).code).toBe('DATA_INVALID');
    expect(message).toContain(`${join(dir, 'runs/2026/11/01/broken.json')}: host.cpus:`);
    expect(message).toContain(`${join(dir, 'runs/2026/11/01/garbage.json')}: not valid JSON`);
  });

  test('two files with one run id are an error (their pages would collide)', async () => {
    await put('runs/2026/11/02/a.json', serializeResult(a));
    await put('runs/2026/11/03/a-copy.json', serializeResult(a));
    expect(() => loadRuns(dir)).toThrow(/runId: 20261102T000000Z-0000000a is also stored as/);
  });

  test('a data directory without runs/ is an empty history', () => {
    expect(loadRuns(dir)).toEqual([]);
  });

  test('a missing data directory is an error that names it', () => {
    expect(() => loadRuns(join(dir, 'nope'))).toThrow(`data directory ${join(dir, 'nope')} does not exist`);
  });
});

describe('resolveDataDir', () => {
  test('accepts the root of a data branch checkout (results under data/runs)', async () => {
    await put('data/runs/2026/11/02/a.json', serializeResult(a));
    expect(resolveDataDir(dir)).toBe(join(dir, 'data'));
    expect(loadRuns(resolveDataDir(dir)).map((r) => r.file)).toEqual(['runs/2026/11/02/a.json']);
  });

  test('keeps a directory that has runs/ itself, or has neither', async () => {
    expect(resolveDataDir(dir)).toBe(dir);
    await put('runs/2026/11/02/a.json', serializeResult(a));
    expect(resolveDataDir(dir)).toBe(dir);
  });
});
