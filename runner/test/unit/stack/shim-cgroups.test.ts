import { describe, expect, test } from 'vitest';
import { cgroupHierarchies } from '../../../src/host/parse.ts';
import {
  cgroupOf,
  isShimCgroup,
  parseCgroupUsageNs,
  shimCgroupPath,
  stackCgroup,
  usageHierarchy,
} from '../../../src/stack/shim-cgroups.ts';

// /proc/self/mountinfo of this host (Debian 12 container, cgroup v1 with a hybrid cgroup2 mount).
const HYBRID = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;
// A systemd host with cpu and cpuacct co-mounted (Debian 11 / Ubuntu 20.04 layout).
const COMOUNTED = `24 18 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
25 24 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate
29 24 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpu,cpuacct
`;
// A pure cgroup v2 host (Debian 12, Ubuntu 22.04+).
const V2 = `35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`;

describe('shim cgroups', () => {
  test('one per stack and handler, recognised by that rule only', () => {
    expect(shimCgroupPath('bq-sc', 'runc')).toBe('/runtime-bench/bq-sc/shim-runc');
    expect(stackCgroup('bq-sc')).toBe('/runtime-bench/bq-sc');
    expect(isShimCgroup('/runtime-bench/bq-sc/shim-crun-1.19')).toBe(true);
    for (const other of ['/', '/runtime-bench/bq-sc', '/runtime-bench/bq-sc/shim-runc/x', '/k8s.io/abc'])
      expect(isShimCgroup(other), other).toBe(false);
  });

  test('every hierarchy of the mountinfo, v1 ones with their controllers', () => {
    expect(cgroupHierarchies(HYBRID)).toEqual([
      { mount: '/sys/fs/cgroup/cpu', version: 1, controllers: ['cpu'] },
      { mount: '/sys/fs/cgroup/cpuacct', version: 1, controllers: ['cpuacct'] },
      { mount: '/sys/fs/cgroup/cpuset', version: 1, controllers: ['cpuset'] },
      { mount: '/sys/fs/cgroup/unified', version: 2, controllers: [] },
    ]);
    expect(cgroupHierarchies(COMOUNTED)[1]).toEqual({
      mount: '/sys/fs/cgroup/cpu,cpuacct',
      version: 1,
      controllers: ['cpu', 'cpuacct'],
    });
  });

  test('the usage hierarchy: v1 cpuacct wherever it is mounted, else the cgroup2 mount', () => {
    expect(usageHierarchy(HYBRID)).toEqual({ version: 1, mount: '/sys/fs/cgroup/cpuacct' });
    expect(usageHierarchy(COMOUNTED)).toEqual({ version: 1, mount: '/sys/fs/cgroup/cpu,cpuacct' });
    expect(usageHierarchy(V2)).toEqual({ version: 2, mount: '/sys/fs/cgroup' });
    expect(usageHierarchy('')).toBeNull();
  });

  test("a process's cgroup in that hierarchy, from /proc/<pid>/cgroup", () => {
    const v1 = '10:hugetlb:/\n4:memory:/x\n2:cpuacct:/runtime-bench/s/shim-runc\n1:cpu:/\n0::/\n';
    expect(cgroupOf(1, v1)).toBe('/runtime-bench/s/shim-runc');
    expect(cgroupOf(1, '5:cpu,cpuacct:/runtime-bench/s/shim-crun\n0::/init.scope\n')).toBe(
      '/runtime-bench/s/shim-crun',
    );
    expect(cgroupOf(2, '0::/runtime-bench/s/shim-runc\n')).toBe('/runtime-bench/s/shim-runc');
    expect(cgroupOf(1, '0::/runtime-bench/s/shim-runc\n')).toBeNull();
  });

  test('usage in ns: cpuacct.usage as it is, cpu.stat usage_usec × 1000', () => {
    expect(parseCgroupUsageNs(1, '471224609\n')).toBe(471_224_609);
    const cpuStat = 'usage_usec 14923000\nuser_usec 14800000\nsystem_usec 123000\nnr_periods 0\n';
    expect(parseCgroupUsageNs(2, cpuStat)).toBe(14_923_000_000);
    expect(() => parseCgroupUsageNs(1, 'usage 12')).toThrow(/cpuacct\.usage/);
    expect(() => parseCgroupUsageNs(2, 'user_usec 1\n')).toThrow(/usage_usec/);
  });
});
