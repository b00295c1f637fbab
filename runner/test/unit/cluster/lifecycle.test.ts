// What `cluster up` changes and `cluster down` undoes, decided from plain values.
import { describe, expect, test } from 'vitest';
import {
  STOP_ORDER,
  addressToAdd,
  inheritsParentCpuset,
  isKubeletPod,
  nodeIsReady,
  ownLogLinks,
  ownsProcess,
  pathsTheKubeletWillCreate,
  removalOrder,
  sysctlsToRestore,
} from '../../../src/cluster/lifecycle.ts';

describe('cluster up', () => {
  test('only the fixed kubelet paths that do not exist yet are recorded as created', () => {
    const existing = new Set(['/var/lib/kubelet', '/var/log/pods']);
    expect(pathsTheKubeletWillCreate((p) => existing.has(p))).toEqual([
      '/var/log/containers',
      '/var/lib/kubelet/device-plugins',
    ]);
    expect(pathsTheKubeletWillCreate(() => true)).toEqual([]);
  });

  test("the node's address is added once, with the subnet's prefix length", () => {
    expect(addressToAdd([], '10.233.7.1', '10.233.7.0/24')).toBe('10.233.7.1/24');
    expect(addressToAdd(['10.233.7.1/24'], '10.233.7.1', '10.233.7.0/24')).toBeNull();
    // Listed with another prefix length it is still the node's address: not added twice.
    expect(addressToAdd(['192.168.1.5/16', '10.233.7.1/32'], '10.233.7.1', '10.233.7.0/24')).toBeNull();
    // 10.233.7.10 is not 10.233.7.1
    expect(addressToAdd(['10.233.7.10/24'], '10.233.7.1', '10.233.7.0/24')).toBe('10.233.7.1/24');
    expect(addressToAdd([], '10.9.0.1', '10.9.0.0/16')).toBe('10.9.0.1/16');
  });

  test("a cpuset file takes the parent's value only when it exists and is empty", () => {
    expect(inheritsParentCpuset('')).toBe(true);
    expect(inheritsParentCpuset('\n')).toBe(true);
    expect(inheritsParentCpuset('0-1\n')).toBe(false);
    // No such file: not a v1 cpuset hierarchy, nothing to write.
    expect(inheritsParentCpuset(null)).toBe(false);
  });

  test('the node is Ready only on a Ready=True condition', () => {
    expect(nodeIsReady([])).toBe(false);
    expect(nodeIsReady([{ type: 'Ready', status: 'False' }])).toBe(false);
    expect(nodeIsReady([{ type: 'MemoryPressure', status: 'True' }])).toBe(false);
    expect(
      nodeIsReady([
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'True' },
      ]),
    ).toBe(true);
  });
});

describe('cluster down', () => {
  test('the kubelet is stopped first, etcd last', () => {
    expect(STOP_ORDER[0]).toBe('kubelet');
    expect(STOP_ORDER.at(-1)).toBe('etcd');
    expect([...STOP_ORDER].sort()).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kubelet',
    ]);
  });

  test('a process is ours when its command line names the state dir', () => {
    const dir = '/var/lib/runtime-bench/clusters/c';
    expect(ownsProcess(['/opt/k/bin/etcd', `--data-dir=${dir}/etcd`, ''].join('\0'), dir)).toBe(true);
    // A reused pid: another program, our dir nowhere in its command line.
    expect(ownsProcess(['/usr/bin/sleep', '100', ''].join('\0'), dir)).toBe(false);
    // Gone: /proc/<pid>/cmdline could not be read.
    expect(ownsProcess('', dir)).toBe(false);
  });

  test("only the kubelet's pods are removed, never the stack's own", () => {
    expect(isKubeletPod({ 'io.kubernetes.pod.uid': 'u-1', app: 'x' })).toBe(true);
    expect(isKubeletPod({ 'runtime-bench.run-id': 'r' })).toBe(false);
    expect(isKubeletPod({ 'io.kubernetes.pod.uid': '' })).toBe(false);
  });

  test('sysctls: restored where changed; an unreadable one is not written blindly', () => {
    const recorded = { 'vm.panic_on_oom': '0', 'kernel.panic': '0', 'vm.overcommit_memory': '0' };
    expect(
      sysctlsToRestore(recorded, {
        'vm.panic_on_oom': '0',
        'kernel.panic': '10',
        'vm.overcommit_memory': '1',
      }),
    ).toEqual([
      ['kernel.panic', '0'],
      ['vm.overcommit_memory', '0'],
    ]);
    expect(sysctlsToRestore(recorded, { 'vm.panic_on_oom': '0' })).toEqual([]);
  });

  test('log symlinks: ours in a directory that was there before; none when up created it', () => {
    const links = [
      { path: '/var/log/containers/a.log', target: '/var/lib/runtime-bench/clusters/c/pod-logs/a/0.log' },
      { path: '/var/log/containers/b.log', target: '/var/log/pods/other/b/0.log' },
    ];
    expect(ownLogLinks(links, '/var/lib/runtime-bench/clusters/c', [])).toEqual([
      '/var/log/containers/a.log',
    ]);
    expect(ownLogLinks(links, '/var/lib/runtime-bench/clusters/c', ['/var/log/containers'])).toEqual([]);
  });

  test('created paths go deepest first', () => {
    expect(removalOrder(['/var/lib/kubelet', '/var/lib/kubelet/device-plugins', '/var/log/pods'])).toEqual([
      '/var/lib/kubelet/device-plugins',
      '/var/lib/kubelet',
      '/var/log/pods',
    ]);
  });
});
