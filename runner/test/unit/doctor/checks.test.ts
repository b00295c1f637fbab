// doctor's checks on written host snapshots: each condition it looks for, its level and its fix.
import { describe, expect, test } from 'vitest';
import {
  DISK_FAIL_BYTES,
  DISK_WARN_BYTES,
  NEEDED_BINARIES,
  NEEDED_CNI_PLUGINS,
  diagnose,
  hostReady,
  versionOf,
  type Finding,
  type HostSnapshot,
} from '../../../src/doctor/checks.ts';
import { doctorLines } from '../../../src/commands/doctor.ts';

// /proc/self/mountinfo lines: cgroup2 alone (v2), v1 hierarchies beside it (hybrid), v1 alone.
const V2 = '35 24 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n';
const V1_CPU = '40 30 0:35 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n';
const V1_MEM = '41 30 0:36 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n';
const UNIFIED = '34 30 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n';

function quietHost(): HostSnapshot {
  return {
    kernel: '6.1.0-28-amd64',
    mountinfo: V2,
    cores: 4,
    loadavg: '0.20 0.30 0.25 1/300 4242',
    governors: ['performance', 'performance', 'performance', 'performance'],
    binaries: Object.fromEntries(
      NEEDED_BINARIES.map((b) => [b.name, { path: `/usr/bin/${b.name}`, version: '1.2.3' }]),
    ),
    cniPlugins: { dir: '/usr/lib/cni', files: [...NEEDED_CNI_PLUGINS, 'macvlan'] },
    disks: [
      { path: '/var/lib/runtime-bench', purpose: 'stack state and images', availableBytes: 50 * 1024 ** 3 },
      { path: '/opt/runtime-bench', purpose: 'installs and builds', availableBytes: 50 * 1024 ** 3 },
    ],
    processes: [],
    uid: 0,
  };
}

const find = (findings: Finding[], check: string): Finding => {
  const f = findings.find((x) => x.check === check);
  if (!f) throw new Error(`no finding ${check}`);
  return f;
};
const notOk = (findings: Finding[]) =>
  findings.filter((f) => f.level !== 'ok').map((f) => [f.check, f.level]);

describe('doctor on a quiet, complete host', () => {
  test('every finding ok, ready, one finding per needed binary', () => {
    const findings = diagnose(quietHost());
    expect(notOk(findings)).toEqual([]);
    expect(hostReady(findings)).toBe(true);
    for (const b of NEEDED_BINARIES) expect(find(findings, b.name).detail).toBe(`1.2.3 (/usr/bin/${b.name})`);
  });
});

