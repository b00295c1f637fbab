// The run journal on a full disk: the run goes on, every repetition it measured is in its result,
// and what the journal holds stays recoverable. A real pipeline journals onto a small tmpfs.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigSchema, RunResultSchema } from '@runtime-bench/schemas';
import { FAKE_DEFINITION, fakeHost, fakeTarget } from '../../support/fake-run.ts';
import { mountSmallFs, type SmallFs } from '../../support/small-fs.ts';
import { runCli } from '../../support/cli.ts';
import { newSlot } from '../../../src/run/orchestrate.ts';
import { runPipeline, type TargetKind } from '../../../src/run/pipeline.ts';
import { readResultFile } from '../../../src/results/io.ts';
import { parseJournal, recoverResult } from '../../../src/results/journal.ts';

const RUNS = 60;
const config = ConfigSchema.parse({ warmup: 1, runs: RUNS, settleSeconds: 0 });
// One target whose k-th call measures 10 + k: the warm-up takes k = 0, the runs 11 … 10 + RUNS.
const measured = Array.from({ length: RUNS }, (_, i) => 11 + i);

function kind(): TargetKind {
  return {
    async prepare() {
      let k = 0;
      const slots = [
        newSlot(FAKE_DEFINITION, 'c/a', {}, () => Promise.resolve({ values: { x: 10 + k++ }, errors: {} })),
      ];
      const preview = () =>
        Promise.resolve({
          host: fakeHost('h'),
          components: [{ name: 'containerd', role: 'cri' as const, version: '2.1.4' }],
          targets: [fakeTarget('c/a')],
          benchmarks: [FAKE_DEFINITION],
        });
      return {
        slots,
        signal: new AbortController().signal,
        preview,
        finish: async () => [{ ...(await preview()), slots }],
        close: () => Promise.resolve(),
      };
    },
  };
}

const mounted: SmallFs[] = [];
const scratch: string[] = [];
afterEach(() => {
  for (const fs of mounted.splice(0)) fs.dispose();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function runJournalingOn(leaveFree: number) {
  const fs = mountSmallFs(64 * 1024, leaveFree);
  mounted.push(fs);
  const warnings: string[] = [];
  const out = await runPipeline(kind(), {
    config,
    signal: new AbortController().signal,
    onProgress: () => undefined,
    log: (line) => warnings.push(line),
    journalDir: fs.dir,
  });
  const samples = out.results[0]!.results[0]!.metrics[0]!.samples;
  return { fs, out, warnings, samples };
}

describe('the run journal on a full disk', () => {
  test('no room for its header: no journal, nothing left behind, the run measures everything', async () => {
    const { fs, out, warnings, samples } = await runJournalingOn(0);
    expect(out.journal).toBeNull();
    expect(out.results[0]!.status).toBe('complete');
    expect(samples).toEqual(measured);
    expect(readdirSync(fs.dir)).toEqual(['filler']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /no room for the run's journal \(ENOSPC\): its next line needs \d+ bytes, 0 bytes are free/,
    );
    expect(warnings[0]).toContain(fs.dir);
    expect(warnings[0]).toContain('the run goes on unjournaled');
  });

  test('room for part of it: the journal stops, the run measures everything, the journal still recovers', async () => {
    // One page: the header and some repetition lines fit, not all 1 + RUNS of them.
    const { fs, out, warnings, samples } = await runJournalingOn(4096);
    expect(out.journal).not.toBeNull();
    expect(out.results[0]!.status).toBe('complete');
    expect(samples).toEqual(measured);

    expect(readdirSync(fs.dir).sort()).toEqual([basename(out.journal!.path), 'filler'].sort());
    expect(warnings).toHaveLength(1);
    const stoppedAfter = Number(/the journal stops after (\d+) repetition/.exec(warnings[0]!)?.[1]);
    expect(warnings[0]).toContain(out.journal!.path);
    const text = readFileSync(out.journal!.path, 'utf8');
    const journal = parseJournal(text, out.journal!.path);
    // Some lines were journaled, not all of them; the count the warning gives is the file's.
    expect(journal.repetitions.length).toBeGreaterThan(0);
    expect(journal.repetitions.length).toBeLessThan(1 + RUNS);
    expect(journal.repetitions).toHaveLength(stoppedAfter);

    // What it holds recovers to a valid incomplete result: a prefix of what was measured.
    const recovered = RunResultSchema.parse(recoverResult(journal, new Date()));
    expect(recovered.status).toBe('incomplete');
    const recoveredSamples = recovered.results[0]!.metrics[0]!.samples;
    expect(recoveredSamples).toEqual(measured.slice(0, stoppedAfter - 1));
  });
});

describe('recover onto a full disk', () => {
  test('the CLI exits 1 naming the path and the space; the journal stays; the result is kept whole beside it', async () => {
    const journals = mkdtempSync(join(tmpdir(), 'rb-journals-'));
    scratch.push(journals);
    await runPipeline(kind(), {
      config,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      log: () => undefined,
      journalDir: journals,
    });
    const [name] = readdirSync(journals);
    const journalFile = join(journals, name!);
    // The run "was killed": its journal names a process that is gone.
    const text = readFileSync(journalFile, 'utf8').replace(/"pid":\d+/, '"pid":2147483646');
    writeFileSync(journalFile, text);
    const fs = mountSmallFs(64 * 1024, 0);
    mounted.push(fs);
    const out = join(fs.dir, 'r.json');

    const cli = await runCli(['recover', '--journals', journals, '--out', out]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`${out}: no room to write the result (ENOSPC)`);
    expect(cli.stderr).toMatch(/it needs \d+ bytes, 0 bytes are free/);
    expect(cli.stderr).toMatch(/^hint: free space/m);
    expect(cli.stderr).not.toMatch(/internal error|\n\s+at /);

    expect(readdirSync(fs.dir)).toEqual(['filler']);
    const kept = readdirSync(journals).filter((n) => n.startsWith('unwritten-'));
    expect(kept).toHaveLength(1);
    expect(cli.stderr).toContain(`kept in ${join(journals, kept[0]!)}`);
    expect(readFileSync(journalFile, 'utf8')).toBe(text);
    const result = await readResultFile(join(journals, kept[0]!));
    expect(result.results[0]!.metrics[0]!.samples).toEqual(measured);
    expect(result.status).toBe('incomplete');
  });
});
