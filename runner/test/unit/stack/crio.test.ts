import { describe, expect, test } from 'vitest';
import { parse } from 'smol-toml';
import {
  asKubeletSends,
  NamespaceMode,
  type ContainerConfig,
  type PodSandboxConfig,
} from '../../../src/cri/types.ts';
import { cgroupMounts } from '../../../src/stack/cgroups.ts';
import { crioEnvironment, renderCrioConfig, renderStorageConf } from '../../../src/stack/crio-config.ts';
import { crioCgroupNames, crioLayout } from '../../../src/stack/crio.ts';
import { driverFor } from '../../../src/stack/drivers.ts';
import type { HostFixPlan } from '../../../src/stack/host-fixes.ts';
import { planStack, selectHandlers, type StackPlanInput } from '../../../src/stack/plan.ts';
import { crioIncompatibility } from '../../../src/stack/versions.ts';

const S = '/var/lib/runtime-bench/stacks/c';

describe('CRI-O config', () => {
  const doc = parse(
    renderCrioConfig({
      layout: crioLayout(S, '/usr/lib/cni', 'runtime-bench-c'),
      conmon: '/usr/bin/conmon',
      pinns: '/opt/crio/pinns',
      pauseImage: 'localhost/runtime-bench/pause:latest',
      defaultHandler: 'runc',
      handlers: [
        { name: 'runc', kind: 'runc', binary: '/usr/sbin/runc' },
        { name: 'crun-1.28', kind: 'crun', binary: '/opt/crun/1.28/crun' },
      ],
    }),
  ) as Record<string, Record<string, unknown>>;
  const crio = doc.crio as Record<string, Record<string, unknown> | unknown>;
  const runtime = crio.runtime as Record<string, unknown>;
  const runtimes = runtime.runtimes as Record<string, Record<string, unknown>>;

  test('every path CRI-O would take from /etc, /var or /run is below the state directory', () => {
    const paths = [
      crio.root,
      crio.runroot,
      crio.log_dir,
      crio.version_file,
      crio.clean_shutdown_file,
      (crio.api as Record<string, unknown>).listen,
      runtime.namespaces_dir,
      runtime.container_exits_dir,
      runtime.container_attach_socket_dir,
      runtime.decryption_keys_path,
      ...(runtime.hooks_dir as string[]),
      ...(runtime.cdi_spec_dirs as string[]),
      (crio.image as Record<string, unknown>).signature_policy,
      (crio.network as Record<string, unknown>).network_dir,
    ];
    for (const p of paths) expect(String(p).startsWith(`${S}/`), String(p)).toBe(true);
    expect((crio.api as Record<string, unknown>).listen).toBe(`${S}/crio.sock`);
    expect(crio.version_file_persist).toBe('');
  });

  test('the settings this kind of host needs', () => {
    expect(runtime.cgroup_manager).toBe('cgroupfs');
    expect(runtime.pids_limit).toBe(0);
    expect(runtime.drop_infra_ctr).toBe(true);
    expect(runtime.pinns_path).toBe('/opt/crio/pinns');
    expect(runtime.default_runtime).toBe('runc');
    expect((crio.nri as Record<string, unknown>).enable_nri).toBe(false);
    expect((crio.image as Record<string, unknown>).pause_image).toBe('localhost/runtime-bench/pause:latest');
    expect((crio.network as Record<string, unknown>).plugin_dirs).toEqual(['/usr/lib/cni']);
    expect((crio.network as Record<string, unknown>).cni_default_network).toBe('runtime-bench-c');
  });

  test('one OCI handler per runtime, each with a private state root and conmon', () => {
    expect(Object.keys(runtimes)).toEqual(['runc', 'crun-1.28']);
    expect(runtimes['crun-1.28']).toMatchObject({
      runtime_path: '/opt/crun/1.28/crun',
      runtime_type: 'oci',
      runtime_root: `${S}/oci/crun-1.28`,
      monitor_path: '/usr/bin/conmon',
    });
  });

  test('storage.conf and the environment keep skopeo and CRI-O off the host configuration', () => {
    expect(parse(renderStorageConf(`${S}/storage`, `${S}/run`))).toEqual({
      storage: { driver: 'overlay', graphroot: `${S}/storage`, runroot: `${S}/run` },
    });
    const env = crioEnvironment({ PATH: '/bin' }, { authDir: 'A', registriesConf: 'R', storageConf: 'C' });
    expect(env).toEqual({
      PATH: '/bin',
      CONTAINER_NAMESPACED_AUTH_DIR: 'A',
      CONTAINERS_REGISTRIES_CONF: 'R',
      CONTAINERS_STORAGE_CONF: 'C',
    });
  });
});

