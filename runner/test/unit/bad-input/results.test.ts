// Result files that contradict themselves, refused by every command that reads results: the real
// CLI on copies of a real recorded result (data/runs), each with one thing broken by hand.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../support/cli.ts';

const REAL = join(import.meta.dirname, '../../../../data/runs/2026/11/21/20261121T085232Z-f6360a57.json');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const real = (): Json => JSON.parse(readFileSync(REAL, 'utf8')) as Json;

/** name → [how the file is broken, what the error must say (file name replaced by NAME)]. */
const CASES: Record<string, [(r: Json) => void, string]> = {
  negative: [
    (r) => (r.results[0].metrics[1].samples[3] = -4.2),
    'NAME: results[0].metrics[1].samples[3]: -4.2 is negative, but a value in ms cannot be',
  ],
  summary: [
    (r) => (r.results[0].metrics[0].summary.median = 1e9),
    'NAME: results[0].metrics[0].summary.median: 1000000000 contradicts the samples, which give',
  ],
  'finished-early': [
    (r) => (r.finishedAt = '2026-11-21T08:52:31.000Z'),
    'NAME: finishedAt: 2026-11-21T08:52:31.000Z is before startedAt 2026-11-21T08:52:32.308Z',
  ],
  'failed-attempts': [
    (r) => (r.results[2].failedAttempts = 11),
    'NAME: results[2].failedAttempts: 11 failed attempts of 10 attempts',
  ],
  'duplicate-target': [
    (r) => r.targets.push(r.targets[0]),
    'NAME: targets[5].id: target "containerd-1.6/runc" repeats targets[0]',
  ],
  'duplicate-benchmark': [
    (r) => r.benchmarks.push(r.benchmarks[1]),
    'NAME: benchmarks[2].name: benchmark "performance.cpu" repeats benchmarks[1]',
  ],
  'duplicate-result': [
    (r) => r.results.push(r.results[0]),
    'NAME: results[10]: the result of operations.container.lifecycle on containerd-1.6/runc repeats results[0]',
  ],
  'run-id-1999': [
    (r) => (r.runId = '19990101T000000Z-f6360a57'),
    'NAME: runId: its timestamp 19990101T000000Z disagrees with startedAt 2026-11-21T08:52:32.308Z',
  ],
};

describe('self-contradicting result files are refused with the file and field named (exit 2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-bad-results-'));
  const runs = join(dir, 'data', 'runs', '2026', '11', '21');
  mkdirSync(runs, { recursive: true });
  const files = Object.entries(CASES).map(([name, [breakIt]]) => {
    const result = real();
    breakIt(result);
    const file = join(runs, `${name}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    return { name, file };
  });
  const expectEach = (output: string) => {
    for (const { name, file } of files) expect(output).toContain(CASES[name]![1].replace('NAME', file));
    expect(output).not.toMatch(/\n\s+at .*:\d+:\d+\)?\n/);
  };

  test('the unbroken original is valid (so each refusal is about the one change)', async () => {
    const r = await runCli(['validate', REAL]);
    expect(r.code).toBe(0);
  }, 60_000);

  test('validate', async () => {
    const r = await runCli(['validate', ...files.map((f) => f.file)]);
    expect(r.code).toBe(2);
    expectEach(r.stdout);
    expect(r.stderr).toContain(`${files.length} of ${files.length} file(s) invalid`);
  }, 60_000);

  test('data verify --dir', async () => {
    const r = await runCli(['data', 'verify', '--dir', join(dir, 'data')]);
    expect(r.code).toBe(2);
    expectEach(r.stdout);
    expect(r.stdout).toContain(`${files.length} file(s), 0 valid, ${files.length} invalid`);
  }, 60_000);

  test('publish: nothing is published, before git is even asked', async () => {
    const r = await runCli(['publish', '--git-dir', join(dir, 'no-repo'), ...files.map((f) => f.file)]);
    expect(r.code).toBe(2);
    expectEach(r.stderr);
    expect(r.stderr).toContain(`nothing was published: ${files.length} of ${files.length} file(s) invalid`);
    expect(r.stderr).toMatch(/^hint: /m);
  }, 60_000);
});
