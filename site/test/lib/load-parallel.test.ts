// The build's loader (worker threads, digests, columns) against the plain one: the same files give
// the same index, run list and errors as loadRuns + buildIndex, which read every file in one thread.
import { readdirSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RbError, serializeResult } from '@runtime-bench/runner';
import { loadRuns } from '../../src/lib/load.ts';
import { loadFullRuns, loadSite } from '../../src/lib/load-parallel.ts';
import { buildIndex } from '../../src/lib/index-builder.ts';
import type { SiteIndex } from '../../src/lib/site-index.ts';
import { compareRunRefs } from '../../src/lib/compare-data.ts';
import { syntheticRun } from '../../bench/synthetic.ts';

const WORKER = fileURLToPath(new URL('../../src/lib/load-worker.ts', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-site-parallel-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Everything an index shows, as plain data. */
function plain(index: SiteIndex) {
  const { observationsOf: _, rowsOf: __, ...rest } = index;
  return {
    ...rest,
    observations: index.metrics.flatMap((m) => index.observationsOf(m.key)),
    rows: index.metrics.map((m) => index.rowsOf(m.key)),
    metricKeysByHost: [...index.metricKeysByHost].map(([h, keys]) => [h, [...keys].sort()]),
  };
}

describe('loadSite', () => {
  test('gives what loadRuns and buildIndex give, with two workers over many batches', async () => {
    const data = join(dir, 'ok');
    // 70 files: three batches of 32 and more, runs of two host classes, files out of time order
    for (let i = 0; i < 70; i++) {
      const run = syntheticRun(69 - i);
      const path = join(data, 'runs', 'x', `${String(i).padStart(3, '0')}.json`);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, serializeResult(run));
    }
    const site = await loadSite(data, WORKER, { threads: 2 });
    const loaded = loadRuns(data);
    expect(plain(site.index)).toEqual(plain(buildIndex(loaded)));
    const index = buildIndex(loaded);
    expect(site.refs.map(({ lineage: _, ...ref }) => ref)).toEqual(compareRunRefs(loaded));
    // each run's targets with the lineage the index followed them by
    site.refs.forEach((ref, i) =>
      expect(ref.lineage).toEqual(
        Object.fromEntries(index.runTargets.filter((t) => t.run === i).map((t) => [t.targetId, t.combo])),
      ),
    );
    const full = loadFullRuns(site, [0, 69]);
    expect(full).toEqual([loaded[0], loaded[69]]);
  }, 120_000);

  test('an invalid, a duplicate or a linked file fails the load like loadRuns, naming each', async () => {
    const data = join(dir, 'bad');
    await mkdir(join(data, 'runs', 'a'), { recursive: true });
    const run = syntheticRun(1);
    await writeFile(join(data, 'runs', 'a', '1.json'), serializeResult(run));
    await writeFile(join(data, 'runs', 'a', '2.json'), serializeResult(run));
    const broken = JSON.parse(serializeResult(syntheticRun(2))) as { host: { cpus: unknown } };
    broken.host.cpus = 'two';
    await writeFile(join(data, 'runs', 'a', '3.json'), JSON.stringify(broken));
    await symlink('/etc/passwd', join(data, 'runs', 'a', '4.json'));
    const plainError = (() => {
      try {
        loadRuns(data);
      } catch (e) {
        return e as RbError;
      }
    })();
    const error = await loadSite(data, WORKER, { threads: 2 }).then(
      () => undefined,
      (e: unknown) => e as RbError,
    );
    expect(error).toBeInstanceOf(RbError);
    expect(error!.code).toBe('DATA_INVALID');
    expect(error!.message.split('\n').sort()).toEqual(plainError!.message.split('\n').sort());
    expect(error!.message).toContain(`${join(data, 'runs/a/3.json')}: host.cpus:`);
    expect(error!.message).toContain(`${join(data, 'runs/a/2.json')}: runId: ${run.runId} is also stored as`);
    expect(error!.message).toContain(`${join(data, 'runs/a/4.json')}: is a symbolic link`);
  }, 120_000);

  test('with a digest cache: the same index, each valid content cached once, invalid files never', async () => {
    const data = join(dir, 'cached');
    const cacheDir = join(dir, 'cache');
    const runsAt = join(data, 'runs', 'x');
    await mkdir(runsAt, { recursive: true });
    for (let i = 0; i < 5; i++) await writeFile(join(runsAt, `${i}.json`), serializeResult(syntheticRun(i)));
    const fresh = await loadSite(data, WORKER, { threads: 2 });
    const cold = await loadSite(data, WORKER, { threads: 2, cacheDir });
    const entries = () =>
      readdirSync(cacheDir, { recursive: true }).filter((f) => /\/[0-9a-f]{40}\.v8$/.test(String(f))).length;
    expect(entries()).toBe(5);
    // the same content under another path is the same entry, with its own path
    await writeFile(join(data, 'runs', 'moved.json'), serializeResult(syntheticRun(0)));
    await rm(join(runsAt, '0.json'));
    const warm = await loadSite(data, WORKER, { threads: 2, cacheDir });
    expect(entries()).toBe(5);
    expect(plain(cold.index)).toEqual(plain(fresh.index));
    expect(warm.refs.map((r) => r.file)).toContain('runs/moved.json');
    expect(plain(warm.index)).toEqual(plain(buildIndex(loadRuns(data))));
    // an invalid file is reported again on every load, cache or not
    await writeFile(join(runsAt, 'bad.json'), '{');
    for (let i = 0; i < 2; i++)
      await expect(loadSite(data, WORKER, { threads: 2, cacheDir })).rejects.toThrow(
        'bad.json: not valid JSON',
      );
    expect(entries()).toBe(5);
  }, 120_000);

  test('a missing data directory is an error; one without runs/ is an empty history', async () => {
    await expect(loadSite(join(dir, 'nope'), WORKER)).rejects.toThrow('does not exist');
    await mkdir(join(dir, 'empty'), { recursive: true });
    const site = await loadSite(join(dir, 'empty'), WORKER);
    expect(site.index.runs).toEqual([]);
    expect(site.refs).toEqual([]);
  });
});
