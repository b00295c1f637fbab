// `cluster up` / `cluster down` sequenced over a recording ClusterHost (manager.ts): which effects
// happen in which order, what a failed start takes down again, what `down` stops, restores and
// removes. The expectations follow the rules of plan.ts and lifecycle.ts (files and the node's
// address before any component, etcd first and the kubelet last, the kubelet stopped first, created
// paths deepest first), written out by hand. The real host is driven by the integration tests.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { clusterDown, clusterUp, type ClusterUpOptions } from '../../../src/cluster/manager.ts';
import { STACK_BRIDGE, STACK_SOCKET, recordingHost, type World } from './recording-host.ts';

const ROOT = '/r';
const DIR = '/r/c';
const BIN = '/k/bin';
const KUBECONFIG = `${DIR}/admin.kubeconfig`;
const CPUSET = '/sys/fs/cgroup/cpuset';
const MEMORY = '/sys/fs/cgroup/memory';
const CPUSET_CG = `${CPUSET}/runtime-bench-cluster-c`;
const MEMORY_CG = `${MEMORY}/runtime-bench-cluster-c`;
const BINARIES = ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'kubelet'];
/** The start order: etcd before the apiserver, its clients after it, the kubelet last. */
const START_ORDER = ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'kubelet'];
/** The host's sysctls before `up`, and the ones a kubelet changes (setupKernelTunables). */
const SYSCTLS_BEFORE: [string, string][] = [
  ['vm.overcommit_memory', '0'],
  ['vm.panic_on_oom', '0'],
  ['kernel.panic', '0'],
  ['kernel.panic_on_oops', '0'],
  ['kernel.keys.root_maxkeys', '1000000'],
  ['kernel.keys.root_maxbytes', '25000000'],
];
const KUBELET_CHANGES: [string, string][] = [
  ['vm.overcommit_memory', '1'],
  ['kernel.panic', '10'],
  ['kernel.panic_on_oops', '1'],
];
/** The kubelet's fixed host paths, none there before `up` on a fresh host. */
const KUBELET_PATHS = [
  '/var/lib/kubelet',
  '/var/log/containers',
  '/var/log/pods',
  '/var/lib/kubelet/device-plugins',
];

/** A fresh host: binaries built, the stack up without its bridge, v1 cpuset and memory hierarchies. */
function freshWorld(over: Partial<World> = {}): World {
  return {
    paths: new Set(BINARIES.map((b) => join(BIN, b))),
    sysctls: new Map(SYSCTLS_BEFORE),
    cgroupMounts: [CPUSET, MEMORY],
    files: new Map([
      [`${CPUSET}/cpuset.cpus`, '0-1\n'],
      [`${CPUSET}/cpuset.mems`, '0\n'],
      // What the kernel gives a new v1 cpuset cgroup: empty CPUs and memory nodes.
      [`${CPUSET_CG}/cpuset.cpus`, ''],
      [`${CPUSET_CG}/cpuset.mems`, ''],
    ]),
    ...over,
  };
}

const lines: string[] = [];
const upOpts: ClusterUpOptions = {
  name: 'c',
  stack: 's',
  binDir: BIN,
  root: ROOT,
  log: (l) => lines.push(l),
};
const downOpts = { name: 'c', root: ROOT, log: (l: string) => lines.push(l) };
const q = JSON.stringify;

