// A real private CRI-O (the shared v1.36.3 build) next to a real private containerd: every
// benchmark family on CRI-O, one interleaved containerd-vs-CRI-O run, a Kubernetes cluster on
// the CRI-O stack (pods per RuntimeClass, cluster down), and `stack down` after
// `kill -9` of crio in the middle of a run. Small parameters: CI has 2 cores and 30 minutes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema, type BenchmarkResult, type RunResult } from '@runtime-bench/schemas';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';
import { EXIT_ENDPOINT_DEAD } from '../../src/commands/run.ts';
import { runCli } from '../support/cli.ts';
import { mountsUnder, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';
import { ensureModernCrun, sharedTool, sharedToolsDir } from '../support/shared-tools.ts';
import { KUBERNETES_BIN, kubernetesUnavailable, readSysctls } from '../support/kubernetes.ts';

const CRIO_STACK = testStackName('crio');
const CTD_STACK = testStackName('crio-ctd');
const stateDir = (name: string): string => `/var/lib/runtime-bench/stacks/${name}`;
const crio = sharedTool('cri-o/crio');
// The crictl transport against CRI-O, with the shared crictl build (in no registry we reach).
const CRICTL = sharedTool('cri-tools/crictl');
const unavailable =
  realStackUnavailable() ??
  (crio ? null : `no CRI-O build at ${sharedToolsDir()}/cri-o/crio (set RB_SHARED_TOOLS)`) ??
  (CRICTL ? null : `no crictl build at ${sharedToolsDir()}/cri-tools/crictl (set RB_SHARED_TOOLS)`) ??
  (onPathOrNull('skopeo') ? null : 'skopeo is not on PATH (bash scripts/setup.sh installs it)');
if (unavailable) console.warn(`SKIPPED CRI-O integration tests: ${unavailable}`);
const kubeSkip = unavailable ?? kubernetesUnavailable();
if (kubeSkip && !unavailable) console.warn(`SKIPPED the cluster on CRI-O: ${kubeSkip}`);

function onPathOrNull(cmd: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** The version CRI-O prints for itself, read independently of the code under test. */
function crioVersion(): string {
  const out = execFileSync(crio!, ['--version'], { encoding: 'utf8' });
  return /crio version (\d+\.\d+\.\d+)/.exec(out)![1]!;
}

const systemCrun = onPathOrNull('crun');
const systemCrunVersion = systemCrun
  ? (/crun version (\d+\.\d+(?:\.\d+)?)/.exec(
      execFileSync(systemCrun, ['--version'], { encoding: 'utf8' }),
    )?.[1] ?? null)
  : null;
const systemCrunWorks = systemCrunVersion !== null && Number(systemCrunVersion.split('.')[1]) >= 9;
/**
 * Bookworm's crun 1.8.1 cannot serve CRI-O (OCI spec 1.3.0): a crun ≥ 1.9 from the installer's
 * distro source joins as an extra handler, so CI covers CRI-O × crun on a fresh machine too.
 */
const extraCrun = systemCrunWorks || unavailable !== null ? null : await ensureModernCrun();
/** runc always; crun when one ≥ 1.9 is present. */
const HANDLERS = ['runc', ...(systemCrunWorks ? ['crun'] : extraCrun ? ['crun-new'] : [])];

const work = mkdtempSync(join(tmpdir(), 'rb-crio-'));
function writeConfig(name: string, body: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, body);
  return path;
}

async function run(name: string, body: string): Promise<RunResult> {
  const out = join(work, `${name}.json`);
  const r = await runCli(['run', '--config', writeConfig(name, body), '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
}

async function podsLeft(name: string, socket: string): Promise<string[]> {
  const client = new GrpcCriClient(join(stateDir(name), socket), 10);
  try {
    return (await client.listPodSandbox()).map((p) => `${p.name} (${p.state})`);
  } finally {
    client.close();
  }
}

const resultOf = (r: RunResult, benchmark: string, target: string): BenchmarkResult => {
  const found = r.results.find((x) => x.benchmark === benchmark && x.target === target);
  if (!found) throw new Error(`no result for ${benchmark} on ${target}`);
  return found;
};
const median = (r: BenchmarkResult, metric: string): number => {
  const m = r.metrics.find((x) => x.name === metric);
  if (!m?.summary)
    throw new Error(`${r.benchmark} ${r.target}: no samples for ${metric} (${r.status}: ${r.reason ?? ''})`);
  return m.summary.median;
};

/** Bit 24 of CapEff, read here rather than through the code under test. */
const hasSysResource = (): boolean =>
  (BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]}`) >> 24n) & 1n
    ? true
    : false;

describe.skipIf(unavailable !== null)('a real CRI-O stack', () => {
  let all: RunResult;

  beforeAll(async () => {
    const stackConfig = writeConfig(
      'stack',
      `stack:\n  extraHandlers:${extraCrun ? `\n    - { name: crun-new, binary: ${extraCrun}, kind: crun }` : ' []'}\n`,
    );
    const up = await runCli([
      'stack',
      'up',
      '--stack',
      CRIO_STACK,
      '--cri',
      'cri-o',
      '--crio',
      crio!,
      '--fix-host',
      '--config',
      stackConfig,
    ]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/is up: cri-o \d+\.\d+\.\d+, pid \d+/);
    for (const h of HANDLERS) expect(up.stdout).toMatch(new RegExp(`handler\\s+${h}\\s`));
    if (systemCrunVersion && !systemCrunWorks) {
      // bookworm's crun 1.8.1: skipped with the reason, never registered
      expect(up.stdout).toMatch(/skipped\s+crun\s+crun 1\.8\.1 only supports OCI runtime spec 1\.0\.x/);
    }
    all = await run(
      'all',
      `
name: crio-itest
targets:
  - cri: cri-o
    stack: ${CRIO_STACK}
    handlers: [${HANDLERS.join(', ')}]
benchmarks: [operations, performance, startup, scalability.runtime.5, limits, overhead, network]
runs: 2
warmup: 0
parameters:
  performance.cpu: { maxPrime: 20000, events: 150, modes: [events] }
  performance.memory: { totalSize: 256M }
  performance.disk: { totalSize: 16M, fileNum: 2, events: 300 }
  startup.latency: { count: 5 }
  scalability.runtime: { concurrency: 5 }
  limits.cpu.time: { maxPrime: 20000, events: 150 }
  limits.cpu.scaling: { maxPrime: 5000, events: 2000, rampSeconds: 1, steps: 3 }
  limits.memory.min: { upperBytes: 33554432, precisionBytes: 262144 }
  overhead.runtime: { observeSeconds: 0.5 }
  network.throughput: { bytes: 16777216 }
`,
    );
  }, 1_200_000);

  afterAll(async () => {
    for (const name of [CRIO_STACK, CTD_STACK]) {
      const down = await runCli(['stack', 'down', '--stack', name]);
      expect(down.code, down.stderr).toBe(0);
      expect(processesUnder(stateDir(name))).toEqual([]);
      expect(mountsUnder(stateDir(name))).toEqual([]);
    }
  }, 300_000);

  test('every family has numbers on every handler; the result names CRI-O and its version; no pod left', async () => {
    for (const r of all.results)
      expect(`${r.benchmark} ${r.target} ${r.status} ${r.reason ?? ''}`).toMatch(/ ok $/);
    expect(new Set(all.benchmarks.map((b) => b.name.split('.')[0]))).toEqual(
      new Set(['operations', 'performance', 'startup', 'scalability', 'limits', 'overhead', 'network']),
    );
    expect(all.targets.map((t) => t.id)).toEqual(HANDLERS.map((h) => `cri-o/${h}`));
    for (const t of all.targets) {
      expect(t.cri.name).toBe('cri-o');
      expect(t.cri.version).toBe(crioVersion());
    }
    expect(all.components).toContainEqual(
      expect.objectContaining({ name: 'cri-o', role: 'cri', version: crioVersion() }),
    );
    if (!hasSysResource()) {
      expect(all.host.hostFixes).toContainEqual(
        expect.objectContaining({ id: 'pod-pid-namespace-container', applied: true }),
      );
    }
    expect(await podsLeft(CRIO_STACK, 'crio.sock')).toEqual([]);
  });

  test('plausible numbers: lifecycle ordered, sysbench rates, quota throttles, startup ordered', () => {
    for (const h of HANDLERS) {
      const t = `cri-o/${h}`;
      const life = resultOf(all, 'operations.container.lifecycle', t);
      expect(median(life, 'StartContainer')).toBeGreaterThan(0);
      expect(median(life, 'create-and-run')).toBeGreaterThan(median(life, 'StartContainer'));
      // 150 events of prime 20000: ~0.1 s on this kind of host; allow for a busy machine
      const cpuTime = median(resultOf(all, 'performance.cpu', t), 'total_time');
      expect(cpuTime).toBeGreaterThan(0.005);
      expect(cpuTime).toBeLessThan(60);
      // Rates and times only as numbers sysbench reported: no ratio of wall times, which a loaded
      // runner (CI runs beside CPU hogs) stretches unevenly.
      const mem = resultOf(all, 'performance.memory', t);
      expect(median(mem, 'mib_per_second')).toBeGreaterThan(0);
      expect(median(mem, 'total_time')).toBeGreaterThan(0);
      const disk = resultOf(all, 'performance.disk', t);
      for (const mode of ['seqrd', 'rndrd', 'seqwr', 'rndwr'])
        expect(median(disk, `${mode}_mib_per_second`)).toBeGreaterThan(1);
      // The quota throttled: the kernel's own counters of the container's cgroup, not a wall time.
      const limited = resultOf(all, 'limits.cpu.time', t);
      expect(median(limited, 'throttled_periods')).toBeGreaterThan(0);
      expect(median(limited, 'throttled_time')).toBeGreaterThan(0);
      const s = resultOf(all, 'startup.latency', t);
      expect(median(s, 'errors')).toBe(0);
      expect(median(s, 'latency_min')).toBeLessThanOrEqual(median(s, 'latency_max'));
      const f = resultOf(all, 'startup.first-output', t);
      expect(median(f, 'small_pod_to_output')).toBeGreaterThan(median(f, 'small_to_output'));
      const mm = resultOf(all, 'limits.memory.min', t);
      expect(median(mm, 'bytes')).toBeGreaterThan(median(mm, 'failed_bytes'));
      const net = resultOf(all, 'network.throughput', t);
      expect(median(net, 'host_to_pod')).toBeGreaterThan(1);
      expect(median(net, 'pod_to_host')).toBeGreaterThan(1);
    }
  });

  test("overhead.runtime attributes each pod's conmon (and the runtime it reaps) by PID tree", () => {
    for (const h of HANDLERS) {
      const r = resultOf(all, 'overhead.runtime', `cri-o/${h}`);
      // one conmon per container; the container's own processes (new PID namespace) are left out
      expect(median(r, 'processes')).toBe(1);
      expect(median(r, 'peak_rss')).toBeGreaterThan(1 << 20);
      // kernel counters of conmon: it switched and wrote (pid file, sync pipe) while the container
      // started; its CPU time is often below the 10 ms tick /proc/<pid>/stat counts in
      expect(median(r, 'ctx_switches_total')).toBeGreaterThan(0);
      expect(median(r, 'write_ops_start')).toBeGreaterThan(0);
    }
  });

  test('one interleaved run compares a containerd stack and the CRI-O stack', async () => {
    const up = await runCli(['stack', 'up', '--stack', CTD_STACK, '--fix-host']);
    expect(up.code, up.stderr).toBe(0);
    const r = await run(
      'interleaved',
      `
name: crio-vs-containerd
targets:
  - { name: containerd, cri: containerd, stack: ${CTD_STACK}, handlers: [runc] }
  - { name: cri-o, cri: cri-o, stack: ${CRIO_STACK}, handlers: [runc] }
  - { name: cri-o-crictl, cri: cri-o, stack: ${CRIO_STACK}, handlers: [runc], transport: crictl, crictl: ${CRICTL} }
benchmarks: [operations.container.lifecycle, performance.cpu]
runs: 3
warmup: 0
parameters:
  performance.cpu: { maxPrime: 20000, events: 150, modes: [events] }
`,
    );
    expect(r.status).toBe('complete');
    expect(r.targets.map((t) => [t.id, t.cri.name, t.transport])).toEqual([
      ['containerd/runc', 'containerd', 'grpc'],
      ['cri-o/runc', 'cri-o', 'grpc'],
      ['cri-o-crictl/runc', 'cri-o', 'crictl'],
    ]);
    for (const t of ['containerd/runc', 'cri-o/runc', 'cri-o-crictl/runc']) {
      expect(resultOf(r, 'operations.container.lifecycle', t).status).toBe('ok');
      expect(resultOf(r, 'operations.container.lifecycle', t).metrics[0]!.samples).toHaveLength(3);
      expect(median(resultOf(r, 'performance.cpu', t), 'total_time')).toBeGreaterThan(0.005);
    }
    expect(await podsLeft(CTD_STACK, 'containerd.sock')).toEqual([]);
    expect(await podsLeft(CRIO_STACK, 'crio.sock')).toEqual([]);
  });

  test.skipIf(kubeSkip !== null)(
    'a Kubernetes cluster on the CRI-O stack: pods per RuntimeClass under its handlers, nothing left after',
    async () => {
      const cluster = `${CRIO_STACK}-k`;
      const sysctls = readSysctls();
      const up = await runCli([
        'cluster',
        'up',
        '--cluster',
        cluster,
        '--stack',
        CRIO_STACK,
        '--bin-dir',
        KUBERNETES_BIN,
      ]);
      expect(up.code, up.stderr).toBe(0);
      const kubeconfig = up.stdout.trim();
      // Which OCI runtime each kubelet-made container runs under, from the process table: CRI-O
      // lists the kubelet's sandboxes with an empty runtime handler, but each container's conmon
      // names its pod (-n k8s_<container>_<pod>_…) and the runtime binary (-r), which crio.conf
      // maps to a handler.
      const conf = readFileSync(join(stateDir(CRIO_STACK), 'crio.conf'), 'utf8');
      const handlerOfPath = new Map(
        [...conf.matchAll(/\[crio\.runtime\.runtimes\."?([^"\]]+)"?\][^[]*?runtime_path = "([^"]+)"/g)].map(
          (m) => [m[2]!, m[1]!],
        ),
      );
      const seen = new Map<string, string>();
      let polling = true;
      const poll = (async () => {
        while (polling) {
          for (const line of execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).split('\n')) {
            if (!line.includes('conmon') || !line.includes(stateDir(CRIO_STACK))) continue;
            const pod = / -n k8s_[^_]+_([^_]+)_/.exec(line)?.[1];
            const runtime = / -r (\S+)/.exec(line)?.[1];
            if (pod && runtime) seen.set(pod, handlerOfPath.get(runtime) ?? runtime);
          }
          await new Promise((r) => setTimeout(r, 150));
        }
      })();
      try {
        const classes = HANDLERS.map((h) => ({ name: `rb-${h}`, handler: h }));
        const result = await run(
          'kube-crio',
          `targets:
  - kind: kubernetes
    kubeconfig: ${kubeconfig}
    runtimeClasses: [${classes.map((c) => `{ name: ${c.name}, handler: ${c.handler} }`).join(', ')}]
    imagePullPolicy: Never
    podTimeoutSeconds: 90
benchmarks: [kubernetes.pod-startup]
runs: 2
warmup: 0
`,
        );
        polling = false;
        await poll;
        expect(result.status).toBe('complete');
        // The node reports CRI-O, and the result says so.
        for (const t of result.targets) expect([t.cri.name, t.cri.version]).toEqual(['cri-o', crioVersion()]);
        for (const { name, handler } of classes) {
          const r = resultOf(result, 'kubernetes.pod-startup', `kubernetes/${name}`);
          expect(r.status, JSON.stringify(r)).toBe('ok');
          expect(median(r, 'ready')).toBeGreaterThanOrEqual(median(r, 'scheduled'));
          const pods = [...seen].filter(([pod]) => pod.startsWith('start-') && pod.endsWith(`-${name}`));
          expect(pods.length, JSON.stringify([...seen])).toBe(2);
          for (const [, h] of pods) expect(h).toBe(handler);
        }
      } finally {
        polling = false;
        await poll;
        const down = await runCli(['cluster', 'down', '--cluster', cluster]);
        expect(down.code, down.stderr).toBe(0);
      }
      // The cluster is gone and the stack is as the kubelet found it: no pod of the kubelet on
      // CRI-O, no cluster process, the sysctls back.
      expect(processesUnder(`/var/lib/runtime-bench/clusters/${cluster}`)).toEqual([]);
      expect(existsSync(`/var/lib/runtime-bench/clusters/${cluster}`)).toBe(false);
      expect(readSysctls()).toEqual(sysctls);
      expect(await podsLeft(CRIO_STACK, 'crio.sock')).toEqual([]);
    },
    600_000,
  );

  test('a config target asking for containerd on the CRI-O stack is refused, naming the field', async () => {
    const r = await runCli([
      'run',
      '--config',
      writeConfig(
        'mismatch',
        `targets: [{ stack: ${CRIO_STACK}, handlers: [runc] }]\nbenchmarks: [performance.cpu]\n`,
      ),
      '--out',
      join(work, 'mismatch.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`targets[0].cri: the local stack "${CRIO_STACK}" runs cri-o, not containerd`);
    expect(existsSync(join(work, 'mismatch.json'))).toBe(false);
  });

  test('kill -9 of crio in the middle of a run: `stack down` leaves no process, mount, netns, bridge or cgroup', async () => {
    const dir = stateDir(CRIO_STACK);
    const state = JSON.parse(readFileSync(join(dir, 'stack.json'), 'utf8')) as {
      pid: number;
      network: { bridge: string };
    };
    const running = runCli([
      'run',
      '--config',
      writeConfig(
        'killed',
        `targets: [{ cri: cri-o, stack: ${CRIO_STACK}, handlers: [runc] }]
benchmarks: [performance.cpu]
runs: 20
warmup: 0
parameters:
  performance.cpu: { maxPrime: 20000, events: 20000, modes: [events] }
`,
      ),
      '--out',
      join(work, 'killed.json'),
    ]);
    // Once a conmon serves a container, sysbench runs inside it: kill crio then.
    const deadline = Date.now() + 120_000;
    while (!processesUnder(dir).some((l) => l.includes('conmon')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesUnder(dir).some((l) => l.includes('conmon'))).toBe(true);
    process.kill(state.pid, 'SIGKILL');
    // The run notices the dead daemon (issue 15): it stops, keeps what it measured, says why.
    const r = await running;
    expect(r.code, r.stderr).toBe(EXIT_ENDPOINT_DEAD);
    const killed = RunResultSchema.parse(JSON.parse(readFileSync(join(work, 'killed.json'), 'utf8')));
    expect(killed.status).toBe('incomplete');
    // Whichever notices first: the daemon's pid gone, or three unreachable calls in a row.
    expect(killed.incompleteReason).toMatch(/^CRI endpoint died: /);
    // What crio leaves when killed: the conmon, the container's processes, mounts, its cgroups.
    const ids = readdirSync(join(dir, 'oci', 'runc'));
    const down = await runCli(['stack', 'down', '--stack', CRIO_STACK]);
    expect(down.code, down.stderr).toBe(0);
    expect(processesUnder(dir)).toEqual([]);
    expect(mountsUnder(dir)).toEqual([]);
    expect(readdirSync(join(dir, 'oci', 'runc'))).toEqual([]);
    const cgroupLeft = execFileSync(
      'find',
      ['/sys/fs/cgroup', '-maxdepth', '4', '-type', 'd', '-name', 'crio-*'],
      {
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((p) => ids.some((id) => p.includes(id)));
    expect(cgroupLeft).toEqual([]);
    expect(
      readdirSync('/var/lib/cni/results').filter((e) => e.startsWith(`runtime-bench-${CRIO_STACK}-`)),
    ).toEqual([]);
    expect(() => execFileSync('ip', ['link', 'show', state.network.bridge], { stdio: 'ignore' })).toThrow();
  }, 300_000);
});
