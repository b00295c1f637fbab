// compare on real result files (fixtures/results, recorded by the tool on a quiet host): the
// difference everyone reports (crun starts containers faster than runc) must come out as
// significant, and two runs of the same config must not differ.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { CLI } from '../../support/cli.ts';

const run = promisify(execFile);
const fixture = (name: string): string => join(import.meta.dirname, '..', '..', 'fixtures', 'results', name);
const A = fixture('runc-vs-crun-containerd-1.6.20-a.json');
const B = fixture('runc-vs-crun-containerd-1.6.20-b.json');

interface Row {
  metric?: string;
  baselineTarget: string;
  candidateTarget: string;
  verdict: string;
  ratio?: number;
  adjustedP: number | null;
}

async function compare(args: string[]): Promise<Row[]> {
  const { stdout } = await run(process.execPath, [CLI, 'compare', ...args, '--format', 'json']);
  return (JSON.parse(stdout) as { rows: Row[] }).rows;
}

// Each test starts the CLI (node, zod, the stats): a second on an idle host, many on a loaded one.
const CLI_BUDGET = { timeout: 120_000 };

describe('compare on real recorded results', () => {
  test.each([A, B])(
    'crun starts containers significantly faster than runc (%s)',
    CLI_BUDGET,
    async (file) => {
      const rows = await compare([
        file,
        '--baseline-target',
        'containerd/runc',
        '--target',
        'containerd/crun',
      ]);
      const start = rows.find((r) => r.metric === 'StartContainer')!;
      expect(start.verdict).toBe('better');
      expect(start.ratio!).toBeLessThan(0.85);
      expect(start.adjustedP!).toBeLessThan(0.001);
    },
  );

  test('two runs of one unchanged config: no significant difference anywhere', CLI_BUDGET, async () => {
    const rows = await compare([A, B]);
    expect(rows.length).toBeGreaterThanOrEqual(22);
    expect(rows.filter((r) => r.verdict === 'better' || r.verdict === 'worse')).toEqual([]);
  });
});
