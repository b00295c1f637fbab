import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema } from '@runtime-bench/schemas';
import { DEFAULT_JOURNAL_DIR } from '../../src/results/journal.ts';
import { runCli } from '../support/cli.ts';
import { realStackUnavailable, testStackName } from '../support/host.ts';

// The CLI itself is killed with SIGKILL in the middle of a run (no handler runs): what it had
// measured is in its journal, and `recover` turns that into an incomplete result that lost at most
// the repetition in flight.
const STACK = testStackName('kill');
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED kill-recover integration test: ${unavailable}`);
const work = mkdtempSync(join(tmpdir(), 'rb-kill-'));
const journals = () => readdirSync(DEFAULT_JOURNAL_DIR, { withFileTypes: true }).map((e) => e.name);

describe.skipIf(unavailable !== null)('a run killed with SIGKILL', () => {
  beforeAll(async () => {
    const up = await runCli(['stack', 'up', '--name', STACK, '--fix-host']);
    expect(up.code, up.stderr).toBe(0);
  }, 900_000);

  afterAll(async () => {
    await runCli(['stack', 'down', '--name', STACK]);
  });

  test(
    'recover keeps every repetition the run had printed as ok, and removes the journal',
    { timeout: 300_000 },
    async () => {
      const config = join(work, 'kill.yaml');
      writeFileSync(
        config,
        `targets:\n  - { stack: ${STACK}, handlers: [runc] }\nbenchmarks: [operations.container.lifecycle]\nruns: 40\nwarmup: 1\n`,
      );
      let okAtKill = -1;
      const killed = await runCli(['run', '--config', config, '--out', join(work, 'never.json')], {
        onStderr: (text, child) => {
          const oks = (text.match(/operations\.container\.lifecycle\s+run \d+\/41: ok/g) ?? []).length;
          if (okAtKill < 0 && oks >= 8) {
            okAtKill = oks;
            child.kill('SIGKILL');
          }
        },
      });
      expect(killed.signal).toBe('SIGKILL');
      const before = journals();
      expect(before.length).toBeGreaterThan(0);

      const out = join(work, 'recovered.json');
      const r = await runCli(['recover', '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(result.status).toBe('incomplete');
      const lifecycle = result.results[0]!;
      expect(lifecycle.status).toBe('interrupted');
      // okAtKill counts the warm-up's ok line too; each "ok" was journaled before it was printed.
      const measured = lifecycle.metrics.find((m) => m.name === 'CreateContainer')!.samples.length;
      expect(measured).toBeGreaterThanOrEqual(okAtKill - 1);
      expect(measured).toBeLessThanOrEqual(40);
      expect(journals().filter((n) => before.includes(n))).toEqual([]);
    },
  );
});
