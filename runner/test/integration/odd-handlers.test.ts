// OCI runtimes as they come in the wild, on a real containerd stack: a runc built with plain
// `go install` ("runc version unknown"), one that hangs on --version (in a child, which holds the
// pipe), one that prints 10 MB, one that fails to start. `stack up` and `run` never exit 70: a
// runtime that works but names no version is registered and benchmarked with version "unknown"
// and its raw output as provenance; one that hangs or fails is skipped with the reason, and a run
// that asks for it stops with exit 2 naming the handler. (Missing files, directories, files
// without the x bit: test/unit/bad-input/handlers.test.ts, before anything starts.)
// Budget: one stack up (about a minute, plus the 10 s version timeout) and one small run.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema } from '@runtime-bench/schemas';
import { runCli } from '../support/cli.ts';
import { onPath, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';

const STACK = testStackName('odd');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED the odd-handler tests: ${unavailable}`);
const RUNC = ['/usr/sbin/runc', '/usr/bin/runc', '/usr/local/sbin/runc'].find((p) => onPath(p)) ?? 'runc';

const work = mkdtempSync(join(tmpdir(), 'rb-odd-'));
/** A runc wrapper whose `--version` does `version`; everything else is the real runc. */
function wrapper(name: string, version: string): string {
  const path = join(work, name);
  writeFileSync(path, `#!/bin/sh\nif [ "$1" = --version ]; then\n${version}\nfi\nexec ${RUNC} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}
const GO_INSTALL_OUTPUT = 'runc version unknown\ncommit: v1.2.4-0-g6c52b3fc\nspec: 1.2.0\ngo: go1.23.4';
const handlers = {
  'runc-go-install': wrapper(
    'runc-go-install',
    `printf '${GO_INSTALL_OUTPUT.replaceAll('\n', '\\n')}\\n'; exit 0`,
  ),
  'runc-hang': wrapper('runc-hang', 'sleep 1000 & wait; exit 0'),
  'runc-loud': wrapper(
    'runc-loud',
    'echo "runc version 1.1.12"; head -c 10000000 /dev/zero | tr "\\0" x; exit 0',
  ),
  'runc-broken': wrapper(
    'runc-broken',
    'echo "error while loading shared libraries: libseccomp.so.2" >&2; exit 127',
  ),
};

function writeConfig(name: string, body: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, body);
  return path;
}
const stackConfig = `name: ${STACK}
stack:
  extraHandlers:
${Object.entries(handlers)
  .map(([name, binary]) => `    - { name: ${name}, binary: ${binary}, kind: runc }`)
  .join('\n')}
`;
const runConfig = (handlerList: string): string => `${stackConfig}targets:
  - stack: ${STACK}
    handlers: ${handlerList}
benchmarks: [operations.container.lifecycle]
runs: 2
warmup: 0
`;

const noTrace = (stderr: string): void => {
  expect(stderr).not.toMatch(/internal error|ZodError|\n\s+at .*:\d+:\d+\)?\n/);
};

describe.skipIf(unavailable !== null)('odd OCI runtime binaries on a real containerd stack', () => {
  let upStdout = '';

  beforeAll(async () => {
    const up = await runCli(['stack', 'up', '--stack', STACK, '--config', writeConfig('stack', stackConfig)]);
    noTrace(up.stderr);
    expect(up.code, up.stderr).toBe(0);
    upStdout = up.stdout;
  }, 900_000);

  afterAll(async () => {
    const down = await runCli(['stack', 'down', '--stack', STACK, '--purge']);
    expect(down.code, down.stderr).toBe(0);
    expect(processesUnder(STATE_DIR)).toEqual([]);
  }, 300_000);

  test('stack up registers the working ones (version unknown, or cut output) and says why it skipped the others', () => {
    const state = JSON.parse(readFileSync(join(STATE_DIR, 'stack.json'), 'utf8')) as {
      handlers: { name: string; version: string; versionOutput: string }[];
      skippedHandlers: { name: string; reason: string }[];
    };
    const byName = new Map(state.handlers.map((h) => [h.name, h]));
    expect(byName.get('runc-go-install')).toMatchObject({
      version: 'unknown',
      versionOutput: GO_INSTALL_OUTPUT,
    });
    expect(byName.get('runc-loud')?.version).toBe('1.1.12');
    expect(byName.get('runc-loud')?.versionOutput.length).toBe(2_000);
    expect(state.skippedHandlers).toEqual(
      expect.arrayContaining([
        {
          name: 'runc-hang',
          binary: handlers['runc-hang'],
          reason: `${handlers['runc-hang']} --version printed no version within 10 s (killed)`,
        },
        {
          name: 'runc-broken',
          binary: handlers['runc-broken'],
          reason: `${handlers['runc-broken']} --version failed (exit 127): error while loading shared libraries: libseccomp.so.2`,
        },
      ]),
    );
    expect(upStdout).toMatch(/handler\s+runc-go-install\s+runc unknown/);
    expect(upStdout).toMatch(/skipped\s+runc-hang\s+.*printed no version within 10 s/);
  });

  test('run benchmarks the runtime of unknown version; its provenance says so', async () => {
    const out = join(work, 'result.json');
    const r = await runCli([
      'run',
      '--config',
      writeConfig('run', runConfig('[runc-go-install, runc-loud]')),
      '--out',
      out,
    ]);
    noTrace(r.stderr);
    expect(r.code, r.stderr).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    const target = result.targets.find((t) => t.handler === 'runc-go-install')!;
    expect(target.oci).toEqual({ name: 'runc', version: 'unknown', path: handlers['runc-go-install'] });
    const oci = result.components.find((c) => c.role === 'oci' && c.path === handlers['runc-go-install']);
    expect(oci).toMatchObject({ version: 'unknown', detail: 'runc version unknown' });
    expect(result.status).toBe('complete');
    for (const b of result.results)
      expect([b.target, b.status, b.reason]).toEqual([b.target, 'ok', undefined]);
    expect(result.results.map((b) => b.target).sort()).toEqual(result.targets.map((t) => t.id).sort());
  });

  test('run asking for a skipped runtime stops with exit 2, naming the handler and why', async () => {
    const path = writeConfig('skipped', runConfig('[runc-hang]'));
    const r = await runCli(['run', '--config', path, '--out', join(work, 'never.json')]);
    noTrace(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `targets[0].handlers[0]: stack "${STACK}" has no handler "runc-hang" (skipped: ${handlers['runc-hang']} --version printed no version within 10 s (killed))`,
    );
  });
});
