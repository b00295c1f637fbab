// The cluster mode end to end on a real Kubernetes: `cluster up` (etcd, apiserver, scheduler,
// controller-manager, kubelet built by scripts/build-kubernetes.sh) on a private containerd stack,
// `run` of a kubernetes target with two RuntimeClasses (runc, crun), and `cluster down`, after
// which the host must hold nothing of it; between them the pod-level suites and the action's
// cluster mode under act. Budget: stack up (≈ 1–5 min, the images), cluster up (≈ 15–60 s), pod
// startup (2 classes × 4 pods, ≈ 35 s), scalability and sysbench pods (≈ 60 s), act (≈ 50–75 s),
// SIGINT and SIGTERM, each beside a CRI-level run stopped alike (≈ 4 × 15 s), teardown (≈ 15 s).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CoreV1Api, KubeConfig, NodeV1Api } from '@kubernetes/client-node';
import { RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';
import { checkClusterModeUnderAct, clusterModeUnavailable } from '../../../action/test/act/cluster-mode.ts';
import { runCli } from '../support/cli.ts';
import { mountsUnder, realStackUnavailable, testStackName } from '../support/host.ts';
import {
  KUBERNETES_BIN,
  kubernetesUnavailable,
  readSysctls,
  sandboxHandlers,
} from '../support/kubernetes.ts';

const STACK = testStackName('kube');
const CLUSTER = STACK;
const STACK_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const CLUSTER_DIR = `/var/lib/runtime-bench/clusters/${CLUSTER}`;
const CGROUP = `/sys/fs/cgroup/runtime-bench-cluster-${CLUSTER}`;
const BIN = KUBERNETES_BIN;

function unavailable(): string | null {
  return realStackUnavailable() ?? kubernetesUnavailable();
}
const skip = unavailable();
if (skip) console.warn(`SKIPPED kubernetes integration tests: ${skip}`);
// The action's cluster mode runs under act on this file's cluster (CI brings up only this one).
const actSkip = skip ?? (await clusterModeUnavailable());
if (actSkip && !skip) console.warn(`SKIPPED the action's cluster mode under act: ${actSkip}`);

const work = mkdtempSync(join(tmpdir(), 'rb-kube-'));
const fixedPaths = ['/var/lib/kubelet', '/var/log/pods'];

/** Processes (any program) whose command line names the cluster's state dir. */
function clusterProcesses(): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(CLUSTER_DIR) && !l.includes('vitest') && !/\bps -eo\b/.test(l));
}

/** Nothing of a run is left in the cluster: no namespace of ours, no RuntimeClass. */
async function expectNothingLeft(kubeconfig: string): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
  expect(
    namespaces.items.map((n) => n.metadata!.name).filter((n) => n!.startsWith('runtime-bench-')),
  ).toEqual([]);
  const classes = await kc.makeApiClient(NodeV1Api).listRuntimeClass();
  expect(classes.items.map((c) => c.metadata!.name)).toEqual([]);
}

