// Pure parts of the cluster mode: the kubernetes target's config, node views, pod phases, the
// local cluster's plan. Expectations are worked out by hand from the inputs written here.
import { describe, expect, test } from 'vitest';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ConfigSchema, criTargets } from '@runtime-bench/schemas';
import { parseConfig } from '../../../src/config/load.ts';
import { RbError } from '../../../src/errors.ts';
import { gatewayOf, planCluster } from '../../../src/cluster/plan.ts';
import {
  criMillisBetween,
  nodeCri,
  nodeHost,
  observePod,
  parseProbe,
  podStuck,
  quantityBytes,
  usableNodes,
  PROBE_SEPARATOR,
  type PodPhaseTimes,
} from '../../../src/kubernetes/nodes.ts';
import { podStartupValues } from '../../../src/kubernetes/pod-startup.ts';
import { selectKubernetesBenchmarks } from '../../../src/kubernetes/execute.ts';
import { outPathFor } from '../../../src/commands/run.ts';

describe('the kubernetes target in the config', () => {
  test('defaults, and CRI targets are unchanged beside it', () => {
    const config = ConfigSchema.parse({
      targets: [
        { kind: 'kubernetes', runtimeClasses: [{ name: 'runc' }, { name: 'rb-crun', handler: 'crun' }] },
      ],
    });
    expect(config.targets[0]).toEqual({
      kind: 'kubernetes',
      name: 'kubernetes',
      namespacePrefix: 'runtime-bench-',
      runtimeClasses: [{ name: 'runc' }, { name: 'rb-crun', handler: 'crun' }],
      nodes: 'all',
      image: 'localhost/runtime-bench/bench:latest',
      imagePullPolicy: 'IfNotPresent',
      podTimeoutSeconds: 120,
    });
    expect(criTargets(config.targets)).toEqual([]);
    const cri = ConfigSchema.parse({ targets: [{ stack: 'a' }] });
    expect(criTargets(cri.targets)).toEqual(cri.targets);
    expect(cri.targets[0]).not.toHaveProperty('kind');
  });

  test.each([
    ['runtimeClasses: [runc]', /runtimeClasses\[0\]/],
    ['runtimeClasses: [{ name: Bad_Name }]', /runtimeClasses\[0\]\.name.*Kubernetes name/s],
    ['runtimeClasses: [{ name: a }, { name: a }]', /runtimeClasses/],
    ['runtimeClasses: [{ name: a }]\n    nodes: { selector: "" }', /nodes/],
    ['runtimeClasses: []', /runtimeClasses/],
  ])('bad field %j is named', (body, message) => {
    const text = `targets:\n  - kind: kubernetes\n    ${body}\n`;
    expect(() => parseConfig(text, 'k.yaml')).toThrow(message);
  });

  test('an unknown kind names the field', () => {
    expect(() => parseConfig('targets:\n  - kind: k8s\n', 'k.yaml')).toThrow(/targets\[0\]\.kind/);
  });

  test('benchmark selection: only kubernetes.* runs on a kubernetes target, by prefix', () => {
    const names = (benchmarks: string[], skip: string[] = []) =>
      selectKubernetesBenchmarks({ benchmarks, skip }, 'x').map((b) => b.definition.name);
    expect(names(['kubernetes'])).toEqual([
      'kubernetes.pod-startup',
      'kubernetes.scalability.5',
      'kubernetes.scalability.10',
      'kubernetes.scalability.50',
      'kubernetes.performance.cpu',
      'kubernetes.performance.memory',
    ]);
    expect(names(['kubernetes.scalability'], ['kubernetes.scalability.50'])).toEqual([
      'kubernetes.scalability.5',
      'kubernetes.scalability.10',
    ]);
    expect(names(['kubernetes.performance'])).toEqual([
      'kubernetes.performance.cpu',
      'kubernetes.performance.memory',
    ]);
    expect(() => selectKubernetesBenchmarks({ benchmarks: ['operations'], skip: [] }, 'x')).toThrow(RbError);
  });

  test('one result file per node from --out', () => {
    expect(outPathFor('/tmp/r.json', 'n1', 1)).toBe('/tmp/r.json');
    expect(outPathFor('/tmp/r.json', 'n1', 2)).toBe('/tmp/r.n1.json');
    expect(outPathFor('/tmp/r', 'n1', 2)).toBe('/tmp/r.n1.json');
  });
});

