// Our timed CRI call against a minimal Go client (google.golang.org/grpc + k8s.io/cri-api, the
// kubelet's own stack) on the same socket of a real stack: one full pod lifecycle each, alternating
// which goes first, then the median per call and the difference. Our side runs the real
// operations.container.lifecycle iteration, so the timed region is exactly the one a run records.
//   node runner/bench/cri-client.ts [--stack NAME] [--handler H] [--iterations N] [--pause MS]
// Needs Go (PATH or /usr/local/go/bin); the Go source in bench/go-cri is built into a temp dir.
// Target: |ours − Go| ≤ 0.2 ms median per call, in both cases:
// - back-to-back: each call right after the previous one, as the lifecycle makes them;
// - after a pause: both clients sleep --pause ms (default 60) before each timed call, untimed. A
//   real call often follows such an idle wait (RemoveContainer follows StopContainer's ~60 ms), and
//   a process woken from idle runs its call path on cold caches: a client whose path is long pays
//   for it there (docs/cri-client.md).
// A third client is the same Version call written by hand onto Node's own http2 module with a
// constant request (no protobuf, no error mapping, no deadline timer): the floor of any client on
// node:http2, which ours ran on until issue 43 and now undercuts by speaking HTTP/2 itself
// (cri/h2-connection.ts). Before issue #11, ours ran on @grpc/grpc-js, ~0.5 ms above that floor.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as connectHttp2 } from 'node:http2';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ConfigSchema } from '@runtime-bench/schemas';
import { createCriClient } from '../src/cri/client.ts';
import type { CriClient } from '../src/cri/types.ts';
import { LIFECYCLE_CALLS, lifecycleBenchmark } from '../src/suites/lifecycle.ts';
import { runLabel } from '../src/suites/pods.ts';
import { ResourceTracker } from '../src/suites/tracker.ts';
import type { BenchmarkContext } from '../src/suites/types.ts';
import { readStackState, stackStateDir } from '../src/stack/state.ts';
import { median } from '../src/stats/descriptive.ts';
import { formatNumber, terminalTable } from '../src/format/index.ts';
import { pairedRow } from './paired-diff.ts';

const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'default' },
    handler: { type: 'string' },
    iterations: { type: 'string', default: '40' },
    pause: { type: 'string', default: '60' },
  },
});
const iterations = Number(values.iterations);
const pauseMs = Number(values.pause);
if (!Number.isInteger(iterations) || iterations < 1) {
  console.error(`--iterations must be a whole number ≥ 1, got "${values.iterations}"`);
  process.exit(2);
}
if (!Number.isFinite(pauseMs) || pauseMs <= 0) {
  console.error(`--pause must be a positive number of milliseconds, got "${values.pause}"`);
  process.exit(2);
}
const state = await readStackState(stackStateDir(values.stack!));
if (!state || state.pid === null) {
  console.error(`stack "${values.stack}" is not up: run \`runtime-bench stack up\` first`);
  process.exit(2);
}
const handler = values.handler ?? state.handlers[0]!.name;
const go = [process.env.GO, '/usr/local/go/bin/go', 'go'].find((g) => g && (g === 'go' || existsSync(g)))!;
const work = mkdtempSync(join(tmpdir(), 'rb-go-cri-'));
const runId = `go-cri-bench-${process.pid}`;
const config = ConfigSchema.parse({});
const params = config.parameters['operations.container.lifecycle'];
const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const BACK_TO_BACK = 'back-to-back';
const AFTER_PAUSE = `after ${pauseMs} ms`;
type Case = typeof BACK_TO_BACK | typeof AFTER_PAUSE;

/**
 * `cri` with a pause slept before every call, and how long each method's last pause really took:
 * the lifecycle iteration times the call with the pause inside, and the bench subtracts it, so the
 * value is the call itself, started from a process that was idle for the pause.
 */
