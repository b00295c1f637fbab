import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadBisections } from '../../src/lib/bisection-load.ts';
import {
  bisectionPagePath,
  bisectionsOf,
  bisectionsOfVersionChange,
  type LoadedBisection,
} from '../../src/lib/bisections.ts';
import { gate } from '../../src/lib/gate.ts';
import { regressionReport } from '../../src/lib/regressions.ts';
import { regressionRuns, sampleBisectReport } from './bisection-fixture.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const ID = '20261127T001500Z-runc-1.1.5-1.2.0-CreateContainer';
const FILE = `bisections/2026/11/27/${ID}.json`;

async function dataDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rb-site-bisect-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('bisection reports of the data directory', () => {
  test('each valid report at its place loads under its id; none without bisections/', async () => {
    const report = sampleBisectReport();
    const dir = await dataDir({ [FILE]: JSON.stringify(report) });
    expect(loadBisections(dir)).toEqual([{ id: ID, report }]);
    expect(bisectionPagePath(ID)).toBe(`bisect/${ID}/`);
    expect(loadBisections(await dataDir({}))).toEqual([]);
  });

  test('an invalid or misplaced report fails the load, naming the file and the field', async () => {
    const bad = { ...sampleBisectReport(), outcome: 'maybe' };
    const dir = await dataDir({
      [FILE]: JSON.stringify(bad),
      'bisections/2026/11/28/elsewhere.json': JSON.stringify(sampleBisectReport()),
    });
    expect(() => loadBisections(dir)).toThrow(/bisection reports are invalid/);
    expect(() => loadBisections(dir)).toThrow(new RegExp(`${FILE}: .*outcome`));
    expect(() => loadBisections(dir)).toThrow(
      new RegExp(`elsewhere\\.json: this report belongs at 2026/11/27/${ID}\\.json`),
    );
  });
});

describe('the regression a bisection explains', () => {
  const slower: LoadedBisection = { id: 'a', report: sampleBisectReport() };
  const newer: LoadedBisection = {
    id: 'b',
    report: sampleBisectReport({
      startedAt: '2026-11-28T00:00:00.000Z',
      finishedAt: '2026-11-28T01:00:00.000Z',
    }),
  };
  const faster: LoadedBisection = { id: 'c', report: sampleBisectReport({ direction: 'faster' }) };
  const finding = {
    benchmark: 'operations.container.lifecycle',
    what: 'CreateContainer',
    verdict: 'regression',
    changePoint: { versionChanges: ['containerd 1.7.2 → 2.0.0', 'runc 1.1.5 → 1.2.0'] },
  };
  test('same benchmark, metric and version change at its change point, the bad way; newest first', () => {
    expect(bisectionsOf(finding, [slower, faster, newer]).map((b) => b.id)).toEqual(['b', 'a']);
    expect(bisectionsOf({ ...finding, verdict: 'improvement' }, [slower, faster]).map((b) => b.id)).toEqual([
      'c',
    ]);
  });
  test('another metric, another change or no change point explains nothing', () => {
    expect(bisectionsOf({ ...finding, what: 'StartContainer' }, [slower])).toEqual([]);
    expect(
      bisectionsOf({ ...finding, changePoint: { versionChanges: ['runc 1.1.5 → 1.2.3'] } }, [slower]),
    ).toEqual([]);
    expect(bisectionsOf({ ...finding, changePoint: null }, [slower])).toEqual([]);
  });
});

describe('with the gate of runtime-bench check', () => {
  test('a night 60 % slower at runc 1.1.5 → 1.2.0 is the regression the fixture bisection explains', () => {
    const report = regressionReport(regressionRuns(), gate);
    expect(report.findings).toHaveLength(1);
    const [f] = report.findings;
    expect(f!.changePoint?.versionChanges).toContain('runc 1.1.5 → 1.2.0');
    const b: LoadedBisection = { id: 'x', report: sampleBisectReport() };
    expect(bisectionsOf(f!, [b])).toEqual([b]);
  });
});

describe('the bisection of a version change measured side by side', () => {
  const older: LoadedBisection = { id: 'a', report: sampleBisectReport() };
  const newer: LoadedBisection = {
    id: 'b',
    report: sampleBisectReport({
      startedAt: '2026-11-28T00:00:00.000Z',
      finishedAt: '2026-11-28T01:00:00.000Z',
    }),
  };
  const faster: LoadedBisection = { id: 'c', report: sampleBisectReport({ direction: 'faster' }) };
  const pair = {
    label: 'runc 1.1.5 → 1.2.0',
    metric: 'operations.container.lifecycle:CreateContainer',
    verdict: 'regression',
  };

  test("a regression between exactly the pair's versions, of its benchmark and metric: newest first", () => {
    expect(bisectionsOfVersionChange(pair, [older, faster, newer]).map((b) => b.id)).toEqual(['b', 'a']);
  });

  test('none for another pair, another metric, or a verdict that is no regression', () => {
    expect(bisectionsOfVersionChange({ ...pair, label: 'runc 1.1.5 → 1.2.1' }, [older])).toEqual([]);
    expect(
      bisectionsOfVersionChange({ ...pair, metric: 'operations.container.lifecycle:StartContainer' }, [
        older,
      ]),
    ).toEqual([]);
    expect(bisectionsOfVersionChange({ ...pair, verdict: 'unclear' }, [older])).toEqual([]);
  });
});