describe('clusterUp over a recording host', () => {
  test('a fresh host: state, files, bridge and address, sysctls and cgroups recorded, then the components', async () => {
    const { host, calls, files, addresses } = recordingHost(freshWorld());
    const state = await clusterUp(upOpts, host);
    const started: string[] = [];
    const componentCalls = START_ORDER.flatMap((name) => {
      started.push(name);
      return [
        `spawnComponent ${q(name)} ${q(KUBECONFIG)}`,
        `writeState ${q(started)} ${q(STACK_BRIDGE)} 6 ${q(KUBELET_PATHS)}`,
        // The apiserver must answer before its clients start.
        ...(name === 'kube-apiserver' ? ['listNamespaces'] : []),
      ];
    });
    expect(calls).toEqual([
      'readStack "s"',
      'stackAnswers',
      `readState ${q(DIR)}`,
      `ensureDir ${q(`${DIR}/logs`)}`,
      'writeState [] null 0 []',
      `makePki ${q(`${DIR}/pki`)}`,
      `writeFile ${q(KUBECONFIG)} "600"`,
      `writeFile ${q(`${DIR}/kubelet-config.yaml`)}`,
      `linkExists ${q(STACK_BRIDGE)}`,
      `addBridge ${q(STACK_BRIDGE)}`,
      // Recorded at once: the bridge is the one thing `up` creates outside its state dir.
      `writeState [] ${q(STACK_BRIDGE)} 0 []`,
      `ipv4Addresses ${q(STACK_BRIDGE)}`,
      `addAddress ${q(STACK_BRIDGE)} "10.233.7.1/24"`,
      `setLinkUp ${q(STACK_BRIDGE)}`,
      ...SYSCTLS_BEFORE.map(([key]) => `readSysctl ${q(key)}`),
      'cgroupMounts',
      `ensureDir ${q(CPUSET_CG)}`,
      `readFileIfExists ${q(`${CPUSET_CG}/cpuset.cpus`)}`,
      `readFile ${q(`${CPUSET}/cpuset.cpus`)}`,
      `writeFile ${q(`${CPUSET_CG}/cpuset.cpus`)}`,
      `readFileIfExists ${q(`${CPUSET_CG}/cpuset.mems`)}`,
      `readFile ${q(`${CPUSET}/cpuset.mems`)}`,
      `writeFile ${q(`${CPUSET_CG}/cpuset.mems`)}`,
      `ensureDir ${q(MEMORY_CG)}`,
      `readFileIfExists ${q(`${MEMORY_CG}/cpuset.cpus`)}`,
      `readFileIfExists ${q(`${MEMORY_CG}/cpuset.mems`)}`,
      // Everything `down` must undo is on disk before the first process starts.
      `writeState [] ${q(STACK_BRIDGE)} 6 ${q(KUBELET_PATHS)}`,
      `kubeApi ${q(KUBECONFIG)}`,
      ...componentCalls,
      'nodeConditions "localhost"',
      'readServiceAccount "default" "default"',
    ]);
    expect(files.get(`${CPUSET_CG}/cpuset.cpus`)).toBe('0-1\n');
    expect(files.get(`${CPUSET_CG}/cpuset.mems`)).toBe('0\n');
    expect(addresses()).toEqual(['10.233.7.1/24']);
    expect(state).toMatchObject({
      stateDir: DIR,
      kubeconfig: KUBECONFIG,
      criSocket: STACK_SOCKET,
      nodeIp: '10.233.7.1',
      createdBridge: STACK_BRIDGE,
      sysctls: Object.fromEntries(SYSCTLS_BEFORE),
      createdPaths: KUBELET_PATHS,
      pids: {
        etcd: 1001,
        'kube-apiserver': 1002,
        'kube-scheduler': 1003,
        'kube-controller-manager': 1004,
        kubelet: 1005,
      },
    });
  });

  test('a bridge the stack made is used as it is: the address only when missing, never recorded as ours', async () => {
    const withAddress = recordingHost(freshWorld({ bridgeAddresses: ['10.233.7.1/24'] }));
    const state = await clusterUp(upOpts, withAddress.host);
    expect(state.createdBridge).toBeNull();
    expect(withAddress.calls.filter((c) => /^(addBridge|addAddress)/.test(c))).toEqual([]);
    expect(withAddress.calls).toContain(`setLinkUp ${q(STACK_BRIDGE)}`);

    const withoutAddress = recordingHost(freshWorld({ bridgeAddresses: ['10.233.7.9/24'] }));
    await clusterUp(upOpts, withoutAddress.host);
    expect(withoutAddress.calls.filter((c) => /^(addBridge|addAddress)/.test(c))).toEqual([
      `addAddress ${q(STACK_BRIDGE)} "10.233.7.1/24"`,
    ]);
  });

  test('host paths that exist before up are not recorded as created', async () => {
    const world = freshWorld();
    world.paths!.add('/var/lib/kubelet').add('/var/log/containers');
    const state = await clusterUp(upOpts, recordingHost(world).host);
    expect(state.createdPaths).toEqual(['/var/log/pods', '/var/lib/kubelet/device-plugins']);
  });

  test.each([
    ['a binary is missing', { paths: new Set<string>() }, 'CLUSTER_BINARIES', `${BIN}/etcd is missing`],
    ['the stack is not up', { stack: null }, 'CLUSTER_STACK', 'the local stack "s" is not up'],
    [
      "the stack's daemon does not answer",
      { stackAnswers: false },
      'CLUSTER_STACK',
      'the local stack "s" is not up',
    ],
  ])('refused before any change when %s', async (_what, over: Partial<World>, code, message) => {
    const { host, calls } = recordingHost(freshWorld(over));
    await expect(clusterUp(upOpts, host)).rejects.toMatchObject({ code, message });
    expect(calls.filter((c) => !/^(readStack|stackAnswers|readState)/.test(c))).toEqual([]);
  });

  test('a cluster already up is refused, and nothing of it is touched', async () => {
    const first = recordingHost(freshWorld());
    const running = await clusterUp(upOpts, first.host);
    const { host, calls } = recordingHost(freshWorld({ cluster: running }));
    await expect(clusterUp(upOpts, host)).rejects.toMatchObject({
      code: 'CLUSTER_EXISTS',
      message: `cluster "c" is already up (${DIR}/cluster.json)`,
    });
    expect(calls).toEqual(['readStack "s"', 'stackAnswers', `readState ${q(DIR)}`]);
  });

  test('a component that exits: logs kept, then what was started is stopped and removed, and the error thrown', async () => {
    lines.length = 0;
    const { host, calls, sysctls, cgroups, pids } = recordingHost(
      freshWorld({ exits: new Set(['kube-apiserver']) }),
    );
    await expect(clusterUp(upOpts, host)).rejects.toMatchObject({
      code: 'CLUSTER_START',
      message: 'kube-apiserver: kube-apiserver exited',
    });
    const failed = calls.indexOf(
      `writeState ${q(['etcd', 'kube-apiserver'])} ${q(STACK_BRIDGE)} 6 ${q(KUBELET_PATHS)}`,
    );
    expect(failed).toBeGreaterThan(-1);
    const rollback = calls.slice(failed + 1);
    const removed = rollback.filter((c) => c.startsWith('removeTree')).slice(1, -1);
    expect(rollback).toEqual([
      // Kept before `down` removes the state dir with them.
      `removeTree ${q(`${DIR}.failed-logs`)}`,
      `copyTree ${q(`${DIR}/logs`)} ${q(`${DIR}.failed-logs`)}`,
      `readState ${q(DIR)}`,
      // Not started: kubelet, controller-manager, scheduler. The apiserver is gone: not signalled.
      `openCri ${q(STACK_SOCKET)}`,
      'listPodSandbox',
      'closeCri',
      'processCmdline 1002',
      'processCmdline 1001',
      'terminate 1001 10000',
      `unmountBelow ${q(DIR)}`,
      'cgroupMounts',
      `cgroupDirsBelow ${q(CPUSET_CG)}`,
      `cgroupDirsBelow ${q(MEMORY_CG)}`,
      `cgroupProcs ${q(CPUSET_CG)}`,
      `removeCgroup ${q(CPUSET_CG)}`,
      `cgroupProcs ${q(MEMORY_CG)}`,
      `removeCgroup ${q(MEMORY_CG)}`,
      ...SYSCTLS_BEFORE.map(([key]) => `readSysctl ${q(key)}`),
      // Nothing changed them: nothing written.
      'symlinksIn "/var/log/containers"',
      ...removed,
      `removeTree ${q(DIR)}`,
    ]);
    expect(new Set(removed)).toEqual(new Set(KUBELET_PATHS.map((p) => `removeTree ${q(p)}`)));
    expect(pids()).toEqual([]);
    expect(cgroups.size).toBe(0);
    expect(sysctls).toEqual(new Map(SYSCTLS_BEFORE));
    expect(lines).toContain(
      `cluster up failed, taking it down (logs kept in ${DIR}.failed-logs): kube-apiserver: kube-apiserver exited`,
    );
  });
});