describe('each condition', () => {
  test('cgroups: v2 ok; hybrid and v1 warn with the fix', () => {
    expect(find(diagnose(quietHost()), 'cgroups').detail).toBe('v2 (unified) at /sys/fs/cgroup');
    const hybrid = find(diagnose({ ...quietHost(), mountinfo: V1_CPU + V1_MEM + UNIFIED }), 'cgroups');
    expect(hybrid.level).toBe('warn');
    expect(hybrid.detail).toContain(
      'hybrid: v1 controllers (cpu, cpuacct, memory) beside cgroup2 at /sys/fs/cgroup/unified',
    );
    expect(hybrid.fix).toContain('--fix-host');
    const v1 = find(diagnose({ ...quietHost(), mountinfo: V1_CPU + V1_MEM }), 'cgroups');
    expect(v1.level).toBe('warn');
    expect(v1.detail).toMatch(/^v1 \(cpu, cpuacct, memory\)/);
    expect(v1.fix).toContain('systemd.unified_cgroup_hierarchy=1');
  });

  test('a missing required binary fails with its Debian package; an optional one is ok', () => {
    const s = quietHost();
    s.binaries = {
      ...s.binaries,
      containerd: { path: null, version: null },
      runsc: { path: null, version: null },
    };
    const findings = diagnose(s);
    expect(find(findings, 'containerd')).toEqual({
      check: 'containerd',
      level: 'fail',
      detail: 'not found on PATH; needed for the default CRI runtime of a stack',
      fix: 'run `bash scripts/setup.sh` as root, or apt-get install containerd',
    });
    expect(find(findings, 'runsc').level).toBe('ok');
    expect(find(findings, 'runsc').detail).toBe('not installed; optional, for gVisor targets');
    expect(hostReady(findings)).toBe(false);
  });

  test('a missing binary needed by some benchmarks only (skopeo) warns; a silent one warns', () => {
    const s = quietHost();
    s.binaries = {
      ...s.binaries,
      skopeo: { path: null, version: null },
      runc: { path: '/x/runc', version: null },
    };
    const findings = diagnose(s);
    expect(notOk(findings)).toEqual([
      ['runc', 'warn'],
      ['skopeo', 'warn'],
    ]);
    expect(find(findings, 'runc').fix).toBe('check that /x/runc runs: runc --version');
    expect(hostReady(findings)).toBe(true);
  });

  test('CNI plugins: a missing directory or plugin fails, naming it', () => {
    expect(find(diagnose({ ...quietHost(), cniPlugins: null }), 'CNI plugins').level).toBe('fail');
    const partial = find(
      diagnose({ ...quietHost(), cniPlugins: { dir: '/opt/cni/bin', files: ['bridge', 'loopback'] } }),
      'CNI plugins',
    );
    expect(partial).toMatchObject({ level: 'fail', detail: '/opt/cni/bin lacks host-local, portmap' });
  });

  test('disk: fail below the hard floor, warn below the comfortable one, at each directory', () => {
    const s = quietHost();
    s.disks = [
      { path: '/var/lib/runtime-bench', purpose: 'p', availableBytes: DISK_FAIL_BYTES - 1 },
      { path: '/opt/runtime-bench', purpose: 'q', availableBytes: DISK_WARN_BYTES - 1 },
    ];
    const findings = diagnose(s);
    expect(find(findings, 'disk /var/lib/runtime-bench').level).toBe('fail');
    expect(find(findings, 'disk /opt/runtime-bench').level).toBe('warn');
    expect(find(findings, 'disk /opt/runtime-bench').detail).toBe(
      `${((DISK_WARN_BYTES - 1) / 1024 ** 3).toFixed(1)} GiB free (q)`,
    );
    s.disks = [{ path: '/opt/runtime-bench', purpose: 'q', availableBytes: DISK_WARN_BYTES }];
    expect(find(diagnose(s), 'disk /opt/runtime-bench').level).toBe('ok');
  });

  test("another containerd or CRI-O warns with the way to stop it; our stacks' daemons do not", () => {
    const ours = {
      pid: 10,
      name: 'containerd',
      cmdline: 'containerd --config /var/lib/runtime-bench/stacks/default/config.toml',
    };
    expect(find(diagnose({ ...quietHost(), processes: [ours] }), 'other runtimes').level).toBe('ok');
    const system = { pid: 731, name: 'containerd', cmdline: '/usr/bin/containerd' };
    const crio = { pid: 900, name: 'crio', cmdline: '/usr/bin/crio' };
    const f = find(diagnose({ ...quietHost(), processes: [ours, system, crio] }), 'other runtimes');
    expect(f.level).toBe('warn');
    expect(f.detail).toMatch(/^containerd \(pid 731\), crio \(pid 900\) runs beside our stacks/);
    expect(f.fix).toContain('systemctl disable --now containerd crio');
  });

  test('CPU frequency: performance everywhere ok, any other governor warns, none exposed ok', () => {
    const f = find(diagnose({ ...quietHost(), governors: ['performance', 'powersave'] }), 'CPU frequency');
    expect(f).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('performance ×1, powersave ×1'),
    });
    expect(f.fix).toContain('cpupower frequency-set -g performance');
    expect(find(diagnose({ ...quietHost(), governors: [] }), 'CPU frequency').level).toBe('ok');
  });

  test('load: per core above a quarter warns', () => {
    expect(find(diagnose({ ...quietHost(), loadavg: '1.00 1 1 1/1 1', cores: 4 }), 'load').level).toBe('ok');
    const busy = find(diagnose({ ...quietHost(), loadavg: '4.00 4 4 1/1 1', cores: 2 }), 'load');
    expect(busy.level).toBe('warn');
    expect(busy.detail).toMatch(/^load 4\.00 on 2 core\(s\) \(2\.00 per core, 1 min\)/);
  });

  test('kernel older than 5.10 warns; not root warns', () => {
    expect(find(diagnose({ ...quietHost(), kernel: '4.19.0-27-amd64' }), 'kernel').level).toBe('warn');
    expect(find(diagnose({ ...quietHost(), kernel: '5.10.0-33-amd64' }), 'kernel').level).toBe('ok');
    expect(find(diagnose({ ...quietHost(), uid: 1000 }), 'privileges').level).toBe('warn');
  });
});

describe('versionOf: the version as each tool prints it', () => {
  test.each([
    ['containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+b1', '1.6.20~ds1'],
    ['runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev', '1.1.5+ds1'],
    ['ip utility, iproute2-6.1.0, libbpf 1.1.0', '6.1.0'],
    ['BusyBox v1.35.0 (Debian 1:1.35.0-4+b3) multi-call binary.', '1.35.0'],
    ['sysbench 1.0.20', '1.0.20'],
    ['no version here', null],
  ])('%s → %s', (output, version) => expect(versionOf(output)).toBe(version));
});

describe('doctorLines', () => {
  test('one line per finding, the fix under a warn or fail only', () => {
    const lines = doctorLines([
      { check: 'a', level: 'ok', detail: 'fine', fix: 'unused' },
      { check: 'longer', level: 'fail', detail: 'broken', fix: 'mend it' },
    ]);
    expect(lines).toEqual(['OK    a       fine', 'FAIL  longer  broken', '              fix: mend it']);
  });
});
