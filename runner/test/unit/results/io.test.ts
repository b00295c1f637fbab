import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { readResultFile, writeResultFile } from '../../../src/results/io.ts';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';

describe('result files', () => {
  test('written atomically, read back equal, no temp file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-io-'));
    const path = join(dir, 'nested', 'r.json');
    await writeResultFile(path, sampleRunResult());
    expect(await readResultFile(path)).toEqual(sampleRunResult());
    expect(readdirSync(join(dir, 'nested'))).toEqual(['r.json']);
  });

  test('an invalid result is refused at its path, its measurements kept beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-io-'));
    const bad = sampleRunResult({ runId: 'not-a-run-id' });
    const path = join(dir, 'r.json');
    await expect(writeResultFile(path, bad)).rejects.toThrow(/runId: a run id is/);
    await expect(writeResultFile(path, bad)).rejects.toThrow(`kept, unvalidated, in ${path}.rejected`);
    expect(readdirSync(dir)).toEqual(['r.json.rejected']);
    expect(JSON.parse(readFileSync(`${path}.rejected`, 'utf8'))).toEqual(bad);
  });

  test('a FIFO target is written through, not replaced by a regular file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-io-'));
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // Another process reads the pipe, as a shell's `--out >(…)` or a FIFO consumer would.
    const reader = new Promise<string>((resolve, reject) =>
      execFile('cat', [fifo], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    await writeResultFile(fifo, sampleRunResult());
    expect(JSON.parse(await reader).runId).toBe(sampleRunResult().runId);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  test('errors name the file and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-io-'));
    const path = join(dir, 'broken.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(
        path,
        JSON.stringify({ ...sampleRunResult(), host: { ...sampleRunResult().host, cpus: 0 } }),
      ),
    );
    await expect(readResultFile(path)).rejects.toThrow(`${path}: host.cpus`);
  });
});
