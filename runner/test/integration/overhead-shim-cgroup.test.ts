// overhead.runtime's cpu_time_start in ns from the shim cgroup, against the tick-based reading of
// the same repetition, on a real containerd stack with runc and crun. Budget: stack up (about a
// minute idle) + 2 handlers × RB_SHIMCG_REPS (default 5) repetitions of about a second each.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCriClient } from '../../src/cri/client.ts';
import { parseConfig } from '../../src/config/load.ts';
import { cpuBetween } from '../../src/suites/overhead/attribution.ts';
import { overheadIteration, type OverheadObserver } from '../../src/suites/overhead/overhead.ts';
import { ResourceTracker } from '../../src/suites/tracker.ts';
import type { BenchmarkContext } from '../../src/suites/types.ts';
import { shimCgroupPath, stackCgroup, usageHierarchy } from '../../src/stack/shim-cgroups.ts';
import { runCli } from '../support/cli.ts';
import { cgroupsNamed, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';

const STACK = testStackName('shimcg');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const REPS = Number(process.env.RB_SHIMCG_REPS ?? 5);
const TICK_NS = 10_000_000;
const unavailable = realStackUnavailable();
const hierarchy = usageHierarchy(readFileSync('/proc/self/mountinfo', 'utf8'));

type Readings = Parameters<OverheadObserver>[0];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

describe.skipIf(unavailable !== null || hierarchy === null)('shim cgroups on a real containerd stack', () => {
  const config = parseConfig('benchmarks: [overhead.runtime]\n', 'test');
  const cgroupDir = (handler: string): string => join(hierarchy!.mount, shimCgroupPath(STACK, handler));

  beforeAll(async () => {
    const up = await runCli(['stack', 'up', '--stack', STACK, '--fix-host']);
    expect(up.code, up.stderr).toBe(0);
  }, 900_000);

  afterAll(async () => {
    const down = await runCli(['stack', 'down', '--stack', STACK]);
    expect(down.code, down.stderr).toBe(0);
    expect(processesUnder(STATE_DIR)).toEqual([]);
    // stack down leaves no cgroup of the stack behind, in any hierarchy
    expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
  });

  test('each runc-shim handler has its shim cgroup while the stack is up', () => {
    for (const h of ['runc', 'crun']) expect(existsSync(join(cgroupDir(h), 'cgroup.procs')), h).toBe(true);
  });

  test.each(['runc', 'crun'])(
    '%s: cpu_time_start in ns from the shim cgroup agrees with the ticks of the same repetition',
    async (handler) => {
      const cri = createCriClient('grpc', join(STATE_DIR, 'containerd.sock'), { timeoutSeconds: 60 });
      const ctx: BenchmarkContext = {
        cri,
        target: { id: `containerd/${handler}`, handler },
        images: config.images,
        runId: `shimcg-${handler}`,
        logDir: mkdtempSync(join(tmpdir(), 'rb-shimcg-')),
        tracker: new ResourceTracker(),
        signal: new AbortController().signal,
        callTimeoutSeconds: 60,
      };
      const params = { ...config.parameters['overhead.runtime'], observeSeconds: 0 };
      const rows: { ns: number; ticks: number; helpersNs: number; helpersTicks: number }[] = [];
      try {
        for (let i = 0; i < REPS; i++) {
          let seen: Readings | undefined;
          const outcome = await overheadIteration(ctx, params, (r) => (seen = r));
          expect(outcome.failure, outcome.failure).toBeUndefined();
          const { beforeStart: b, afterStart: a } = seen!;
          expect(a.shimCgroup?.path).toBe(shimCgroupPath(STACK, handler));
          const fromCgroup = cpuBetween(b, a);
          expect(fromCgroup.source).toBe('shim-cgroup');
          expect(outcome.values.cpu_time_start).toBe(fromCgroup.ns / 1e6);
          expect(outcome.sources).toEqual({ cpu_time_start: 'shim-cgroup' });
          // The helpers alone: what is not the live processes' own (schedstat) time.
          const ownNs = a.counters.cpuNs - a.counters.reapedNs - (b.counters.cpuNs - b.counters.reapedNs);
          const helpersTicks = a.counters.reapedNs - b.counters.reapedNs;
          rows.push({
            ns: fromCgroup.ns,
            ticks: a.counters.cpuNs - b.counters.cpuNs,
            helpersNs: fromCgroup.ns - ownNs,
            helpersTicks,
          });
        }
      } finally {
        cri.close();
      }
      console.log(
        `${handler} cpu_time_start over ${REPS} repetitions, ms: shim cgroup (ns) median ${(median(rows.map((r) => r.ns)) / 1e6).toFixed(3)}, ticks median ${(median(rows.map((r) => r.ticks)) / 1e6).toFixed(3)}; helpers ns ${rows.map((r) => (r.helpersNs / 1e6).toFixed(3)).join(' ')}; helpers ticks ${rows.map((r) => r.helpersTicks / 1e6).join(' ')}`,
      );
      for (const r of rows) {
        // The shim reaped its helpers between the readings: the tick source sees them on the 10 ms grid…
        expect(r.helpersTicks % TICK_NS).toBe(0);
        expect(r.helpersNs).toBeGreaterThan(0);
        // …the cgroup's usage is the same time to the ns: cutime and cstime are each rounded down
        // to a tick at both readings, so the two differ by less than two ticks either way.
        expect(Math.abs(r.helpersNs - r.helpersTicks)).toBeLessThan(2 * TICK_NS);
      }
      // Off the grid: a sum of exact nanoseconds is a multiple of 10 ms by chance in ~1e-7 of cases.
      expect(rows.filter((r) => r.helpersNs % TICK_NS === 0)).toEqual([]);
    },
    600_000,
  );
});
