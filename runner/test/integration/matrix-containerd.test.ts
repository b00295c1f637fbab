// The whole OCI-runtime matrix on one real containerd stack: the host's runc and crun, plus the
// shared builds of youki and gVisor (runsc with its containerd shim beside it) joined through
// stack.extraHandlers. Every benchmark family runs once on each handler with small parameters;
// each result is either ok with plausible numbers or the runtime's known refusal, with its reason.
// One stack bring-up and one run serve every family's checks (CI time: the stack and the run are
// the cost); the host-directory disk run and the SIGINT test reuse the same stack afterwards.
import { execFileSync } from 'node:child_process';
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
import { EXIT } from '../../src/exit-codes.ts';
import { runCli } from '../support/cli.ts';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';
import {
  cgroupsNamed,
  mountsUnder,
  processesUnder,
  realStackUnavailable,
  testStackName,
} from '../support/host.ts';
import { sharedTool, sharedToolsDir } from '../support/shared-tools.ts';

const STACK = testStackName('matrix');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const SOCKET = join(STATE_DIR, 'containerd.sock');
const unavailable = realStackUnavailable();
if (unavailable) console.warn(`SKIPPED the containerd runtime-matrix test: ${unavailable}`);

const YOUKI = sharedTool('youki/youki');
const RUNSC = sharedTool('gvisor/runsc');
const RUNSC_SHIM = sharedTool('gvisor/containerd-shim-runsc-v1');

/** Handler names in the stack: the host's own runc and crun, the shared builds under their own names. */
const HANDLERS = ['runc', 'crun', 'youki-shared', 'runsc-shared'] as const;
type Handler = (typeof HANDLERS)[number];
const FAMILIES = ['operations', 'performance', 'startup', 'scalability', 'limits', 'overhead', 'network'];

/**
 * What each runtime is known to refuse on this kind of host (shared/docs/stack.md,
 * docs/benchmarks.md): gVisor implements neither UpdateContainerResources nor adjtimex(2).
 */
const KNOWN_UNSUPPORTED: Partial<Record<Handler, Record<string, RegExp>>> = {
  'runsc-shared': {
    'limits.cpu.scaling': /UpdateContainerResources refused: .*not implemented/,
    'startup.first-output': /cannot read the wall clock with adjtimex\(2\) under this runtime/,
  },
};
/**
 * Refusals that are not certain: runsc's shim answered both UpdateContainerResources of
 * limits.cpu.scaling once (beside two CPU hogs, both updates applied in ~5 ms) where it refuses
 * them otherwise. Either outcome is accepted; any other status is not.
 */
const ACCEPTED_AT_TIMES: Partial<Record<Handler, string[]>> = { 'runsc-shared': ['limits.cpu.scaling'] };
/**
 * youki fails to start about one rapid container in seven here (shared/tools/youki/BUILD.md): a
 * repetition hit by it is invalid (over the error budget) or, with one repetition, failed.
 */
const YOUKI_START_FAILURE = /OCI runtime create failed: \S*youki did not terminate successfully/;

/** The fixed work of limits.cpu.time; its CPU time on the host is measured by the test itself. */
const CPU_WORK = { maxPrime: 10000, events: 200 };

/** CPU seconds (user + system) the same sysbench work costs on the host: load does not change it. */
function hostCpuSeconds(): number {
  const out = execFileSync(
    'bash',
    [
      '-c',
      'sysbench cpu --cpu-max-prime="$1" --threads=1 --time=0 --events="$2" run >/dev/null; times',
      'bash',
      String(CPU_WORK.maxPrime),
      String(CPU_WORK.events),
    ],
    { encoding: 'utf8' },
  );
  // `times` prints the shell's own times, then its children's: "0m0.131s 0m0.002s".
  const children = out.trim().split('\n').at(-1)!;
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (seconds.length !== 2) throw new Error(`cannot read CPU times from "${out}"`);
  return seconds[0]! + seconds[1]!;
}

const work = mkdtempSync(join(tmpdir(), 'rb-matrix-'));
const writeFile = (name: string, body: string): string => {
  const path = join(work, name);
  writeFileSync(path, body);
  return path;
};

async function podsLeft(): Promise<string[]> {
  const client = createCriClient('grpc', SOCKET, { timeoutSeconds: 10 });
  try {
    return (await client.listPodSandbox()).map((p) => `${p.name} (${p.state})`);
  } finally {
    client.close();
  }
}

