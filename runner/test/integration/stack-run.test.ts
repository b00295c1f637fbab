import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';
import { EXIT } from '../../src/exit-codes.ts';
import { runCli } from '../support/cli.ts';
import {
  cgroupsNamed,
  mountsUnder,
  onPath,
  processesUnder,
  realStackUnavailable,
  testStackName,
} from '../support/host.ts';
import { sharedTool } from '../support/shared-tools.ts';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';

const STACK = testStackName('itest');
/** The shared crictl build (in no registry we reach), else one on PATH. */
const CRICTL = sharedTool('cri-tools/crictl') ?? (onPath('crictl') ? 'crictl' : null);
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED real-stack integration tests: ${unavailable}`);

const work = mkdtempSync(join(tmpdir(), 'rb-itest-'));

function writeConfig(name: string, body: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, body);
  return path;
}

function readResult(path: string): RunResult {
  return RunResultSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

async function podsLeft(): Promise<string[]> {
  const client = new GrpcCriClient(join(STATE_DIR, 'containerd.sock'), 10);
  try {
    return (await client.listPodSandbox()).map((p) => `${p.name} (${p.state})`);
  } finally {
    client.close();
  }
}

const small = (handlers: string, extra = ''): string => `
name: ${STACK}
targets:
  - stack: ${STACK}
    handlers: ${handlers}
benchmarks: [operations.container.lifecycle, performance.cpu]
runs: 3
warmup: 1
parameters:
  performance.cpu: { maxPrime: 20000, timeSeconds: 1, events: 300, modes: [time, events] }