test('crun before 1.9 cannot serve CRI-O (OCI spec 1.3.0); 1.9 and later, and runc, can', () => {
  expect(crioIncompatibility('1.36.3', 'crun', '1.8.1')).toMatch(
    /crun 1\.8\.1 .*spec.*crun 1\.9 or later works/,
  );
  expect(crioIncompatibility('1.36.3', 'crun', '1.9')).toBeNull();
  expect(crioIncompatibility('1.36.3', 'crun', '1.28')).toBeNull();
  expect(crioIncompatibility('1.36.3', 'runc', '1.1.5')).toBeNull();
});

const noCapHybrid: HostFixPlan = {
  restrictOomScoreAdj: true,
  hybridV2Controllers: ['hugetlb'],
  cgroupRoot: '/sys/fs/cgroup',
};
const fine: HostFixPlan = {
  restrictOomScoreAdj: false,
  hybridV2Controllers: [],
  cgroupRoot: '/sys/fs/cgroup',
};

function input(over: Partial<StackPlanInput> = {}): StackPlanInput {
  return {
    name: 'c',
    stateDir: S,
    daemon: {
      path: '/opt/crio/crio',
      version: '1.36.3',
      tools: { pinns: '/opt/crio/pinns', conmon: '/usr/bin/conmon', skopeo: '/usr/bin/skopeo' },
    },
    discovered: {
      handlers: [
        {
          name: 'runc',
          kind: 'runc',
          binary: '/usr/sbin/runc',
          version: '1.1.5',
          versionOutput: 'runc version 1.1.5',
        },
        {
          name: 'crun',
          kind: 'crun',
          binary: '/opt/crun',
          version: '1.28',
          versionOutput: 'crun version 1.28',
        },
      ],
      skipped: [],
    },
    hostFixPlan: fine,
    fixHost: false,
    routes: '10.233.5.0/24 dev rb-x\n',
    cniBinDir: '/usr/lib/cni',
    images: { pause: 'localhost/p:latest', bench: 'localhost/b:latest' },
    shimDirs: [],
    usageHierarchy: { version: 1, mount: '/sys/fs/cgroup/cpuacct' },
    env: { PATH: '/usr/bin' },
    ...over,
  };
}