function pausedClient(cri: CriClient, ms: number, slept: Map<string, number>): CriClient {
  return new Proxy(cri, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return async (...args: unknown[]) => {
        const start = now();
        await sleep(ms);
        slept.set(name, now() - start);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}

try {
  const binary = join(work, 'go-cri');
  console.error(`building bench/go-cri with ${go} …`);
  execFileSync(go, ['build', '-o', binary, '.'], {
    cwd: join(import.meta.dirname, 'go-cri'),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const child = spawn(
    binary,
    [
      '-endpoint',
      state.socket,
      '-handler',
      handler,
      '-image',
      config.images.bench,
      '-log-dir',
      join(work, 'logs'),
      '-run-label',
      runId,
      '-command',
      params.command.join(' '),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  // CPU time each client spends per Version call (its whole process): load changes latencies
  // far more than it changes this, so it shows the client's own cost on a busy host too.
  const cpu = new Map<string, number[]>();
  const addCpu = (key: string, micros: number): void => void cpu.set(key, [...(cpu.get(key) ?? []), micros]);
  const pauseOf = (when: Case): number => (when === BACK_TO_BACK ? 0 : pauseMs);
  const goCall = async (
    what: 'lifecycle' | 'version' | 'imagestatus',
    when: Case,
  ): Promise<Record<string, number>> => {
    child.stdin.write(`${what} ${pauseOf(when)}\n`);
    const { value } = await lines.next();
    const r = JSON.parse(String(value)) as { ms: Record<string, number>; cpuMicros?: number; error?: string };
    if (r.error) throw new Error(`go client: ${r.error}`);
    if (what === 'version' && r.cpuMicros !== undefined) addCpu(`go ${when}`, r.cpuMicros);
    return r.ms;
  };
  const cri = createCriClient('grpc', state.socket, { timeoutSeconds: config.callTimeoutSeconds });
  await cri.version(); // connect outside the measurement, as a run does before its first benchmark
  const ctx: BenchmarkContext = {
    cri,
    target: { id: `bench/${handler}`, handler },
    images: config.images,
    runId,
    logDir: join(work, 'logs'),
    tracker: new ResourceTracker(),
    signal: new AbortController().signal,
    callTimeoutSeconds: config.callTimeoutSeconds,
  };
  const slept = new Map<string, number>();
  const pausedCtx: BenchmarkContext = { ...ctx, cri: pausedClient(cri, pauseMs, slept) };
  const ours = async (when: Case): Promise<Record<string, number>> => {
    slept.clear();
    const o = await lifecycleBenchmark.iterate(when === BACK_TO_BACK ? ctx : pausedCtx, params, {
      index: 0,
      warmup: false,
    });
    if (o.failure) throw new Error(`our client: ${o.failure}`);
    const ms: Record<string, number> = {};
    for (const call of LIFECYCLE_CALLS) {
      const method = call[0]!.toLowerCase() + call.slice(1);
      ms[call] = o.values[call]! - (when === BACK_TO_BACK ? 0 : slept.get(method)!);
    }
    return ms;
  };
  const timedCall = async (when: Case, name: string, call: () => Promise<unknown>, cpuKey?: string) => {
    if (when !== BACK_TO_BACK) await sleep(pauseMs);
    const cpu0 = process.cpuUsage();
    const t = now();
    await call();
    const ms = now() - t;
    const used = process.cpuUsage(cpu0);
    if (cpuKey) addCpu(`${cpuKey} ${when}`, used.user + used.system);
    return { [name]: ms };
  };
  const version = (when: Case) => timedCall(when, 'Version', () => cri.version(), 'ours');
  const imageStatus = (when: Case) =>
    timedCall(when, 'ImageStatus', () => cri.imageStatus(config.images.bench));
  // The Version request by hand: a gRPC frame (uncompressed, length 4) of VersionRequest{version:"v1"}.
  const http2 = connectHttp2('http://localhost', { createConnection: () => connectSocket(state.socket) });
  const versionFrame = Buffer.from([0, 0, 0, 0, 4, 0x0a, 0x02, 0x76, 0x31]);
  const floorVersion = (when: Case) =>
    timedCall(
      when,
      'Version',
      () =>
        new Promise<void>((resolve, reject) => {
          const stream = http2.request({
            ':method': 'POST',
            ':path': '/runtime.v1.RuntimeService/Version',
            'content-type': 'application/grpc',
            te: 'trailers',
          });
          stream.on('error', reject);
          stream.on('data', () => undefined);
          stream.on('trailers', (trailers) => {
            if (trailers['grpc-status'] !== '0')
              reject(new Error(`node:http2 Version: ${String(trailers['grpc-message'])}`));
            else resolve();
          });
          stream.end(versionFrame);
        }),
    );
  const floor = new Map<Case, number[]>();
  // Samples per "case call", ours and Go's in the same order: the k-th of each form a pair.
  const samples = { ours: new Map<string, number[]>(), go: new Map<string, number[]>() };
  const add = (side: 'ours' | 'go', when: Case, ms: Record<string, number>): void => {
    for (const [call, v] of Object.entries(ms)) {
      const key = `${when}\t${call}`;
      samples[side].set(key, [...(samples[side].get(key) ?? []), v]);
    }
  };
  // Warm-up (connection, JIT of both clients' code paths, the runtime's own caches), then alternate.
  for (let i = 0; i < 3; i++) {
    await ours(BACK_TO_BACK);
    await goCall('lifecycle', BACK_TO_BACK);
  }
  for (let i = 0; i < 200; i++) {
    await version(BACK_TO_BACK);
    await floorVersion(BACK_TO_BACK);
    await goCall('version', BACK_TO_BACK);
    await imageStatus(BACK_TO_BACK);
    await goCall('imagestatus', BACK_TO_BACK);
  }
  cpu.clear();
  const cases: Case[] = [BACK_TO_BACK, AFTER_PAUSE];
  for (let i = 0; i < iterations; i++) {
    for (const when of cases) {
      // Short calls, the client's own cost with (almost) no work in the runtime. Whichever call
      // follows the Go client's turn meets a process woken from idle: rotate.
      for (let j = 0; j < 5; j++) {
        const oursFirst = (i * 5 + j) % 2 === 0;
        const floorMs = async (): Promise<void> =>
          void floor.set(when, [...(floor.get(when) ?? []), (await floorVersion(when)).Version!]);
        if (oursFirst) {
          add('ours', when, await version(when));
          await floorMs();
        } else {
          await floorMs();
          add('ours', when, await version(when));
        }
        add('go', when, await goCall('version', when));
        if (oursFirst) {
          add('ours', when, await imageStatus(when));
          add('go', when, await goCall('imagestatus', when));
        } else {
          add('go', when, await goCall('imagestatus', when));
          add('ours', when, await imageStatus(when));
        }
      }
      if (i % 2 === 0) {
        add('ours', when, await ours(when));
        add('go', when, await goCall('lifecycle', when));
      } else {
        add('go', when, await goCall('lifecycle', when));
        add('ours', when, await ours(when));
      }
    }
  }
  child.stdin.end();
  await ctx.tracker.cleanup(cri, runLabel(runId));
  cri.close();
  http2.close();

  const TARGET_MS = 0.2;
  const rows = [...samples.go.keys()]
    .map((key) => {
      const [when, call] = key.split('\t') as [string, string];
      return pairedRow(call, when, samples.ours.get(key)!, samples.go.get(key)!, TARGET_MS);
    })
    .sort((a, b) => a.call.localeCompare(b.call) || cases.indexOf(a.case) - cases.indexOf(b.case));
  console.log(
    `\n${state.cri} ${state.daemon.version} (${state.daemon.path}), handler ${handler}, ${iterations} rounds, alternating; ` +
      `"${AFTER_PAUSE}": both clients idle ${pauseMs} ms before each timed call\n`,
  );
  console.log(
    terminalTable(
      [
        'call',
        'case',
        'n',
        'ours median ms',
        'Go median ms',
        'ours − Go (paired median) ms',
        '95 % interval ms',
        `≤ ${TARGET_MS} ms`,
      ],
      rows.map((r) => [
        r.call,
        r.case,
        String(r.n),
        formatNumber(r.oursMedian),
        formatNumber(r.goMedian),
        formatNumber(r.diff),
        r.interval ? `${formatNumber(r.interval.lower)} … ${formatNumber(r.interval.upper)}` : 'too few',
        r.verdict,
      ]),
    ),
  );
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const when of cases) {
    const o = cpu.get(`ours ${when}`)!;
    const g = cpu.get(`go ${when}`)!;
    console.log(
      `\nclient CPU per Version call, ${when} (user + system, whole process, mean of ${o.length}): ours ${formatNumber(mean(o))} µs, Go ${formatNumber(mean(g))} µs`,
    );
  }
  for (const when of cases) {
    const floorMedian = median(floor.get(when)!);
    const row = rows.find((r) => r.call === 'Version' && r.case === when)!;
    console.log(
      `\nVersion by hand on node:http2, ${when}, median of ${floor.get(when)!.length}: ${formatNumber(floorMedian)} ms (ours − it: ${formatNumber(row.oursMedian - floorMedian)} ms; it − Go: ${formatNumber(floorMedian - row.goMedian)} ms)`,
    );
  }
  const label = (r: { call: string; case: string }): string => `${r.call} (${r.case})`;
  const failed = rows.filter((r) => r.verdict === 'NOT met').map(label);
  const noisy = rows.filter((r) => r.verdict === 'within noise').map(label);
  const tooFew = rows.filter((r) => r.verdict === 'too few').map(label);
  console.log(
    `\ntarget |ours − Go| ≤ ${TARGET_MS} ms per call: ${failed.length === 0 ? 'met' : `NOT met for ${failed.join(', ')}`}` +
      (noisy.length
        ? ` (${noisy.join(', ')}: the runtime's spread hides a difference of this size at ${iterations} rounds; the interval contains ≤ ${TARGET_MS} ms)`
        : '') +
      (tooFew.length ? ` (${tooFew.join(', ')}: too few rounds for a 95 % interval, run ≥ 6)` : ''),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
