// The engine target's pure parts: config, the private plan of Docker, Podman and nerdctl, the arguments of
// one run, what the engines say about themselves, the docker-archive manifest. Expectations are
// written out by hand from the inputs here.
import { describe, expect, test } from 'vitest';
import { ConfigSchema, criTargets } from '@runtime-bench/schemas';
import { parseConfig } from '../../../src/config/load.ts';
import { RbError } from '../../../src/errors.ts';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findEngine, installedBinDirs } from '../../../src/engine/engine.ts';
import { shimSockets } from '../../../src/engine/nerdctl-plan.ts';
import { engineKind } from '../../../src/engine/kind.ts';
import { onPath } from '../../support/host.ts';
import {
  parseEngineDaemon,
  parseEngineInfo,
  parseUlimits,
  planEngine,
  runArgs,
} from '../../../src/engine/plan.ts';
import type { EnginePlan } from '../../../src/engine/engine-plan.ts';
import { dockerArchiveManifest } from '../../../src/stack/images/layout.ts';

const runtimes = [
  { name: 'runc', binary: '/usr/sbin/runc' },
  { name: 'crun', binary: '/usr/bin/crun' },
];
const DAEMONS = {
  docker: '/usr/sbin/dockerd',
  podman: null,
  nerdctl: '/opt/runtime-bench/containerd/2.1.9/bin/containerd',
};
const plan = (engine: 'docker' | 'podman' | 'nerdctl'): EnginePlan =>
  planEngine({
    engine,
    cli: `/usr/bin/${engine}`,
    daemon: DAEMONS[engine],
    root: '/var/lib/runtime-bench/e/0123abcd/0',
    runId: '20261126T212748Z-0123abcd',
    runtimes,
    ulimits: { nofile: 20000, nproc: 32768 },
    path: '/usr/sbin:/usr/bin',
  });