describe('the stack plan', () => {
  test('CRI-O: files, command and a state that passes the schema', () => {
    const plan = planStack(driverFor('cri-o'), input());
    expect(plan.state.cri).toBe('cri-o');
    expect(plan.state.socket).toBe(`${S}/crio.sock`);
    expect(plan.state.handlers.map((h) => h.name)).toEqual(['runc', 'crun']);
    expect(plan.files.map((f) => f.path).sort()).toEqual(
      [
        `${S}/cni/10-runtime-bench.conflist`,
        `${S}/crio.conf`,
        `${S}/policy.json`,
        `${S}/storage.conf`,
      ].sort(),
    );
    // The registry's executor writes registries.conf before CRI-O starts (only the stack's registry).
    // CRI-O ignores CONTAINERS_REGISTRIES_CONF: it reads its HOME's per-user registries.conf.
    expect(plan.command.env.HOME).toBe(`${S}/registry/home`);
    expect(plan.command.env.CONTAINERS_REGISTRIES_CONF).toBe(
      `${S}/registry/home/.config/containers/registries.conf`,
    );
    expect(plan.command.path).toBe('/opt/crio/crio');
    expect(plan.command.args).toEqual(['--config', `${S}/crio.conf`, '--config-dir', `${S}/crio.conf.d`]);
    expect(plan.command.env.CONTAINERS_STORAGE_CONF).toBe(`${S}/storage.conf`);
    expect(plan.state.network.subnet).not.toBe('10.233.5.0/24');
    expect(plan.bindControllers).toEqual([]);
    expect(plan.state.hostFixes).toEqual([]);
  });

  test('no CAP_SYS_RESOURCE: each driver records its own fix; crun waits for --fix-host', () => {
    const crio = planStack(driverFor('cri-o'), input({ hostFixPlan: noCapHybrid }));
    expect(crio.state.hostFixes.map((f) => [f.id, f.applied])).toEqual([
      ['pod-pid-namespace-container', true],
      ['crun-hybrid-cgroup', false],
    ]);
    expect(crio.state.handlers.map((h) => h.name)).toEqual(['runc']);
    expect(crio.state.skippedHandlers[0]).toMatchObject({
      name: 'crun',
      reason: expect.stringMatching(/--fix-host/),
    });
    const containerd = planStack(
      driverFor('containerd'),
      input({
        hostFixPlan: noCapHybrid,
        fixHost: true,
        daemon: { path: '/usr/bin/containerd', version: '1.6.20', tools: { ctr: '/usr/bin/ctr' } },
      }),
    );
    expect(containerd.state.hostFixes.map((f) => [f.id, f.applied])).toEqual([
      ['restrict-oom-score-adj', true],
      ['crun-hybrid-cgroup', true],
    ]);
    expect(containerd.bindControllers).toEqual(['hugetlb']);
    expect(containerd.state.socket).toBe(`${S}/containerd.sock`);
    expect(containerd.files.find((f) => f.path === `${S}/config.toml`)!.content).toMatch(
      /restrict_oom_score_adj = true/,
    );
  });

  test('containerd: each runc-shim handler gets its own shim cgroup, runsc and CRI-O none', () => {
    const ctd = { path: '/usr/bin/containerd', version: '1.6.20', tools: { ctr: '/usr/bin/ctr' } };
    const runsc = {
      name: 'runsc',
      kind: 'runsc' as const,
      binary: '/opt/gvisor/runsc',
      version: '20250101',
      versionOutput: 'runsc version 20250101',
    };
    const base = input({ daemon: ctd });
    const handlers = { handlers: [...base.discovered.handlers, runsc], skipped: [] };
    const plan = planStack(driverFor('containerd'), { ...base, name: 'bq', discovered: handlers });
    expect(plan.cgroups).toEqual({
      hierarchy: { version: 1, mount: '/sys/fs/cgroup/cpuacct' },
      paths: ['/runtime-bench/bq/shim-runc', '/runtime-bench/bq/shim-crun'],
    });
    const doc = parse(plan.files.find((f) => f.path === `${S}/config.toml`)!.content);
    const cri = (doc.plugins as Record<string, Record<string, unknown>>)['io.containerd.grpc.v1.cri']!;
    const runtimes = (cri.containerd as { runtimes: Record<string, { options: Record<string, unknown> }> })
      .runtimes;
    expect(runtimes.runc!.options).toEqual({
      BinaryName: '/usr/sbin/runc',
      ShimCgroup: '/runtime-bench/bq/shim-runc',
    });
    expect(runtimes.crun!.options.ShimCgroup).toBe('/runtime-bench/bq/shim-crun');
    expect(runtimes.runsc!.options.ShimCgroup).toBeUndefined();
    // No usage counter on the host: no ShimCgroup line (the shim would fail to start), nothing to create.
    const bare = planStack(driverFor('containerd'), { ...base, usageHierarchy: null });
    expect(bare.cgroups).toBeNull();
    expect(bare.files.find((f) => f.path === `${S}/config.toml`)!.content).not.toMatch(/ShimCgroup/);
    expect(planStack(driverFor('cri-o'), input()).cgroups).toBeNull();
  });

  test('nothing left to run, or no CNI: refused with the fix', () => {
    const none = input({
      discovered: { handlers: [], skipped: [{ name: 'crun', binary: '/c', reason: 'old' }] },
    });
    expect(() => planStack(driverFor('cri-o'), none)).toThrow(
      /no usable OCI runtime found for cri-o.*crun: old/,
    );
    expect(() => planStack(driverFor('cri-o'), input({ cniBinDir: null }))).toThrow(/no CNI plugins/);
  });

  test('selectHandlers keeps the order and the earlier skip reasons', () => {
    const d = input().discovered;
    const r = selectHandlers(
      { ...d, skipped: [{ name: 'youki', binary: '/y', reason: 'r' }] },
      noCapHybrid,
      false,
    );
    expect(r.handlers.map((h) => h.name)).toEqual(['runc']);
    expect(r.skipped.map((s) => s.name)).toEqual(['youki', 'crun']);
  });
});