const node = (over: Partial<V1Node> = {}): V1Node => ({
  metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } },
  spec: {},
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    capacity: { cpu: '8', memory: '16393460Ki' },
    nodeInfo: {
      kernelVersion: '6.1.0-30-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      architecture: 'amd64',
      containerRuntimeVersion: 'containerd://2.1.4',
      kubeletVersion: 'v1.34.4',
      bootID: '',
      machineID: '',
      systemUUID: '',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
    },
  },
  ...over,
});

describe('nodes', () => {
  test('only Ready, schedulable nodes are used', () => {
    const cordoned = node({ spec: { unschedulable: true } });
    const notReady = node({ status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    expect(usableNodes([node(), cordoned, notReady])).toHaveLength(1);
  });

  test('CRI identity and memory quantities', () => {
    expect(nodeCri(node())).toEqual({ name: 'containerd', version: '2.1.4' });
    expect(quantityBytes('16393460Ki')).toBe(16393460 * 1024);
    expect(quantityBytes('2Gi')).toBe(2 * 1024 ** 3);
    expect(quantityBytes('1000')).toBe(1000);
  });

  test('a node as a host, with and without the probe pod', () => {
    const log = [
      'processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu hypervisor\n',
      `${PROBE_SEPARATOR}\n`,
      'cpu memory pids\n',
      `${PROBE_SEPARATOR}\n`,
      'Name:\tcat\nCapEff:\t00000000a80425fb\n',
    ].join('');
    const host = nodeHost(node(), parseProbe(log));
    expect(host).toMatchObject({
      hostname: 'node-a',
      kernel: '6.1.0-30-amd64',
      cpus: 8,
      memoryBytes: 16393460 * 1024,
      cpuModel: 'AMD EPYC 7B13',
      virtualization: 'hypervisor',
      cgroup: { mode: 'v2', v2Controllers: ['cpu', 'memory', 'pids'] },
      // 0xa80425fb: bit 21 (SYS_ADMIN) clear, bit 24 (SYS_RESOURCE) clear.
      capabilities: { effective: 'a80425fb', sysAdmin: false, sysResource: false },
    });
    expect(nodeHost(node(), null).cpuModel).toBe('unknown');
  });
});

describe('pod phases', () => {
  const pod = (nodeName?: string, running = false, ready = false): V1Pod => ({
    spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
    status: {
      containerStatuses: running
        ? [{ name: 'c', image: 'i', imageID: '', ready, restartCount: 0, state: { running: {} } }]
        : [],
      conditions: ready ? [{ type: 'Ready', status: 'True' }] : [],
    },
  });

  test('first observation of each phase, later phases imply earlier ones', () => {
    const t: PodPhaseTimes = { created: 100 };
    expect(observePod(t, pod(), 110)).toBe(false);
    expect(observePod(t, pod('n'), 120)).toBe(false);
    expect(observePod(t, pod('n', true), 900)).toBe(false);
    expect(observePod(t, pod('n', true, true), 1000)).toBe(true);
    expect(observePod(t, pod('n', true, true), 2000)).toBe(true);
    expect(t).toEqual({ created: 100, scheduled: 120, started: 900, ready: 1000 });
    const skipped: PodPhaseTimes = { created: 0 };
    observePod(skipped, pod('n', true, true), 50);
    expect(skipped).toEqual({ created: 0, scheduled: 50, started: 50, ready: 50 });
  });

  test('a pod that cannot start says why', () => {
    const p = pod('n');
    p.status!.containerStatuses = [
      {
        name: 'c',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'ErrImageNeverPull', message: 'no image' } },
      },
    ];
    expect(podStuck(p)).toBe('ErrImageNeverPull: no image');
    expect(podStuck(pod('n'))).toBeNull();
  });

  test('values: phases from creation, the kubelet share is started − scheduled − CRI', () => {
    const times = { created: 1000, scheduled: 1010, started: 1900, ready: 2000 };
    expect(podStartupValues(times, 300)).toEqual({
      values: { scheduled: 10, started: 900, ready: 1000, cri: 300, 'kubelet-share': 590 },
      errors: {},
    });
    expect(podStartupValues(times, null).errors).toHaveProperty('cri');
    expect(podStartupValues(times, 2000).errors).toHaveProperty('kubelet-share');
  });

  test('CRI milliseconds between two scrapes: only the pod-start operations count', () => {
    const before = new Map([
      ['run_podsandbox', 1.0],
      ['create_container', 0.5],
      ['start_container', 0.25],
      ['list_containers', 3],
    ]);
    const after = new Map([
      ['run_podsandbox', 1.1],
      ['create_container', 0.55],
      ['start_container', 0.3],
      ['list_containers', 9],
    ]);
    expect(criMillisBetween(before, after)).toBeCloseTo(100 + 50 + 50, 6);
    expect(criMillisBetween(new Map(), new Map([['list_containers', 1]]))).toBeNull();
  });
});

