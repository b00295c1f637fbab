import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema } from '@runtime-bench/schemas';
import { EXIT_ENDPOINT_DEAD } from '../../src/commands/run.ts';
import { readStackState } from '../../src/stack/state.ts';
import { runCli } from '../support/cli.ts';
import { sharedToolsDir } from '../support/shared-tools.ts';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';
import {
  cgroupsNamed,
  mountsUnder,
  processesUnder,
  realStackUnavailable,
  testStackName,
} from '../support/host.ts';

// The stack's real containerd is killed with SIGKILL in the middle of a run: the run must notice
// within seconds, keep what it measured before, say why it stopped and exit with its own status.
const STACK = testStackName('death');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const CRICTL = join(sharedToolsDir(), 'cri-tools/crictl');
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED endpoint-death integration tests: ${unavailable}`);

const work = mkdtempSync(join(tmpdir(), 'rb-death-'));

describe.skipIf(unavailable !== null)('a CRI daemon killed mid-run', () => {
  beforeAll(async () => {
    const up = await runCli(['stack', 'up', '--stack', STACK, '--fix-host']);
    expect(up.code, up.stderr).toBe(0);
  }, 900_000);

  afterAll(async () => {
    await runCli(['stack', 'down', '--stack', STACK]);
  });

  test(
    'two targets on one stack, one per transport, are named by their transport',
    { timeout: 180_000, skip: !existsSync(CRICTL) },
    async () => {
      const config = join(work, 'transports.yaml');
      writeFileSync(
        config,
        `
targets:
  - { stack: ${STACK}, handlers: [runc] }
  - { stack: ${STACK}, handlers: [runc], transport: crictl, crictl: ${CRICTL} }
benchmarks: [operations.container.lifecycle]
runs: 1
warmup: 0
`,
      );
      const out = join(work, 'transports.json');
      const r = await runCli(['run', '--config', config, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(result.targets.map((t) => [t.id, t.transport])).toEqual([
        ['containerd-grpc/runc', 'grpc'],
        ['containerd-crictl/runc', 'crictl'],
      ]);
    },
  );

  test(
    'kill -9 of containerd: exit 69, incomplete with the cause, earlier samples kept, stack down leaves nothing',
    { timeout: 240_000 },
    async () => {
      const state = await readStackState(STATE_DIR);
      expect(state?.pid).toBeGreaterThan(0);
      const config = join(work, 'death.yaml');
      writeFileSync(
        config,
        `
targets: [{ stack: ${STACK}, handlers: [runc] }]
benchmarks: [operations.container.lifecycle, startup.latency]
runs: 400
warmup: 0
parameters:
  startup.latency: { count: 20 }
`,
      );
      const out = join(work, 'death.json');
      let okBeforeKill = 0;
      let killed = false;
      const r = await runCli(['run', '--config', config, '--out', out], {
        onStderr: (text) => {
          if (killed) return;
          okBeforeKill = (text.match(/operations\.container\.lifecycle\s+run \d+\/400: ok/g) ?? []).length;
          if (okBeforeKill >= 5) {
            killed = true;
            process.kill(state!.pid!, 'SIGKILL');
          }
        },
      });
      expect(killed).toBe(true);
      expect(r.code, r.stderr).toBe(EXIT_ENDPOINT_DEAD);
      expect(r.stderr).toMatch(new RegExp(`CRI daemon \\(pid ${state!.pid}\\) .* is gone`));
      const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(result.status).toBe('incomplete');
      expect(result.incompleteReason).toMatch(
        new RegExp(`^CRI endpoint died: the CRI daemon \\(pid ${state!.pid}\\)`),
      );
      const lifecycle = result.results.find((x) => x.benchmark === 'operations.container.lifecycle')!;
      expect(lifecycle.status).toBe('interrupted');
      const samples = lifecycle.metrics.find((m) => m.name === 'RunPodSandbox')!.samples;
      // Every repetition reported ok before the kill is in the result, and none after it failed on the dead socket.
      expect(samples.length).toBeGreaterThanOrEqual(okBeforeKill);
      expect(samples.length).toBeLessThan(400);
      for (const m of lifecycle.metrics)
        expect(m.errors.count, `${m.name}: ${m.errors.messages?.join('; ')}`).toBe(0);
      expect(result.results.find((x) => x.benchmark === 'startup.latency')!.metrics[0]!.samples).toEqual([]);

      const down = await runCli(['stack', 'down', '--stack', STACK]);
      expect(down.code, down.stderr).toBe(0);
      expect(processesUnder(STATE_DIR)).toEqual([]);
      expect(mountsUnder(STATE_DIR)).toEqual([]);
      // The shims that outlived containerd are stopped first, so their shim cgroups can go too.
      expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
    },
  );
});
