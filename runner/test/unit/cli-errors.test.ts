// Bad input at the command line: the real CLI process, its exit code and what it prints.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.ts';
import { EXIT } from '../../src/exit-codes.ts';

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
        ['benchmarks[0]: "perf" matches no benchmark', 'hint: did you mean performance?'],
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

    test('an old spelling still works, with a one-line note on stderr', async () => {
      const r = await runCli(['stack', 'status', '--name', 'Bad Name']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'runtime-bench: --name is deprecated and will be removed in the next release; use --stack\n',
      );
      expect(r.stderr).toContain('--stack "Bad Name" is not a valid stack name');
    });

    test('--version: the tool version and the commit it runs from; -V the same', async () => {
      const { version } = JSON.parse(
        readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'),
      ) as { version: string };
      const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
      const r = await runCli(['--version']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^runtime-bench ${version.replaceAll('.', '\\.')} \\(commit ${commit}`),
      );
      expect((await runCli(['-V'])).stdout).toBe(r.stdout);
    });

    test('--help lists every exit code of the table', async () => {
      const r = await runCli(['--help']);
      expect(r.code).toBe(0);
      for (const { code, meaning } of Object.values(EXIT))
        expect(r.stdout).toContain(`${String(code).padStart(3)}  ${meaning}`);
    });

    test('a misspelt command or flag gets the closest one', async () => {
      const command = await runCli(['valdiate']);
      expect(command.code).toBe(2);
      expect(command.stderr).toContain('(Did you mean validate?)');
      const flag = await runCli(['list', '--jsno']);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toContain('(Did you mean --json?)');
    });

    test('sweep --dry-run with a missing config fails naming the file, before listing anything', async () => {
      const missing = join(dir, 'no-such-sweep.yaml');
      const r = await runCli(['sweep', 'runc@1.1.5', 'runc@1.2.0', '--dry-run', '--config', missing]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot read config ${missing}`);
      expect(r.stdout).toBe('');
    });

    test('sweep runc@1.1.5-1.4.3 hints at the range spelling', async () => {
      const r = await runCli(['sweep', 'runc@1.1.5-1.4.3', '--dry-run']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('hint: a range is written with "..": runc@1.1.5..1.4.3');
    });

    test('an invalid stack name', async () => {
      const r = await runCli(['stack', 'status', '--stack', 'Bad Name']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--stack "Bad Name" is not a valid stack name');
    });
  },
);