const resultOf = (run: RunResult, benchmark: string, handler: Handler): BenchmarkResult => {
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
const samples = (r: BenchmarkResult, metric: string): number[] =>
  r.metrics.find((m) => m.name === metric)!.samples;
/** The host's own runtimes: no known start failures or refusals, so every check applies in full. */
const HOST_HANDLERS = ['runc', 'crun'] as const;
const STARTUP_COUNT = 8;

async function runConfig(name: string, body: string, exitCode = 0): Promise<RunResult> {
  const out = join(work, `${name}.json`);
  const r = await runCli(['run', '--config', writeFile(`${name}.yaml`, body), '--out', out]);
  expect(r.code, r.stderr).toBe(exitCode);
  return RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
}

/** Runs `/bin/true` under a memory limit in a fresh pod; true when it exited 0. */
async function runsUnderLimit(handler: Handler, bytes: number): Promise<boolean> {
  const cri = createCriClient('grpc', SOCKET, { timeoutSeconds: 60 });
  const ctx = {
    cri,
    target: { id: `containerd/${handler}`, handler },
    images: ImagesConfigSchema.parse({}),
    runId: 'matrix-itest',
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
/** The ok results of one benchmark, by handler (known refusals are checked separately). */
const okResults = (run: RunResult, benchmark: string): [Handler, BenchmarkResult][] =>
  HANDLERS.map((h) => [h, resultOf(run, benchmark, h)] as [Handler, BenchmarkResult]).filter(
    ([, r]) => r.status === 'ok',
  );

describe.skipIf(unavailable !== null)(
  'every benchmark family on containerd × runc, crun, youki, runsc',
  () => {
    let all: RunResult;
    const seconds = { up: 0, run: 0, down: 0 };

    beforeAll(async () => {
      const missing = Object.entries({ YOUKI, RUNSC, RUNSC_SHIM }).filter(([, p]) => p === null);
      if (missing.length > 0)
        throw new Error(
          `shared builds missing in ${sharedToolsDir()}: ${missing.map(([k]) => k).join(', ')} (set RB_SHARED_TOOLS to the directory holding gvisor/ and youki/)`,
        );
      // A small large image keeps stack up lean; first-output still reads both images.
      const stackConfig = writeFile(
        'stack.yaml',
        `images: { largeSizeMiB: 16 }
stack:
  extraHandlers:
    - { name: youki-shared, binary: ${YOUKI}, kind: youki }
    - { name: runsc-shared, binary: ${RUNSC}, kind: runsc } # its shim lies beside it
`,
      );
      let t = Date.now();
      const up = await runCli(['stack', 'up', '--stack', STACK, '--fix-host', '--config', stackConfig]);
      seconds.up = (Date.now() - t) / 1000;
      expect(up.code, up.stderr).toBe(0);
      for (const h of HANDLERS) expect(up.stdout).toMatch(new RegExp(`handler\\s+${h}\\s`));

      const out = join(work, 'matrix.json');
      t = Date.now();
      const r = await runCli([
        'run',
        '--out',
        out,
        '--config',
        writeFile(
          'matrix.yaml',
          `name: matrix-itest
targets:
  - stack: ${STACK}
    handlers: [${HANDLERS.join(', ')}]
benchmarks: [operations, performance, startup, scalability.runtime.5, limits, overhead, network]
runs: 1
# A second try where the first dropped its shim connection under load: a failed repetition now,
# not a refusal (runsc refuses on the first that reaches it, and is not tried again).
runsPerBenchmark: { limits.cpu.scaling: 2 }
warmup: 0
images: { largeSizeMiB: 16 }
parameters:
  performance.cpu: { maxPrime: 10000, events: 100, modes: [events] }
  performance.memory: { totalSize: 256M }
  performance.disk: { totalSize: 16M, fileNum: 2, events: 200 }
  startup.latency: { count: ${STARTUP_COUNT} }
  scalability.runtime: { concurrency: 5 }
  limits.cpu.time: { maxPrime: ${CPU_WORK.maxPrime}, events: ${CPU_WORK.events} }
  limits.cpu.scaling: { maxPrime: 5000, events: 2000, rampSeconds: 1, steps: 2 }
  limits.memory.min: { upperBytes: 33554432, precisionBytes: 65536 }
  overhead.runtime: { observeSeconds: 0.5 }
  network.throughput: { bytes: 4194304 }
`,
        ),
      ]);
      seconds.run = (Date.now() - t) / 1000;
      expect(r.code, r.stderr).toBe(0);
      all = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      // stack up plus every family once on four handlers: ~3 min on an idle 2-core host; a budget
      // for a loaded one (.ci/loaded.sh), where it takes a few times longer.
    }, 1_200_000);

    afterAll(async () => {
      const t = Date.now();
      const down = await runCli(['stack', 'down', '--stack', STACK]);
      seconds.down = (Date.now() - t) / 1000;
      console.log(
        `matrix-containerd: stack up ${seconds.up.toFixed(0)} s, run ${seconds.run.toFixed(0)} s, down ${seconds.down.toFixed(0)} s`,
      );
      expect(down.code, down.stderr).toBe(0);
      // Shims, runsc sandboxes and gofers name the stack's state dir (runsc's root lies under it).
      expect(processesUnder(STATE_DIR)).toEqual([]);
      expect(mountsUnder(STATE_DIR)).toEqual([]);
      expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
    });

    test('every family ran on every handler: ok, or the runtime’s known refusal with its reason', async () => {
      expect(all.status).toBe('complete');
      expect(new Set(all.benchmarks.map((b) => b.name.split('.')[0]))).toEqual(new Set(FAMILIES));
      expect(all.targets.map((t) => [t.handler, t.oci.name])).toEqual([
        ['runc', 'runc'],
        ['crun', 'crun'],
        ['youki-shared', 'youki'],
        ['runsc-shared', 'runsc'],
      ]);
      expect(all.results).toHaveLength(all.benchmarks.length * HANDLERS.length);
      for (const b of all.benchmarks) {
        for (const h of HANDLERS) {
          const r = resultOf(all, b.name, h);
          const seen = `${b.name} on ${h}: ${r.status} ${r.reason ?? ''}`;
          const refusal = KNOWN_UNSUPPORTED[h]?.[b.name];
          if (refusal && !(ACCEPTED_AT_TIMES[h]?.includes(b.name) && r.status === 'ok')) {
            expect(r.status, seen).toBe('unsupported');
            expect(r.reason, seen).toMatch(refusal);
          } else if (h === 'youki-shared' && (r.status === 'invalid' || r.status === 'failed')) {
            expect(r.reason, seen).toMatch(YOUKI_START_FAILURE);
          } else expect(r.status, seen).toBe('ok');
        }
      }
      expect(await podsLeft()).toEqual([]);
    });

    test('operations: every CRI call took a plausible time, and the phases add up', () => {
      for (const [h, r] of okResults(all, 'operations.container.lifecycle')) {
        for (const call of ['RunPodSandbox', 'CreateContainer', 'StartContainer', 'StopPodSandbox']) {
          expect(median(r, call), `${h} ${call}`).toBeGreaterThan(0);
          expect(median(r, call), `${h} ${call}`).toBeLessThan(30_000);
        }
        // One repetition: each phase is exactly the sum of its calls' samples.
        expect(median(r, 'create')).toBeCloseTo(median(r, 'RunPodSandbox') + median(r, 'CreateContainer'), 6);
        expect(median(r, 'create-and-run')).toBeCloseTo(median(r, 'create') + median(r, 'run'), 6);
      }
    });

    test('performance: sysbench numbers from inside every runtime', () => {
      for (const [h, cpu] of okResults(all, 'performance.cpu')) {
        // 100 prime searches up to 10000: milliseconds on any runtime, far from a minute.
        expect(median(cpu, 'total_time'), h).toBeGreaterThan(0);
        expect(median(cpu, 'total_time'), h).toBeLessThan(60);
      }
      for (const [h, mem] of okResults(all, 'performance.memory')) {
        expect(median(mem, 'mib_per_second'), h).toBeGreaterThan(100);
        // 256 MiB at the measured rate takes about the measured time, in every repetition: the
        // parser read the rate and the time of the same transfer, in MiB/s and seconds (a unit
        // mix-up is off by 2^10 or more). Only "about": sysbench takes the two from different
        // clocks (2.5 % apart in fixtures/sysbench) and a loaded runner stretches one of them
        // more than the other, so this is no timing check.
        const times = samples(mem, 'total_time');
        samples(mem, 'mib_per_second').forEach((rate, i) =>
          expect(Math.abs(Math.log(256 / rate / times[i]!)), `${h} #${i}`).toBeLessThan(Math.log(2)),
        );
      }
      for (const [h, disk] of okResults(all, 'performance.disk'))
        for (const mode of ['seqrd', 'rndrd', 'seqwr', 'seqrewr', 'rndwr']) {
          expect(median(disk, `${mode}_mib_per_second`), `${h} ${mode}`).toBeGreaterThan(0.1);
          expect(median(disk, `${mode}_total_time`), `${h} ${mode}`).toBeGreaterThan(0);
        }
      // The host's runtimes write straight to the overlay: well above 1 MiB/s in every mode.
      for (const h of HOST_HANDLERS)
        for (const mode of ['seqrd', 'rndrd', 'seqwr', 'seqrewr', 'rndwr'])
          expect(median(resultOf(all, 'performance.disk', h), `${mode}_mib_per_second`), h).toBeGreaterThan(
            1,
          );
    });

    test('startup: ordered latencies; first output where the runtime has adjtimex', () => {
      for (const [h, s] of okResults(all, 'startup.latency')) {
        expect(median(s, 'latency_min'), h).toBeGreaterThan(0);
        expect(median(s, 'latency_min')).toBeLessThanOrEqual(median(s, 'latency_median'));
        expect(median(s, 'latency_median')).toBeLessThanOrEqual(median(s, 'latency_max'));
        expect(median(s, 'error_rate')).toBeCloseTo(median(s, 'errors') / STARTUP_COUNT, 9);
      }
      // runc and crun have no known start failures: their repetitions are clean, and starting the
      // containers one after another takes longer than all of them at the fastest one's latency.
      for (const h of HOST_HANDLERS) {
        const s = resultOf(all, 'startup.latency', h);
        expect(median(s, 'errors'), h).toBe(0);
        expect(median(s, 'total_time') * 1000, h).toBeGreaterThan(STARTUP_COUNT * median(s, 'latency_min'));
      }
      for (const [h, f] of okResults(all, 'startup.first-output'))
        for (const kind of ['small', 'large']) {
          expect(median(f, `${kind}_to_output`), `${h} ${kind}`).toBeGreaterThan(0);
          expect(median(f, `${kind}_to_output`), `${h} ${kind}`).toBeLessThan(30_000);
          expect(median(f, `${kind}_pod_to_output`)).toBeGreaterThan(median(f, `${kind}_to_output`));
        }
    });

    test('scalability: starting all 5 takes at least as long as the slowest of them', () => {
      for (const [h, r] of okResults(all, 'scalability.runtime.5'))
        for (const mode of ['serial', 'parallel']) {
          expect(median(r, `${mode}_start_all`) * 1000, `${h} ${mode}`).toBeGreaterThanOrEqual(
            median(r, `${mode}_start_latency_max`) * 0.999,
          );
          expect(median(r, `${mode}_destroy_all`), `${h} ${mode}`).toBeGreaterThan(0);
        }
    });

    test('limits: a 10 % CPU quota throttles the work; memory limits are found within their precision', () => {
      // Under a quota of 10 ms per 100 ms period the work's CPU time C cannot finish in less than
      // about 10 C of wall time; half that leaves room for the first period's burst and noise.
      // gVisor is left out: whether its sandbox is throttled depends on the containerd version
      // (docs/benchmarks.md saw no throttling under containerd 2.1).
      const cpu = hostCpuSeconds();
      for (const [h, r] of okResults(all, 'limits.cpu.time')) {
        const limited = median(r, 'total_time');
        if (h === 'runsc-shared') expect(limited, h).toBeGreaterThan(0);
        else expect(limited, `${h} (host CPU time of the work ${cpu} s)`).toBeGreaterThan(5 * cpu);
      }
      for (const [h, mem] of okResults(all, 'limits.memory.min')) {
        const bytes = mem.metrics.find((m) => m.name === 'bytes')!.samples;
        const failed = mem.metrics.find((m) => m.name === 'failed_bytes')!.samples;
        bytes.forEach((b, i) => expect(b - failed[i]!, h).toBeLessThanOrEqual(65536));
        // runsc runs at any limit: the search ends one step above its lower bound (0). The others
        // charge their own setup to the container (crun, the leanest, about 192 KiB here).
        if (h === 'runsc-shared') expect(Math.max(...bytes), h).toBeLessThanOrEqual(65536);
        else expect(Math.min(...bytes), h).toBeGreaterThan(131072);
      }
      for (const [h, r] of okResults(all, 'limits.cpu.scaling')) {
        expect(median(r, 'updates'), h).toBeGreaterThan(0);
        expect(median(r, 'update_latency'), h).toBeGreaterThan(0);
      }
    });

    test("a CPU quota of 10 % is enforced: the kernel throttled the container's cgroup, which used at most its quota per period", () => {
      for (const h of HOST_HANDLERS) {
        const r = resultOf(all, 'limits.cpu.time', h);
        const { cpuQuotaMicros } = r.parameters as { cpuQuotaMicros: number };
        const periods = samples(r, 'periods');
        expect(periods.length, `${h}: ${JSON.stringify(r.metrics.map((m) => m.errors))}`).toBe(1);
        periods.forEach((p, i) => {
          const throttled = samples(r, 'throttled_periods')[i]!;
          expect(throttled, h).toBeGreaterThan(0);
          expect(throttled, h).toBeLessThanOrEqual(p);
          expect(samples(r, 'throttled_time')[i], h).toBeGreaterThan(0);
          // CFS lets the cgroup run at most its quota per period. Past that: the quota of the first,
          // partial period, what each CPU overran before its next tick noticed (paid back later,
          // except at the end), and the shell reading the counters. Under two CPU hogs and a busy
          // host this came to 2.4 periods' quota once: three periods of slack. Unenforced, the
          // cgroup would use up to a whole period per period, ten times the quota.
          expect(samples(r, 'cpu_usage')[i], h).toBeLessThanOrEqual(((p + 3) * cpuQuotaMicros) / 1000);
        });
      }
    });

    test('limits.memory.min: the container runs at the limit found and fails just below it', async () => {
      for (const h of HOST_HANDLERS) {
        const r = resultOf(all, 'limits.memory.min', h);
        const bytes = samples(r, 'bytes');
        const failed = samples(r, 'failed_bytes');
        // The runtime's own memory use varies from run to run, in proportion (runc: ±100 KiB of
        // ~2.5 MiB) and by an absolute amount that dominates at crun's ~200 KiB floor (it ran at
        // 204 KiB after failing at 256 KiB in its search, beside two CPU hogs): 20 % + 128 KiB above
        // the largest limit found runs, 20 % − 128 KiB below the smallest failing one does not.
        const slack = 128 * 1024;
        const above = Math.ceil((Math.max(...bytes) * 1.2 + slack) / 4096) * 4096;
        const below = Math.max(4096, Math.floor((Math.min(...failed) * 0.8 - slack) / 4096) * 4096);
        expect(await runsUnderLimit(h, above), `${h} at ${above}`).toBe(true);
        expect(await runsUnderLimit(h, below), `${h} at ${below}`).toBe(false);
      }
      expect(await podsLeft()).toEqual([]);
    });

    test('overhead: CPU and memory attributed to each runtime’s own processes', () => {
      for (const [h, r] of okResults(all, 'overhead.runtime')) {
        expect(median(r, 'cpu_time_total'), h).toBeGreaterThan(0);
        expect(median(r, 'peak_rss'), h).toBeGreaterThan(1 << 20);
        expect(median(r, 'processes'), h).toBeGreaterThanOrEqual(1);
      }
      for (const h of HOST_HANDLERS)
        expect(median(resultOf(all, 'overhead.runtime', h), 'ctx_switches_total'), h).toBeGreaterThan(0);
      // The runc shim runs runc, crun and youki in its shim cgroup: their start CPU in ns. gVisor's
      // shim ignores ShimCgroup (its runsc helpers stay in ticks).
      for (const h of ['runc', 'crun', 'youki-shared'] as const) {
        const cpu = resultOf(all, 'overhead.runtime', h).metrics.find((m) => m.name === 'cpu_time_start')!;
        expect(cpu.sources, h).toEqual({ 'shim-cgroup': cpu.samples.length });
      }
      const runsc = resultOf(all, 'overhead.runtime', 'runsc-shared').metrics.find(
        (m) => m.name === 'cpu_time_start',
      )!;
      expect(runsc.sources).toEqual({ ticks: runsc.samples.length });
      // gVisor's sentry and gofer run beside its shim: more runtime processes than runc's one shim.
      expect(median(resultOf(all, 'overhead.runtime', 'runsc-shared'), 'processes')).toBeGreaterThan(
        median(resultOf(all, 'overhead.runtime', 'runc'), 'processes'),
      );
    });

    test('network: host ↔ pod throughput both ways on every runtime', () => {
      for (const [h, r] of okResults(all, 'network.throughput')) {
        // gVisor's own network stack is far slower here (under 1 MiB/s seen on containerd 1.6).
        const floor = h === 'runsc-shared' ? 0.05 : 1;
        expect(median(r, 'host_to_pod'), h).toBeGreaterThan(floor);
        expect(median(r, 'pod_to_host'), h).toBeGreaterThan(floor);
      }
    });

    test('performance.disk in a host directory: files gone afterwards; too little space is a clear failure', async () => {
      const hostDir = mkdtempSync(join(tmpdir(), 'rb-fileio-'));
      const result = await runConfig(
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
      const short = await runConfig(
        'disk-short',
        `
targets: [{ stack: ${STACK}, handlers: [runc] }]
benchmarks: [performance.disk]
runs: 1
warmup: 0
parameters:
  performance.disk: { totalSize: 900T, location: host, hostDir: ${hostDir} }
`,
        // A benchmark that measured nothing: the result is written and run says so by its exit status.
        EXIT.benchmarkFailed.code,
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
            writeFile(
              'sigint.yaml',
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