describe('the local cluster plan', () => {
  const plan = planCluster({
    name: 'kc',
    stateDir: '/var/lib/runtime-bench/clusters/kc',
    binDir: '/opt/k/bin',
    criSocket: '/var/lib/runtime-bench/stacks/kc/containerd.sock',
    nodeIp: '10.233.40.1',
    ports: {
      etcdClient: 1,
      etcdPeer: 2,
      apiserver: 3,
      scheduler: 4,
      controllerManager: 5,
      kubelet: 6,
      kubeletHealthz: 7,
    },
  });

  test('the gateway of the stack subnet is the node IP', () => {
    expect(gatewayOf('10.233.40.0/24')).toBe('10.233.40.1');
    expect(gatewayOf('192.168.8.128/25')).toBe('192.168.8.129');
  });

  test('every listener binds 127.0.0.1 and every path the kubelet takes is below the state dir', () => {
    const args = plan.components.flatMap((c) => c.args);
    for (const a of args.filter((a) => /^--(bind-address|advertise-address)=/.test(a)))
      expect(a).toMatch(/=127\.0\.0\.1$/);
    for (const a of args.filter((a) => /urls=/.test(a) && !a.endsWith('=')))
      expect(a).toMatch(/=http:\/\/127\.0\.0\.1:\d+$/);
    expect(plan.kubeletConfig).toMatch(/^address: 127\.0\.0\.1$/m);
    expect(plan.kubeletConfig).toMatch(/^healthzBindAddress: 127\.0\.0\.1$/m);
    expect(plan.kubeletConfig).toMatch(/^readOnlyPort: 0$/m);
    expect(plan.kubeletConfig).toMatch(/^makeIPTablesUtilChains: false$/m);
    for (const key of ['podLogsDir', 'volumePluginDir'])
      expect(plan.kubeletConfig).toMatch(new RegExp(`^${key}: /var/lib/runtime-bench/clusters/kc/`, 'm'));
    const kubelet = plan.components.find((c) => c.name === 'kubelet')!;
    expect(kubelet.args).toContain('--root-dir=/var/lib/runtime-bench/clusters/kc/kubelet');
    expect(kubelet.args).toContain('--node-ip=10.233.40.1');
    expect(plan.kubeletConfig).toMatch(
      /containerRuntimeEndpoint: unix:\/\/\/var\/lib\/runtime-bench\/stacks\/kc\/containerd.sock/,
    );
    expect(plan.components.find((c) => c.name === 'kube-apiserver')!.args).toContain(
      '--kubelet-preferred-address-types=Hostname',
    );
  });
});
