// The run journal: what a killed run leaves is an ordinary incomplete result that holds every
// repetition measured before the kill. The pipeline writes the journal for real here (a plain
// target kind, a temp directory); a kill is the journal file cut after some line.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigSchema, RunResultSchema } from '@runtime-bench/schemas';
import { FAKE_DEFINITION, fakeHost, fakeTarget } from '../../support/fake-run.ts';
import { newSlot } from '../../../src/run/orchestrate.ts';
import { runPipeline, type TargetKind } from '../../../src/run/pipeline.ts';
import { parseJournal, recoverResult } from '../../../src/results/journal.ts';
import type { IterationOutcome } from '../../../src/suites/types.ts';

const host = fakeHost('h');
const definition = FAKE_DEFINITION;
const target = (id: string) => fakeTarget(id, id.split('/')[1]);

/** Two targets, interleaved; target a's k-th measured value is 10 + k, b's 100 + k; b fails its 3rd. */
function kind(withPreview: boolean): TargetKind {
  return {
    async prepare() {
      const counts = { a: 0, b: 0 };
      const slots = (['a', 'b'] as const).map((t) =>
        newSlot(definition, `c/${t}`, { t }, async (): Promise<IterationOutcome> => {
          const k = counts[t]++;
          if (t === 'b' && k === 3) return { values: {}, errors: {}, failure: 'boom' };
          return { values: { x: (t === 'a' ? 10 : 100) + k }, errors: {} };
        }),
      );
      const preview = async () => ({
        host,
        components: [{ name: 'containerd', role: 'cri' as const, version: '2.1.4' }],
        targets: [target('c/a'), target('c/b')],
        benchmarks: [definition],
      });
      return {
        slots,
        signal: new AbortController().signal,
        ...(withPreview ? { preview } : {}),
        finish: async () => [{ ...(await preview()), slots }],
        close: async () => undefined,
      };
    },
  };
}

const config = ConfigSchema.parse({ warmup: 1, runs: 5, settleSeconds: 0 });
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function journalOfFullRun(): Promise<{ text: string; path: string; complete: unknown }> {
  const out = await runPipeline(kind(true), {
    config,
    signal: new AbortController().signal,
    onProgress: () => undefined,
    log: () => undefined,
    journalDir: dir,
  });
  expect(out.journal).not.toBeNull();
  const [name] = await readdir(dir);
  const path = join(dir, name!);
  return { text: await readFile(path, 'utf8'), path, complete: out.results[0] };
}

describe('run journal', () => {
  test('one header and one line per repetition, warm-ups included; the pipeline leaves removal to its caller', async () => {
    const { text } = await journalOfFullRun();
    const lines = text.trimEnd().split('\n');
    // 2 targets × (1 warm-up + 5 runs)
    expect(lines).toHaveLength(1 + 12);
    const journal = parseJournal(text, 'j');
    expect(journal.header.slots.map((s) => s.targetId)).toEqual(['c/a', 'c/b']);
    expect(journal.repetitions.map((r) => `${r.slot}${r.warmup ? 'w' : ''}`)).toEqual([
      '0w',
      '1w',
      '0',
      '1',
      '0',
      '1',
      '0',
      '1',
      '0',
      '1',
      '0',
      '1',
    ]);
  });

  test('the whole journal recovers the samples and counts of the run itself', async () => {
    const { text, complete } = await journalOfFullRun();
    const recovered = recoverResult(parseJournal(text, 'j'), new Date());
    expect(() => RunResultSchema.parse(recovered)).not.toThrow();
    const full = complete as typeof recovered;
    expect(
      recovered.results.map((r) => [r.target, r.attempts, r.failedAttempts, r.metrics[0]!.samples]),
    ).toEqual(full.results.map((r) => [r.target, r.attempts, r.failedAttempts, r.metrics[0]!.samples]));
    expect(recovered.runId).toBe(full.runId);
    expect(recovered.configHash).toBe(full.configHash);
  });

  test('a kill after the 7th line, with a torn 8th: the first three rounds are kept, every target interrupted', async () => {
    const { text } = await journalOfFullRun();
    const lines = text.split('\n');
    // header, 2 warm-ups, then a1 b1 a2 b2 (k = 1, 2 after the warm-up's k = 0), then half of a3
    const cut = [...lines.slice(0, 7), lines[7]!.slice(0, 20)].join('\n');
    const journal = parseJournal(cut, 'j');
    expect(journal.tornLine).toBe(true);
    const r = recoverResult(journal, new Date('2026-11-29T01:00:00Z'));
    expect(r.status).toBe('incomplete');
    expect(r.incompleteReason).toMatch(/after 6 repetition\(s\); recovered from its journal/);
    expect(r.results.map((x) => [x.target, x.status, x.metrics[0]!.samples])).toEqual([
      ['c/a', 'interrupted', [11, 12]],
      ['c/b', 'interrupted', [101, 102]],
    ]);
  });

  test('a kind without a preview keeps no journal', async () => {
    const out = await runPipeline(kind(false), {
      config,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      log: () => undefined,
      journalDir: dir,
    });
    expect(out.journal).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  test('a malformed line before the last, a bad slot, a foreign header: errors naming the line', async () => {
    const { text, path } = await journalOfFullRun();
    const lines = text.split('\n');
    expect(() => parseJournal([lines[0], '{oops', lines[2]].join('\n'), path)).toThrow(
      `${path}:2: not a JSON line`,
    );
    expect(() =>
      parseJournal(
        [lines[0], JSON.stringify({ slot: 7, warmup: false, at: '', outcome: {} })].join('\n'),
        'j',
      ),
    ).toThrow("j:2: slot 7 is not one of the run's 2");
    expect(() => parseJournal('{"journal":2}', 'j')).toThrow('j:1: journal version 2 is not 1');
    await writeFile(path, 'x');
    expect(() => parseJournal('not json', 'j')).toThrow('j:1: the first line is not a journal header');
  });
});