/** Every absolute path among the arguments, files and environment of a plan. */
function pathsOf(p: EnginePlan): string[] {
  const words = [
    ...p.globalArgs,
    ...(p.daemon?.args ?? []),
    ...Object.entries(p.env)
      .filter(([k]) => k !== 'PATH')
      .map(([, v]) => v),
    ...p.files.flatMap((f) => [f.path, ...f.content.split(/["\s=]+/)]),
    ...p.dirs,
  ];
  return words
    .map((w) => w.replace(/^unix:\/\//, ''))
    .flatMap((w) => w.match(/\/[\w./-]+/g) ?? [])
    .filter((w) => w.length > 1);
}

describe('the engine target in the config', () => {
  test('defaults and errors name the field', () => {
    const config = ConfigSchema.parse({
      targets: [{ kind: 'engine', engine: 'podman', runtimes: ['crun'] }],
    });
    expect(config.targets[0]).toEqual({ kind: 'engine', engine: 'podman', runtimes: ['crun'] });
    expect(criTargets(config.targets)).toEqual([]);
    expect(() =>
      parseConfig('targets:\n  - { kind: engine, engine: lxc, runtimes: [runc] }\n', 'e.yaml'),
    ).toThrow(/targets\[0\]\.engine/);
    expect(() =>
      parseConfig('targets:\n  - { kind: engine, engine: docker, runtimes: [runc, runc] }\n', 'e.yaml'),
    ).toThrow(/runtimes/);
  });

  test('containerd: a version for nerdctl targets only', () => {
    const config = ConfigSchema.parse({
      targets: [{ kind: 'engine', engine: 'nerdctl', containerd: '1.7.35', runtimes: ['runc'] }],
    });
    expect(config.targets[0]).toMatchObject({ engine: 'nerdctl', containerd: '1.7.35' });
    expect(() =>
      parseConfig(
        'targets:\n  - { kind: engine, engine: docker, containerd: 1.7.35, runtimes: [runc] }\n',
        'e.yaml',
      ),
    ).toThrow(/targets\[0\]\.containerd: containerd is a choice of nerdctl targets only/);
    expect(() =>
      parseConfig(
        'targets:\n  - { kind: engine, engine: nerdctl, containerd: latest, runtimes: [runc] }\n',
        'e.yaml',
      ),
    ).toThrow(/targets\[0\]\.containerd: a containerd version, e\.g\. 1\.7\.35/);
  });

  test('engine targets run alone and only engine.* benchmarks', () => {
    const mixed = ConfigSchema.parse({
      targets: [{ kind: 'engine', engine: 'docker', runtimes: ['runc'] }, { stack: 'a' }],
      benchmarks: ['engine'],
    });
    expect(() => engineKind(mixed, 'e.yaml')).toThrow(
      /e\.yaml: targets: engine targets run in a config of their own/,
    );
    const cri = ConfigSchema.parse({
      targets: [{ kind: 'engine', engine: 'docker', runtimes: ['runc'] }],
      benchmarks: ['startup'],
    });
    expect(() => engineKind(cri, 'e.yaml')).toThrow(/selects no benchmark an engine target runs/);
  });
});

describe('planEngine', () => {
  test.each(['docker', 'podman', 'nerdctl'] as const)(
    '%s: every path is below the private root (nothing of /etc, /run)',
    (engine) => {
      const p = plan(engine);
      const outside = pathsOf(p).filter((w) => !w.startsWith(p.root) && !w.startsWith('/usr/'));
      // Docker's cgroup parent is a cgroup path, not a file, named for the run (Podman's and
      // nerdctl's are arguments of each run).
      expect(outside).toEqual(engine === 'docker' ? [`/${p.cgroupName}`] : []);
      expect(p.cgroupName).toBe(`rb-engine-0123abcd-${engine}`);
      // Only the shim's runc state of nerdctl's own namespace lies outside, and the teardown removes it.
      expect(p.leftovers).toEqual(engine === 'nerdctl' ? ['/run/containerd/runc/rb-0123abcd-0'] : []);
    },
  );

  test('nerdctl: a private containerd without CRI or NRI; its namespace, data root and CNI directories', () => {
    const p = plan('nerdctl');
    const root = '/var/lib/runtime-bench/e/0123abcd/0';
    expect(p.globalArgs).toEqual([
      '--address',
      `unix://${root}/containerd.sock`,
      '--namespace',
      'rb-0123abcd-0',
      '--data-root',
      `${root}/nerdctl`,
      '--cgroup-manager',
      'cgroupfs',
      '--snapshotter',
      'overlayfs',
      '--cni-path',
      '/usr/lib/cni',
      '--cni-netconfpath',
      `${root}/cni`,
    ]);
    expect(p.daemon).toEqual({
      binary: '/opt/runtime-bench/containerd/2.1.9/bin/containerd',
      args: ['--config', `${root}/containerd.toml`],
      pidfile: `${root}/containerd.pid`,
      log: `${root}/containerd.log`,
      writesPidfile: false,
    });
    const toml = p.files.find((f) => f.path.endsWith('containerd.toml'))!.content;
    expect(toml).toContain(`root = "${root}/containerd"`);
    expect(toml).toContain(`state = "${root}/state"`);
    expect(toml).toMatch(
      /disabled_plugins = \[.*"io\.containerd\.grpc\.v1\.cri".*"io\.containerd\.nri\.v1\.nri"\]/,
    );
    // The shim beside this containerd is the one containerd finds first.
    expect(p.env.PATH).toBe('/opt/runtime-bench/containerd/2.1.9/bin:/usr/sbin:/usr/bin');
    expect(p.env.NERDCTL_TOML).toBe(`${root}/nerdctl.toml`);
  });

  test('docker: a private daemon without bridge or iptables; crun added by path, runc built in', () => {
    const p = plan('docker');
    expect(p.globalArgs).toEqual(['--host', 'unix:///var/lib/runtime-bench/e/0123abcd/0/docker.sock']);
    const args = p.daemon!.args;
    for (const flag of ['--bridge=none', '--iptables=false', '--ip6tables=false', '--ip-forward=false'])
      expect(args).toContain(flag);
    expect(args.filter((a, i) => args[i - 1] === '--add-runtime')).toEqual(['crun=/usr/bin/crun']);
    expect(p.env.DOCKER_CONFIG).toBe('/var/lib/runtime-bench/e/0123abcd/0/cli');
  });

  test('podman: private storage and configuration files; runtimes by name in containers.conf', () => {
    const p = plan('podman');
    expect(p.daemon).toBeNull();
    const conf = p.files.find((f) => f.path.endsWith('containers.conf'))!.content;
    expect(conf).toContain('runc = ["/usr/sbin/runc"]');
    expect(conf).toContain('crun = ["/usr/bin/crun"]');
    // Podman refuses a runroot over 50 characters.
    const runroot = p.globalArgs[p.globalArgs.indexOf('--runroot') + 1]!;
    expect(runroot.length).toBeLessThanOrEqual(50);
  });

  test('run arguments: --rm, the runtime, no network, the run label; podman with the caller’s limits', () => {
    expect(runArgs(plan('docker'), 'crun', 'img', ['/bin/true'], 'r1').slice(2)).toEqual([
      'run',
      '--rm',
      '--runtime',
      'crun',
      '--network',
      'none',
      '--label',
      'runtime-bench.run=r1',
      'img',
      '/bin/true',
    ]);
    expect(runArgs(plan('docker'), 'runc', 'img', ['/bin/true'], 'r1', 262144).slice(-4)).toEqual([
      '--memory',
      '262144b',
      'img',
      '/bin/true',
    ]);
    const podman = runArgs(plan('podman'), 'runc', 'img', ['/bin/true'], 'r1');
    expect(podman.slice(-8)).toEqual([
      '--ulimit',
      'nofile=20000:20000',
      '--ulimit',
      'nproc=32768:32768',
      '--cgroup-parent',
      '/rb-engine-0123abcd-podman',
      'img',
      '/bin/true',
    ]);
    // nerdctl: the runtime by path (the runc shim runs it), below the run's cgroup.
    expect(runArgs(plan('nerdctl'), 'crun', 'img', ['/bin/true'], 'r1').slice(14)).toEqual([
      'run',
      '--rm',
      '--runtime',
      '/usr/bin/crun',
      '--network',
      'none',
      '--label',
      'runtime-bench.run=r1',
      '--cgroup-parent',
      '/rb-engine-0123abcd-nerdctl',
      'img',
      '/bin/true',
    ]);
  });
});

test('parseUlimits: the hard limits, NPROC at most 32768', () => {
  const limits = `Limit                     Soft Limit           Hard Limit           Units
Max processes             96365                96365                processes
Max open files            1024                 20000                files
`;
  expect(parseUlimits(limits)).toEqual({ nofile: 20000, nproc: 32768 });
  expect(parseUlimits(limits.replace(/96365/g, '4096'))).toEqual({ nofile: 20000, nproc: 4096 });
});

test('parseEngineInfo: docker and podman', () => {
  expect(
    parseEngineInfo(
      'docker',
      JSON.stringify({ ServerVersion: '20.10.24+dfsg1', Driver: 'overlay2', CgroupDriver: 'cgroupfs' }),
    ),
  ).toEqual({
    version: '20.10.24+dfsg1',
    storageDriver: 'overlay2',
    cgroupManager: 'cgroupfs',
    networkBackend: 'none',
  });
  expect(
    parseEngineInfo(
      'podman',
      JSON.stringify({
        host: { cgroupManager: 'cgroupfs', networkBackend: 'cni' },
        store: { graphDriverName: 'overlay' },
        version: { Version: '4.3.1' },
      }),
    ),
  ).toEqual({ version: '4.3.1', storageDriver: 'overlay', cgroupManager: 'cgroupfs', networkBackend: 'cni' });
  expect(parseEngineInfo('podman', '{}').version).toBe('unknown');
});

test('parseEngineInfo and parseEngineDaemon: nerdctl with its containerd', () => {
  const version = JSON.stringify({
    Client: { Version: 'v2.1.3', GitCommit: 'ff9323859a8d7892d8d72380a17b99395ef9a516' },
    Server: {
      Components: [
        { Name: 'containerd', Version: 'v2.1.9' },
        { Name: 'runc', Version: '1.3.6' },
      ],
    },
  });
  const info = JSON.stringify({ ServerVersion: 'v2.1.9', Driver: 'overlayfs', CgroupDriver: 'cgroupfs' });
  expect(parseEngineInfo('nerdctl', info, version)).toEqual({
    version: '2.1.3',
    storageDriver: 'overlayfs',
    cgroupManager: 'cgroupfs',
    networkBackend: 'none',
  });
  expect(parseEngineDaemon(version)).toEqual({ name: 'containerd', version: '2.1.9' });
  expect(parseEngineDaemon(JSON.stringify({ Client: {} }))).toBeNull();
});

test('dockerArchiveManifest: one entry per named image, blobs by digest', () => {
  const index = {
    manifests: [
      { digest: 'sha256:m1', annotations: { 'org.opencontainers.image.ref.name': 'localhost/a:latest' } },
    ],
  };
  const manifests: Record<string, { config: { digest: string }; layers: { digest: string }[] }> = {
    'sha256:m1': {
      config: { digest: 'sha256:c1' },
      layers: [{ digest: 'sha256:l1' }, { digest: 'sha256:l2' }],
    },
  };
  expect(dockerArchiveManifest(index, (d) => manifests[d]!)).toEqual([
    {
      Config: 'blobs/sha256/c1',
      RepoTags: ['localhost/a:latest'],
      Layers: ['blobs/sha256/l1', 'blobs/sha256/l2'],
    },
  ]);
  expect(() => dockerArchiveManifest({ manifests: [{ digest: 'sha256:m1' }] }, (d) => manifests[d]!)).toThrow(
    /no image name/,
  );
});

describe('findEngine', () => {
  /** An executable placeholder at `path` (its directories made). */
  const put = (path: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
  };
  test('nerdctl not installed under the prefix nor on PATH: the field and how to install it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rb-prefix-'));
    const error = await findEngine('nerdctl', 'targets[2].engine', empty).catch((e: unknown) => e);
    if (onPath('nerdctl')) expect(error).not.toBeInstanceOf(Error);
    else {
      expect(error).toBeInstanceOf(RbError);
      expect((error as RbError).message).toMatch(
        /^targets\[2\]\.engine: nerdctl is not installed \(no nerdctl/,
      );
      expect((error as RbError).hint).toMatch(
        /^runtime-bench install --source go nerdctl@2\.1\.2 containerd@1\.7\.35 /,
      );
    }
  });
  test('installed versions under the prefix, newest first (semantic order, toolchain suffix ignored)', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'rb-prefix-'));
    for (const v of ['2.0.4+go1.23.12', '2.1.3+go1.24.11', '2.10.0+go1.25.1', '.build-1234'])
      mkdirSync(join(prefix, 'nerdctl', v, 'bin'), { recursive: true });
    expect(await installedBinDirs(prefix, 'nerdctl')).toEqual(
      ['2.10.0+go1.25.1', '2.1.3+go1.24.11', '2.0.4+go1.23.12'].map((v) => join(prefix, 'nerdctl', v, 'bin')),
    );
    expect(await installedBinDirs(prefix, 'containerd')).toEqual([]);
  });
  test('nerdctl: the newest installed nerdctl, and the newest containerd with its own runc shim beside it', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'rb-prefix-'));
    put(join(prefix, 'nerdctl', '2.1.3+go1.24.13', 'bin', 'nerdctl'));
    // 2.4.2 is a build of containerd alone; 2.1.9 has its shim.
    put(join(prefix, 'containerd', '2.4.2+go1.24.13', 'bin', 'containerd'));
    put(join(prefix, 'containerd', '2.1.9', 'bin', 'containerd'));
    put(join(prefix, 'containerd', '2.1.9', 'bin', 'containerd-shim-runc-v2'));
    expect(await findEngine('nerdctl', 'targets[0].engine', prefix)).toEqual({
      cli: join(prefix, 'nerdctl', '2.1.3+go1.24.13', 'bin', 'nerdctl'),
      daemon: join(prefix, 'containerd', '2.1.9', 'bin', 'containerd'),
    });
  });
  test('nerdctl with containerd pinned: exactly that installed version, or exit 2 naming the field and the install', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'rb-prefix-'));
    put(join(prefix, 'nerdctl', '2.1.3+go1.24.13', 'bin', 'nerdctl'));
    for (const v of ['2.0.14+go1.25.14', '1.7.35+go1.25.14']) {
      put(join(prefix, 'containerd', v, 'bin', 'containerd'));
      put(join(prefix, 'containerd', v, 'bin', 'containerd-shim-runc-v2'));
    }
    // 1.7.24 has no shim of its own: never taken, even when named.
    put(join(prefix, 'containerd', '1.7.24', 'bin', 'containerd'));
    const pin = (version: string) => ({ version, field: 'targets[1].containerd' });
    for (const v of ['1.7.35', 'v1.7.35'])
      expect((await findEngine('nerdctl', 'targets[1].engine', prefix, pin(v))).daemon).toBe(
        join(prefix, 'containerd', '1.7.35+go1.25.14', 'bin', 'containerd'),
      );
    for (const v of ['1.7.24', '2.1.9']) {
      const error = (await findEngine('nerdctl', 'targets[1].engine', prefix, pin(v)).catch(
        (e: unknown) => e,
      )) as RbError;
      expect(error).toBeInstanceOf(RbError);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `targets[1].containerd: containerd ${v} is not installed under ${prefix}/containerd (with its runc shim); installed: 2.0.14, 1.7.35`,
      );
      expect(error.hint).toMatch(
        new RegExp(`^runtime-bench install --source go containerd@${v.replace(/\./g, '\\.')},`),
      );
    }
  });
});

describe('shimSockets', () => {
  test("a runc shim's sockets under /run/containerd/s: sha256 of address/namespace/id (and …/debug), by sha256sum", () => {
    const cmdline = [
      '/opt/runtime-bench/containerd/1.7.35+go1.25.14/bin/containerd-shim-runc-v2',
      '-namespace',
      'rb-0123abcd-2',
      '-id',
      '5f2c',
      '-address',
      '/var/lib/runtime-bench/e/0123abcd/2/containerd.sock',
    ];
    // printf '%s' "<address>/<namespace>/<id>[/debug]" | sha256sum
    expect(shimSockets(cmdline)).toEqual([
      '/run/containerd/s/195c768707d32cbf91ca0f5cfd78838f8ffed7deff1f38b72d67a2a1cf3ab153',
      '/run/containerd/s/21f59207edcd4d8e5ad63b13cf823fbf204c57f77e4e3bef0af42e2bb8ffce96',
    ]);
    expect(shimSockets(['/usr/bin/conmon', '-id', '5f2c'])).toEqual([]);
    expect(shimSockets(cmdline.slice(0, 5))).toEqual([]);
  });
});