describe.skipIf(skip !== null)('a local Kubernetes on a containerd stack', () => {
  const before = { sysctls: {} as Record<string, string>, paths: {} as Record<string, boolean> };
  let kubeconfig = '';

  beforeAll(async () => {
    before.sysctls = readSysctls();
    for (const p of fixedPaths) before.paths[p] = existsSync(p);
    const up = await runCli(['stack', 'up', '--stack', STACK, '--fix-host']);
    expect(up.code, up.stderr).toBe(0);
    const cluster = await runCli(['cluster', 'up', '--cluster', CLUSTER, '--stack', STACK, '--bin-dir', BIN]);
    expect(cluster.code, cluster.stderr).toBe(0);
    kubeconfig = cluster.stdout.trim();
    expect(existsSync(kubeconfig)).toBe(true);
  }, 900_000);

  afterAll(async () => {
    // A safety net when a test failed half-way; both are no-ops when already down.
    await runCli(['cluster', 'down', '--cluster', CLUSTER]);
    await runCli(['stack', 'down', '--stack', STACK]);
  }, 300_000);

  test('pod startup per RuntimeClass: pods ran under the named handler, numbers ordered, nothing left', async () => {
    const config = join(work, 'kube.yaml');
    writeFileSync(
      config,
      `name: kube-itest
targets:
  - kind: kubernetes
    kubeconfig: ${kubeconfig}
    runtimeClasses: [{ name: rb-runc, handler: runc }, { name: rb-crun, handler: crun }]
    image: localhost/runtime-bench/bench:latest
    imagePullPolicy: Never
    podTimeoutSeconds: 90
benchmarks: [kubernetes.pod-startup]
runs: 3
warmup: 1
`,
    );
    const handlers = sandboxHandlers(join(STACK_DIR, 'containerd.sock'));
    const out = join(work, 'kube.json');
    const run = await runCli(['run', '--config', config, '--out', out]);
    const seen = await handlers.stop();
    expect(run.code, run.stderr).toBe(0);

    const result: RunResult = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    expect(result.targets.map((t) => [t.id, t.handler, t.transport, t.kubernetes?.runtimeClass])).toEqual([
      ['kubernetes/rb-runc', 'runc', 'kubernetes', 'rb-runc'],
      ['kubernetes/rb-crun', 'crun', 'kubernetes', 'rb-crun'],
    ]);
    // The node is this host: its fingerprint, from Node status and the probe pod, says so.
    expect(result.host.hostname).toBe('localhost');
    expect(result.host.kernel).toBe(release());
    expect(result.host.cpus).toBe(availableParallelism());
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
    if (model) expect(result.host.cpuModel).toBe(model);

    // Every measured and warm-up pod ran under its class's handler, as the CRI tells.
    const byClass = { 'rb-runc': 'runc', 'rb-crun': 'crun' } as const;
    for (const [rc, handler] of Object.entries(byClass)) {
      const pods = [...seen].filter(([name]) => name.startsWith('start-') && name.endsWith(`-${rc}`));
      expect(pods.length, JSON.stringify([...seen])).toBe(4);
      for (const [, h] of pods) expect(h).toBe(handler);
    }

    for (const r of result.results) {
      expect(r.status, JSON.stringify(r)).toBe('ok');
      const metric = (name: string): number[] => r.metrics.find((m) => m.name === name)!.samples;
      const [scheduled, started, ready, criMs] = ['scheduled', 'started', 'ready', 'cri'].map(metric) as [
        number[],
        number[],
        number[],
        number[],
      ];
      expect(ready).toHaveLength(3);
      for (let i = 0; i < 3; i++) {
        expect(scheduled[i]!).toBeGreaterThan(0);
        expect(scheduled[i]!).toBeLessThanOrEqual(started[i]!);
        expect(started[i]!).toBeLessThanOrEqual(ready[i]!);
      }
      // The kubelet's own CRI time: present, and part of the node-side interval.
      expect(criMs).toHaveLength(3);
      for (const v of criMs) expect(v).toBeGreaterThan(0);
    }

    await expectNothingLeft(kubeconfig);
  });

  test('scalability and sysbench as pods: the CRI-level metrics, under the named handler, consistent', async () => {
    const config = join(work, 'kube-suites.yaml');
    writeFileSync(
      config,
      `targets:
  - kind: kubernetes
    kubeconfig: ${kubeconfig}
    runtimeClasses: [{ name: rb-runc, handler: runc }, { name: rb-crun, handler: crun }]
    imagePullPolicy: Never
    podTimeoutSeconds: 90
benchmarks: [kubernetes.scalability.5, kubernetes.performance]
runs: 1
warmup: 0
parameters:
  scalability.runtime: { concurrency: 5 }
  performance.cpu: { maxPrime: 10000, timeSeconds: 1, events: 500 }
  performance.memory: { totalSize: 256M }
`,
    );
    const handlers = sandboxHandlers(join(STACK_DIR, 'containerd.sock'));
    const out = join(work, 'kube-suites.json');
    const run = await runCli(['run', '--config', config, '--out', out]);
    const seen = await handlers.stop();
    expect(run.code, run.stderr).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    const byClass = { 'rb-runc': 'runc', 'rb-crun': 'crun' } as const;
    // 5 serial + 5 parallel scalability pods, and the sysbench pods (cpu: two modes; memory), per
    // class, each under its class's handler as the CRI tells.
    for (const [rc, handler] of Object.entries(byClass))
      for (const [prefix, count] of [
        ['scale5-', 10],
        ['cpu-time-', 1],
        ['cpu-events-', 1],
        ['memory-', 1],
      ] as const) {
        const pods = [...seen].filter(([name]) => name.startsWith(prefix) && name.endsWith(`-${rc}`));
        expect(pods.length, `${prefix} ${rc}: ${JSON.stringify([...seen])}`).toBe(count);
        for (const [, h] of pods) expect(h).toBe(handler);
      }
    const value = (benchmark: string, target: string, metric: string): number => {
      const r = result.results.find((x) => x.benchmark === benchmark && x.target === target)!;
      expect(r.status, JSON.stringify(r)).toBe('ok');
      const samples = r.metrics.find((m) => m.name === metric)!.samples;
      expect(samples, `${benchmark} ${target} ${metric}`).toHaveLength(1);
      return samples[0]!;
    };
    for (const rc of Object.keys(byClass)) {
      const target = `kubernetes/${rc}`;
      for (const mode of ['serial', 'parallel']) {
        const m = (name: string) => value('kubernetes.scalability.5', target, `${mode}_${name}`);
        // Order statistics of the five start latencies, and the batch's span contains the slowest.
        expect(m('start_latency_median')).toBeGreaterThan(0);
        expect(m('start_latency_median')).toBeLessThanOrEqual(m('start_latency_p90'));
        expect(m('start_latency_p90')).toBeLessThanOrEqual(m('start_latency_max'));
        expect(m('start_all') * 1000).toBeGreaterThanOrEqual(m('start_latency_max'));
        expect(m('destroy_all')).toBeGreaterThan(0);
        // One after the other, the span holds all five latencies, three of them ≥ the median.
        if (mode === 'serial')
          expect(m('start_all') * 1000).toBeGreaterThanOrEqual(3 * m('start_latency_median'));
      }
      // sysbench's own accounting: one thread runs events back to back, so the mean event
      // latency × events/s is the busy share of each second, at most 1 (2 % for the rounding of
      // the printed latency) and far above 0; block latencies are ordered.
      const eps = value('kubernetes.performance.cpu', target, 'events_per_second');
      const busy = (eps * value('kubernetes.performance.cpu', target, 'latency_avg')) / 1000;
      expect(busy).toBeLessThanOrEqual(1.02);
      expect(busy).toBeGreaterThan(0.5);
      expect(value('kubernetes.performance.cpu', target, 'total_time')).toBeGreaterThan(0);
      const mem = (name: string) => value('kubernetes.performance.memory', target, name);
      expect(mem('mib_per_second')).toBeGreaterThan(0);
      expect(mem('total_time')).toBeGreaterThan(0);
      expect(mem('latency_avg')).toBeGreaterThan(0);
      expect(mem('latency_avg')).toBeLessThanOrEqual(mem('latency_max'));
    }
    await expectNothingLeft(kubeconfig);
    // The definitions travel with the result: the pod-level metrics are the CRI-level ones.
    expect(result.benchmarks.map((b) => b.name)).toEqual([
      'kubernetes.scalability.5',
      'kubernetes.performance.cpu',
      'kubernetes.performance.memory',
    ]);
  });

  test.skipIf(actSkip !== null)(
    'the action in cluster mode under act (workflows/cluster-nightly.yml): results, RBAC, nothing left',
    async () => {
      await checkClusterModeUnderAct({ kubeconfig, stack: STACK });
    },
    600_000,
  );

  /**
   * Runs `config` and sends `signal` once the first measured repetition is through (progress
   * "run 1/50: ok"); returns the exit code, stderr and the partial result.
   */
  async function interrupted(
    name: string,
    config: string,
    signal: NodeJS.Signals,
  ): Promise<{ code: number | null; stderr: string; result: RunResult }> {
    const file = join(work, `${name}.yaml`);
    writeFileSync(file, config);
    const out = join(work, `${name}.json`);
    let sent = false;
    const run = await runCli(['run', '--config', file, '--out', out], {
      onStderr: (text, child) => {
        // After the first measured repetition: the run is mid-way, with objects of its own.
        if (!sent && /run 1\/50: ok/.test(text)) {
          sent = true;
          child.kill(signal);
        }
      },
    });
    expect(sent, run.stderr).toBe(true);
    return {
      code: run.code,
      stderr: run.stderr,
      result: RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8'))),
    };
  }

  const kubeConfigText = (classes: string): string => `targets:
  - kind: kubernetes
    kubeconfig: ${kubeconfig}
    runtimeClasses: [${classes}]
    imagePullPolicy: Never
benchmarks: [kubernetes]
runs: 50
warmup: 0
`;

  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during a cluster run: exit %i and the incomplete result a CRI run gives; namespace and RuntimeClasses deleted',
    async (signal, code) => {
      const cluster = await interrupted(
        `kube-${signal}`,
        kubeConfigText(`{ name: rb-int-runc, handler: runc }, { name: rb-int-crun, handler: crun }`),
        signal,
      );
      // The same signal at the same point of a CRI-level run on the stack under the cluster.
      const cri = await interrupted(
        `cri-${signal}`,
        `targets: [{ stack: ${STACK}, handlers: [runc, crun] }]
benchmarks: [operations.container.lifecycle]
runs: 50
warmup: 0
`,
        signal,
      );
      for (const { code: exit, stderr, result } of [cluster, cri]) {
        expect(exit, stderr).toBe(code);
        expect(stderr).toContain(`run interrupted by ${signal}; partial result written to`);
        expect(result.status).toBe('incomplete');
        expect(result.incompleteReason).toBe(`interrupted by ${signal}`);
      }
      // Both: every benchmark × target is interrupted, none with a failed attempt (the signal
      // is no runtime error), the first one with what it measured before the signal.
      for (const r of [cluster.result, cri.result]) {
        expect(r.results.map((x) => x.status)).toEqual(r.results.map(() => 'interrupted'));
        expect(r.results.map((x) => x.failedAttempts)).toEqual(r.results.map(() => 0));
        expect(r.results[0]!.attempts).toBeGreaterThanOrEqual(1);
      }
      const ready = cluster.result.results[0]!.metrics.find((m) => m.name === 'ready')!.samples;
      expect(ready.length).toBeGreaterThanOrEqual(1);
      await expectNothingLeft(kubeconfig);
    },
    300_000,
  );

  test('cluster down leaves nothing on the host and restores the sysctls', async () => {
    const down = await runCli(['cluster', 'down', '--cluster', CLUSTER]);
    expect(down.code, down.stderr).toBe(0);
    expect(clusterProcesses()).toEqual([]);
    expect(mountsUnder(CLUSTER_DIR)).toEqual([]);
    expect(existsSync(CLUSTER_DIR)).toBe(false);
    expect(existsSync(CGROUP)).toBe(false);
    expect(readSysctls()).toEqual(before.sysctls);
    for (const p of fixedPaths) expect(existsSync(p), p).toBe(before.paths[p]);
    if (existsSync('/var/log/containers'))
      expect(readdirSync('/var/log/containers').filter((f) => f.includes('runtime-bench-'))).toEqual([]);
    // The kubelet's sandboxes are gone from the stack too.
    const cri = new GrpcCriClient(join(STACK_DIR, 'containerd.sock'), 10);
    try {
      expect((await cri.listPodSandbox()).filter((p) => p.labels['io.kubernetes.pod.uid'])).toEqual([]);
    } finally {
      cri.close();
    }
    const again = await runCli(['cluster', 'down', '--cluster', CLUSTER]);
    expect(again.code, again.stderr).toBe(0);
  });
});