${extra}`;

describe.skipIf(unavailable !== null)('a real containerd stack with runc and crun', () => {
  beforeAll(async () => {
    // An OCI "runtime" that reports a version and then fails every container: a real, failing handler.
    const broken = join(work, 'broken-runc');
    writeFileSync(
      broken,
      '#!/bin/sh\ncase "$1" in --version) echo "runc version 9.9.9";; *) echo "broken on purpose" >&2; exit 1;; esac\n',
    );
    chmodSync(broken, 0o755);
    const stackConfig = writeConfig(
      'stack',
      `stack:\n  extraHandlers:\n    - { name: broken, binary: ${broken}, kind: runc }\n`,
    );
    // A runner upgraded from a version whose stack.json had no `cri` (schema before CRI-O) finds
    // that file in the stack's state dir: `stack up` cleans the leftover up instead of refusing.
    mkdirSync(STATE_DIR, { recursive: true });
    const leftover = {
      name: STACK,
      stateDir: STATE_DIR,
      socket: join(STATE_DIR, 'containerd.sock'),
      pid: null,
    };
    writeFileSync(join(STATE_DIR, 'stack.json'), JSON.stringify(leftover));
    const up = await runCli(['stack', 'up', '--stack', STACK, '--fix-host', '--config', stackConfig]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/stack\.json[\s\S]*cleaning up its leftovers first/);
    expect(JSON.parse(readFileSync(join(STATE_DIR, 'stack.json.unreadable'), 'utf8'))).toEqual(leftover);
    expect(up.stdout).toMatch(/handler\s+runc/);
    expect(up.stdout).toMatch(/handler\s+crun/);
    expect(up.stdout).toMatch(/handler\s+broken/);
    // stack up builds and imports the images: about a minute idle, several on a loaded runner.
  }, 900_000);

  afterAll(async () => {
    const down = await runCli(['stack', 'down', '--stack', STACK]);
    expect(down.code, down.stderr).toBe(0);
    expect(processesUnder(STATE_DIR)).toEqual([]);
    expect(mountsUnder(STATE_DIR)).toEqual([]);
    // nor the shim cgroups of its handlers, in any cgroup hierarchy
    expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
    // down is safe to repeat
    const again = await runCli(['stack', 'down', '--stack', STACK]);
    expect(again.code, again.stderr).toBe(0);
  });

  test('run → validated result with samples for runc and crun, plausible sysbench numbers, no pod left', async () => {
    const out = join(work, 'result.json');
    const r = await runCli([
      'run',
      '--config',
      writeConfig('small', small('[runc, crun]')),
      '--out',
      out,
      '--table',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // --table: the full table (every metric), then the verdict of crun against runc
    expect(r.stdout).toMatch(/RunPodSandbox/);
    expect(r.stdout).toMatch(
      /Verdict: each runtime against runc[\s\S]*containerd\/crun[\s\S]*containerd\/runc/,
    );
    expect(r.stdout.indexOf('RunPodSandbox')).toBeLessThan(r.stdout.indexOf('Verdict'));
    const result = readResult(out);
    expect(result.status).toBe('complete');
    expect(result.targets.map((t) => t.id)).toEqual(['containerd/runc', 'containerd/crun']);
    // Without CAP_SYS_RESOURCE the stack must have applied (and the result must record) the OOM-score fix.
    if (!result.host.capabilities.sysResource) {
      expect(result.host.hostFixes).toContainEqual(
        expect.objectContaining({ id: 'restrict-oom-score-adj', applied: true }),
      );
    }
    for (const target of ['containerd/runc', 'containerd/crun']) {
      const lifecycle = result.results.find(
        (x) => x.benchmark === 'operations.container.lifecycle' && x.target === target,
      )!;
      expect(lifecycle.status).toBe('ok');
      const start = lifecycle.metrics.find((m) => m.name === 'StartContainer')!;
      expect(start.samples).toHaveLength(3);
      expect(start.samples.every((v) => v > 0 && v < 60_000)).toBe(true);
      const createAndRun = lifecycle.metrics.find((m) => m.name === 'create-and-run')!;
      expect(createAndRun.summary!.median).toBeGreaterThan(start.summary!.median);
      const cpu = result.results.find((x) => x.benchmark === 'performance.cpu' && x.target === target)!;
      expect(cpu.status).toBe('ok');
      const eps = cpu.metrics.find((m) => m.name === 'events_per_second')!;
      // prime 20000 on one thread: ~1600 events/s on this 2 vCPU kind of host; allow for a busy machine.
      expect(eps.summary!.median).toBeGreaterThan(50);
      expect(eps.summary!.median).toBeLessThan(100_000);
      const total = cpu.metrics.find((m) => m.name === 'total_time')!;
      expect(total.samples).toHaveLength(3);
    }
    expect(result.components.map((c) => c.name)).toEqual(
      expect.arrayContaining(['containerd', 'runc', 'crun', 'sysbench']),
    );
    expect(await podsLeft()).toEqual([]);
  });

  test('a handler whose runtime fails every call: errors recorded per metric, the run goes on', async () => {
    const out = join(work, 'broken.json');
    const r = await runCli([
      'run',
      '--config',
      writeConfig(
        'broken',
        small('[broken, runc]')
          .replace('runs: 3', 'runs: 2')
          .replace('performance.cpu]', 'performance.cpu]\nskip: [performance]'),
      ),
      '--out',
      out,
    ]);
    // The result is written, and run says by its status that a benchmark measured nothing.
    expect(r.code, r.stderr).toBe(EXIT.benchmarkFailed.code);
    const result = readResult(out);
    const broken = result.results.find((x) => x.target === 'containerd/broken')!;
    expect(broken.status).toBe('failed');
    expect(broken.failedAttempts).toBe(2);
    const runPod = broken.metrics.find((m) => m.name === 'RunPodSandbox')!;
    expect(runPod.errors.count).toBe(2);
    expect(runPod.errors.messages.join('\n')).toMatch(/broken on purpose|OCI runtime|failed/i);
    expect(result.results.find((x) => x.target === 'containerd/runc')!.status).toBe('ok');
    expect(await podsLeft()).toEqual([]);
  });

  test('SIGINT mid-run: partial result marked incomplete, valid, nothing left behind', async () => {
    const out = join(work, 'interrupted.json');
    let sent = false;
    const r = await runCli(
      [
        'run',
        '--config',
        writeConfig('long', small('[runc, crun]').replace('runs: 3', 'runs: 200')),
        '--out',
        out,
      ],
      {
        onStderr: (text, child) => {
          if (!sent && /run 4\/201/.test(text)) {
            sent = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/partial result written/);
    const result = readResult(out);
    expect(result.status).toBe('incomplete');
    expect(result.incompleteReason).toMatch(/SIGINT/);
    const lifecycle = result.results.filter((x) => x.benchmark === 'operations.container.lifecycle');
    expect(lifecycle.every((x) => x.status === 'interrupted')).toBe(true);
    expect(lifecycle.some((x) => x.metrics[0]!.samples.length >= 2)).toBe(true);
    expect(await podsLeft()).toEqual([]);
  });

  test('a config naming a handler the stack lacks is refused, naming the field', async () => {
    const r = await runCli([
      'run',
      '--config',
      writeConfig('nohandler', small('[runc, kata]')),
      '--out',
      join(work, 'x.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`targets[0].handlers[1]: stack "${STACK}" has no handler "kata"`);
    expect(r.stderr).toMatch(/hint: available: runc, crun, broken/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(work, 'x.json'))).toBe(false);
  });

  test('a target name with terminal escapes is printed visibly, never obeyed (issue 15)', async () => {
    const out = join(work, 'escapes.json');
    // YAML double quotes: \e is ESC, \a is BEL — an OSC retitling the terminal and a screen clear.
    const config = small('[runc]')
      .replace(`  - stack: ${STACK}`, `  - stack: ${STACK}\n    name: "evil\\e]0;pwned\\a\\e[2J"`)
      .replace('runs: 3', 'runs: 1')
      .replace('performance.cpu]', 'performance.cpu]\nskip: [performance]');
    const r = await runCli(['run', '--config', writeConfig('escapes', config), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readResult(out).targets[0]!.id).toBe('evil\u001b]0;pwned\u0007\u001b[2J/runc');
    // eslint-disable-next-line no-control-regex
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    expect(r.stdout).not.toMatch(raw);
    expect(r.stderr).not.toMatch(raw);
    expect(r.stdout).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J/runc');
  });

  describe.skipIf(CRICTL === null)('crictl transport', () => {
    test('the same lifecycle through crictl', async () => {
      const out = join(work, 'crictl.json');
      const config = small('[runc]')
        .replace(`handlers: [runc]`, `handlers: [runc]\n    transport: crictl\n    crictl: ${CRICTL}`)
        .replace('runs: 3', 'runs: 2')
        .replace(', performance.cpu]', ']');
      const r = await runCli(['run', '--config', writeConfig('crictl', config), '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const result = readResult(out);
      expect(result.targets[0]!.transport).toBe('crictl');
      const lifecycle = result.results[0]!;
      expect(lifecycle.status).toBe('ok');
      expect(lifecycle.metrics.find((m) => m.name === 'CreateContainer')!.samples).toHaveLength(2);
      expect(await podsLeft()).toEqual([]);
    });
  });
});