describe('containers as the kubelet sends them', () => {
  const pod: PodSandboxConfig = {
    metadata: { name: 'p', uid: 'u', namespace: 'n' },
    linux: { securityContext: { namespaceOptions: { pid: NamespaceMode.CONTAINER } } },
  };
  const c: ContainerConfig = { metadata: { name: 'c' }, image: { image: 'localhost/b:latest' }, linux: {} };

  test('the image as the user named it, and the PID namespace mode of the pod', () => {
    expect(asKubeletSends(c, pod)).toEqual({
      metadata: { name: 'c' },
      image: { image: 'localhost/b:latest', userSpecifiedImage: 'localhost/b:latest' },
      linux: { securityContext: { namespaceOptions: { pid: 1 } } },
    });
  });

  test("the container's own settings win; a pod without namespace options adds none", () => {
    const own: ContainerConfig = {
      ...c,
      linux: {
        resources: { memoryLimitInBytes: 1 << 20 },
        securityContext: { privileged: true, namespaceOptions: { pid: NamespaceMode.POD } },
      },
    };
    expect(asKubeletSends(own, pod).linux).toEqual({
      resources: { memoryLimitInBytes: 1 << 20 },
      securityContext: { privileged: true, namespaceOptions: { pid: 0 } },
    });
    expect(asKubeletSends(c, { metadata: pod.metadata }).linux).toEqual({});
  });
});

test('cgroupMounts lists every v1 controller hierarchy and the unified one', () => {
  const mountinfo = [
    '30 24 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw',
    '31 24 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct',
    '32 24 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
    '40 1 8:1 / / rw - ext4 /dev/vda rw',
  ].join('\n');
  expect(cgroupMounts(mountinfo)).toEqual([
    '/sys/fs/cgroup/unified',
    '/sys/fs/cgroup/cpu,cpuacct',
    '/sys/fs/cgroup/memory',
  ]);
});

describe('crioCgroupNames (pure)', () => {
  const pod = 'a'.repeat(64);
  const ctr = 'b'.repeat(64);
  test("the runtimes' containers and every container and pod of containers-storage", () => {
    const json = JSON.stringify([{ id: ctr, metadata: `{"pod-id":"${pod}","name":"x"}` }]);
    expect(crioCgroupNames(['c1'], json)).toEqual([
      'crio-c1',
      'crio-conmon-c1',
      'pod_c1',
      `crio-${ctr}`,
      `crio-conmon-${ctr}`,
      `pod_${ctr}`,
      `crio-${pod}`,
      `crio-conmon-${pod}`,
      `pod_${pod}`,
    ]);
  });
  test("no storage yet, or a file cut short by the kill: the runtimes' ids alone", () => {
    expect(crioCgroupNames(['c1'], null)).toEqual(['crio-c1', 'crio-conmon-c1', 'pod_c1']);
    expect(crioCgroupNames(['c1'], '[{"id":"x')).toEqual(['crio-c1', 'crio-conmon-c1', 'pod_c1']);
    expect(crioCgroupNames([], 'null')).toEqual([]);
  });
});
