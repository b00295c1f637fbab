// `stack up` given binaries that cannot serve (a missing path, a directory, a file without the x
// bit, a daemon that prints no version): the real CLI stops before anything starts, exits 2 and
// names the flag or field and the fix — never exit 70 with a stack trace. The cases where
// `stack up` goes on (a hang, 10 MB of output, "version unknown") need a real stack:
// test/integration/odd-handlers.test.ts.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-bad-handlers-'));
const file = (name: string, text: string, mode: number): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
};
const missing = join(dir, 'missing');
const directory = join(dir, 'a-directory');
mkdirSync(directory);
const notExecutable = file('runc-no-x', '#!/bin/sh\necho "runc version 1.1.0"\n', 0o644);
const noVersion = file('containerd-no-version', '#!/bin/sh\necho "containerd, built by hand"\n', 0o755);

const containerd = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v containerd'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
})();

async function stackUp(args: string[]) {
  const stateDir = mkdtempSync(join(dir, 'state-'));
  const r = await runCli(['stack', 'up', '--name', 'bad-handler', '--state-dir', stateDir, ...args]);
  expect(r.stderr).not.toMatch(/internal error|ZodError|\n\s+at .*:\d+:\d+\)?\n/);
  return r;
}

describe.concurrent('stack up --containerd naming a binary that cannot serve: exit 2', () => {
  test.each([
    ['missing', missing, `--containerd ${missing} does not exist`],
    ['a directory', directory, `--containerd ${directory} is a directory`],
    ['not executable', notExecutable, `--containerd ${notExecutable} is not executable (chmod +x)`],
    [
      'prints no version',
      noVersion,
      `cannot read a version from "containerd, built by hand" (${noVersion} --version, exit 0)`,
    ],
  ])(
    '%s',
    async (_what, binary, message) => {
      const r = await stackUp(['--containerd', binary]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`runtime-bench: ${message}`);
      expect(r.stderr).toMatch(/^hint: .*--containerd/m);
    },
    60_000,
  );
});

describe.skipIf(!containerd).concurrent('stack.extraHandlers naming a binary that cannot run: exit 2', () => {
  test.each([
    ['missing', missing, 'does not exist'],
    ['a directory', directory, 'is a directory'],
    ['not executable', notExecutable, 'is not executable (chmod +x)'],
  ])(
    '%s',
    async (what, binary, problem) => {
      const config = join(dir, `${what.replaceAll(' ', '-')}.yaml`);
      writeFileSync(config, `stack:\n  extraHandlers:\n    - { name: odd, binary: ${binary}, kind: runc }\n`);
      const r = await stackUp(['--config', config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `runtime-bench: stack.extraHandlers[0].binary: ${binary} (handler "odd") ${problem}`,
      );
      expect(r.stderr).toMatch(/^hint: give the absolute path of an executable OCI runtime binary/m);
    },
    60_000,
  );
});
