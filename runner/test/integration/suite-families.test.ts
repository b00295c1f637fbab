import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ImagesConfigSchema,
  RunResultSchema,
  type BenchmarkResult,
  type RunResult,
} from '@runtime-bench/schemas';
import { createCriClient } from '../../src/cri/client.ts';
import { containerConfig, podConfig, waitForExit } from '../../src/suites/pods.ts';
import { ResourceTracker } from '../../src/suites/tracker.ts';
import type { BenchmarkContext } from '../../src/suites/types.ts';
import { runCli } from '../support/cli.ts';
import { mountsUnder, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';

// Every benchmark family against a real private stack, with small parameters (2 cores, shared host).
const STACK = testStackName('suite');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const SOCKET = join(STATE_DIR, 'containerd.sock');
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED benchmark-family integration tests: ${unavailable}`);

const work = mkdtempSync(join(tmpdir(), 'rb-suite-'));
const HANDLERS = ['runc', 'crun'];

function writeConfig(name: string, body: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, body);
  return path;
}

async function podsLeft(): Promise<string[]> {
  const client = createCriClient('grpc', SOCKET, { timeoutSeconds: 10 });
  try {
    return (await client.listPodSandbox()).map((p) => `${p.name} (${p.state})`);
  } finally {
    client.close();
  }
}

async function run(name: string, body: string): Promise<RunResult> {
  const out = join(work, `${name}.json`);
  const r = await runCli(['run', '--config', writeConfig(name, body), '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
}

const resultOf = (run: RunResult, benchmark: string, handler: string): BenchmarkResult => {
  const r = run.results.find((x) => x.benchmark === benchmark && x.target === `containerd/${handler}`);
  if (!r) throw new Error(`no result for ${benchmark} on ${handler}`);
  return r;
};
const median = (r: BenchmarkResult, metric: string): number => {
  const m = r.metrics.find((x) => x.name === metric);
  if (!m?.summary)
    throw new Error(
      `${r.benchmark} ${r.target}: no samples for ${metric} (${r.status}: ${r.reason ?? ''}; ${JSON.stringify(m?.errors)})`,
    );
  return m.summary.median;
};

/** Runs `command` under a memory limit in a fresh pod; true when it exited 0. */
async function runsUnderLimit(handler: string, bytes: number): Promise<boolean> {
  const cri = createCriClient('grpc', SOCKET, { timeoutSeconds: 60 });
  const ctx = {
    cri,
    target: { id: `containerd/${handler}`, handler },
    images: ImagesConfigSchema.parse({}),
    runId: 'suite-itest',
    logDir: join(work, 'logs'),
    tracker: new ResourceTracker(),
    signal: new AbortController().signal,
    callTimeoutSeconds: 60,
  } satisfies BenchmarkContext;
  const pod = podConfig(ctx, 'verify');
  const podId = await cri.runPodSandbox(pod, handler);
  try {
    const c = containerConfig(ctx, 'verify', ['/bin/true'], {
      linux: { resources: { memoryLimitInBytes: bytes } },
    });
    try {
      const id = await cri.createContainer(podId, c, pod);
      await cri.startContainer(id);
      return (await waitForExit(ctx, id, 30_000)).exitCode === 0;
    } catch {
      return false;
    }
  } finally {
    await cri.stopPodSandbox(podId);
    await cri.removePodSandbox(podId);
    cri.close();
  }
}

describe.skipIf(unavailable !== null)(
  'every benchmark family on a real containerd stack (runc, crun)',
  () => {
    let all: RunResult;

    beforeAll(async () => {
      const up = await runCli(['stack', 'up', '--name', STACK, '--fix-host']);
      expect(up.code, up.stderr).toBe(0);
      all = await run(
        'all',
        `
name: suite-itest
targets:
  - stack: ${STACK}
    handlers: [${HANDLERS.join(', ')}]
benchmarks: [performance, startup, scalability.runtime.5, limits, overhead, network]
runs: 2
warmup: 0
parameters:
  performance.cpu: { maxPrime: 20000, events: 150, modes: [events] }
  performance.memory: { totalSize: 512M }
  performance.disk: { totalSize: 32M, fileNum: 2, events: 500 }
  startup.latency: { count: 10 }
  scalability.runtime: { concurrency: 5 }
  limits.cpu.time: { maxPrime: 20000, events: 150 }
  limits.cpu.scaling: { maxPrime: 5000, events: 3000, rampSeconds: 1, steps: 3 }
  limits.memory.min: { upperBytes: 33554432, precisionBytes: 65536 }
  overhead.runtime: { observeSeconds: 0.5 }
  network.throughput: { bytes: 33554432 }
`,
      );
      // stack up plus every family twice on two handlers: ~3.5 min on an idle 2-core host; a budget
      // for a loaded one (.ci/loaded.sh), where it takes a few times longer.
    }, 1_200_000);

    afterAll(async () => {
      const down = await runCli(['stack', 'down', '--name', STACK]);
      expect(down.code, down.stderr).toBe(0);
      expect(processesUnder(STATE_DIR)).toEqual([]);
      expect(mountsUnder(STATE_DIR)).toEqual([]);
    });

    test('every family has numbers on every handler, and no pod is left', async () => {
      for (const r of all.results)
        expect(`${r.benchmark} ${r.target} ${r.status} ${r.reason ?? ''}`).toMatch(/ ok $/);
      expect(new Set(all.benchmarks.map((b) => b.name.split('.')[0]))).toEqual(
        new Set(['performance', 'startup', 'scalability', 'limits', 'overhead', 'network']),
      );
      expect(await podsLeft()).toEqual([]);
    });

    test('performance.memory and performance.disk: plausible sysbench numbers for every mode', () => {
      for (const h of HANDLERS) {
        const mem = resultOf(all, 'performance.memory', h);
        expect(median(mem, 'mib_per_second')).toBeGreaterThan(100);
        // In every repetition, 512 MiB at the measured rate takes the measured time (per sample: the
        // median of a ratio is not the ratio of medians when a loaded host makes repetitions differ).
        const rates = mem.metrics.find((m) => m.name === 'mib_per_second')!.samples;
        const times = mem.metrics.find((m) => m.name === 'total_time')!.samples;
        // sysbench takes the two from slightly different clocks (2.5 % apart in fixtures/sysbench).
        rates.forEach((rate, i) =>
          expect(Math.abs(512 / rate / times[i]! - 1), `${h} #${i}`).toBeLessThan(0.1),
        );
        const disk = resultOf(all, 'performance.disk', h);
        for (const mode of ['seqrd', 'rndrd', 'seqwr', 'seqrewr', 'rndwr']) {
          expect(median(disk, `${mode}_mib_per_second`)).toBeGreaterThan(1);
          expect(median(disk, `${mode}_total_time`)).toBeGreaterThan(0);
        }
      }
    });

    test("a CPU quota of 10 % is enforced: the kernel throttled the container's cgroup, which used at most its quota per period", () => {
      for (const h of HANDLERS) {
        const r = resultOf(all, 'limits.cpu.time', h);
        const { cpuQuotaMicros } = r.parameters as { cpuQuotaMicros: number };
        const samples = (name: string): number[] => r.metrics.find((m) => m.name === name)!.samples;
        const periods = samples('periods');
        expect(periods.length, `${h}: ${JSON.stringify(r.metrics.map((m) => m.errors))}`).toBe(2);
        periods.forEach((p, i) => {
          const throttled = samples('throttled_periods')[i]!;
          expect(throttled, h).toBeGreaterThan(0);
          expect(throttled, h).toBeLessThanOrEqual(p);
          expect(samples('throttled_time')[i], h).toBeGreaterThan(0);
          // CFS lets the cgroup run at most its quota per period; a per-CPU bandwidth slice (5 ms)
          // and the shell reading the counters may run past that: two periods of slack.
          expect(samples('cpu_usage')[i], h).toBeLessThanOrEqual(((p + 2) * cpuQuotaMicros) / 1000);
        });
        const scaling = resultOf(all, 'limits.cpu.scaling', h);
        expect(median(scaling, 'updates')).toBeGreaterThan(0);
        expect(median(scaling, 'update_latency')).toBeGreaterThan(0);
      }
    });

    test('limits.memory.min: the container runs at the limit found and fails just below it', async () => {
      for (const h of HANDLERS) {
        const r = resultOf(all, 'limits.memory.min', h);
        const bytes = r.metrics.find((m) => m.name === 'bytes')!.samples;
        const failed = r.metrics.find((m) => m.name === 'failed_bytes')!.samples;
        // Each search narrows the bracket to the precision asked for.
        bytes.forEach((b, i) => expect(b - failed[i]!).toBeLessThanOrEqual(65536));
        // The runtime's own memory use varies a little from run to run (runc: ±100 KiB of ~2.5 MiB):
        // 20 % above the largest limit found runs, 20 % below the smallest failing one does not.
        const above = Math.ceil((Math.max(...bytes) * 1.2) / 4096) * 4096;
        const below = Math.floor((Math.min(...failed) * 0.8) / 4096) * 4096;
        expect(await runsUnderLimit(h, above), `${h} at ${above}`).toBe(true);
        expect(await runsUnderLimit(h, below), `${h} at ${below}`).toBe(false);
      }
      expect(await podsLeft()).toEqual([]);
    });

    test('startup: latencies are ordered and error-free; the large image is operational too', () => {
      for (const h of HANDLERS) {
        const s = resultOf(all, 'startup.latency', h);
        expect(median(s, 'errors')).toBe(0);
        expect(median(s, 'error_rate')).toBe(0);
        expect(median(s, 'latency_min')).toBeGreaterThan(0);
        expect(median(s, 'latency_min')).toBeLessThanOrEqual(median(s, 'latency_median'));
        expect(median(s, 'latency_median')).toBeLessThanOrEqual(median(s, 'latency_max'));
        expect(median(s, 'total_time') * 1000).toBeGreaterThan(10 * median(s, 'latency_min'));
        const f = resultOf(all, 'startup.first-output', h);
        for (const kind of ['small', 'large']) {
          expect(median(f, `${kind}_to_output`)).toBeGreaterThan(0);
          expect(median(f, `${kind}_to_output`)).toBeLessThan(30_000);
          expect(median(f, `${kind}_pod_to_output`)).toBeGreaterThan(median(f, `${kind}_to_output`));
        }
      }
    });

    test('scalability: starting all 5 takes at least as long as the slowest of them', () => {
      for (const h of HANDLERS) {
        const r = resultOf(all, 'scalability.runtime.5', h);
        for (const mode of ['serial', 'parallel']) {
          expect(median(r, `${mode}_start_all`) * 1000).toBeGreaterThanOrEqual(
            median(r, `${mode}_start_latency_max`) * 0.999,
          );
          expect(median(r, `${mode}_destroy_all`)).toBeGreaterThan(0);
        }
      }
    });

    test('overhead: non-zero CPU and memory attributed to the shim of each pod', () => {
      for (const h of HANDLERS) {
        const r = resultOf(all, 'overhead.runtime', h);
        expect(median(r, 'cpu_time_total')).toBeGreaterThan(0);
        expect(median(r, 'peak_rss')).toBeGreaterThan(1 << 20);
        expect(median(r, 'processes')).toBeGreaterThanOrEqual(1);
        expect(median(r, 'ctx_switches_total')).toBeGreaterThan(0);
      }
    });

    test('network: host ↔ pod throughput both ways', () => {
      for (const h of HANDLERS) {
        const r = resultOf(all, 'network.throughput', h);
        expect(median(r, 'host_to_pod')).toBeGreaterThan(1);
        expect(median(r, 'pod_to_host')).toBeGreaterThan(1);
      }
    });

    test('performance.disk in a host directory: files gone afterwards; too little space is a clear failure', async () => {
      const hostDir = mkdtempSync(join(tmpdir(), 'rb-fileio-'));
      const result = await run(
        'disk',
        `
targets: [{ stack: ${STACK}, handlers: [runc] }]
benchmarks: [performance.disk]
runs: 1
warmup: 0
parameters:
  performance.disk: { totalSize: 16M, fileNum: 2, events: 200, modes: [seqwr, rndrd], location: host, hostDir: ${hostDir} }
`,
      );
      const disk = resultOf(result, 'performance.disk', 'runc');
      expect(disk.status).toBe('ok');
      expect(median(disk, 'seqwr_mib_per_second')).toBeGreaterThan(0);
      expect(readdirSync(hostDir)).toEqual([]);
      const short = await run(
        'disk-short',
        `
targets: [{ stack: ${STACK}, handlers: [runc] }]
benchmarks: [performance.disk]
runs: 1
warmup: 0
parameters:
  performance.disk: { totalSize: 900T, location: host, hostDir: ${hostDir} }
`,
      );
      const failed = resultOf(short, 'performance.disk', 'runc');
      expect(failed.status).toBe('failed');
      expect(failed.reason).toMatch(/not enough free space .* need \d+ MiB .* \d+ MiB free/);
      expect(readdirSync(hostDir)).toEqual([]);
      expect(existsSync(hostDir)).toBe(true);
      expect(await podsLeft()).toEqual([]);
    });

    test(
      'SIGINT in the middle of a 100000-container startup.latency repetition: interrupted, nothing left',
      { timeout: 120_000 },
      async () => {
        const out = join(work, 'sigint.json');
        let sent = false;
        const r = await runCli(
          [
            'run',
            '--config',
            writeConfig(
              'sigint',
              `
targets: [{ stack: ${STACK}, handlers: [runc] }]
benchmarks: [performance.memory, startup.latency]
runs: 1
warmup: 0
parameters:
  performance.memory: { totalSize: 64M }
  startup.latency: { count: 100000 }
`,
            ),
            '--out',
            out,
          ],
          {
            onStderr: (text, child) => {
              // Progress lines come at the end of a repetition: the memory line means startup.latency began.
              if (!sent && /performance\.memory\s+run 1\/1: ok/.test(text)) {
                sent = true;
                setTimeout(() => child.kill('SIGINT'), 2000);
              }
            },
          },
        );
        expect(sent).toBe(true);
        expect(r.code).toBe(130);
        const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
        expect(result.status).toBe('incomplete');
        expect(resultOf(result, 'startup.latency', 'runc').status).toBe('interrupted');
        expect(await podsLeft()).toEqual([]);
      },
    );
  },
);