/** A cluster brought up on a fresh host, then used: the kubelet changed sysctls, ran a pod, left cgroups. */
async function usedCluster(over: Partial<World> = {}) {
  const world = freshWorld({
    pods: [
      { id: 'kube-pod', labels: { 'io.kubernetes.pod.uid': 'u-1' } },
      { id: 'stack-pod', labels: { 'runtime-bench.run-id': 'r-1' } },
    ],
    ...over,
  });
  const recording = recordingHost(world);
  const state = await clusterUp(upOpts, recording.host);
  for (const [key, value] of KUBELET_CHANGES) recording.sysctls.set(key, value);
  recording.cgroups.set(`${CPUSET_CG}/kubepods`, []);
  recording.cgroups.set(`${MEMORY_CG}/kubepods`, []);
  // A pod's process that outlived its sandbox.
  recording.cgroups.set(`${MEMORY_CG}/kubepods/pod-u-1`, [4321]);
  recording.calls.length = 0;
  return { ...recording, state };
}

/** Every created path is removed after each path below it. */
function deepestFirst(removed: string[]): boolean {
  return removed.every((p, i) => removed.slice(i + 1).every((later) => !later.startsWith(`${p}/`)));
}

describe('clusterDown over a recording host', () => {
  test('the kubelet first, its pods, the others in STOP_ORDER, mounts, cgroups, sysctls, paths, the state dir', async () => {
    const { host, calls, state, sysctls, cgroups, pids } = await usedCluster();
    expect(await clusterDown(downOpts, host)).toEqual([]);
    const stop = (name: string): string[] => [
      `processCmdline ${state.pids[name]}`,
      `terminate ${state.pids[name]} 10000`,
    ];
    const removed = calls.filter((c) => c.startsWith('removeTree')).slice(0, -1);
    expect(calls).toEqual([
      `readState ${q(DIR)}`,
      ...stop('kubelet'),
      `openCri ${q(STACK_SOCKET)}`,
      'listPodSandbox',
      // Only the kubelet's pod: the stack's own is the stack's.
      'stopPodSandbox "kube-pod"',
      'removePodSandbox "kube-pod"',
      'closeCri',
      ...stop('kube-controller-manager'),
      ...stop('kube-scheduler'),
      ...stop('kube-apiserver'),
      ...stop('etcd'),
      `unmountBelow ${q(DIR)}`,
      'cgroupMounts',
      `cgroupDirsBelow ${q(CPUSET_CG)}`,
      `cgroupDirsBelow ${q(MEMORY_CG)}`,
      `cgroupProcs ${q(`${CPUSET_CG}/kubepods`)}`,
      `removeCgroup ${q(`${CPUSET_CG}/kubepods`)}`,
      `cgroupProcs ${q(CPUSET_CG)}`,
      `removeCgroup ${q(CPUSET_CG)}`,
      `cgroupProcs ${q(`${MEMORY_CG}/kubepods/pod-u-1`)}`,
      'kill 4321',
      'sleep 200',
      `removeCgroup ${q(`${MEMORY_CG}/kubepods/pod-u-1`)}`,
      `cgroupProcs ${q(`${MEMORY_CG}/kubepods`)}`,
      `removeCgroup ${q(`${MEMORY_CG}/kubepods`)}`,
      `cgroupProcs ${q(MEMORY_CG)}`,
      `removeCgroup ${q(MEMORY_CG)}`,
      ...SYSCTLS_BEFORE.map(([key]) => `readSysctl ${q(key)}`),
      // Only the changed ones, back to the value recorded before the kubelet started.
      ...KUBELET_CHANGES.map(
        ([key]) => `writeSysctl ${q(key)} ${q(Object.fromEntries(SYSCTLS_BEFORE)[key])}`,
      ),
      'symlinksIn "/var/log/containers"',
      ...removed,
      `removeTree ${q(DIR)}`,
    ]);
    // `up` created /var/log/containers: it goes whole, no link in it is removed one by one.
    expect(calls.some((c) => c.startsWith('removeFile'))).toBe(false);
    const removedPaths = removed.map((c) => JSON.parse(c.slice('removeTree '.length)) as string);
    expect(new Set(removedPaths)).toEqual(new Set(KUBELET_PATHS));
    expect(deepestFirst(removedPaths)).toBe(true);
    expect(sysctls).toEqual(new Map(SYSCTLS_BEFORE));
    expect(cgroups.size).toBe(0);
    expect(pids()).toEqual([]);
  });

  test('in a /var/log/containers that was there before, only the links into our state dir go', async () => {
    const ours = { path: '/var/log/containers/a_ns_c-1.log', target: `${DIR}/pod-logs/ns_a_u-1/c/0.log` };
    const theirs = { path: '/var/log/containers/b_ns_c-2.log', target: '/var/log/pods/ns_b_u-2/c/0.log' };
    const world = freshWorld({ logLinks: [ours, theirs] });
    world.paths!.add('/var/log/containers');
    const { host, calls } = await usedCluster(world);
    await clusterDown(downOpts, host);
    expect(calls.filter((c) => c.startsWith('removeFile'))).toEqual([`removeFile ${q(ours.path)}`]);
    expect(calls).not.toContain('removeTree "/var/log/containers"');
  });

  test('what cannot be cleaned is reported and keeps the state dir, so that down can run again', async () => {
    lines.length = 0;
    const busy = `${MEMORY_CG}/kubepods`;
    const { host, calls, sysctls, unreadableSysctls } = await usedCluster({
      busyCgroups: new Map([[busy, 'EBUSY']]),
    });
    unreadableSysctls.add('kernel.panic');
    const problems = await clusterDown(downOpts, host);
    expect(problems).toEqual([
      `cgroup ${busy}: EBUSY`,
      // Its parent cannot go while it is there.
      `cgroup ${MEMORY_CG}: EBUSY`,
      'sysctl kernel.panic=0: EACCES: kernel.panic',
    ]);
    expect(calls).not.toContain(`removeTree ${q(DIR)}`);
    // The unreadable one is not written blindly; the others are restored.
    expect(calls).not.toContain('writeSysctl "kernel.panic" "0"');
    expect(sysctls.get('vm.overcommit_memory')).toBe('0');
    expect(lines).toEqual(expect.arrayContaining(problems.map((p) => `cluster down: ${p}`)));
  });

  test("a stack that is gone: its pods are its own down's, the rest is still taken down", async () => {
    lines.length = 0;
    const { host, calls } = await usedCluster();
    host.openCri = () => {
      throw new Error('connect ENOENT');
    };
    expect(await clusterDown(downOpts, host)).toEqual([]);
    expect(lines).toContain('kubelet pods: stack not reachable (connect ENOENT)');
    expect(calls.at(-1)).toBe(`removeTree ${q(DIR)}`);
  });

  test('no cluster: nothing to do, safe to repeat', async () => {
    const { host, calls } = recordingHost(freshWorld());
    expect(await clusterDown(downOpts, host)).toEqual([]);
    expect(await clusterDown(downOpts, host)).toEqual([]);
    expect(calls).toEqual([`readState ${q(DIR)}`, `readState ${q(DIR)}`]);
  });
});
