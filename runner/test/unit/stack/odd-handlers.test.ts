// OCI runtime binaries as they come in the wild: a runc built with plain `go install` ("runc
// version unknown"), a wrapper script, a missing path, a directory, a file without the x bit, one
// that hangs on --version (in a child of its own, which holds the pipe), one that prints 10 MB.
// Real processes, tiny scripts; each run has an explicit timeout.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { discoverHandlers, ociVersion } from '../../../src/stack/discover.ts';
import { driverFor } from '../../../src/stack/drivers.ts';
import { planStack } from '../../../src/stack/plan.ts';
import { planInput } from '../../support/stack-plan.ts';
import { VERSION_OUTPUT_MAX_CHARS, interpretOciVersion } from '../../../src/stack/versions.ts';
import { exec } from '../../../src/util/exec.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-odd-'));
function script(name: string, body: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

describe('interpretOciVersion (pure)', () => {
  const run = (over: Partial<Parameters<typeof interpretOciVersion>[2]>) => ({
    exitCode: 0,
    output: '',
    timedOut: false,
    timeoutMs: 10_000,
    ...over,
  });
  test('a parsed version is known', () => {
    expect(interpretOciVersion('runc', '/r', run({ output: 'runc version 1.3.6\nspec: 1.2.1' }))).toEqual({
      version: '1.3.6',
      known: true,
      output: 'runc version 1.3.6\nspec: 1.2.1',
    });
  });
  test('an answer without a version is "unknown", with the raw output kept', () => {
    const text = 'runc version unknown\ncommit: v1.2.0-0-g1234567\nspec: 1.2.0\ngo: go1.23.4';
    expect(interpretOciVersion('runc', '/r', run({ output: text }))).toEqual({
      version: 'unknown',
      known: false,
      output: text,
    });
  });
  test('a failure or a hang is an error naming the binary', () => {
    expect(
      interpretOciVersion(
        'runc',
        '/r',
        run({ exitCode: 127, output: 'error while loading shared libraries' }),
      ),
    ).toEqual({
      error: '/r --version failed (exit 127): error while loading shared libraries',
    });
    expect(
      interpretOciVersion('runc', '/r', run({ exitCode: -1, timedOut: true, timeoutMs: 2_000 })),
    ).toEqual({
      error: '/r --version printed no version within 2 s (killed)',
    });
  });
  test('a huge output is cut', () => {
    const v = interpretOciVersion('crun', '/c', run({ output: `crun version 1.21\n${'x'.repeat(100_000)}` }));
    expect(v).toMatchObject({ version: '1.21', known: true });
    expect('output' in v && v.output.length).toBe(VERSION_OUTPUT_MAX_CHARS);
  });
});

describe('ociVersion on odd binaries (real processes)', () => {
  test('a go-install runc: version unknown, raw output kept', async () => {
    const bin = script('runc-go-install', 'echo "runc version unknown"; echo "spec: 1.2.0"');
    expect(await ociVersion('runc', bin)).toEqual({
      version: 'unknown',
      known: false,
      output: 'runc version unknown\nspec: 1.2.0',
    });
  });

  test('missing, a directory, not executable: the reason, without running anything', async () => {
    const sub = join(dir, 'a-dir');
    mkdirSync(sub);
    const noX = script('runc-nox', 'echo "runc version 1.1.0"', 0o644);
    expect(await ociVersion('runc', join(dir, 'nope'))).toEqual({
      error: `${join(dir, 'nope')} does not exist`,
    });
    expect(await ociVersion('runc', sub)).toEqual({ error: `${sub} is a directory` });
    expect(await ociVersion('runc', noX)).toEqual({ error: `${noX} is not executable (chmod +x)` });
  });

  test('one that hangs in a child: killed with its child at the timeout', async () => {
    const marker = join(dir, 'hang.pid');
    const bin = script('runc-hang', `sleep 1000 & echo $! > ${marker}; wait`);
    const v = await ociVersion('runc', bin, 1_000);
    expect(v).toEqual({ error: `${bin} --version printed no version within 1 s (killed)` });
    const child = Number(readFileSync(marker, 'utf8').trim());
    expect(child).toBeGreaterThan(0);
    // Dead: gone, or a zombie that its new parent has not reaped yet (field 3 of stat is the state).
    const stat = existsSync(`/proc/${child}`) ? readFileSync(`/proc/${child}/stat`, 'utf8') : null;
    expect(stat === null || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'), stat ?? '').toBe(true);
  });

  test('one that prints 10 MB: read and cut, not buffered whole', async () => {
    const bin = script('runc-loud', 'echo "runc version 1.1.12"; head -c 10000000 /dev/zero | tr "\\0" x');
    const v = await ociVersion('runc', bin);
    expect(v).toMatchObject({ version: '1.1.12', known: true });
    expect('output' in v && v.output.length).toBe(VERSION_OUTPUT_MAX_CHARS);
  });
});

describe('exec', () => {
  test('keeps at most maxOutputBytes and still waits for the exit status', async () => {
    const r = await exec('sh', ['-c', 'head -c 100000 /dev/zero | tr "\\0" y; exit 3'], {
      allowFailure: true,
      maxOutputBytes: 10,
    });
    expect(r).toEqual({ stdout: 'yyyyyyyyyy', stderr: '', exitCode: 3 });
  });

  test('a command that cannot start: exit -1 with the reason, or CommandError', async () => {
    const r = await exec(dir, [], { allowFailure: true });
    expect(r.exitCode).toBe(-1);
    expect(r.stderr).toMatch(/EACCES/);
    await expect(exec(join(dir, 'nope'), [])).rejects.toThrow(/command not found/);
  });

  test('input reaches stdin; a command without input sees EOF at once', async () => {
    expect((await exec('cat', [], { input: 'hello' })).stdout).toBe('hello');
    expect((await exec('cat', [], { timeoutMs: 60_000 })).stdout).toBe('');
  });
});

describe('a skipped handler fits the stack state (it once carried `kind` into the strict schema: exit 70)', () => {
  test('discoverHandlers → planStack with a runtime whose --version fails', async () => {
    const broken = script('runc-broken', 'echo "error while loading shared libraries" >&2; exit 127');
    const discovered = await discoverHandlers(
      { runscNeedsShim: true, incompatibility: () => null },
      '1.7.24',
      [{ name: 'runc-broken', binary: broken, kind: 'runc' }],
    );
    const skipped = discovered.skipped.find((s) => s.name === 'runc-broken');
    expect(skipped).toEqual({
      name: 'runc-broken',
      binary: broken,
      reason: `${broken} --version failed (exit 127): error while loading shared libraries`,
    });
    const working = script('runc-unknown', 'echo "runc version unknown"');
    const plan = planStack(
      driverFor('containerd'),
      planInput({
        discovered: {
          handlers: [
            {
              name: 'runc-unknown',
              kind: 'runc',
              binary: working,
              version: 'unknown',
              versionOutput: 'runc version unknown',
            },
          ],
          // Whatever else a record of a skipped handler carries stays out of the state.
          skipped: [{ ...skipped!, kind: 'runc' } as typeof skipped & { kind: string }],
        },
      }),
    );
    expect(plan.state.skippedHandlers).toEqual([skipped]);
    expect(plan.state.handlers[0]).toMatchObject({ name: 'runc-unknown', version: 'unknown' });
  });
});
