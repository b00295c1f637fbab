import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { RbError } from '../../../src/errors.ts';
import { EXIT } from '../../../src/exit-codes.ts';
import { readResultFile } from '../../../src/results/io.ts';
import { journalPath, type JournalWriter } from '../../../src/results/journal.ts';
import type { TargetKind } from '../../../src/run/pipeline.ts';
import { withRunSession } from '../../../src/session/session.ts';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { mountSmallFs } from '../../support/small-fs.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const kind: TargetKind = { prepare: () => Promise.reject(new Error('the fake pipeline never prepares')) };

describe('a run session whose results find the disk full', () => {
  test('every measured document is kept whole beside the journal, the journal stays, one clear error', async () => {
    const fs = mountSmallFs(64 * 1024, 0);
    cleanups.push(() => fs.dispose());
    const journalDir = mkdtempSync(join(tmpdir(), 'rb-journals-'));
    cleanups.push(() => rmSync(journalDir, { recursive: true, force: true }));

    const first = sampleRunResult();
    const second = sampleRunResult({ runId: first.runId.replace(/-[0-9a-f]{8}$/, '-0badc0de') });
    const journalFile = journalPath(journalDir, first.runId);
    writeFileSync(journalFile, '{"journal":1}\n');
    let removed = false;
    const journal: JournalWriter = {
      path: journalFile,
      append: () => undefined,
      remove: () => {
        removed = true;
        return Promise.resolve();
      },
    };

    const error = await withRunSession(
      {
        log: () => undefined,
        say: () => undefined,
        journalDir,
        deps: {
          stackOps: { up: () => Promise.reject(new Error('no stack')), down: () => Promise.resolve() },
          signals: new EventEmitter() as never,
          pipeline: () => Promise.resolve({ results: [first, second], stop: null, journal }),
        },
      },
      (session) =>
        session.run(kind, ConfigSchema.parse({}), { place: (r) => join(fs.dir, `${r.runId}.json`) }),
    ).then(
      () => null,
      (e: unknown) => e as RbError,
    );

    expect(error).toBeInstanceOf(RbError);
    expect(error!.code).toBe('NO_SPACE');
    expect(error!.cliExitCode).toBe(EXIT.error.code);
    expect(error!.message).toContain('2 of 2 result(s) found no room');
    for (const r of [first, second]) expect(error!.message).toContain(join(fs.dir, `${r.runId}.json`));
    expect(error!.message).toContain(`journal stays in ${journalFile}`);
    expect(error!.message).toContain(`runtime-bench recover --journals ${journalDir}`);

    // The journal is what `recover` reads: kept. Nothing half-written where the results belong.
    expect(removed).toBe(false);
    expect(existsSync(journalFile)).toBe(true);
    expect(readdirSync(fs.dir)).toEqual(['filler']);

    // Each document, every sample, whole in the journals' directory, named in the message.
    const kept = readdirSync(journalDir).filter((n) => n.startsWith('unwritten-'));
    expect(kept).toHaveLength(2);
    const keptResults = await Promise.all(kept.map((n) => readResultFile(join(journalDir, n))));
    expect(keptResults.map((r) => r.runId).sort()).toEqual([first.runId, second.runId].sort());
    for (const r of keptResults) expect(r).toEqual(r.runId === first.runId ? first : second);
    for (const n of kept) expect(error!.message).toContain(`kept in ${join(journalDir, n)}`);
  });
});
