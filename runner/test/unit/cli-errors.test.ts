// Bad input at the command line: the real CLI process, its exit code and what it prints.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-cli-'));
const config = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

// Each test starts the real CLI: seconds on a busy 2-core runner, so an explicit budget.
describe(
  'bad configs and flags are refused with the field and the fix, never a stack trace',
  { timeout: 60_000 },
  () => {
    test.each([
      [
        'wrong types',
        'runs: zero\nparameters:\n  performance.cpu: { threads: -1 }\n',
        [
          'bad.yaml: runs: Invalid input: expected number, received string',
          'bad.yaml: parameters["performance.cpu"].threads',
        ],
      ],
      ['an unknown key', 'runz: 3\n', ['Unrecognized key: "runz"']],
      ['YAML syntax', 'targets: [\n  - stack: x\n', ['not valid YAML']],
      [
        'a prefix that selects nothing',
        'benchmarks: [perf]\n',
        ['benchmarks[0]: "perf" matches no benchmark', 'known benchmarks: operations.container.lifecycle'],
      ],
    ])('%s', async (_what, text, expected) => {
      const path = config('bad.yaml', text);
      const r = await runCli(['run', '--config', path, '--out', join(dir, 'out.json')]);
      expect(r.code).toBe(2);
      for (const e of expected) expect(r.stderr.replaceAll(path, 'bad.yaml')).toContain(e);
      expect(r.stderr).toMatch(/^hint: /m);
      expect(r.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
    });

    test('a missing config file', async () => {
      const r = await runCli(['run', '--config', join(dir, 'nope.yaml'), '--out', join(dir, 'x.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('cannot read config');
      expect(r.stderr).toContain('hint: check the --config path');
    });

    test('run without an output', async () => {
      const r = await runCli(['run', '--config', config('ok.yaml', '{}\n')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('run needs --out FILE or --data-dir DIR');
    });

    test('an unknown flag', async () => {
      const r = await runCli(['run', '--config', 'x.yaml', '--out', 'o.json', '--jsn']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("unknown option '--jsn'");
    });

    test('an unknown CRI runtime, or a daemon flag of the other one, before anything is started', async () => {
      const bad = await runCli(['stack', 'up', '--stack', 'never-started', '--cri', 'podman']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--cri "podman" is not a CRI runtime');
      expect(bad.stderr).toContain('use --cri containerd or --cri cri-o');
      const mixed = await runCli(['stack', 'up', '--stack', 'never-started', '--crio', '/bin/true']);
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toContain('--crio is for a CRI-O stack');
      expect(mixed.stderr).not.toMatch(/\n\s+at /);
    });

    test('an invalid stack name', async () => {
      const r = await runCli(['stack', 'status', '--stack', 'Bad Name']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--stack "Bad Name" is not a valid stack name');
    });
  },
);
