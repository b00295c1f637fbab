import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parseAnnotations } from '../../../src/compare/index.ts';
import { readHistoryDir } from '../../../src/history/index.ts';
import { serializeResult, writeResultFile } from '../../../src/results/io.ts';
import { night, syntheticRun } from '../compare/synthetic.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-history-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reading a history directory', () => {
  test('nested yyyy/mm/dd files are read recursively and ordered by startedAt', async () => {
    // Written out of order, in nested folders whose names do not sort like their times.
    await writeResultFile(join(dir, '2026/11/03/c.json'), syntheticRun({ seed: 3, startedAt: night(3) }));
    await writeResultFile(join(dir, '2026/11/01/z.json'), syntheticRun({ seed: 1, startedAt: night(1) }));
    await writeResultFile(join(dir, 'loose/a.json'), syntheticRun({ seed: 2, startedAt: night(2) }));
    await writeFile(join(dir, 'README.md'), 'not a result');
    await mkdir(join(dir, '.git'), { recursive: true });
    await writeFile(join(dir, '.git', 'junk.json'), '{');
    const history = await readHistoryDir(dir);
    expect(history.entries.map((e) => e.run.startedAt)).toEqual([night(1), night(2), night(3)]);
    expect(history.entries[1]!.file).toBe(join(dir, 'loose/a.json'));
    expect(history.annotationsFile).toBeNull();
    expect(history.annotations.baselineResets).toEqual([]);
  });

  test('an invalid file is an error naming the file and the field, not skipped', async () => {
    await writeResultFile(join(dir, 'ok.json'), syntheticRun({ seed: 1, startedAt: night(1) }));
    const bad = syntheticRun({ seed: 2, startedAt: night(2) }) as unknown as {
      results: { attempts: number }[];
    };
    bad.results[0]!.attempts = -1;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    await writeFile(join(dir, 'broken.json'), '{"schemaVersion": 1,');
    const error = (await readHistoryDir(dir).then(
      () => null,
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('2 problem(s)');
    expect(error.message).toContain(`${join(dir, 'bad.json')}: results[0].attempts`);
    expect(error.message).toContain(`${join(dir, 'broken.json')}: not valid JSON`);
  });

  test('the same run twice is an error', async () => {
    const run = syntheticRun({ seed: 1, startedAt: night(1) });
    await writeFile(join(dir, 'a.json'), serializeResult(run));
    await writeFile(join(dir, 'b.json'), serializeResult(run));
    await expect(readHistoryDir(dir)).rejects.toThrow(/runId: 20261101T030000Z-00000001 is also stored as/);
  });

  test('a missing directory is an error with a hint', async () => {
    await expect(readHistoryDir(join(dir, 'nope'))).rejects.toMatchObject({
      code: 'HISTORY_UNREADABLE',
      hint: expect.stringMatching(/create it empty/),
    });
  });

  test('annotations.json is read and not taken for a result', async () => {
    await writeFile(
      join(dir, 'annotations.json'),
      JSON.stringify({
        schemaVersion: 1,
        baselineResets: [{ from: night(5), reason: 'kernel 6.18 → 6.19' }],
        thresholds: { StartContainer: 10 },
      }),
    );
    const history = await readHistoryDir(dir);
    expect(history.entries).toEqual([]);
    expect(history.annotations).toEqual({
      schemaVersion: 1,
      baselineResets: [{ from: night(5), reason: 'kernel 6.18 → 6.19' }],
      thresholds: { StartContainer: 10 },
      // Absent from the file (older than the field): no reference handler.
      referenceHandlers: [],
    });
  });

  test('annotations.yaml works too; two annotation files are an error', async () => {
    await writeFile(
      join(dir, 'annotations.yaml'),
      'schemaVersion: 1\nbaselineResets:\n  - from: "2026-11-05T00:00:00Z"\n    reason: runner image update\n    target: containerd/runc\n',
    );
    expect((await readHistoryDir(dir)).annotations.baselineResets[0]).toMatchObject({
      target: 'containerd/runc',
    });
    await writeFile(join(dir, 'annotations.json'), '{"schemaVersion": 1}');
    await expect(readHistoryDir(dir)).rejects.toThrow(/both annotations.json and annotations.yaml exist/);
  });
});

describe('annotations validation', () => {
  test.each([
    ['{"schemaVersion": 2}', /schemaVersion/],
    [
      '{"schemaVersion": 1, "baselineResets": [{"from": "yesterday", "reason": "x"}]}',
      /baselineResets\[0\]\.from/,
    ],
    [
      '{"schemaVersion": 1, "baselineResets": [{"from": "2026-11-05T00:00:00Z"}]}',
      /baselineResets\[0\]\.reason/,
    ],
    ['{"schemaVersion": 1, "thresholds": {"StartContainer": -1}}', /thresholds\.StartContainer/],
    ['{"schemaVersion": 1, "resets": []}', /resets/],
    ['{', /cannot parse/],
  ])('%s is refused, naming the field', (text, message) => {
    expect(() => parseAnnotations(text, 'annotations.json')).toThrow(message);
  });
});
