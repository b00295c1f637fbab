// The one result-directory reader: its rules on real files in a temp dir.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { serializeResult } from '../../../src/results/io.ts';
import { jsonFiles, loadResultDir, readResultDir } from '../../../src/results/read-dir.ts';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rb-read-dir-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const opts = { code: 'TEST_INVALID', title: (n: number) => `${n} problem(s)`, hint: 'fix them' };

describe('readResultDir', () => {
  test('hidden files and folders are skipped; paths are relative, /-separated, in code-point order', () => {
    const dir = tree({
      'b/2.json': '2',
      'a/10.json': '10',
      'a/9.json': '9',
      'B.json': 'B',
      '.git/x.json': 'hidden folder',
      'a/.r.json.1234.tmp': 'hidden file',
      'notes.txt': 'n',
    });
    expect(readResultDir(dir).files.map((f) => f.path)).toEqual([
      'B.json',
      'a/10.json',
      'a/9.json',
      'b/2.json',
      'notes.txt',
    ]);
    expect(readResultDir(dir, jsonFiles).files.map((f) => [f.path, f.text])).toEqual([
      ['B.json', 'B'],
      ['a/10.json', '10'],
      ['a/9.json', '9'],
      ['b/2.json', '2'],
    ]);
  });

  test('a missing directory is an error naming it', () => {
    expect(() => readResultDir('/nonexistent/rb')).toThrow('/nonexistent/rb: cannot list the directory');
  });
});

describe('loadResultDir', () => {
  const early = sampleRunResult();
  const late = sampleRunResult({
    runId: '20261121T070000Z-0000000b',
    // 07:00 UTC, written with an offset: later as text, earlier as an instant.
    startedAt: '2026-11-21T09:00:00.000+02:00',
    finishedAt: '2026-11-21T09:01:00.000+02:00',
  });

  test('runs come back ordered by start instant, whatever their file names', () => {
    const dir = tree({ 'a.json': serializeResult(early), 'z.json': serializeResult(late) });
    expect(loadResultDir(dir, opts).map((r) => r.path)).toEqual(['z.json', 'a.json']);
  });

  test('every problem is collected: an invalid file and a run id stored twice', () => {
    const dir = tree({
      'a.json': serializeResult(early),
      'b.json': serializeResult(early),
      'c.json': '{"schemaVersion": 1',
    });
    let message = '';
    try {
      loadResultDir(dir, opts);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      '2 problem(s):',
      `${join(dir, 'b.json')}: runId: ${early.runId} is also stored as ${join(dir, 'a.json')}`,
      `${join(dir, 'c.json')}: not valid JSON (Expected ',' or '}' after property value at line 1, column 20)`,
    ]);
  });
});
